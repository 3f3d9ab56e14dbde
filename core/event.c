#include "core/event.h"

#include "core/msgpack_guard.h"
#include "core/event_upcast.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

_Static_assert(BSF_EVENT_VERSION == BSF_EVENT_UPCAST_NEWEST &&
                   BSF_EVENT_VERSION_OLDEST == BSF_EVENT_UPCAST_OLDEST,
               "the upcasters end at the version the decoder reads");

static const char *const type_names[] = {
    [BSF_EVENT_BINDING_REGISTERED] = "BindingRegistered",
    [BSF_EVENT_BINDING_UPDATED] = "BindingUpdated",
    [BSF_EVENT_BINDING_DEREGISTERED] = "BindingDeregistered",
    [BSF_EVENT_UE_BINDING_REGISTERED] = "UeBindingRegistered",
    [BSF_EVENT_UE_BINDING_UPDATED] = "UeBindingUpdated",
    [BSF_EVENT_UE_BINDING_DEREGISTERED] = "UeBindingDeregistered",
    [BSF_EVENT_MBS_BINDING_REGISTERED] = "MbsBindingRegistered",
    [BSF_EVENT_MBS_BINDING_UPDATED] = "MbsBindingUpdated",
    [BSF_EVENT_MBS_BINDING_DEREGISTERED] = "MbsBindingDeregistered",
    [BSF_EVENT_SUBSCRIPTION_CREATED] = "SubscriptionCreated",
    [BSF_EVENT_SUBSCRIPTION_REPLACED] = "SubscriptionReplaced",
    [BSF_EVENT_SUBSCRIPTION_REMOVED] = "SubscriptionRemoved",
    [BSF_EVENT_AUDIT_CONFIRMED] = "AuditConfirmed",
    [BSF_EVENT_AUDIT_SUSPECTED] = "AuditSuspected",
    [BSF_EVENT_AUDIT_FAILED] = "AuditFailed",
};

static const char *const reason_names[BSF_REASON_COUNT] = {
    [BSF_REASON_NONE] = "none",
    [BSF_REASON_PCF_REQUEST] = "pcf_request",
    [BSF_REASON_REPLACED_BY_COLLISION] = "replaced_by_collision",
    [BSF_REASON_REREGISTERED] = "reregistered",
    [BSF_REASON_AUDIT_NOT_FOUND] = "audit_not_found",
    [BSF_REASON_AUDIT_MAX_TTL] = "audit_max_ttl",
    [BSF_REASON_DIAMETER_FAILURE] = "diameter_failure",
    [BSF_REASON_OPERATOR] = "operator",
    [BSF_REASON_UNSUBSCRIBED] = "unsubscribed",
    [BSF_REASON_EXPIRED] = "expired",
};

const char *bsf_event_type_name(bsf_event_type_t type)
{
    return type >= BSF_EVENT_BINDING_REGISTERED && type <= BSF_EVENT_TYPE_LAST && type_names[type]
               ? type_names[type]
               : "Unknown"; /* numbers 10..15 are other kinds' (none in this build) */
}

const char *bsf_dereg_reason_name(bsf_dereg_reason_t reason)
{
    return (unsigned)reason < BSF_REASON_COUNT ? reason_names[reason] : "unknown";
}

static int pack_cstr(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);
    return msgpack_pack_str(pk, n) || msgpack_pack_str_body(pk, s, n);
}

static int pack_id(msgpack_packer *pk, const bsf_binding_id_t *id)
{
    char t[BSF_BINDING_ID_TEXT_LEN + 1];
    bsf_binding_id_format(id, t);
    return pack_cstr(pk, t);
}

static int pack_ts(msgpack_packer *pk, int64_t ts)
{
    return ts < 0 ? msgpack_pack_nil(pk) : msgpack_pack_int64(pk, ts);
}

/* `audit`: {attempts, lastAudited (nil: never), notFound, pcf (when known)}. */
static int pack_audit(msgpack_packer *pk, const bsf_audit_state_t *a)
{
    return pack_cstr(pk, "audit") || msgpack_pack_map(pk, 3 + (a->responder != NULL)) ||
           pack_cstr(pk, "attempts") || msgpack_pack_uint32(pk, a->attempts) ||
           pack_cstr(pk, "lastAudited") || pack_ts(pk, a->last_audited_ms) ||
           pack_cstr(pk, "notFound") || msgpack_pack_uint32(pk, a->not_found) ||
           (a->responder && (pack_cstr(pk, "pcf") || pack_cstr(pk, a->responder)));
}

/* The creations: their createdHlc is their own hlc. */
static bool is_creation(bsf_event_type_t t)
{
    return t == BSF_EVENT_BINDING_REGISTERED || t == BSF_EVENT_UE_BINDING_REGISTERED ||
           t == BSF_EVENT_MBS_BINDING_REGISTERED || t == BSF_EVENT_SUBSCRIPTION_CREATED;
}

/* Version 2 leaves out what a reader knows without it: a creation's createdHlc equal to its
 * hlc, an absent timestamp. */
static bool keeps_created(const bsf_event_t *ev, unsigned v)
{
    return v < 2 || !is_creation(ev->type) || ev->created_hlc != ev->hlc;
}

static bool keeps_ts(int64_t ts, unsigned v)
{
    return v < 2 || ts >= 0;
}

static int pack_envelope(msgpack_packer *pk, const bsf_event_t *ev, unsigned v, size_t members)
{
    return msgpack_pack_map(pk, members) || pack_cstr(pk, "v") ||
           msgpack_pack_uint8(pk, (uint8_t)v) || pack_cstr(pk, "type") ||
           pack_cstr(pk, bsf_event_type_name(ev->type)) || pack_cstr(pk, "site") ||
           msgpack_pack_uint16(pk, ev->site) || pack_cstr(pk, "seq") ||
           msgpack_pack_uint64(pk, ev->seq) || pack_cstr(pk, "hlc") ||
           msgpack_pack_uint64(pk, ev->hlc) || pack_cstr(pk, "bindingId") ||
           pack_id(pk, &ev->binding_id);
}

static int pack_created(msgpack_packer *pk, const bsf_event_t *ev, unsigned v)
{
    return keeps_created(ev, v) &&
           (pack_cstr(pk, "createdHlc") || msgpack_pack_uint64(pk, ev->created_hlc));
}

static int pack_named_ts(msgpack_packer *pk, const char *name, int64_t ts, unsigned v)
{
    return keeps_ts(ts, v) && (pack_cstr(pk, name) || pack_ts(pk, ts));
}

/* BindingRegistered / BindingUpdated after the envelope. */
static int pack_pcf_payload(msgpack_packer *pk, const bsf_event_t *ev, unsigned v)
{
    if (pack_cstr(pk, "binding"))
        return -1;
    int body = ev->binding_mp ? pk->callback(pk->data, ev->binding_mp, ev->binding_mp_len)
                              : bsf_pcf_binding_encode(ev->binding, pk);
    return body || pack_created(pk, ev, v) || pack_named_ts(pk, "originTs", ev->origin_ts_ms, v) ||
           pack_named_ts(pk, "senderTs", ev->sender_ts_ms, v) ||
           (ev->cookie && (pack_cstr(pk, "cookie") || msgpack_pack_str(pk, ev->cookie_len) ||
                           msgpack_pack_str_body(pk, ev->cookie, ev->cookie_len)));
}

int bsf_event_encode(const bsf_event_t *ev, msgpack_packer *pk)
{
    return bsf_event_encode_version(ev, BSF_EVENT_WRITE_DEFAULT, pk);
}

int bsf_event_encode_version(const bsf_event_t *ev, unsigned v, msgpack_packer *pk)
{
    if (v < BSF_EVENT_VERSION_OLDEST || v > BSF_EVENT_VERSION)
        return -1;
    if (bsf_event_is_audit(ev->type))
        return pack_envelope(pk, ev, v, 7) || pack_audit(pk, &ev->audit);
    if (bsf_event_is_deregistration(ev->type))
        return pack_envelope(pk, ev, v, 7 + ev->has_replaced_by) || pack_cstr(pk, "reason") ||
               pack_cstr(pk, bsf_dereg_reason_name(ev->reason)) ||
               (ev->has_replaced_by &&
                (pack_cstr(pk, "replacedBy") || pack_id(pk, &ev->replaced_by)));
    size_t with_created = 7 + keeps_created(ev, v);
    if (bsf_event_is_subscription(ev->type))
        return pack_envelope(pk, ev, v, with_created) || pack_cstr(pk, "subscription") ||
               bsf_subscription_encode(ev->subscription, pk) || pack_created(pk, ev, v);
    if (bsf_event_is_mbs(ev->type))
        return pack_envelope(pk, ev, v, with_created) || pack_cstr(pk, "mbsBinding") ||
               bsf_pcf_mbs_binding_encode(ev->mbs_binding, pk) || pack_created(pk, ev, v);
    if (bsf_event_is_ue(ev->type))
        return pack_envelope(pk, ev, v, with_created) || pack_cstr(pk, "ueBinding") ||
               bsf_pcf_ue_binding_encode(ev->ue_binding, pk) || pack_created(pk, ev, v);
    size_t members = with_created + keeps_ts(ev->origin_ts_ms, v) +
                     keeps_ts(ev->sender_ts_ms, v) + (ev->cookie != NULL);
    return pack_envelope(pk, ev, v, members) || pack_pcf_payload(pk, ev, v);
}

/* ---- decoding ---------------------------------------------------------------------- */

static bool str_eq(const msgpack_object *o, const char *s)
{
    size_t n = strlen(s);
    return o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
           memcmp(o->via.str.ptr, s, n) == 0;
}

static bool get_uint(const msgpack_object *o, uint64_t max, uint64_t *out)
{
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > max)
        return false;
    *out = o->via.u64;
    return true;
}

static bool get_ts(const msgpack_object *o, int64_t *out)
{
    if (o->type == MSGPACK_OBJECT_NIL) {
        *out = -1;
        return true;
    }
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER || o->via.u64 > INT64_MAX)
        return false;
    *out = (int64_t)o->via.u64;
    return true;
}

static bool get_id(const msgpack_object *o, bsf_binding_id_t *out)
{
    return o->type == MSGPACK_OBJECT_STR &&
           bsf_binding_id_parse(o->via.str.ptr, o->via.str.size, out);
}

bool bsf_event_type_parse(const char *s, size_t n, bsf_event_type_t *out)
{
    for (int t = BSF_EVENT_BINDING_REGISTERED; t <= BSF_EVENT_TYPE_LAST; t++)
        if (type_names[t] && strlen(type_names[t]) == n && memcmp(type_names[t], s, n) == 0) {
            *out = (bsf_event_type_t)t;
            return true;
        }
    return false;
}

static bool get_type(const msgpack_object *o, bsf_event_type_t *out)
{
    return o->type == MSGPACK_OBJECT_STR && bsf_event_type_parse(o->via.str.ptr, o->via.str.size, out);
}

static bool get_reason(const msgpack_object *o, bsf_dereg_reason_t *out)
{
    for (int r = BSF_REASON_PCF_REQUEST; r < BSF_REASON_COUNT; r++)
        if (str_eq(o, reason_names[r])) {
            *out = (bsf_dereg_reason_t)r;
            return true;
        }
    return false;
}

/* The event's map, checked structurally before msgpack-c allocates anything. */
static int unpack_root(const char *buf, size_t len, msgpack_zone *zone, msgpack_object *root,
                       char *err, size_t err_cap)
{
    size_t off = 0;
    if (!bsf_msgpack_well_formed(buf, len, 16)) {
        snprintf(err, err_cap, "not a well-formed msgpack document");
        return -1;
    }
    msgpack_unpack_return u = msgpack_unpack(buf, len, &off, zone, root);
    if (u == MSGPACK_UNPACK_NOMEM_ERROR) { /* not the document's fault */
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    if (u != MSGPACK_UNPACK_SUCCESS || off != len || root->type != MSGPACK_OBJECT_MAP) {
        snprintf(err, err_cap, "not a msgpack map");
        return -1;
    }
    return 0;
}

static bool audit_member(const msgpack_object_kv *kv, msgpack_zone *zone, bsf_audit_state_t *a)
{
    const msgpack_object *k = &kv->key, *v = &kv->val;
    uint64_t u;
    if (str_eq(k, "attempts") || str_eq(k, "notFound")) {
        if (!get_uint(v, UINT32_MAX, &u))
            return false;
        *(str_eq(k, "attempts") ? &a->attempts : &a->not_found) = (uint32_t)u;
        return true;
    }
    if (str_eq(k, "lastAudited"))
        return get_ts(v, &a->last_audited_ms);
    if (!str_eq(k, "pcf"))
        return true; /* later members are ignored */
    if (v->type != MSGPACK_OBJECT_STR || v->via.str.size >= BSF_AUDIT_RESPONDER_MAX ||
        memchr(v->via.str.ptr, '\0', v->via.str.size))
        return false;
    char *s = msgpack_zone_malloc(zone, v->via.str.size + 1);
    if (!s)
        return false;
    memcpy(s, v->via.str.ptr, v->via.str.size);
    s[v->via.str.size] = '\0';
    a->responder = s;
    return true;
}

/* The `audit` payload; every member but `pcf` is required. */
static bool decode_audit(const msgpack_object *o, msgpack_zone *zone, bsf_audit_state_t *a)
{
    if (o->type != MSGPACK_OBJECT_MAP)
        return false;
    a->last_audited_ms = -2; /* "absent" until seen */
    a->attempts = a->not_found = UINT32_MAX;
    bool seen_attempts = false, seen_not_found = false;
    for (uint32_t i = 0; i < o->via.map.size; i++) {
        if (!audit_member(&o->via.map.ptr[i], zone, a))
            return false;
        seen_attempts |= str_eq(&o->via.map.ptr[i].key, "attempts");
        seen_not_found |= str_eq(&o->via.map.ptr[i].key, "notFound");
    }
    return seen_attempts && seen_not_found && a->last_audited_ms != -2;
}

/* The payload `o` of a UE-binding, MBS-binding or subscription event (member `what`), as a
 * document of type `t` allocated in `zone`. Returns it, or NULL with err "out of memory" or
 * "<what> payload: <the problem>". */
static const void *decode_doc_payload(const bsf_doc_type_t *t, const char *what,
                                      const msgpack_object *o, msgpack_zone *zone, char *err,
                                      size_t err_cap)
{
    void *doc = msgpack_zone_malloc(zone, t->size);
    bsf_problem_t problem;
    if (!doc) {
        snprintf(err, err_cap, "out of memory");
        return NULL;
    }
    if (t->decode(o, zone, doc, &problem)) {
        snprintf(err, err_cap, "%s payload: %s", what, problem.detail);
        return NULL;
    }
    return doc;
}

/* Which members an event had, and where its payload is (inside the unpacked root). */
enum { HAS_TYPE = 1, HAS_SITE = 2, HAS_SEQ = 4, HAS_HLC = 8, HAS_ID = 16, HAS_BINDING = 32,
       HAS_REASON = 64, HAS_UE_BINDING = 128, HAS_MBS_BINDING = 256, HAS_AUDIT = 512,
       HAS_SUBSCRIPTION = 1024, HAS_CREATED = 2048 };
typedef struct {
    unsigned seen;
    uint64_t version;
    const msgpack_object *binding, *ue_binding, *mbs_binding, *subscription;
} members_t;

/* A payload member: kept for after the envelope is known. True when `k` is one. */
static bool payload_member(const msgpack_object *k, const msgpack_object *val, members_t *m)
{
    static const struct {
        const char *name;
        unsigned flag;
        size_t offset;
    } payloads[] = {
        {"binding", HAS_BINDING, offsetof(members_t, binding)},
        {"ueBinding", HAS_UE_BINDING, offsetof(members_t, ue_binding)},
        {"mbsBinding", HAS_MBS_BINDING, offsetof(members_t, mbs_binding)},
        {"subscription", HAS_SUBSCRIPTION, offsetof(members_t, subscription)},
    };
    for (size_t i = 0; i < sizeof payloads / sizeof payloads[0]; i++)
        if (str_eq(k, payloads[i].name)) {
            *(const msgpack_object **)((char *)m + payloads[i].offset) = val;
            m->seen |= payloads[i].flag;
            return true;
        }
    return false;
}

/* One member of the root map into *out (or *m for payloads). Returns false on a wrong
 * value; unknown members are ignored (a newer writer's additions). */
static bool decode_member(const msgpack_object *k, const msgpack_object *val,
                          msgpack_zone *zone, bsf_event_t *out, members_t *m)
{
    uint64_t site = 0;
    bool ok = true;
    if (payload_member(k, val, m))
        return true;
    if (str_eq(k, "v")) {
        ok = get_uint(val, 255, &m->version);
    } else if (str_eq(k, "type")) {
        ok = get_type(val, &out->type);
        m->seen |= HAS_TYPE;
    } else if (str_eq(k, "site")) {
        ok = get_uint(val, UINT16_MAX, &site);
        out->site = (uint16_t)site;
        m->seen |= HAS_SITE;
    } else if (str_eq(k, "seq")) {
        ok = get_uint(val, UINT64_MAX, &out->seq);
        m->seen |= HAS_SEQ;
    } else if (str_eq(k, "hlc")) {
        ok = get_uint(val, UINT64_MAX, &out->hlc);
        m->seen |= HAS_HLC;
    } else if (str_eq(k, "bindingId")) {
        ok = get_id(val, &out->binding_id);
        m->seen |= HAS_ID;
    } else if (str_eq(k, "createdHlc")) {
        ok = get_uint(val, UINT64_MAX, &out->created_hlc);
        m->seen |= HAS_CREATED;
    } else if (str_eq(k, "originTs") || str_eq(k, "senderTs")) {
        /* the newest form has no nil here (absent: no header); the upcaster dropped v1's */
        ok = val->type != MSGPACK_OBJECT_NIL &&
             get_ts(val, str_eq(k, "originTs") ? &out->origin_ts_ms : &out->sender_ts_ms);
    } else if (str_eq(k, "reason")) {
        ok = get_reason(val, &out->reason);
        m->seen |= HAS_REASON;
    } else if (str_eq(k, "cookie")) {
        ok = val->type == MSGPACK_OBJECT_STR && val->via.str.size <= BSF_COOKIE_MAX;
        if (ok) {
            out->cookie = val->via.str.size ? val->via.str.ptr : "";
            out->cookie_len = val->via.str.size;
        }
    } else if (str_eq(k, "audit")) {
        ok = decode_audit(val, zone, &out->audit);
        m->seen |= HAS_AUDIT;
    } else if (str_eq(k, "replacedBy")) {
        ok = get_id(val, &out->replaced_by);
        out->has_replaced_by = true;
    }
    return ok;
}

/* The root's `v`, before the members are read (they are read in the newest form). False
 * when it is not an unsigned integer; 0 when absent. */
static bool root_version(const msgpack_object *root, uint64_t *version)
{
    *version = 0;
    for (uint32_t i = 0; i < root->via.map.size; i++)
        if (str_eq(&root->via.map.ptr[i].key, "v"))
            return get_uint(&root->via.map.ptr[i].val, UINT64_MAX, version);
    return true;
}

unsigned bsf_event_newest_read(void)
{
    static atomic_int cached = -1;
    int v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v < 0) {
        const char *next = getenv("BSF_TEST_EVENT_NEXT_VERSION");
        v = next && strcmp(next, "1") == 0 ? BSF_EVENT_VERSION + 1 : BSF_EVENT_VERSION;
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return (unsigned)v;
}

/* Brings `root` to the newest version. Returns 0 or -1 with a message. */
static int upcast_root(msgpack_object *root, msgpack_zone *zone, char *err, size_t err_cap)
{
    uint64_t version;
    if (!root_version(root, &version)) {
        snprintf(err, err_cap, "member v has a wrong value");
        return -1;
    }
    unsigned newest = bsf_event_newest_read();
    if (version < BSF_EVENT_VERSION_OLDEST || version > newest) {
        snprintf(err, err_cap,
                 "unsupported event version %llu (this build reads versions %d to %u)",
                 (unsigned long long)version, BSF_EVENT_VERSION_OLDEST, newest);
        return -1;
    }
    return version >= BSF_EVENT_VERSION
               ? 0
               : bsf_event_upcast(root, (unsigned)version, zone, err, err_cap);
}

/* Events carrying `createdHlc`; a creation may leave it out (it is its hlc). */
static bool carries_created(bsf_event_type_t t)
{
    return bsf_event_has_binding(t) || t == BSF_EVENT_SUBSCRIPTION_CREATED ||
           t == BSF_EVENT_SUBSCRIPTION_REPLACED;
}

int bsf_event_decode(const char *buf, size_t len, msgpack_zone *zone, bsf_event_t *out,
                     bsf_pcf_binding_t *binding_storage, char *err, size_t err_cap)
{
    msgpack_object root;
    memset(out, 0, sizeof *out);
    out->origin_ts_ms = out->sender_ts_ms = -1;
    if (unpack_root(buf, len, zone, &root, err, err_cap) ||
        upcast_root(&root, zone, err, err_cap))
        return -1;
    members_t m = {0};
    for (uint32_t i = 0; i < root.via.map.size; i++) {
        const msgpack_object *k = &root.via.map.ptr[i].key, *val = &root.via.map.ptr[i].val;
        if (!decode_member(k, val, zone, out, &m)) {
            snprintf(err, err_cap, "member %.*s has a wrong value",
                     k->type == MSGPACK_OBJECT_STR ? (int)k->via.str.size : 1,
                     k->type == MSGPACK_OBJECT_STR ? k->via.str.ptr : "?");
            return -1;
        }
    }
    unsigned seen = m.seen;
    if (carries_created(out->type) && !(seen & HAS_CREATED)) {
        if (!is_creation(out->type)) {
            snprintf(err, err_cap, "missing member createdHlc");
            return -1;
        }
        out->created_hlc = out->hlc;
    }
    unsigned need = HAS_TYPE | HAS_SITE | HAS_SEQ | HAS_HLC | HAS_ID |
                    (bsf_event_is_audit(out->type)          ? HAS_AUDIT
                     : bsf_event_is_deregistration(out->type) ? HAS_REASON
                     : bsf_event_is_ue(out->type)          ? HAS_UE_BINDING
                     : bsf_event_is_mbs(out->type)         ? HAS_MBS_BINDING
                     : bsf_event_is_subscription(out->type) ? HAS_SUBSCRIPTION
                                                            : HAS_BINDING);
    if ((seen & need) != need) {
        snprintf(err, err_cap, "missing envelope or payload members");
        return -1;
    }
    if (need & HAS_UE_BINDING) {
        out->ue_binding = decode_doc_payload(&bsf_pcf_ue_binding_type, "ueBinding",
                                             m.ue_binding, zone, err, err_cap);
        return out->ue_binding ? 0 : -1;
    }
    if (need & HAS_MBS_BINDING) {
        out->mbs_binding = decode_doc_payload(&bsf_pcf_mbs_binding_type, "mbsBinding",
                                              m.mbs_binding, zone, err, err_cap);
        return out->mbs_binding ? 0 : -1;
    }
    if (need & HAS_SUBSCRIPTION) {
        out->subscription = decode_doc_payload(&bsf_subscription_type, "subscription",
                                               m.subscription, zone, err, err_cap);
        return out->subscription ? 0 : -1;
    }
    if (need & HAS_BINDING) {
        bsf_problem_t problem;
        if (bsf_pcf_binding_decode(m.binding, zone, binding_storage, &problem)) {
            snprintf(err, err_cap, "binding payload: %s", problem.detail);
            return -1;
        }
        out->binding = binding_storage;
    }
    return 0;
}
