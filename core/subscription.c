/* BsfSubscription: decoding with the causes of TS 29.521, the required members, the
 * canonical encoding. */
#include "core/subscription.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/member_pack.h"
#include "core/member_parse.h"
#include "core/sbi_time.h"

static const char *const event_names[BSF_SUB_EVENT_COUNT] = {
    "PCF_PDU_SESSION_BINDING_REGISTRATION", "PCF_PDU_SESSION_BINDING_DEREGISTRATION",
    "PCF_UE_BINDING_REGISTRATION",          "PCF_UE_BINDING_DEREGISTRATION",
    "SNSSAI_DNN_BINDING_REGISTRATION",      "SNSSAI_DNN_BINDING_DEREGISTRATION",
};

const char *bsf_sub_event_name(bsf_sub_event_t e)
{
    return (unsigned)e < BSF_SUB_EVENT_COUNT ? event_names[e] : "?";
}

/* ---- decoding ---------------------------------------------------------------------- */

static int no_memory(bsf_problem_t *p)
{
    bsf_problem_set(p, BSF_CAUSE_SYSTEM_FAILURE, "out of memory");
    return -1;
}

static int decode_events(bsf_member_ctx_t *c, const msgpack_object *v, uint32_t *out)
{
    if (v->type != MSGPACK_OBJECT_ARRAY || v->via.array.size == 0)
        return bsf_problem_fail(c->problem, BSF_CAUSE_MANDATORY_IE_INCORRECT, "/events",
                                "must be an array of at least one BsfEvent");
    for (uint32_t i = 0; i < v->via.array.size; i++) {
        const msgpack_object *o = &v->via.array.ptr[i];
        char ptr[32];
        snprintf(ptr, sizeof ptr, "/events/%u", i);
        if (o->type != MSGPACK_OBJECT_STR || o->via.str.size == 0)
            return bsf_problem_fail(c->problem, BSF_CAUSE_MANDATORY_IE_INCORRECT, ptr,
                                    "must be a BsfEvent string");
        for (int e = 0; e < BSF_SUB_EVENT_COUNT; e++)
            if (o->via.str.size == strlen(event_names[e]) &&
                memcmp(o->via.str.ptr, event_names[e], o->via.str.size) == 0)
                *out |= 1u << e;
    }
    if (!*out) /* only values of later versions: nothing this BSF could ever notify */
        return bsf_problem_fail(c->problem, BSF_CAUSE_MANDATORY_IE_INCORRECT, "/events",
                                "names no BsfEvent this BSF notifies");
    return 0;
}

/* An absolute http or https URI without spaces or control characters. */
static bool uri_ok(const char *s, size_t n)
{
    size_t scheme = n >= 7 && strncasecmp(s, "http://", 7) == 0     ? 7
                    : n >= 8 && strncasecmp(s, "https://", 8) == 0 ? 8
                                                                    : 0;
    if (!scheme || n == scheme || n > BSF_SUB_URI_MAX || s[scheme] == '/')
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
            return false;
    return true;
}

static int decode_text(bsf_member_ctx_t *c, const msgpack_object *v, const char *ptr,
                       size_t max, const char **out)
{
    if (v->type != MSGPACK_OBJECT_STR || v->via.str.size == 0 || v->via.str.size > max ||
        memchr(v->via.str.ptr, '\0', v->via.str.size))
        return bsf_problem_fail(c->problem, BSF_CAUSE_MANDATORY_IE_INCORRECT, ptr,
                                "must be a non-empty string of at most %zu bytes", max);
    *out = bsf_member_strndup(c->zone, v->via.str.ptr, v->via.str.size);
    return *out ? 0 : no_memory(c->problem);
}

static int decode_pair(bsf_member_ctx_t *c, const msgpack_object *v, const char *ptr,
                       bsf_snssai_dnn_t *out)
{
    char p[BSF_PROBLEM_PARAM_MAX];
    if (v->type != MSGPACK_OBJECT_MAP)
        return bsf_problem_fail(c->problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, ptr,
                                "must be an SnssaiDnnPair object");
    bool has_snssai = false;
    out->dnn = NULL;
    for (uint32_t i = 0; i < v->via.map.size; i++) {
        const msgpack_object_kv *kv = &v->via.map.ptr[i];
        char key[16];
        if (!bsf_member_key(&kv->key, key, sizeof key))
            continue;
        int rc = 0;
        if (strcmp(key, "snssai") == 0) {
            snprintf(p, sizeof p, "%s/snssai", ptr);
            rc = bsf_member_snssai(c, &kv->val, p, BSF_CAUSE_OPTIONAL_IE_INCORRECT,
                                   &out->snssai);
            has_snssai = rc == 0;
        } else if (strcmp(key, "dnn") == 0) {
            snprintf(p, sizeof p, "%s/dnn", ptr);
            rc = bsf_member_text(c, &kv->val, p, BSF_CAUSE_OPTIONAL_IE_INCORRECT,
                                 BSF_TEXT_IDENTITY, &out->dnn);
        }
        if (rc)
            return -1;
    }
    if (!has_snssai || !out->dnn)
        return bsf_problem_fail(c->problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, ptr,
                                "an SnssaiDnnPair needs snssai and dnn");
    return 0;
}

static int decode_add_pairs(bsf_member_ctx_t *c, const msgpack_object *v,
                            bsf_subscription_t *s)
{
    if (v->type != MSGPACK_OBJECT_ARRAY || v->via.array.size == 0 ||
        v->via.array.size > BSF_SUB_MAX_PAIRS)
        return bsf_problem_fail(c->problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT,
                                "/addSnssaiDnnPairs", "must be an array of 1 to %d pairs",
                                BSF_SUB_MAX_PAIRS);
    s->add_pairs = msgpack_zone_malloc(c->zone, v->via.array.size * sizeof *s->add_pairs);
    if (!s->add_pairs)
        return no_memory(c->problem);
    s->n_add_pairs = v->via.array.size;
    for (uint32_t i = 0; i < v->via.array.size; i++) {
        char ptr[40];
        snprintf(ptr, sizeof ptr, "/addSnssaiDnnPairs/%u", i);
        if (decode_pair(c, &v->via.array.ptr[i], ptr, &s->add_pairs[i]))
            return -1;
    }
    return 0;
}

static int decode_expiry(bsf_member_ctx_t *c, const msgpack_object *v, bsf_subscription_t *s)
{
    if (bsf_member_text(c, v, "/expiry", BSF_CAUSE_OPTIONAL_IE_INCORRECT, BSF_TEXT_DATE_TIME,
                        &s->expiry))
        return -1;
    s->expiry_ms = bsf_rfc3339_parse_ms(s->expiry, strlen(s->expiry));
    if (s->expiry_ms < 0)
        return bsf_problem_fail(c->problem, BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/expiry",
                                "must be an RFC 3339 date-time");
    return 0;
}

static int decode_member(bsf_member_ctx_t *c, const char *key, const msgpack_object *v,
                         void *out)
{
    bsf_subscription_t *s = out;
    if (strcmp(key, "events") == 0)
        return decode_events(c, v, &s->events);
    if (strcmp(key, "notifUri") == 0) {
        if (v->type != MSGPACK_OBJECT_STR || !uri_ok(v->via.str.ptr, v->via.str.size))
            return bsf_problem_fail(c->problem, BSF_CAUSE_MANDATORY_IE_INCORRECT, "/notifUri",
                                    "must be an absolute http or https URI");
        s->notif_uri = bsf_member_strndup(c->zone, v->via.str.ptr, v->via.str.size);
        return s->notif_uri ? 0 : no_memory(c->problem);
    }
    if (strcmp(key, "notifCorreId") == 0)
        return decode_text(c, v, "/notifCorreId", BSF_SUB_CORRE_ID_MAX, &s->notif_corre_id);
    if (strcmp(key, "supi") == 0)
        return bsf_member_text(c, v, "/supi", BSF_CAUSE_MANDATORY_IE_INCORRECT, BSF_TEXT_SUPI,
                               &s->supi);
    if (strcmp(key, "gpsi") == 0)
        return bsf_member_text(c, v, "/gpsi", BSF_CAUSE_OPTIONAL_IE_INCORRECT, BSF_TEXT_GPSI,
                               &s->gpsi);
    if (strcmp(key, "snssaiDnnPairs") == 0) {
        s->has_pair = true;
        return decode_pair(c, v, "/snssaiDnnPairs", &s->pair);
    }
    if (strcmp(key, "addSnssaiDnnPairs") == 0)
        return decode_add_pairs(c, v, s);
    if (strcmp(key, "expiry") == 0)
        return decode_expiry(c, v, s);
    if (strcmp(key, "suppFeat") == 0)
        return bsf_member_text(c, v, "/suppFeat", BSF_CAUSE_OPTIONAL_IE_INCORRECT,
                               BSF_TEXT_HEX, &s->supp_feat);
    return 0; /* unknown members are ignored (TS 29.500 extensibility) */
}

int bsf_subscription_decode(const msgpack_object *map, msgpack_zone *zone,
                            bsf_subscription_t *out, bsf_problem_t *problem)
{
    memset(out, 0, sizeof *out);
    out->expiry_ms = -1;
    bsf_member_ctx_t c = {zone, problem};
    return bsf_member_decode_object(map, &c, decode_member, out);
}

int bsf_subscription_check_rules(const bsf_subscription_t *s, bsf_problem_t *problem)
{
    static const char *const missing[] = {"/events", "/notifUri", "/notifCorreId", "/supi"};
    const void *have[] = {s->events ? "" : NULL, s->notif_uri, s->notif_corre_id, s->supi};
    bool any = false;
    for (size_t i = 0; i < 4; i++)
        if (!have[i]) {
            if (!any)
                bsf_problem_set(problem, BSF_CAUSE_MANDATORY_IE_MISSING, "%s is missing",
                                missing[i] + 1);
            bsf_problem_add_param(problem, missing[i], "is missing");
            any = true;
        }
    return any ? -1 : 0;
}

/* ---- encoding ---------------------------------------------------------------------- */

static int pack_pair(msgpack_packer *pk, const void *pair)
{
    const bsf_snssai_dnn_t *p = pair;
    return msgpack_pack_map(pk, 2) || bsf_pack_cstr(pk, "snssai") ||
           bsf_pack_snssai(pk, &p->snssai) || bsf_pack_cstr(pk, "dnn") ||
           bsf_pack_cstr(pk, p->dnn);
}

static int pack_events(msgpack_packer *pk, uint32_t events)
{
    size_t n = 0;
    for (int e = 0; e < BSF_SUB_EVENT_COUNT; e++)
        n += (events >> e) & 1u;
    if (bsf_pack_cstr(pk, "events") || msgpack_pack_array(pk, n))
        return -1;
    for (int e = 0; e < BSF_SUB_EVENT_COUNT; e++)
        if (((events >> e) & 1u) && bsf_pack_cstr(pk, event_names[e]))
            return -1;
    return 0;
}

/* Members in the order of the TS 29.521 schema. */
int bsf_subscription_encode(const bsf_subscription_t *s, msgpack_packer *pk)
{
    size_t n = 1 + (s->notif_uri != NULL) + (s->notif_corre_id != NULL) + (s->supi != NULL) +
               (s->gpsi != NULL) + s->has_pair + (s->n_add_pairs > 0) + (s->expiry != NULL) +
               (s->supp_feat != NULL);
    if (msgpack_pack_map(pk, n) || pack_events(pk, s->events) ||
        bsf_pack_opt(pk, "notifUri", s->notif_uri) ||
        bsf_pack_opt(pk, "notifCorreId", s->notif_corre_id) || bsf_pack_opt(pk, "supi", s->supi) ||
        bsf_pack_opt(pk, "gpsi", s->gpsi))
        return -1;
    if (s->has_pair && (bsf_pack_cstr(pk, "snssaiDnnPairs") || pack_pair(pk, &s->pair)))
        return -1;
    if (bsf_pack_array_opt(pk, "addSnssaiDnnPairs", s->add_pairs, s->n_add_pairs,
                           sizeof *s->add_pairs, pack_pair))
        return -1;
    return bsf_pack_opt(pk, "expiry", s->expiry) || bsf_pack_opt(pk, "suppFeat", s->supp_feat)
               ? -1
               : 0;
}

int bsf_subscription_set_expiry(bsf_subscription_t *s, int64_t ms, msgpack_zone *zone)
{
    s->expiry_ms = ms;
    s->expiry = NULL;
    if (ms < 0)
        return 0;
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    char *text = msgpack_zone_malloc(zone, 32);
    if (!text || !gmtime_r(&secs, &tm))
        return -1;
    snprintf(text, 32, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
    s->expiry = text;
    return 0;
}

static bool pair_eq(const bsf_snssai_dnn_t *p, const char *dnn, const bsf_snssai_t *snssai)
{
    return bsf_dnn_equal(p->dnn, dnn) && bsf_snssai_equal(&p->snssai, snssai);
}

bool bsf_subscription_pair_matches(const bsf_subscription_t *s, const char *dnn,
                                   const bsf_snssai_t *snssai)
{
    if (!s->has_pair && !s->n_add_pairs)
        return true;
    if (!dnn || !snssai)
        return false;
    if (s->has_pair && pair_eq(&s->pair, dnn, snssai))
        return true;
    for (size_t i = 0; i < s->n_add_pairs; i++)
        if (pair_eq(&s->add_pairs[i], dnn, snssai))
            return true;
    return false;
}

/* ---- as a bsf_doc_type_t ------------------------------------------------------------ */

/* The adapters stay functions: calling the typed ones through a cast pointer is undefined. */
static int doc_decode(const msgpack_object *map, msgpack_zone *zone, void *out,
                      bsf_problem_t *problem)
{
    if (bsf_subscription_decode(map, zone, out, problem) ||
        bsf_subscription_check_rules(out, problem))
        return -1;
    return 0;
}

static int doc_encode(const void *doc, msgpack_packer *pk)
{
    return bsf_subscription_encode(doc, pk);
}

const bsf_doc_type_t bsf_subscription_type = {sizeof(bsf_subscription_t), doc_decode, doc_encode};
