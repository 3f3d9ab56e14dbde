#include "gateways/sbi/discovery_query.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "core/bytes.h"
#include "core/features.h"
#include "core/member_parse.h"
#include "gateways/sbi/query_string.h"

typedef enum {
    P_IPV4,
    P_IPV6,
    P_MAC,
    P_DNN,
    P_SUPI,
    P_GPSI,
    P_SNSSAI,
    P_IP_DOMAIN,
    P_SUPP_FEAT,
    P_COUNT
} param_t;

static const char *const param_names[P_COUNT] = {
    "ipv4Addr", "ipv6Prefix", "macAddr48", "dnn", "supi", "gpsi", "snssai", "ipDomain", "supp-feat"};

/* "query NAME", the problem's parameter for a query parameter: by hand, as it is built for
 * every parameter of every discovery. `out` has BSF_QUERY_POINTER_MAX bytes. */
#define BSF_QUERY_POINTER_MAX 48
static void query_pointer(char *out, const char *name)
{
    size_t n = strlen(name);
    if (n > BSF_QUERY_POINTER_MAX - 7)
        n = BSF_QUERY_POINTER_MAX - 7;
    memcpy(out, "query ", 6);
    memcpy(out + 6, name, n);
    out[6 + n] = '\0';
}

static int param_index(const char *name)
{
    for (int i = 0; i < P_COUNT; i++)
        if (strcmp(name, param_names[i]) == 0)
            return i;
    return -1;
}

static msgpack_object str_object(const char *s, size_t n)
{
    msgpack_object o;
    o.type = MSGPACK_OBJECT_STR;
    o.via.str.ptr = s;
    o.via.str.size = (uint32_t)n;
    return o;
}

static int decode_snssai(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                         bsf_cause_t cause, void *out)
{
    return bsf_member_snssai(c, o, ptr, cause, out);
}

static int parse_param(int p, const char *v, size_t n, msgpack_zone *zone,
                       bsf_discovery_query_t *q, bsf_problem_t *problem)
{
    char name[BSF_QUERY_POINTER_MAX];
    query_pointer(name, param_names[p]);
    bsf_member_ctx_t c = {zone, problem};
    msgpack_object o = str_object(v, n);
    const bsf_cause_t opt = BSF_CAUSE_OPTIONAL_QUERY_PARAM_INCORRECT;
    const bsf_cause_t mand = BSF_CAUSE_MANDATORY_QUERY_PARAM_INCORRECT;
    switch (p) {
    case P_IPV4:
        q->kind = BSF_UE_ADDR_IPV4;
        return bsf_member_ipv4(&c, &o, name, mand, &q->ipv4);
    case P_IPV6:
        q->kind = BSF_UE_ADDR_IPV6;
        return bsf_member_ipv6_prefix(&c, &o, name, mand, &q->ipv6);
    case P_MAC:
        q->kind = BSF_UE_ADDR_MAC;
        return bsf_member_mac(&c, &o, name, mand, &q->mac);
    case P_DNN:
        return bsf_member_text(&c, &o, name, opt, BSF_TEXT_IDENTITY, &q->dnn);
    case P_SUPI:
        return bsf_member_text(&c, &o, name, opt, BSF_TEXT_SUPI, &q->supi);
    case P_GPSI:
        return bsf_member_text(&c, &o, name, opt, BSF_TEXT_GPSI, &q->gpsi);
    case P_SNSSAI:
        q->has_snssai = true;
        return bsf_query_json_member(v, n, zone, name, opt, "must be a JSON Snssai object",
                                     decode_snssai, &q->snssai, problem);
    case P_IP_DOMAIN:
        return bsf_member_text(&c, &o, name, opt, BSF_TEXT_IDENTITY, &q->ip_domain);
    default:
        return bsf_member_text(&c, &o, name, opt, BSF_TEXT_HEX, &q->supp_feat);
    }
}

int bsf_discovery_query_parse(const char *query, size_t len, msgpack_zone *zone,
                              bsf_discovery_query_t *q, bsf_problem_t *problem)
{
    memset(q, 0, sizeof *q);
    unsigned seen = 0;
    bsf_query_iter_t it;
    if (bsf_query_iter_init(&it, query, len, zone)) {
        bsf_problem_set(problem, BSF_CAUSE_SYSTEM_FAILURE, "out of memory");
        return -1;
    }
    bsf_query_item_t item;
    while (bsf_query_next(&it, &item)) {
        if (!item.name_ok) {
            bsf_problem_set(problem, BSF_CAUSE_INVALID_QUERY_PARAM,
                            "unknown or malformed query parameter");
            bsf_problem_add_param(problem, "query", "unknown or malformed parameter name");
            return -1;
        }
        int p = param_index(item.name);
        char pn[BSF_QUERY_POINTER_MAX];
        query_pointer(pn, item.name);
        if (p < 0)
            return bsf_problem_fail(problem, BSF_CAUSE_INVALID_QUERY_PARAM, pn,
                                    "is not a parameter of this resource");
        bool address = p == P_IPV4 || p == P_IPV6 || p == P_MAC;
        bsf_cause_t cause = address ? BSF_CAUSE_MANDATORY_QUERY_PARAM_INCORRECT
                                    : BSF_CAUSE_OPTIONAL_QUERY_PARAM_INCORRECT;
        if (seen & (1u << p))
            return bsf_problem_fail(problem, cause, pn, "is given more than once");
        seen |= 1u << p;
        char *v;
        long vn = bsf_query_value(&it, &item, &v);
        if (vn < 0)
            return bsf_problem_fail(problem, cause, pn, "has a malformed percent-encoding");
        if (parse_param(p, v, (size_t)vn, zone, q, problem))
            return -1;
    }
    unsigned addresses = seen & ((1u << P_IPV4) | (1u << P_IPV6) | (1u << P_MAC));
    if (!addresses) {
        bsf_problem_set(problem, BSF_CAUSE_MANDATORY_QUERY_PARAM_MISSING,
                        "one of ipv4Addr, ipv6Prefix or macAddr48 is required");
        bsf_problem_add_param(problem, "query ipv4Addr", "one UE address is required");
        bsf_problem_add_param(problem, "query ipv6Prefix", "one UE address is required");
        bsf_problem_add_param(problem, "query macAddr48", "one UE address is required");
        return -1;
    }
    if (addresses & (addresses - 1)) {
        bsf_problem_set(problem, BSF_CAUSE_MANDATORY_QUERY_PARAM_INCORRECT,
                        "only one of ipv4Addr, ipv6Prefix and macAddr48 may be given");
        for (int p = P_IPV4; p <= P_MAC; p++)
            if (seen & (1u << p)) {
                char pn[BSF_QUERY_POINTER_MAX];
                query_pointer(pn, param_names[p]);
                bsf_problem_add_param(problem, pn, "only one UE address may be given");
            }
        return -1;
    }
    if ((seen & (1u << P_IP_DOMAIN)) && !(seen & (1u << P_IPV4)))
        return bsf_problem_fail(problem, BSF_CAUSE_OPTIONAL_QUERY_PARAM_INCORRECT,
                                "query ipDomain", "is only allowed together with ipv4Addr");
    return 0;
}
