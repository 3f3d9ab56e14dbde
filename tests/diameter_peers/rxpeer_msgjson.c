/* rxpeer_msgjson.c - see rxpeer_msgjson.h */
#include "rxpeer_msgjson.h"

#include <stdio.h>
#include <string.h>

#include "rxpeer_msg.h"

#define RXPEER_MAX_RR 32

/* Printable ASCII only: anything else is written as hex under "<key>_hex". */
static void rxpeer_json_os(struct rxpeer_json *j, const char *key, const uint8_t *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (d[i] < 0x20 || d[i] >= 0x7f) {
			if (key == NULL) { /* array element: the hex text alone */
				rxpeer_json_hex(j, NULL, d, n);
				return;
			}
			char k[64];
			snprintf(k, sizeof k, "%s_hex", key);
			rxpeer_json_hex(j, k, d, n);
			return;
		}
	}
	rxpeer_json_strn(j, key, d, n);
}

static struct avp_hdr *rxpeer_hdr(struct avp *a)
{
	struct avp_hdr *h = NULL;
	if (fd_msg_avp_hdr(a, &h) != 0)
		return NULL;
	return h;
}

static uint32_t rxpeer_vendor(const struct avp_hdr *h)
{
	return (h->avp_flags & AVP_FLAG_VENDOR) ? h->avp_vendor : 0;
}

static struct avp *rxpeer_next(struct avp *a, enum msg_brw_dir dir)
{
	struct avp *n = NULL;
	if (fd_msg_browse(a, dir, &n, NULL) != 0)
		return NULL;
	return n;
}

static void rxpeer_json_u32_of(struct rxpeer_json *j, const char *key, struct avp *a)
{
	uint32_t v;
	if (rxpeer_avp_u32(a, &v) == 0)
		rxpeer_json_u64(j, key, v);
}

static void rxpeer_json_os_of(struct rxpeer_json *j, const char *key, struct avp *a)
{
	const uint8_t *d;
	size_t n;
	if (rxpeer_avp_os(a, &d, &n) == 0)
		rxpeer_json_os(j, key, d, n);
}

static void rxpeer_msgjson_framed_ip(struct rxpeer_json *j, const struct avp_hdr *h)
{
	const uint8_t *d = h->avp_value->os.data;
	size_t n = h->avp_value->os.len;
	if (n == 4) {
		char b[16];
		snprintf(b, sizeof b, "%u.%u.%u.%u", d[0], d[1], d[2], d[3]);
		rxpeer_json_str(j, "framed_ip", b);
	} else {
		rxpeer_json_null(j, "framed_ip");
		rxpeer_json_hex(j, "framed_ip_hex", d, n);
		rxpeer_json_u64(j, "framed_ip_len", n);
	}
}

static void rxpeer_msgjson_ipv6_prefix(struct rxpeer_json *j, const struct avp_hdr *h)
{
	char b[64];
	if (rxpeer_ipv6_prefix_format(h->avp_value->os.data, h->avp_value->os.len, b, sizeof b) == 0) {
		rxpeer_json_str(j, "framed_ipv6_prefix", b);
	} else {
		rxpeer_json_null(j, "framed_ipv6_prefix");
		rxpeer_json_hex(j, "framed_ipv6_prefix_hex", h->avp_value->os.data, h->avp_value->os.len);
	}
}

static void rxpeer_msgjson_exp_result(struct rxpeer_json *j, struct avp *a)
{
	rxpeer_json_obj_begin(j, "experimental_result");
	rxpeer_json_u32_of(j, "vendor_id", rxpeer_avp_find_child(a, AC_VENDOR_ID, 0));
	rxpeer_json_u32_of(j, "code", rxpeer_avp_find_child(a, 298, 0));
	rxpeer_json_obj_end(j);
}

/* An array `key` of {code, vendor} for `first` and the AVPs after it, but `skip` (NULL:
 * none): the "avps" of a message and the children of a Failed-AVP. */
static void rxpeer_msgjson_codes_list(struct rxpeer_json *j, const char *key, struct avp *first,
				      const struct avp *skip)
{
	rxpeer_json_arr_begin(j, key);
	for (struct avp *a = first; a; a = rxpeer_next(a, MSG_BRW_NEXT)) {
		struct avp_hdr *h = rxpeer_hdr(a);
		if (h == NULL || a == skip)
			continue;
		rxpeer_json_obj_begin(j, NULL);
		rxpeer_json_u64(j, "code", h->avp_code);
		rxpeer_json_u64(j, "vendor", rxpeer_vendor(h));
		rxpeer_json_obj_end(j);
	}
	rxpeer_json_arr_end(j);
}

/* An array `key` of each(j, c) for the children c of `group` with this 3GPP AVP code. */
static void rxpeer_msgjson_3gpp_list(struct rxpeer_json *j, const char *key, struct avp *group,
				     uint32_t code, void (*each)(struct rxpeer_json *, struct avp *))
{
	rxpeer_json_arr_begin(j, key);
	for (struct avp *c = rxpeer_next(group, MSG_BRW_FIRST_CHILD); c; c = rxpeer_next(c, MSG_BRW_NEXT)) {
		struct avp_hdr *h = rxpeer_hdr(c);
		if (h && h->avp_code == code && rxpeer_vendor(h) == BSF_RX_VENDOR_3GPP)
			each(j, c);
	}
	rxpeer_json_arr_end(j);
}

/* An octet-string AVP's value as an array item (nothing when it has none). */
static void rxpeer_msgjson_os_item(struct rxpeer_json *j, struct avp *a)
{
	rxpeer_json_os_of(j, NULL, a);
}

static void rxpeer_msgjson_sub_component(struct rxpeer_json *j, struct avp *msc)
{
	rxpeer_json_obj_begin(j, NULL);
	rxpeer_json_u32_of(j, "flow_number", rxpeer_avp_find_child(msc, 509, BSF_RX_VENDOR_3GPP));
	rxpeer_json_u32_of(j, "flow_usage", rxpeer_avp_find_child(msc, 512, BSF_RX_VENDOR_3GPP));
	rxpeer_msgjson_3gpp_list(j, "flow_descriptions", msc, 507, rxpeer_msgjson_os_item);
	rxpeer_json_obj_end(j);
}

static void rxpeer_msgjson_media_component(struct rxpeer_json *j, struct avp *mcd)
{
	rxpeer_json_obj_begin(j, NULL);
	rxpeer_json_u32_of(j, "number", rxpeer_avp_find_child(mcd, 518, BSF_RX_VENDOR_3GPP));
	rxpeer_json_u32_of(j, "media_type", rxpeer_avp_find_child(mcd, 520, BSF_RX_VENDOR_3GPP));
	rxpeer_json_u32_of(j, "flow_status", rxpeer_avp_find_child(mcd, 511, BSF_RX_VENDOR_3GPP));
	rxpeer_json_u32_of(j, "max_bw_ul", rxpeer_avp_find_child(mcd, 516, BSF_RX_VENDOR_3GPP));
	rxpeer_json_u32_of(j, "max_bw_dl", rxpeer_avp_find_child(mcd, 515, BSF_RX_VENDOR_3GPP));
	rxpeer_msgjson_3gpp_list(j, "sub_components", mcd, 519, rxpeer_msgjson_sub_component);
	rxpeer_json_obj_end(j);
}

static void rxpeer_msgjson_subscription_id(struct rxpeer_json *j, struct avp *a)
{
	rxpeer_json_obj_begin(j, NULL);
	rxpeer_json_u32_of(j, "type", rxpeer_avp_find_child(a, 450, 0));
	rxpeer_json_os_of(j, "data", rxpeer_avp_find_child(a, 444, 0));
	rxpeer_json_obj_end(j);
}

static void rxpeer_msgjson_supported_features(struct rxpeer_json *j, struct avp *a)
{
	rxpeer_json_obj_begin(j, NULL);
	rxpeer_json_u32_of(j, "vendor_id", rxpeer_avp_find_child(a, AC_VENDOR_ID, 0));
	rxpeer_json_u32_of(j, "feature_list_id", rxpeer_avp_find_child(a, 629, BSF_RX_VENDOR_3GPP));
	rxpeer_json_u32_of(j, "feature_list", rxpeer_avp_find_child(a, 630, BSF_RX_VENDOR_3GPP));
	rxpeer_json_obj_end(j);
}

/* Header members. */
static void rxpeer_msgjson_header(struct rxpeer_json *j, struct msg *m)
{
	struct msg_hdr *h = NULL;
	char flags[5];
	size_t k = 0;

	if (fd_msg_hdr(m, &h) != 0)
		return;
	if (h->msg_flags & CMD_FLAG_REQUEST) flags[k++] = 'R';
	if (h->msg_flags & CMD_FLAG_PROXIABLE) flags[k++] = 'P';
	if (h->msg_flags & CMD_FLAG_ERROR) flags[k++] = 'E';
	if (h->msg_flags & CMD_FLAG_RETRANSMIT) flags[k++] = 'T';
	flags[k] = '\0';

	int req = (h->msg_flags & CMD_FLAG_REQUEST) != 0;
	rxpeer_json_str(j, "cmd", bsf_rx_dict_cmd_name(h->msg_code, req));
	rxpeer_json_u64(j, "code", h->msg_code);
	rxpeer_json_u64(j, "app", h->msg_appl);
	rxpeer_json_str(j, "flags", flags);
	rxpeer_json_bool(j, "request", req);
	rxpeer_json_u64(j, "hbh", h->msg_hbhid);
	rxpeer_json_u64(j, "e2e", h->msg_eteid);

	DiamId_t src = NULL;
	size_t srclen = 0;
	if (fd_msg_source_get(m, &src, &srclen) == 0 && src != NULL)
		rxpeer_json_strn(j, "peer", src, srclen);
}

/* One top-level AVP with a parsed value: emit its dedicated member, if it has one. */
static void rxpeer_msgjson_known(struct rxpeer_json *j, const struct avp_hdr *h)
{
	const union avp_value *v = h->avp_value;
	uint32_t vendor = rxpeer_vendor(h);

	if (vendor == 0) {
		switch (h->avp_code) {
		case AC_SESSION_ID: rxpeer_json_os(j, "session_id", v->os.data, v->os.len); return;
		case AC_ORIGIN_HOST: rxpeer_json_os(j, "origin_host", v->os.data, v->os.len); return;
		case AC_ORIGIN_REALM: rxpeer_json_os(j, "origin_realm", v->os.data, v->os.len); return;
		case AC_DESTINATION_HOST: rxpeer_json_os(j, "destination_host", v->os.data, v->os.len); return;
		case AC_DESTINATION_REALM: rxpeer_json_os(j, "destination_realm", v->os.data, v->os.len); return;
		case AC_AUTH_APPLICATION_ID: rxpeer_json_u64(j, "auth_application_id", v->u32); return;
		case AC_RESULT_CODE: rxpeer_json_u64(j, "result_code", v->u32); return;
		case AC_ERROR_MESSAGE: rxpeer_json_os(j, "error_message", v->os.data, v->os.len); return;
		case AC_ERROR_REPORTING_HOST: rxpeer_json_os(j, "error_reporting_host", v->os.data, v->os.len); return;
		case AC_ORIGIN_STATE_ID: rxpeer_json_u64(j, "origin_state_id", v->u32); return;
		case 8: rxpeer_msgjson_framed_ip(j, h); return;
		case 97: rxpeer_msgjson_ipv6_prefix(j, h); return;
		case 30: rxpeer_json_os(j, "called_station_id", v->os.data, v->os.len); return;
		case 274: rxpeer_json_i64(j, "auth_request_type", v->i32); return;
		case 277: rxpeer_json_i64(j, "auth_session_state", v->i32); return;
		case 285: rxpeer_json_i64(j, "re_auth_request_type", v->i32); return;
		case 295: rxpeer_json_i64(j, "termination_cause", v->i32); return;
		default: return;
		}
	}
	if (vendor == BSF_RX_VENDOR_3GPP) {
		switch (h->avp_code) {
		case 537: rxpeer_json_os(j, "ip_domain_id", v->os.data, v->os.len); return;
		case 504: rxpeer_json_os(j, "af_application_identifier", v->os.data, v->os.len); return;
		case 505: rxpeer_json_os(j, "af_charging_identifier", v->os.data, v->os.len); return;
		case 533: rxpeer_json_i64(j, "rx_request_type", v->i32); return;
		case 500: rxpeer_json_i64(j, "abort_cause", v->i32); return;
		case 527: rxpeer_json_i64(j, "service_info_status", v->i32); return;
		default: return;
		}
	}
	if (vendor == BSF_RX_COOKIE_VENDOR && h->avp_code == BSF_RX_COOKIE_CODE)
		rxpeer_json_os(j, "ocnf_service_cookie", v->os.data, v->os.len);
}

/* Members that collect several AVPs into one array, or grouped AVPs. */
struct rxpeer_msgjson_lists {
	struct avp *exp_result;
	struct avp *failed_avp;
	struct avp *first_mcd, *first_spec, *first_sub, *first_sf;
	const uint8_t *rr[RXPEER_MAX_RR];
	size_t rr_len[RXPEER_MAX_RR];
	size_t n_rr;
};

static void rxpeer_msgjson_list_of(struct rxpeer_json *j, const char *key, struct avp *first,
    uint32_t code, uint32_t vendor, void (*emit)(struct rxpeer_json *, struct avp *))
{
	if (first == NULL)
		return;
	rxpeer_json_arr_begin(j, key);
	for (struct avp *a = first; a; a = rxpeer_next(a, MSG_BRW_NEXT)) {
		struct avp_hdr *h = rxpeer_hdr(a);
		if (h && h->avp_code == code && rxpeer_vendor(h) == vendor)
			emit(j, a);
	}
	rxpeer_json_arr_end(j);
}

static void rxpeer_msgjson_specific_action(struct rxpeer_json *j, struct avp *a)
{
	struct avp_hdr *h = rxpeer_hdr(a);
	if (h && h->avp_value)
		rxpeer_json_i64(j, NULL, h->avp_value->i32);
}

void rxpeer_msgjson_fields(struct rxpeer_json *j, struct msg *m)
{
	struct rxpeer_msgjson_lists l;
	struct avp *first = NULL, *last = NULL;
	int last_is_local_rr = 0;

	memset(&l, 0, sizeof l);
	rxpeer_msgjson_header(j, m);
	if (fd_msg_browse(m, MSG_BRW_FIRST_CHILD, &first, NULL) != 0)
		return;

	/* freeDiameter appends Route-Record(<sender>) as the last AVP of every routable message it
	 * receives; detect it so that "route_record" shows only what was on the wire. */
	for (struct avp *a = first; a; a = rxpeer_next(a, MSG_BRW_NEXT))
		last = a;
	if (last != NULL) {
		struct avp_hdr *h = rxpeer_hdr(last);
		DiamId_t src = NULL;
		size_t srclen = 0;
		if (h && h->avp_code == AC_ROUTE_RECORD && rxpeer_vendor(h) == 0 && h->avp_value &&
		    fd_msg_source_get(m, &src, &srclen) == 0 && src != NULL &&
		    h->avp_value->os.len == srclen && memcmp(h->avp_value->os.data, src, srclen) == 0)
			last_is_local_rr = 1;
	}

	for (struct avp *a = first; a; a = rxpeer_next(a, MSG_BRW_NEXT)) {
		struct avp_hdr *h = rxpeer_hdr(a);
		if (h == NULL)
			continue;
		uint32_t vendor = rxpeer_vendor(h);
		if (vendor == 0 && h->avp_code == 297) { l.exp_result = a; continue; }
		if (vendor == 0 && h->avp_code == AC_FAILED_AVP) { l.failed_avp = a; continue; }
		if (vendor == 0 && h->avp_code == 443) { if (!l.first_sub) l.first_sub = a; continue; }
		if (vendor == BSF_RX_VENDOR_3GPP && h->avp_code == 517) { if (!l.first_mcd) l.first_mcd = a; continue; }
		if (vendor == BSF_RX_VENDOR_3GPP && h->avp_code == 513) { if (!l.first_spec) l.first_spec = a; continue; }
		if (vendor == BSF_RX_VENDOR_3GPP && h->avp_code == 628) { if (!l.first_sf) l.first_sf = a; continue; }
		if (h->avp_value == NULL)
			continue; /* not parsed: listed in "avps" only */
		if (vendor == 0 && h->avp_code == AC_ROUTE_RECORD) {
			if (a == last && last_is_local_rr)
				rxpeer_json_os(j, "route_record_local", h->avp_value->os.data, h->avp_value->os.len);
			else if (l.n_rr < RXPEER_MAX_RR) {
				l.rr[l.n_rr] = h->avp_value->os.data;
				l.rr_len[l.n_rr++] = h->avp_value->os.len;
			}
			continue;
		}
		rxpeer_msgjson_known(j, h);
	}

	if (l.exp_result)
		rxpeer_msgjson_exp_result(j, l.exp_result);
	if (l.failed_avp)
		rxpeer_msgjson_codes_list(j, "failed_avp", rxpeer_next(l.failed_avp, MSG_BRW_FIRST_CHILD), NULL);
	rxpeer_msgjson_list_of(j, "specific_action", l.first_spec, 513, BSF_RX_VENDOR_3GPP, rxpeer_msgjson_specific_action);
	rxpeer_msgjson_list_of(j, "subscription_id", l.first_sub, 443, 0, rxpeer_msgjson_subscription_id);
	rxpeer_msgjson_list_of(j, "supported_features", l.first_sf, 628, BSF_RX_VENDOR_3GPP, rxpeer_msgjson_supported_features);
	rxpeer_msgjson_list_of(j, "media_components", l.first_mcd, 517, BSF_RX_VENDOR_3GPP, rxpeer_msgjson_media_component);

	rxpeer_json_arr_begin(j, "route_record");
	for (size_t i = 0; i < l.n_rr; i++)
		rxpeer_json_os(j, NULL, l.rr[i], l.rr_len[i]);
	rxpeer_json_arr_end(j);

	rxpeer_msgjson_codes_list(j, "avps", first, last_is_local_rr ? last : NULL);
}
