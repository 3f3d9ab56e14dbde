#include "projections/doc_projection.h"

#include <errno.h>
#include <string.h>

#include "common/compress.h"
#include "projections/counters.h"
#include "projections/tombstone.h"

int bsf_doc_projection_get(const bsf_doc_kind_t *k, MDB_txn *txn, const bsf_binding_id_t *id,
                           bsf_record_t *out)
{
    return bsf_projection_record_get(txn, k->records, id, out);
}

int bsf_doc_record_decode(const bsf_doc_type_t *t, const bsf_record_t *r, msgpack_zone *zone,
                          void *out)
{
    msgpack_object obj;
    bsf_problem_t problem;
    if (bsf_record_unpack_binding(r, zone, &obj))
        return -1;
    return t->decode(&obj, zone, out, &problem);
}

int bsf_doc_projection_get_live(const bsf_doc_kind_t *k, MDB_txn *txn,
                                const bsf_binding_id_t *id, msgpack_zone *zone,
                                bsf_record_t *rec, void *out)
{
    int rc = bsf_doc_projection_get(k, txn, id, rec);
    if (rc == 0 && rec->state != BSF_RECORD_LIVE)
        return MDB_NOTFOUND;
    if (rc)
        return rc;
    return bsf_doc_record_decode(k->type, rec, zone, out) ? MDB_CORRUPTED : 0;
}

/* Adds (delta > 0) or removes the document's index entries and its counter. */
static int index_doc(const bsf_doc_kind_t *k, const bsf_projection_t *p, MDB_txn *txn,
                     const void *doc, const bsf_binding_id_t *id, int delta)
{
    for (size_t i = 0; i < k->n_index; i++) {
        char values[BSF_DOC_MAX_KEYS][BSF_DOC_KEY_MAX];
        size_t n = k->keys(doc, i, values);
        for (size_t j = 0; j < n; j++) {
            uint8_t key[BSF_DOC_KEY_MAX + 17];
            size_t len = strlen(values[j]);
            memcpy(key, values[j], len + 1);
            memcpy(key + len + 1, id->b, 16);
            MDB_val kv = {len + 17, key}, v = {0, ""};
            int rc = delta > 0 ? mdb_put(txn, k->index[i], &kv, &v, 0)
                               : mdb_del(txn, k->index[i], &kv, NULL);
            if (rc && rc != MDB_NOTFOUND)
                return rc;
        }
    }
    return bsf_counter_add(txn, p->counters, k->counter, delta);
}

static int unindex_record(const bsf_doc_kind_t *k, const bsf_projection_t *p, MDB_txn *txn,
                          const bsf_record_t *r, const bsf_binding_id_t *id)
{
    msgpack_zone zone;
    if (!msgpack_zone_init(&zone, 1024))
        return -ENOMEM;
    void *old = msgpack_zone_malloc(&zone, k->type->size);
    int rc = !old || bsf_doc_record_decode(k->type, r, &zone, old)
                 ? MDB_CORRUPTED
                 : index_doc(k, p, txn, old, id, -1);
    msgpack_zone_destroy(&zone);
    return rc;
}

static int put_record(const bsf_doc_kind_t *k, MDB_txn *txn, const bsf_binding_id_t *id,
                      const bsf_record_t *r, msgpack_sbuffer *scratch)
{
    return bsf_tombstone_put_record(txn, k->records, id, r, scratch);
}

static int apply_deregistration(const bsf_doc_kind_t *k, const bsf_projection_t *p,
                                MDB_txn *txn, const bsf_event_t *ev, const bsf_record_t *cur,
                                bool exists, msgpack_sbuffer *scratch)
{
    if (!bsf_record_deregistration_applies(cur, exists, ev->hlc, ev->site))
        return 0;
    int rc = 0;
    if (exists && cur->state == BSF_RECORD_LIVE)
        rc = unindex_record(k, p, txn, cur, &ev->binding_id);
    if (rc)
        return rc;
    return bsf_tombstone_bury(txn, p->tombstones, k->records,
                              exists && cur->state == BSF_RECORD_DEAD ? cur : NULL, ev->hlc,
                              ev->site, &ev->binding_id, scratch);
}

static int apply_version(const bsf_doc_kind_t *k, const bsf_projection_t *p, MDB_txn *txn,
                         const bsf_event_t *ev, const void *doc, const bsf_record_t *cur,
                         bool exists, msgpack_sbuffer *scratch)
{
    if (!bsf_record_version_applies(cur, exists, ev->hlc, ev->site))
        return 0;
    int rc = exists ? unindex_record(k, p, txn, cur, &ev->binding_id) : 0;
    if (rc)
        return rc;
    msgpack_sbuffer mp, frame;
    msgpack_sbuffer_init(&mp);
    msgpack_sbuffer_init(&frame);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &mp, msgpack_sbuffer_write);
    rc = k->type->encode(doc, &pk) || bsf_compress_pack(mp.data, mp.size, &frame) ? -ENOMEM : 0;
    if (!rc) {
        bsf_record_t r = {.state = BSF_RECORD_LIVE,
                          .site = ev->site,
                          .hlc = ev->hlc,
                          .created_hlc = ev->created_hlc,
                          .origin_ts_ms = -1,
                          .sender_ts_ms = -1,
                          .binding = frame.data,
                          .binding_len = frame.size};
        rc = put_record(k, txn, &ev->binding_id, &r, scratch);
        if (!rc)
            rc = index_doc(k, p, txn, doc, &ev->binding_id, +1);
    }
    msgpack_sbuffer_destroy(&mp);
    msgpack_sbuffer_destroy(&frame);
    return rc;
}

int bsf_doc_projection_apply(const bsf_doc_kind_t *k, const bsf_projection_t *p, MDB_txn *txn,
                             const bsf_event_t *ev, const void *doc, msgpack_sbuffer *scratch)
{
    /* The record read points into LMDB pages that the writes below may move. */
    bsf_record_t snapshot;
    bool exists;
    msgpack_sbuffer copy;
    int rc = bsf_record_detach(bsf_doc_projection_get(k, txn, &ev->binding_id, &snapshot),
                               &snapshot, &exists, &copy);
    if (!rc)
        rc = doc ? apply_version(k, p, txn, ev, doc, &snapshot, exists, scratch)
                 : apply_deregistration(k, p, txn, ev, &snapshot, exists, scratch);
    msgpack_sbuffer_destroy(&copy);
    return rc;
}

int bsf_doc_projection_ids(const bsf_doc_kind_t *k, MDB_txn *txn, size_t i, const char *value,
                           bool (*visit)(void *ctx, const bsf_binding_id_t *id), void *ctx)
{
    size_t plen = strlen(value) + 1;
    if (i >= k->n_index || plen > BSF_DOC_KEY_MAX)
        return 0;
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, k->index[i], &cur);
    if (rc)
        return rc;
    MDB_val kv = {plen, (void *)value}, v;
    for (rc = mdb_cursor_get(cur, &kv, &v, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &kv, &v, MDB_NEXT)) {
        if (kv.mv_size != plen + 16 || memcmp(kv.mv_data, value, plen) != 0)
            break;
        bsf_binding_id_t id;
        memcpy(id.b, (const uint8_t *)kv.mv_data + plen, 16);
        if (visit(ctx, &id))
            break;
    }
    mdb_cursor_close(cur);
    return rc == 0 || rc == MDB_NOTFOUND ? 0 : rc;
}
