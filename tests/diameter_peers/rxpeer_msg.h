/*
 * rxpeer_msg.h - reading values out of (parsed) freeDiameter messages, and the text forms of
 * the Rx UE-address AVPs.
 *
 * AVP lookups compare code and vendor of the AVP headers, so they work on any message; values
 * are only available once the message has been dictionary-parsed (dispatch callbacks and answer
 * callbacks always see parsed messages; hooks may not).
 */
#ifndef RXPEER_MSG_H
#define RXPEER_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "gateways/diameter/rx_dict.h"

/* Result of an answer: Result-Code and/or Experimental-Result. */
struct rxpeer_result {
	int has_rc;
	uint32_t rc;
	int has_exp;
	uint32_t exp_vendor;
	uint32_t exp_code;
};

/* First top-level AVP with this code/vendor, or NULL. */
struct avp *rxpeer_msg_find(struct msg *m, uint32_t code, uint32_t vendor);
/* First child AVP of a grouped AVP with this code/vendor, or NULL. */
struct avp *rxpeer_avp_find_child(struct avp *grouped, uint32_t code, uint32_t vendor);

/* Value accessors: return 0 on success, ENOENT if the AVP is absent or not parsed. */
int rxpeer_avp_os(struct avp *a, const uint8_t **data, size_t *len);
int rxpeer_avp_u32(struct avp *a, uint32_t *v);

int rxpeer_msg_result(struct msg *m, struct rxpeer_result *res);
/* The effective code: Experimental-Result-Code if present, else Result-Code, else 0. */
uint32_t rxpeer_result_code(const struct rxpeer_result *res);

/* Copy the Session-Id (NUL-terminated, truncated to size-1). Returns 0 or ENOENT. */
int rxpeer_msg_session_id(struct msg *m, char *buf, size_t size);

/* "10.0.0.1" -> 4 bytes. Returns 0 or EINVAL. */
int rxpeer_ipv4_parse(const char *text, uint8_t out[4]);
/*
 * "2001:db8::/64" -> RFC 3162 Framed-IPv6-Prefix value: reserved(1) prefix-length(1) prefix.
 * compact != 0 writes only ceil(len/8) prefix bytes, else all 16. *outlen is set. 0 or EINVAL.
 */
int rxpeer_ipv6_prefix_parse(const char *text, int compact, uint8_t out[18], size_t *outlen);
/* Reverse of the above. Returns 0, or EINVAL if the value is malformed. */
int rxpeer_ipv6_prefix_format(const uint8_t *v, size_t len, char *buf, size_t size);

#endif /* RXPEER_MSG_H */
