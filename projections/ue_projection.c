#include "projections/ue_projection.h"

#include <errno.h>
#include <string.h>

#include "common/compress.h"
#include "core/bytes.h"
#include "projections/counters.h"
#include "projections/index_keys.h"

int bsf_ue_projection_get(const bsf_projection_t *p, MDB_txn *txn, const bsf_binding_id_t *id,
                          bsf_record_t *out)
{
    MDB_val k = {16, (void *)id->b}, v;
    int rc = mdb_get(txn, p->ue_bindings, &k, &v);
    if (rc)
        return rc;
    return bsf_record_parse(v.mv_data, v.mv_size, out) ? MDB_CORRUPTED : 0;
}

int bsf_record_decode_ue_binding(const bsf_record_t *r, msgpack_zone *zone,
                                 bsf_pcf_ue_binding_t *out)
{
    msgpack_object obj;
    size_t off = 0, len;
    const char *mp;
    bsf_problem_t problem;
    if (bsf_record_binding_msgpack(r, zone, &mp, &len) ||
        msgpack_unpack(mp, len, &off, zone, &obj) != MSGPACK_UNPACK_SUCCESS)
        return -1;
    return bsf_pcf_ue_binding_decode(&obj, zone, out, &problem) ||
                   bsf_pcf_ue_binding_check_rules(out, &problem)
               ? -1
               : 0;
}

/* Adds (delta > 0) or removes the binding's index entries and its counter. */
static int index_ue(const bsf_projection_t *p, MDB_txn *txn, const bsf_pcf_ue_binding_t *b,
                    const bsf_binding_id_t *id, int delta)
{
    const char *values[2] = {b->supi, b->gpsi};
    MDB_dbi dbis[2] = {p->ue_supi, p->ue_gpsi};
    for (int i = 0; i < 2; i++) {
        uint8_t key[BSF_INDEX_KEY_MAX];
        if (!values[i] || strlen(values[i]) > BSF_MAX_IDENTITY_LEN)
            continue;
        size_t n = bsf_index_text_prefix(values[i], key);
        memcpy(key + n, id->b, 16);
        MDB_val k = {n + 16, key}, v = {0, ""};
        int rc = delta > 0 ? mdb_put(txn, dbis[i], &k, &v, 0) : mdb_del(txn, dbis[i], &k, NULL);
        if (rc && rc != MDB_NOTFOUND)
            return rc;
    }
    return bsf_counter_add(txn, p->counters, BSF_UE_COUNTER_TOTAL, delta);
}

static int unindex_record(const bsf_projection_t *p, MDB_txn *txn, const bsf_record_t *r,
                          const bsf_binding_id_t *id)
{
    msgpack_zone zone;
    bsf_pcf_ue_binding_t old;
    if (!msgpack_zone_init(&zone, 1024))
        return -ENOMEM;
    int rc = bsf_record_decode_ue_binding(r, &zone, &old) ? MDB_CORRUPTED
                                                           : index_ue(p, txn, &old, id, -1);
    msgpack_zone_destroy(&zone);
    return rc;
}

static int put_record(const bsf_projection_t *p, MDB_txn *txn, const bsf_binding_id_t *id,
                      const bsf_record_t *r, msgpack_sbuffer *scratch)
{
    uint8_t header[BSF_RECORD_HEADER_LIVE];
    size_t hlen = bsf_record_write_header(r, header);
    msgpack_sbuffer_clear(scratch);
    msgpack_sbuffer_write(scratch, (const char *)header, hlen);
    if (r->state == BSF_RECORD_LIVE)
        msgpack_sbuffer_write(scratch, r->binding, r->binding_len);
    MDB_val k = {16, (void *)id->b}, v = {scratch->size, scratch->data};
    return mdb_put(txn, p->ue_bindings, &k, &v, 0);
}

static MDB_val tombstone_key(uint8_t key[26], uint64_t hlc, uint16_t site,
                              const bsf_binding_id_t *id)
{
    bsf_put_be64(key, hlc);
    key[8] = (uint8_t)(site >> 8);
    key[9] = (uint8_t)site;
    memcpy(key + 10, id->b, 16);
    return (MDB_val){26, key};
}

static int apply_deregistration(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                                const bsf_record_t *cur, bool exists, msgpack_sbuffer *scratch)
{
    if (exists && cur->state == BSF_RECORD_DEAD &&
        bsf_record_version_cmp(cur->hlc, cur->site, ev->hlc, ev->site) >= 0)
        return 0; /* already dead at this or a later deregistration */
    uint8_t key[26];
    MDB_val k, empty = {0, ""};
    int rc = 0;
    if (exists && cur->state == BSF_RECORD_LIVE)
        rc = unindex_record(p, txn, cur, &ev->binding_id);
    if (!rc && exists && cur->state == BSF_RECORD_DEAD) { /* a later deregistration */
        k = tombstone_key(key, cur->hlc, cur->site, &ev->binding_id);
        rc = mdb_del(txn, p->tombstones, &k, NULL);
        rc = rc == MDB_NOTFOUND ? 0 : rc;
    }
    if (rc)
        return rc;
    k = tombstone_key(key, ev->hlc, ev->site, &ev->binding_id);
    if ((rc = mdb_put(txn, p->tombstones, &k, &empty, 0)))
        return rc;
    bsf_record_t tomb = {.state = BSF_RECORD_DEAD, .site = ev->site, .hlc = ev->hlc};
    return put_record(p, txn, &ev->binding_id, &tomb, scratch);
}

static int apply_version(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                         const bsf_record_t *cur, bool exists, msgpack_sbuffer *scratch)
{
    if (exists && cur->state == BSF_RECORD_DEAD)
        return 0; /* deregistration wins over any registration or update */
    if (exists && bsf_record_version_cmp(cur->hlc, cur->site, ev->hlc, ev->site) >= 0)
        return 0; /* last writer wins; an equal version is the same event applied again */
    int rc = exists ? unindex_record(p, txn, cur, &ev->binding_id) : 0;
    if (rc)
        return rc;
    msgpack_sbuffer mp, frame;
    msgpack_sbuffer_init(&mp);
    msgpack_sbuffer_init(&frame);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &mp, msgpack_sbuffer_write);
    rc = bsf_pcf_ue_binding_encode(ev->ue_binding, &pk) ||
                 bsf_compress_pack(mp.data, mp.size, &frame)
             ? -ENOMEM
             : 0;
    if (!rc) {
        bsf_record_t r = {.state = BSF_RECORD_LIVE,
                          .site = ev->site,
                          .hlc = ev->hlc,
                          .created_hlc = ev->created_hlc,
                          .origin_ts_ms = -1,
                          .sender_ts_ms = -1,
                          .binding = frame.data,
                          .binding_len = frame.size};
        rc = put_record(p, txn, &ev->binding_id, &r, scratch);
        if (!rc)
            rc = index_ue(p, txn, ev->ue_binding, &ev->binding_id, +1);
    }
    msgpack_sbuffer_destroy(&mp);
    msgpack_sbuffer_destroy(&frame);
    return rc;
}

int bsf_ue_projection_apply(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                            msgpack_sbuffer *scratch)
{
    bool dereg = ev->type == BSF_EVENT_UE_BINDING_DEREGISTERED;
    if (!bsf_event_is_ue(ev->type) || (!dereg && !ev->ue_binding))
        return -EINVAL;
    bsf_record_t cur;
    int rc = bsf_ue_projection_get(p, txn, &ev->binding_id, &cur);
    if (rc && rc != MDB_NOTFOUND)
        return rc;
    bool exists = rc == 0;
    /* `cur` points into pages that the writes below may move: copy the binding. */
    bsf_record_t snapshot = cur;
    msgpack_sbuffer copy;
    msgpack_sbuffer_init(&copy);
    if (exists && cur.state == BSF_RECORD_LIVE) {
        msgpack_sbuffer_write(&copy, cur.binding, cur.binding_len);
        snapshot.binding = copy.data;
    }
    rc = dereg ? apply_deregistration(p, txn, ev, &snapshot, exists, scratch)
               : apply_version(p, txn, ev, &snapshot, exists, scratch);
    msgpack_sbuffer_destroy(&copy);
    return rc;
}

int bsf_ue_projection_ids(const bsf_projection_t *p, MDB_txn *txn, const char *value, bool gpsi,
                          bool (*visit)(void *ctx, const bsf_binding_id_t *id), void *ctx)
{
    uint8_t prefix[BSF_INDEX_KEY_MAX];
    if (strlen(value) > BSF_MAX_IDENTITY_LEN)
        return 0;
    size_t plen = bsf_index_text_prefix(value, prefix);
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, gpsi ? p->ue_gpsi : p->ue_supi, &cur);
    if (rc)
        return rc;
    MDB_val k = {plen, prefix}, v;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size != plen + 16 || memcmp(k.mv_data, prefix, plen) != 0)
            break;
        bsf_binding_id_t id;
        memcpy(id.b, (const uint8_t *)k.mv_data + plen, 16);
        if (visit(ctx, &id))
            break;
    }
    mdb_cursor_close(cur);
    return rc == 0 || rc == MDB_NOTFOUND ? 0 : rc;
}
