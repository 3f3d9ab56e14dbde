#include "projections/projection.h"

#include <errno.h>
#include <string.h>

#include "projections/audit_projection.h"
#include "projections/counters.h"
#include "projections/tombstone.h"
#include "core/bytes.h"
#include "projections/index_keys.h"
#include "projections/mbs_projection.h"
#include "projections/sub_projection.h"
#include "projections/ue_projection.h"
#include "common/compress.h"

int bsf_projection_open(MDB_txn *txn, bsf_projection_t *p, bool create)
{
    static const struct {
        const char *name;
        size_t offset;
    } dbs[BSF_PROJECTION_DBS] = {
        {"bindings", offsetof(bsf_projection_t, bindings)},
        {"ix_ipv4", offsetof(bsf_projection_t, ipv4)},
        {"ix_ipv4_route", offsetof(bsf_projection_t, ipv4_route)},
        {"ix_ipv6", offsetof(bsf_projection_t, ipv6)},
        {"ix_mac", offsetof(bsf_projection_t, mac)},
        {"ix_supi", offsetof(bsf_projection_t, supi)},
        {"ix_gpsi", offsetof(bsf_projection_t, gpsi)},
        {"ix_dnn", offsetof(bsf_projection_t, dnn)},
        {"ix_tombstones", offsetof(bsf_projection_t, tombstones)},
        {"counters", offsetof(bsf_projection_t, counters)},
        {"ue_bindings", offsetof(bsf_projection_t, ue_bindings)},
        {"ix_ue_supi", offsetof(bsf_projection_t, ue_supi)},
        {"ix_ue_gpsi", offsetof(bsf_projection_t, ue_gpsi)},
        {"mbs_bindings", offsetof(bsf_projection_t, mbs_bindings)},
        {"ix_mbs_session", offsetof(bsf_projection_t, mbs_session)},
        {"audit", offsetof(bsf_projection_t, audit)},
        {"subscriptions", offsetof(bsf_projection_t, subscriptions)},
        {"ix_sub_supi", offsetof(bsf_projection_t, sub_supi)},
        {"ix_sub_gpsi", offsetof(bsf_projection_t, sub_gpsi)},
        {"ix_sub_expiry", offsetof(bsf_projection_t, sub_expiry)},
    };
    /* the sub-databases of schema 3: the audit, then the four of subscriptions */
    enum { FIRST_SCHEMA3 = BSF_PROJECTION_DBS - 5 };
    p->has_audit = p->has_subscriptions = true;
    for (int i = 0; i < BSF_PROJECTION_DBS; i++) {
        int rc = mdb_dbi_open(txn, dbs[i].name, create ? MDB_CREATE : 0,
                              (MDB_dbi *)((char *)p + dbs[i].offset));
        if (rc == MDB_NOTFOUND && !create && i >= FIRST_SCHEMA3) {
            /* schema 2, read-only: no binding was audited, no subscription was made */
            if (i == FIRST_SCHEMA3)
                p->has_audit = false;
            else
                p->has_subscriptions = false;
        } else if (rc) {
            return rc;
        }
    }
    return 0;
}

int bsf_projection_record_get(MDB_txn *txn, MDB_dbi dbi, const bsf_binding_id_t *id,
                              bsf_record_t *out)
{
    MDB_val k = {16, (void *)id->b}, v;
    int rc = mdb_get(txn, dbi, &k, &v);
    if (rc)
        return rc;
    return bsf_record_parse(v.mv_data, v.mv_size, out) ? MDB_CORRUPTED : 0;
}

int bsf_projection_get(const bsf_projection_t *p, MDB_txn *txn, const bsf_binding_id_t *id,
                       bsf_record_t *out)
{
    return bsf_projection_record_get(txn, p->bindings, id, out);
}

int bsf_record_unpack_binding(const bsf_record_t *r, msgpack_zone *zone, msgpack_object *out)
{
    size_t off = 0, len;
    const char *mp;
    if (bsf_record_binding_msgpack(r, zone, &mp, &len) ||
        msgpack_unpack(mp, len, &off, zone, out) != MSGPACK_UNPACK_SUCCESS)
        return -1;
    return 0;
}

int bsf_record_decode_binding(const bsf_record_t *r, msgpack_zone *zone, bsf_pcf_binding_t *out)
{
    msgpack_object obj;
    if (bsf_record_unpack_binding(r, zone, &obj))
        return -1;
    bsf_problem_t problem;
    return bsf_pcf_binding_decode(&obj, zone, out, &problem);
}

static MDB_dbi index_dbi(const bsf_projection_t *p, bsf_index_kind_t kind)
{
    switch (kind) {
    case BSF_INDEX_IPV4:
        return p->ipv4;
    case BSF_INDEX_IPV4_ROUTE:
        return p->ipv4_route;
    case BSF_INDEX_IPV6:
        return p->ipv6;
    case BSF_INDEX_MAC:
        return p->mac;
    case BSF_INDEX_SUPI:
        return p->supi;
    case BSF_INDEX_DNN:
        return p->dnn;
    default:
        return p->gpsi;
    }
}

/* Adds (delta > 0) or removes the binding's index entries and counter contributions. */
static int index_binding(const bsf_projection_t *p, MDB_txn *txn, const bsf_pcf_binding_t *b,
                         const bsf_binding_id_t *id, int delta)
{
    bsf_index_key_t keys[BSF_INDEX_KEYS_MAX];
    size_t n = bsf_index_keys(b, id, keys);
    for (size_t i = 0; i < n; i++) {
        MDB_val k = {keys[i].len, keys[i].key}, v = {0, ""};
        int rc = delta > 0 ? mdb_put(txn, index_dbi(p, keys[i].kind), &k, &v, 0)
                           : mdb_del(txn, index_dbi(p, keys[i].kind), &k, NULL);
        if (rc && rc != MDB_NOTFOUND)
            return rc;
    }
    return bsf_counters_account(txn, p->counters, b, delta);
}

static int unindex_record(const bsf_projection_t *p, MDB_txn *txn, const bsf_record_t *r,
                          const bsf_binding_id_t *id, const bsf_pcf_binding_t *prior)
{
    if (prior)
        return index_binding(p, txn, prior, id, -1);
    msgpack_zone zone;
    bsf_pcf_binding_t old;
    if (!msgpack_zone_init(&zone, 2048))
        return -ENOMEM;
    int rc = bsf_record_decode_binding(r, &zone, &old) ? MDB_CORRUPTED
                                                        : index_binding(p, txn, &old, id, -1);
    msgpack_zone_destroy(&zone);
    return rc;
}

static int put_record(const bsf_projection_t *p, MDB_txn *txn, const bsf_binding_id_t *id,
                      const bsf_record_t *r, msgpack_sbuffer *scratch)
{
    return bsf_tombstone_put_record(txn, p->bindings, id, r, scratch);
}

static int apply_deregistration(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                                const bsf_record_t *cur, bool exists, msgpack_sbuffer *scratch)
{
    if (!bsf_record_deregistration_applies(cur, exists, ev->hlc, ev->site))
        return 0;
    int rc = 0;
    if (exists && cur->state == BSF_RECORD_LIVE)
        rc = unindex_record(p, txn, cur, &ev->binding_id, ev->prior);
    if (rc)
        return rc;
    return bsf_tombstone_bury(txn, p->tombstones, p->bindings,
                              exists && cur->state == BSF_RECORD_DEAD ? cur : NULL, ev->hlc,
                              ev->site, &ev->binding_id, scratch);
}

int bsf_projection_binding_frame(const bsf_pcf_binding_t *b, msgpack_sbuffer *out)
{
    msgpack_sbuffer mp;
    msgpack_sbuffer_init(&mp);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &mp, msgpack_sbuffer_write);
    int rc = bsf_pcf_binding_encode(b, &pk) || bsf_compress_pack(mp.data, mp.size, out) ? -ENOMEM
                                                                                         : 0;
    msgpack_sbuffer_destroy(&mp);
    return rc;
}

static int apply_binding_version(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                                 const bsf_record_t *cur, bool exists, const char *frame,
                                 size_t frame_len, msgpack_sbuffer *scratch)
{
    if (!bsf_record_version_applies(cur, exists, ev->hlc, ev->site))
        return 0;
    if (exists) {
        int rc = unindex_record(p, txn, cur, &ev->binding_id, ev->prior);
        if (rc)
            return rc;
    }
    /* The frame goes to a second buffer: the record buffer is reused below. */
    msgpack_sbuffer made;
    msgpack_sbuffer_init(&made);
    int rc = 0;
    if (!frame && ev->binding_mp) {
        rc = bsf_compress_pack(ev->binding_mp, ev->binding_mp_len, &made) ? -ENOMEM : 0;
        frame = made.data;
        frame_len = made.size;
    } else if (!frame) {
        rc = bsf_projection_binding_frame(ev->binding, &made);
        frame = made.data;
        frame_len = made.size;
    }
    if (!rc) {
        bsf_record_t r = {.state = BSF_RECORD_LIVE,
                          .site = ev->site,
                          .hlc = ev->hlc,
                          .created_hlc = ev->created_hlc,
                          .origin_ts_ms = ev->origin_ts_ms,
                          .sender_ts_ms = ev->sender_ts_ms,
                          .cookie = ev->cookie,
                          .cookie_len = ev->cookie ? ev->cookie_len : 0,
                          .binding = frame,
                          .binding_len = frame_len};
        rc = put_record(p, txn, &ev->binding_id, &r, scratch);
        if (!rc)
            rc = index_binding(p, txn, ev->binding, &ev->binding_id, +1);
    }
    msgpack_sbuffer_destroy(&made);
    return rc;
}

int bsf_projection_apply_framed(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                                const char *frame, size_t frame_len, msgpack_sbuffer *scratch)
{
    if (bsf_event_is_ue(ev->type))
        return bsf_ue_projection_apply(p, txn, ev, scratch);
    if (bsf_event_is_mbs(ev->type))
        return bsf_mbs_projection_apply(p, txn, ev, scratch);
    if (bsf_event_is_audit(ev->type))
        return bsf_audit_projection_apply(p, txn, ev);
    if (bsf_event_is_subscription(ev->type))
        return bsf_sub_projection_apply(p, txn, ev, scratch);
    /* The record read points into LMDB pages that the writes below may move. */
    bsf_record_t snapshot;
    bool exists;
    msgpack_sbuffer copy;
    int rc = bsf_record_detach(bsf_projection_get(p, txn, &ev->binding_id, &snapshot),
                               &snapshot, &exists, &copy);
    if (!rc && ev->type == BSF_EVENT_BINDING_DEREGISTERED)
        rc = apply_deregistration(p, txn, ev, &snapshot, exists, scratch);
    else if (!rc)
        rc = apply_binding_version(p, txn, ev, &snapshot, exists, frame, frame_len, scratch);
    msgpack_sbuffer_destroy(&copy);
    return rc ? rc : bsf_audit_projection_apply(p, txn, ev);
}

int bsf_projection_apply(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                         msgpack_sbuffer *scratch)
{
    return bsf_projection_apply_framed(p, txn, ev, NULL, 0, scratch);
}

int bsf_projection_gc_tombstones(const bsf_projection_t *p, MDB_txn *txn, uint64_t before_hlc,
                                 size_t max, size_t *removed)
{
    MDB_cursor *cur;
    *removed = 0;
    int rc = mdb_cursor_open(txn, p->tombstones, &cur);
    if (rc)
        return rc;
    MDB_val k, v;
    /* One walk: after a delete the cursor rests on the next tombstone (MDB_NEXT). */
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0 && *removed < max;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size != 26 || bsf_get_be64(k.mv_data) >= before_hlc)
            break;
        MDB_val id = {16, (uint8_t *)k.mv_data + 10};
        /* Ids are unique across kinds: the tombstone is in one of them. */
        rc = mdb_del(txn, p->bindings, &id, NULL);
        if (rc == MDB_NOTFOUND)
            rc = mdb_del(txn, p->ue_bindings, &id, NULL);
        if (rc == MDB_NOTFOUND)
            rc = mdb_del(txn, p->mbs_bindings, &id, NULL);
        if (rc == MDB_NOTFOUND)
            rc = mdb_del(txn, p->subscriptions, &id, NULL);
        if ((rc && rc != MDB_NOTFOUND) || (rc = mdb_cursor_del(cur, 0)))
            break;
        (*removed)++;
    }
    mdb_cursor_close(cur);
    return rc == 0 || rc == MDB_NOTFOUND ? 0 : rc;
}
