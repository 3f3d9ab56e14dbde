/* rxpeer_msg.c - see rxpeer_msg.h */
#include "rxpeer_msg.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Walk siblings starting at `first` and return the first matching AVP. */
static struct avp *rxpeer_avp_scan(struct avp *first, uint32_t code, uint32_t vendor)
{
	struct avp *a = first;
	while (a != NULL) {
		struct avp_hdr *h = NULL;
		if (fd_msg_avp_hdr(a, &h) == 0 && h->avp_code == code &&
		    ((h->avp_flags & AVP_FLAG_VENDOR) ? h->avp_vendor : 0) == vendor)
			return a;
		if (fd_msg_browse(a, MSG_BRW_NEXT, &a, NULL) != 0)
			return NULL;
	}
	return NULL;
}

struct avp *rxpeer_msg_find(struct msg *m, uint32_t code, uint32_t vendor)
{
	struct avp *first = NULL;
	if (m == NULL || fd_msg_browse(m, MSG_BRW_FIRST_CHILD, &first, NULL) != 0)
		return NULL;
	return rxpeer_avp_scan(first, code, vendor);
}

struct avp *rxpeer_avp_find_child(struct avp *grouped, uint32_t code, uint32_t vendor)
{
	struct avp *first = NULL;
	if (grouped == NULL || fd_msg_browse(grouped, MSG_BRW_FIRST_CHILD, &first, NULL) != 0)
		return NULL;
	return rxpeer_avp_scan(first, code, vendor);
}

int rxpeer_avp_os(struct avp *a, const uint8_t **data, size_t *len)
{
	struct avp_hdr *h = NULL;
	if (a == NULL || fd_msg_avp_hdr(a, &h) != 0 || h->avp_value == NULL)
		return ENOENT;
	*data = h->avp_value->os.data;
	*len = h->avp_value->os.len;
	return 0;
}

int rxpeer_avp_u32(struct avp *a, uint32_t *v)
{
	struct avp_hdr *h = NULL;
	if (a == NULL || fd_msg_avp_hdr(a, &h) != 0 || h->avp_value == NULL)
		return ENOENT;
	*v = h->avp_value->u32;
	return 0;
}

int rxpeer_msg_result(struct msg *m, struct rxpeer_result *res)
{
	memset(res, 0, sizeof(*res));
	if (rxpeer_avp_u32(rxpeer_msg_find(m, AC_RESULT_CODE, 0), &res->rc) == 0)
		res->has_rc = 1;
	struct avp *er = rxpeer_msg_find(m, 297, 0);
	if (er != NULL && rxpeer_avp_u32(rxpeer_avp_find_child(er, 298, 0), &res->exp_code) == 0) {
		res->has_exp = 1;
		if (rxpeer_avp_u32(rxpeer_avp_find_child(er, AC_VENDOR_ID, 0), &res->exp_vendor) != 0)
			res->exp_vendor = 0;
	}
	return (res->has_rc || res->has_exp) ? 0 : ENOENT;
}

uint32_t rxpeer_result_code(const struct rxpeer_result *res)
{
	if (res->has_exp)
		return res->exp_code;
	if (res->has_rc)
		return res->rc;
	return 0;
}

int rxpeer_msg_session_id(struct msg *m, char *buf, size_t size)
{
	const uint8_t *d;
	size_t n;
	if (size == 0)
		return EINVAL;
	buf[0] = '\0';
	if (rxpeer_avp_os(rxpeer_msg_find(m, AC_SESSION_ID, 0), &d, &n) != 0)
		return ENOENT;
	if (n >= size)
		n = size - 1;
	memcpy(buf, d, n);
	buf[n] = '\0';
	return 0;
}

int rxpeer_ipv4_parse(const char *text, uint8_t out[4])
{
	struct in_addr a;
	if (text == NULL || inet_pton(AF_INET, text, &a) != 1)
		return EINVAL;
	memcpy(out, &a, 4);
	return 0;
}

int rxpeer_ipv6_prefix_parse(const char *text, int compact, uint8_t out[18], size_t *outlen)
{
	char addr[INET6_ADDRSTRLEN + 1];
	const char *slash;
	unsigned long plen = 128;
	struct in6_addr a;

	if (text == NULL)
		return EINVAL;
	slash = strchr(text, '/');
	size_t alen = slash ? (size_t)(slash - text) : strlen(text);
	if (alen == 0 || alen >= sizeof addr)
		return EINVAL;
	memcpy(addr, text, alen);
	addr[alen] = '\0';
	if (slash) {
		char *end = NULL;
		errno = 0;
		plen = strtoul(slash + 1, &end, 10);
		if (errno != 0 || end == slash + 1 || *end != '\0' || plen > 128)
			return EINVAL;
	}
	if (inet_pton(AF_INET6, addr, &a) != 1)
		return EINVAL;
	/* RFC 3162: bits beyond the prefix length must be zero. */
	for (unsigned i = 0; i < 16; i++) {
		unsigned bit0 = i * 8;
		if (bit0 >= plen)
			a.s6_addr[i] = 0;
		else if (bit0 + 8 > plen)
			a.s6_addr[i] &= (uint8_t)(0xff << (8 - (plen - bit0)));
	}
	out[0] = 0;
	out[1] = (uint8_t)plen;
	size_t nbytes = compact ? (plen + 7) / 8 : 16;
	memcpy(out + 2, a.s6_addr, nbytes);
	*outlen = 2 + nbytes;
	return 0;
}

int rxpeer_ipv6_prefix_format(const uint8_t *v, size_t len, char *buf, size_t size)
{
	struct in6_addr a;
	char addr[INET6_ADDRSTRLEN];

	if (len < 2 || len > 18 || v[1] > 128 || (len - 2) * 8 < v[1])
		return EINVAL;
	memset(&a, 0, sizeof a);
	memcpy(a.s6_addr, v + 2, len - 2);
	if (inet_ntop(AF_INET6, &a, addr, sizeof addr) == NULL)
		return EINVAL;
	if ((size_t)snprintf(buf, size, "%s/%u", addr, v[1]) >= size)
		return EINVAL;
	return 0;
}
