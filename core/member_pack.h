/* Writers for members of 3GPP JSON objects, as msgpack, shared by the encoders of the
 * PcfForUeBinding and PcfMbsBinding documents. Pure; any thread. Each returns 0, or non-zero
 * when the packer fails (out of memory). */
#ifndef BSF_CORE_MEMBER_PACK_H
#define BSF_CORE_MEMBER_PACK_H

#include <msgpack.h>

#include "core/pcf_binding.h"

/* A NUL-terminated string. */
int bsf_pack_cstr(msgpack_packer *pk, const char *s);
/* The member `key`: `value`, when `value` is not NULL (nothing is written when it is). */
int bsf_pack_opt(msgpack_packer *pk, const char *key, const char *value);
/* An array of IpEndPoint objects (ipv4Address or ipv6Address, transport, port). */
int bsf_pack_end_points(msgpack_packer *pk, const bsf_ip_end_points_t *eps);

#endif
