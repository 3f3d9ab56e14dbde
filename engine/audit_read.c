#include "engine/audit_read.h"

#include <string.h>

#include "common/error.h"
#include "core/hlc.h"
#include "engine/read_pool.h"
#include "projections/audit_projection.h"

/* The item for a live record when it is due; false when not a candidate. */
static bool candidate(const bsf_projection_t *p, MDB_txn *txn, const bsf_audit_scan_t *q,
                      const bsf_binding_id_t *id, const bsf_record_t *rec, bsf_audit_item_t *it,
                      int *rc)
{
    it->id = *id;
    it->hlc = rec->hlc;
    it->created_ms = (int64_t)BSF_HLC_MS(rec->created_hlc);
    it->audit_hlc = 0;
    it->attempts = 0;
    it->last_audited_ms = it->last_audit_ms = -1;
    it->suspected = false;
    bsf_audit_record_t a;
    *rc = bsf_audit_projection_get(p, txn, id, &a);
    if (*rc == 0) {
        it->audit_hlc = a.hlc;
        it->attempts = a.attempts;
        it->last_audited_ms = a.last_audited_ms;
        it->last_audit_ms = a.last_audit_ms;
        it->suspected = a.suspected;
    } else if (*rc != MDB_NOTFOUND) {
        return false;
    }
    *rc = 0;
    int64_t base = it->last_audited_ms > it->created_ms ? it->last_audited_ms : it->created_ms;
    return base <= q->due_before_ms &&
           (it->last_audit_ms < 0 || it->last_audit_ms <= q->reaudit_before_ms);
}

int bsf_read_audit_batch(bsf_read_t *r, const bsf_audit_scan_t *q, bsf_audit_cursor_t *cursor,
                         msgpack_zone *zone, bsf_audit_item_t *out, size_t cap, size_t *n)
{
    const bsf_projection_t *p = &bsf_read_store(r)->proj;
    MDB_txn *txn = bsf_read_txn(r);
    MDB_cursor *cur;
    *n = 0;
    int rc = mdb_cursor_open(txn, p->bindings, &cur);
    if (rc)
        return bsf_err_from_lmdb(rc);
    MDB_val k = {16, cursor->after.b}, v;
    rc = mdb_cursor_get(cur, &k, &v, cursor->started ? MDB_SET_RANGE : MDB_FIRST);
    if (rc == 0 && cursor->started && k.mv_size == 16 && memcmp(k.mv_data, cursor->after.b, 16) == 0)
        rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
    size_t visited = 0;
    for (; rc == 0 && visited < q->max_scan && *n < cap;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        visited++;
        if (k.mv_size != 16)
            continue;
        bsf_binding_id_t id;
        memcpy(id.b, k.mv_data, 16);
        cursor->after = id;
        cursor->started = true;
        bsf_record_t rec;
        if (bsf_record_parse(v.mv_data, v.mv_size, &rec)) {
            rc = MDB_CORRUPTED;
            break;
        }
        if (rec.state != BSF_RECORD_LIVE || bsf_binding_id_site(&id) != q->site)
            continue;
        int crc;
        if (!candidate(p, txn, q, &id, &rec, &out[*n], &crc)) {
            if ((rc = crc))
                break;
            continue;
        }
        if (bsf_record_decode_binding(&rec, zone, &out[*n].binding)) {
            rc = MDB_CORRUPTED;
            break;
        }
        (*n)++;
    }
    mdb_cursor_close(cur);
    if (rc == MDB_NOTFOUND) {
        cursor->done = true;
        return 0;
    }
    cursor->done = false;
    return bsf_err_from_lmdb(rc);
}

uint64_t bsf_read_audit_population(bsf_read_t *r)
{
    return bsf_read_counter(r, "total");
}
