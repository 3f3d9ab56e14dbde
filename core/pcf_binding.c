#include "core/pcf_binding.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/member_pack.h"
#include "core/member_parse.h"
#include "core/pcf_vendor.h"

/* Every PcfBinding member: its kind, its format, whether it counts as mandatory for the cause
 * of a format error (dnn, snssai and the UE addresses), and where it goes. */
typedef enum {
    M_TEXT,
    M_IPV4,
    M_IPV6,
    M_MAC,
    M_SNSSAI,
    M_IPV6_LIST,
    M_MAC_LIST,
    M_IPV4_ROUTES,
    M_END_POINTS,
    M_PARA_COM,
} member_kind_t;

typedef struct {
    const char *name;
    member_kind_t kind;
    bsf_text_kind_t text;
    bool mandatory;
    size_t field; /* offset of the value (or of the array pointer) */
    size_t extra; /* offset of the has_ flag, or of the array count */
    size_t max;   /* array members: most items */
    bool match;   /* read by discovery's filters (bsf_discovery_matches) */
} member_def_t;

#define AT(f) offsetof(bsf_pcf_binding_t, f)
#define NONE 0

static const member_def_t member_defs[] = {
    {"supi", M_TEXT, BSF_TEXT_SUPI, false, AT(supi), NONE, 0, true},
    {"gpsi", M_TEXT, BSF_TEXT_GPSI, false, AT(gpsi), NONE, 0, true},
    {"ipv4Addr", M_IPV4, 0, true, AT(ipv4), AT(has_ipv4), 0, true},
    {"ipv6Prefix", M_IPV6, 0, true, AT(ipv6), AT(has_ipv6), 0, true},
    {"addIpv6Prefixes", M_IPV6_LIST, 0, false, AT(add_ipv6), AT(n_add_ipv6),
     BSF_MAX_ADD_ADDRESSES, true},
    {"ipDomain", M_TEXT, BSF_TEXT_IDENTITY, false, AT(ip_domain), NONE, 0, true},
    {"macAddr48", M_MAC, 0, true, AT(mac), AT(has_mac), 0, true},
    {"addMacAddrs", M_MAC_LIST, 0, false, AT(add_mac), AT(n_add_mac), BSF_MAX_ADD_ADDRESSES,
     true},
    {"dnn", M_TEXT, BSF_TEXT_IDENTITY, true, AT(dnn), NONE, 0, true},
    {"snssai", M_SNSSAI, 0, true, AT(snssai), AT(has_snssai), 0, true},
    {"pcfFqdn", M_TEXT, BSF_TEXT_FQDN, false, AT(pcf_fqdn), NONE, 0, false},
    {"pcfIpEndPoints", M_END_POINTS, 0, false, AT(pcf_ip_end_points), NONE, 0, false},
    {"pcfDiamHost", M_TEXT, BSF_TEXT_FQDN, false, AT(pcf_diam_host), NONE, 0, false},
    {"pcfDiamRealm", M_TEXT, BSF_TEXT_FQDN, false, AT(pcf_diam_realm), NONE, 0, false},
    {"pcfSmFqdn", M_TEXT, BSF_TEXT_FQDN, false, AT(pcf_sm_fqdn), NONE, 0, false},
    {"pcfSmIpEndPoints", M_END_POINTS, 0, false, AT(pcf_sm_ip_end_points), NONE, 0, false},
    {"suppFeat", M_TEXT, BSF_TEXT_HEX, false, AT(supp_feat), NONE, 0, false},
    {"pcfId", M_TEXT, BSF_TEXT_UUID, false, AT(pcf_id), NONE, 0, false},
    {"pcfSetId", M_TEXT, BSF_TEXT_IDENTITY, false, AT(pcf_set_id), NONE, 0, false},
    {"recoveryTime", M_TEXT, BSF_TEXT_DATE_TIME, false, AT(recovery_time), NONE, 0, false},
    {"paraCom", M_PARA_COM, 0, false, AT(para_com), NONE, 0, false},
    {"bindLevel", M_TEXT, BSF_TEXT_IDENTITY, false, AT(bind_level), NONE, 0, false},
    {"ipv4FrameRouteList", M_IPV4_ROUTES, 0, false, AT(ipv4_routes), AT(n_ipv4_routes),
     BSF_MAX_FRAME_ROUTES, true},
    {"ipv6FrameRouteList", M_IPV6_LIST, 0, false, AT(ipv6_routes), AT(n_ipv6_routes),
     BSF_MAX_FRAME_ROUTES, true},
};

static int decode_vendor(bsf_member_ctx_t *c, const msgpack_object *v, bsf_pcf_binding_t *b)
{
    bsf_pcf_vendor_t vs;
    if (bsf_pcf_vendor_decode(c, v, "/" BSF_PCF_VENDOR_KEY, &vs))
        return -1;
    b->has_vendor = true;
    b->has_vendor_version = vs.has_version;
    b->vendor_version = vs.version;
    b->notification_url = vs.notification_url;
    b->create_binding_time = vs.create_binding_time;
    return 0;
}

static const member_def_t *find_member(const char *key)
{
    /* The first letter first: strcmp on every name cost more than decoding the member. */
    for (size_t i = 0; i < sizeof member_defs / sizeof member_defs[0]; i++)
        if (member_defs[i].name[0] == key[0] && strcmp(member_defs[i].name, key) == 0)
            return &member_defs[i];
    return NULL;
}

static int decode_def(bsf_member_ctx_t *c, const member_def_t *m, const char *key,
                      const msgpack_object *v, bsf_pcf_binding_t *b);

int bsf_pcf_binding_decode_member(bsf_member_ctx_t *c, const char *key, const msgpack_object *v,
                                  void *out)
{
    bsf_pcf_binding_t *b = out;
    const member_def_t *m = find_member(key);
    if (!m && strcmp(key, BSF_PCF_VENDOR_KEY) == 0)
        return decode_vendor(c, v, b);
    if (!m)
        return 0; /* unknown members are ignored (TS 29.500 extensibility) */
    return decode_def(c, m, key, v, b);
}

static int decode_def(bsf_member_ctx_t *c, const member_def_t *m, const char *key,
                      const msgpack_object *v, bsf_pcf_binding_t *b)
{
    /* The JSON pointer of the member, for error reports (built by hand: this runs for every
     * member of every binding decoded). */
    char ptr[64];
    size_t klen = strlen(key);
    ptr[0] = '/';
    memcpy(ptr + 1, key, klen < sizeof ptr - 2 ? klen + 1 : sizeof ptr - 1);
    ptr[sizeof ptr - 1] = '\0';
    bsf_cause_t cause = m->mandatory ? BSF_CAUSE_MANDATORY_IE_INCORRECT
                                     : BSF_CAUSE_OPTIONAL_IE_INCORRECT;
    char *base = (char *)b;
    void *field = base + m->field;
    if (m->extra && (m->kind == M_IPV4 || m->kind == M_IPV6 || m->kind == M_MAC ||
                     m->kind == M_SNSSAI))
        *(bool *)(base + m->extra) = true;
    switch (m->kind) {
    case M_TEXT:
        return bsf_member_text(c, v, ptr, cause, m->text, field);
    case M_IPV4:
        return bsf_member_ipv4(c, v, ptr, cause, field);
    case M_IPV6:
        return bsf_member_ipv6_prefix(c, v, ptr, cause, field);
    case M_MAC:
        return bsf_member_mac(c, v, ptr, cause, field);
    case M_SNSSAI:
        return bsf_member_snssai(c, v, ptr, cause, field);
    case M_IPV6_LIST:
        return bsf_member_ipv6_prefix_array(c, v, ptr, cause, m->max, field,
                                            (size_t *)(base + m->extra));
    case M_MAC_LIST:
        return bsf_member_mac_array(c, v, ptr, cause, field, (size_t *)(base + m->extra));
    case M_IPV4_ROUTES:
        return bsf_member_ipv4_mask_array(c, v, ptr, cause, field, (size_t *)(base + m->extra));
    case M_END_POINTS:
        return bsf_member_end_points(c, v, ptr, cause, field);
    default:
        return bsf_member_para_com(c, v, ptr, cause, field);
    }
}

int bsf_pcf_binding_decode(const msgpack_object *map, msgpack_zone *zone,
                           bsf_pcf_binding_t *out, bsf_problem_t *problem)
{
    return bsf_member_decode_zeroed(map, zone, problem, bsf_pcf_binding_decode_member, out,
                                    sizeof *out);
}

static int match_member(bsf_member_ctx_t *c, const char *key, const msgpack_object *v,
                        void *out)
{
    const member_def_t *m = find_member(key);
    return m && m->match ? decode_def(c, m, key, v, out) : 0;
}

int bsf_pcf_binding_decode_matchable(const msgpack_object *map, msgpack_zone *zone,
                                     bsf_pcf_binding_t *out)
{
    memset(out, 0, sizeof *out);
    bsf_problem_t problem;
    bsf_member_ctx_t c = {zone, &problem};
    return bsf_member_decode_object(map, &c, match_member, out);
}

int bsf_pcf_binding_check_rules(const bsf_pcf_binding_t *b, bsf_problem_t *problem)
{
    if (!b->dnn)
        return bsf_problem_fail(problem, BSF_CAUSE_MANDATORY_IE_MISSING, "/dnn", "is missing");
    if (!b->has_snssai)
        return bsf_problem_fail(problem, BSF_CAUSE_MANDATORY_IE_MISSING, "/snssai", "is missing");
    if (!b->has_ipv4 && !b->has_ipv6 && !b->has_mac)
        return bsf_problem_fail_none_of(
            problem, BSF_CAUSE_MANDATORY_IE_MISSING,
            "a UE address is missing: one of ipv4Addr, ipv6Prefix or macAddr48 is required",
            "one UE address is required",
            (const char *const[]){"/ipv4Addr", "/ipv6Prefix", "/macAddr48", NULL});
    if (b->n_add_ipv6 && !b->has_ipv6)
        return bsf_problem_fail(problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/addIpv6Prefixes",
                                "needs ipv6Prefix");
    if (b->n_add_mac && !b->has_mac)
        return bsf_problem_fail(problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/addMacAddrs",
                                "needs macAddr48");
    if (b->has_mac && (b->has_ipv4 || b->has_ipv6))
        return bsf_problem_fail(problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/macAddr48",
                                "cannot be combined with IP addresses (a PDU session is either "
                                "IP or Ethernet)");
    if (b->ip_domain && !b->has_ipv4)
        return bsf_problem_fail(problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/ipDomain",
                                "is only allowed together with ipv4Addr");
    if (!b->pcf_diam_host != !b->pcf_diam_realm) {
        const char *which = b->pcf_diam_host ? "/pcfDiamRealm" : "/pcfDiamHost";
        return bsf_problem_fail(problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, which,
                                "pcfDiamHost and pcfDiamRealm must be given together");
    }
    if (!b->pcf_fqdn && !b->pcf_ip_end_points.n && !b->pcf_diam_host)
        return bsf_problem_fail_none_of(
            problem, BSF_CAUSE_MANDATORY_IE_MISSING,
            "a PCF address is missing: pcfFqdn, pcfIpEndPoints, or pcfDiamHost with "
            "pcfDiamRealm is required",
            "one PCF address is required",
            (const char *const[]){"/pcfFqdn", "/pcfIpEndPoints", "/pcfDiamHost", NULL});
    return 0;
}

static int short_prefix(bsf_problem_t *problem, bsf_cause_t cause, const char *ptr,
                        unsigned len, unsigned min_len)
{
    return bsf_problem_fail(problem, cause, ptr,
                            "the prefix length /%u is shorter than the shortest accepted, /%u",
                            len, min_len);
}

int bsf_pcf_binding_check_ipv6_lengths(const bsf_pcf_binding_t *b, unsigned min_len,
                                       bsf_problem_t *problem)
{
    char ptr[48];
    if (min_len < 1)
        min_len = 1;
    if (b->has_ipv6 && b->ipv6.len < min_len)
        return short_prefix(problem, BSF_CAUSE_MANDATORY_IE_INCORRECT, "/ipv6Prefix",
                            b->ipv6.len, min_len);
    for (size_t i = 0; i < b->n_add_ipv6; i++)
        if (b->add_ipv6[i].len < min_len) {
            snprintf(ptr, sizeof ptr, "/addIpv6Prefixes/%zu", i);
            return short_prefix(problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, ptr,
                                b->add_ipv6[i].len, min_len);
        }
    for (size_t i = 0; i < b->n_ipv6_routes; i++)
        if (b->ipv6_routes[i].len < min_len) {
            snprintf(ptr, sizeof ptr, "/ipv6FrameRouteList/%zu", i);
            return short_prefix(problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, ptr,
                                b->ipv6_routes[i].len, min_len);
        }
    return 0;
}

/* ---- encoding ---------------------------------------------------------------------- */

static int pack_text(msgpack_packer *pk, const char *s, size_t n)
{
    return msgpack_pack_str(pk, n) || msgpack_pack_str_body(pk, s, n);
}

/* The item writers (a bsf_pack_item_fn each, also used for single members). */
static int pack_ipv6_prefix(msgpack_packer *pk, const void *prefix)
{
    char t[BSF_IPV6_TEXT_MAX];
    size_t n = bsf_ipv6_prefix_format(prefix, t);
    return pack_text(pk, t, n);
}

static int pack_mac(msgpack_packer *pk, const void *mac)
{
    char t[BSF_MAC48_TEXT_MAX];
    size_t n = bsf_mac48_format(mac, t);
    return pack_text(pk, t, n);
}

static int pack_ipv4_mask(msgpack_packer *pk, const void *mask)
{
    char t[BSF_IPV6_TEXT_MAX];
    size_t n = bsf_ipv4_mask_format(mask, t);
    return pack_text(pk, t, n);
}

static size_t count_members(const bsf_pcf_binding_t *b)
{
    return (b->supi != NULL) + (b->gpsi != NULL) + b->has_ipv4 + b->has_ipv6 +
           (b->n_add_ipv6 > 0) + (b->ip_domain != NULL) + b->has_mac + (b->n_add_mac > 0) +
           (b->dnn != NULL) + (b->pcf_fqdn != NULL) + (b->pcf_ip_end_points.n > 0) +
           (b->pcf_diam_host != NULL) + (b->pcf_diam_realm != NULL) + (b->pcf_sm_fqdn != NULL) +
           (b->pcf_sm_ip_end_points.n > 0) + b->has_snssai + (b->supp_feat != NULL) +
           (b->pcf_id != NULL) + (b->pcf_set_id != NULL) + (b->recovery_time != NULL) +
           b->para_com.present + (b->bind_level != NULL) + (b->n_ipv4_routes > 0) +
           (b->n_ipv6_routes > 0) + b->has_vendor;
}

static int pack_para_com(msgpack_packer *pk, const bsf_para_com_t *pc)
{
    size_t n = (pc->supi != NULL) + (pc->dnn != NULL) + pc->has_snssai;
    if (msgpack_pack_map(pk, n) || bsf_pack_opt(pk, "supi", pc->supi) ||
        bsf_pack_opt(pk, "dnn", pc->dnn))
        return -1;
    return pc->has_snssai && (bsf_pack_cstr(pk, "snssai") || bsf_pack_snssai(pk, &pc->snssai));
}

/* The members up to snssai (schema order). */
static int pack_ue_and_pcf(msgpack_packer *pk, const bsf_pcf_binding_t *b)
{
    if (bsf_pack_opt(pk, "supi", b->supi) || bsf_pack_opt(pk, "gpsi", b->gpsi))
        return -1;
    if (b->has_ipv4) {
        char t[BSF_IPV4_TEXT_MAX];
        size_t n = bsf_ipv4_format(&b->ipv4, t);
        if (bsf_pack_cstr(pk, "ipv4Addr") || pack_text(pk, t, n))
            return -1;
    }
    if (b->has_ipv6 && (bsf_pack_cstr(pk, "ipv6Prefix") || pack_ipv6_prefix(pk, &b->ipv6)))
        return -1;
    if (bsf_pack_array_opt(pk, "addIpv6Prefixes", b->add_ipv6, b->n_add_ipv6,
                           sizeof *b->add_ipv6, pack_ipv6_prefix) ||
        bsf_pack_opt(pk, "ipDomain", b->ip_domain))
        return -1;
    if (b->has_mac && (bsf_pack_cstr(pk, "macAddr48") || pack_mac(pk, &b->mac)))
        return -1;
    if (bsf_pack_array_opt(pk, "addMacAddrs", b->add_mac, b->n_add_mac, sizeof *b->add_mac,
                           pack_mac) ||
        bsf_pack_opt(pk, "dnn", b->dnn) || bsf_pack_opt(pk, "pcfFqdn", b->pcf_fqdn))
        return -1;
    if (b->pcf_ip_end_points.n && (bsf_pack_cstr(pk, "pcfIpEndPoints") ||
                                   bsf_pack_end_points(pk, &b->pcf_ip_end_points)))
        return -1;
    if (bsf_pack_opt(pk, "pcfDiamHost", b->pcf_diam_host) ||
        bsf_pack_opt(pk, "pcfDiamRealm", b->pcf_diam_realm) ||
        bsf_pack_opt(pk, "pcfSmFqdn", b->pcf_sm_fqdn))
        return -1;
    if (b->pcf_sm_ip_end_points.n && (bsf_pack_cstr(pk, "pcfSmIpEndPoints") ||
                                      bsf_pack_end_points(pk, &b->pcf_sm_ip_end_points)))
        return -1;
    return b->has_snssai && (bsf_pack_cstr(pk, "snssai") || bsf_pack_snssai(pk, &b->snssai));
}

/* Members in the order of the TS 29.521 schema, so equal bindings encode to equal bytes. */
int bsf_pcf_binding_encode(const bsf_pcf_binding_t *b, msgpack_packer *pk)
{
    if (msgpack_pack_map(pk, count_members(b)) || pack_ue_and_pcf(pk, b))
        return -1;
    if (bsf_pack_opt(pk, "suppFeat", b->supp_feat) || bsf_pack_opt(pk, "pcfId", b->pcf_id) ||
        bsf_pack_opt(pk, "pcfSetId", b->pcf_set_id) ||
        bsf_pack_opt(pk, "recoveryTime", b->recovery_time))
        return -1;
    if (b->para_com.present &&
        (bsf_pack_cstr(pk, "paraCom") || pack_para_com(pk, &b->para_com)))
        return -1;
    if (bsf_pack_opt(pk, "bindLevel", b->bind_level) ||
        bsf_pack_array_opt(pk, "ipv4FrameRouteList", b->ipv4_routes, b->n_ipv4_routes,
                           sizeof *b->ipv4_routes, pack_ipv4_mask) ||
        bsf_pack_array_opt(pk, "ipv6FrameRouteList", b->ipv6_routes, b->n_ipv6_routes,
                           sizeof *b->ipv6_routes, pack_ipv6_prefix))
        return -1;
    if (b->has_vendor) {
        bsf_pcf_vendor_t vs = {true, b->has_vendor_version, b->vendor_version,
                               b->notification_url, b->create_binding_time};
        return bsf_pack_cstr(pk, BSF_PCF_VENDOR_KEY) || bsf_pcf_vendor_encode(&vs, pk);
    }
    return 0;
}

/* ---- comparisons ------------------------------------------------------------------- */

void bsf_pcf_binding_pcf_key(const bsf_pcf_binding_t *b, char *out, size_t cap)
{
    const char *key = b->pcf_id ? b->pcf_id : b->pcf_fqdn ? b->pcf_fqdn : b->pcf_diam_host;
    if (key && cap) {
        size_t n = strlen(key) < cap - 1 ? strlen(key) : cap - 1;
        memcpy(out, key, n);
        out[n] = '\0';
        return;
    }
    if (b->pcf_ip_end_points.n) {
        const bsf_ip_end_point_t *e = &b->pcf_ip_end_points.items[0];
        char t[BSF_IPV6_TEXT_MAX] = "";
        if (e->has_ipv4)
            bsf_ipv4_format(&e->ipv4, t);
        else if (e->has_ipv6)
            bsf_ipv6_addr_format(e->ipv6, t);
        snprintf(out, cap, "%s", t);
        return;
    }
    snprintf(out, cap, "%s", "");
}

static bool end_point_equal(const bsf_ip_end_point_t *a, const bsf_ip_end_point_t *b)
{
    return a->has_ipv4 == b->has_ipv4 && a->has_ipv6 == b->has_ipv6 &&
           (!a->has_ipv4 || memcmp(&a->ipv4, &b->ipv4, sizeof a->ipv4) == 0) &&
           (!a->has_ipv6 || memcmp(a->ipv6, b->ipv6, 16) == 0) && a->has_port == b->has_port &&
           (!a->has_port || a->port == b->port);
}

static bool end_points_equal(const bsf_ip_end_points_t *a, const bsf_ip_end_points_t *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (!end_point_equal(&a->items[i], &b->items[i]))
            return false;
    return true;
}

bool bsf_pcf_identity_agrees(const char *a, const char *b, int *compared)
{
    if (!a || !b)
        return true;
    ++*compared;
    return strcasecmp(a, b) == 0;
}

bool bsf_pcf_binding_same_pcf(const bsf_pcf_binding_t *a, const bsf_pcf_binding_t *b)
{
    int compared = 0;
    if (!bsf_pcf_identity_agrees(a->pcf_id, b->pcf_id, &compared) ||
        !bsf_pcf_identity_agrees(a->pcf_diam_host, b->pcf_diam_host, &compared) ||
        !bsf_pcf_identity_agrees(a->pcf_fqdn, b->pcf_fqdn, &compared))
        return false;
    if (a->pcf_ip_end_points.n && b->pcf_ip_end_points.n) {
        if (!end_points_equal(&a->pcf_ip_end_points, &b->pcf_ip_end_points))
            return false;
        compared++;
    }
    return compared > 0;
}

/* Equality of two addresses of one kind (a bsf_ipv6_prefix_t or a bsf_mac48_t each). */
typedef bool (*same_address_fn)(const void *x, const void *y);

static bool same_ipv6(const void *x, const void *y)
{
    const bsf_ipv6_prefix_t *p = x, *q = y;
    return q->len == p->len && bsf_ipv6_prefix_contains(q, p);
}

static bool same_mac(const void *x, const void *y)
{
    return memcmp(x, y, sizeof(bsf_mac48_t)) == 0;
}

/* True when one of a's addresses (`a0`, then the `na` at `as`, `size` bytes each) is one of
 * b's (likewise). */
static bool addresses_meet(const void *a0, const void *as, size_t na, const void *b0,
                           const void *bs, size_t nb, size_t size, same_address_fn same)
{
    for (size_t i = 0; i <= na; i++) {
        const void *x = i == 0 ? a0 : (const char *)as + (i - 1) * size;
        for (size_t j = 0; j <= nb; j++)
            if (same(x, j == 0 ? b0 : (const char *)bs + (j - 1) * size))
                return true;
    }
    return false;
}

static bool same_domain(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

bool bsf_pcf_binding_share_ue_address(const bsf_pcf_binding_t *a, const bsf_pcf_binding_t *b)
{
    if (a->has_ipv4 && b->has_ipv4 && memcmp(&a->ipv4, &b->ipv4, sizeof a->ipv4) == 0 &&
        same_domain(a->ip_domain, b->ip_domain))
        return true;
    /* IPv6 prefixes and MACs: each of a's addresses against all of b's. */
    if (a->has_ipv6 && b->has_ipv6 &&
        addresses_meet(&a->ipv6, a->add_ipv6, a->n_add_ipv6, &b->ipv6, b->add_ipv6,
                       b->n_add_ipv6, sizeof a->ipv6, same_ipv6))
        return true;
    return a->has_mac && b->has_mac &&
           addresses_meet(&a->mac, a->add_mac, a->n_add_mac, &b->mac, b->add_mac, b->n_add_mac,
                          sizeof a->mac, same_mac);
}

bool bsf_snssai_equal(const bsf_snssai_t *a, const bsf_snssai_t *b)
{
    return a->sst == b->sst && a->has_sd == b->has_sd && (!a->has_sd || a->sd == b->sd);
}

void bsf_snssai_format(const bsf_snssai_t *s, char out[12])
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    if (s->sst >= 100)
        out[n++] = (char)('0' + s->sst / 100);
    if (s->sst >= 10)
        out[n++] = (char)('0' + s->sst / 10 % 10);
    out[n++] = (char)('0' + s->sst % 10);
    if (s->has_sd) {
        out[n++] = '-';
        for (int shift = 20; shift >= 0; shift -= 4)
            out[n++] = hex[(s->sd >> shift) & 15];
    }
    out[n] = '\0';
}

bool bsf_dnn_equal(const char *a, const char *b)
{
    return strcasecmp(a, b) == 0;
}
