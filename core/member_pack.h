/* Writers for members of 3GPP JSON objects, as msgpack, shared by the encoders of the
 * PcfBinding, PcfForUeBinding, PcfMbsBinding and subscription documents. Pure; any thread.
 * Each returns 0, or non-zero when the packer fails (out of memory). */
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
/* An Snssai object (sst, and sd as 6 upper-case hex digits when it has one). */
int bsf_pack_snssai(msgpack_packer *pk, const bsf_snssai_t *s);

/* Writes one array item (of the array's type) at `item`. */
typedef int (*bsf_pack_item_fn)(msgpack_packer *pk, const void *item);
/* The member `key`: an array of the `n` items of `size` bytes at `items`, each written by
 * `pack`; nothing is written when n is 0. */
int bsf_pack_array_opt(msgpack_packer *pk, const char *key, const void *items, size_t n,
                       size_t size, bsf_pack_item_fn pack);

#endif
