#include "projections/audit_projection.h"

#include "core/bytes.h"
#include "core/hlc.h"

void bsf_audit_record_write(const bsf_audit_record_t *r, uint8_t out[BSF_AUDIT_RECORD_LEN])
{
    out[0] = BSF_AUDIT_RECORD_FORMAT;
    out[1] = r->suspected;
    bsf_put_be64(out + 2, r->hlc);
    out[10] = (uint8_t)(r->site >> 8);
    out[11] = (uint8_t)r->site;
    bsf_put_be64(out + 12, (uint64_t)r->last_audited_ms);
    bsf_put_be64(out + 20, (uint64_t)r->last_audit_ms);
    for (int i = 0; i < 4; i++) {
        out[28 + i] = (uint8_t)(r->attempts >> (24 - 8 * i));
        out[32 + i] = (uint8_t)(r->not_found >> (24 - 8 * i));
    }
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int bsf_audit_record_parse(const void *v, size_t len, bsf_audit_record_t *out)
{
    const uint8_t *p = v;
    if (len != BSF_AUDIT_RECORD_LEN || p[0] != BSF_AUDIT_RECORD_FORMAT || p[1] > 1)
        return -1;
    out->suspected = p[1];
    out->hlc = bsf_get_be64(p + 2);
    out->site = (uint16_t)(p[10] << 8 | p[11]);
    out->last_audited_ms = (int64_t)bsf_get_be64(p + 12);
    out->last_audit_ms = (int64_t)bsf_get_be64(p + 20);
    out->attempts = get_be32(p + 28);
    out->not_found = get_be32(p + 32);
    return 0;
}

int bsf_audit_projection_get(const bsf_projection_t *p, MDB_txn *txn, const bsf_binding_id_t *id,
                             bsf_audit_record_t *out)
{
    if (!p->has_audit)
        return MDB_NOTFOUND;
    MDB_val k = {16, (void *)id->b}, v;
    int rc = mdb_get(txn, p->audit, &k, &v);
    if (rc)
        return rc;
    return bsf_audit_record_parse(v.mv_data, v.mv_size, out) ? MDB_CORRUPTED : 0;
}

/* The record an event makes: an audit event's state, or the reset of an update. */
static void record_of(const bsf_event_t *ev, bsf_audit_record_t *r)
{
    r->hlc = ev->hlc;
    r->site = ev->site;
    if (ev->type == BSF_EVENT_BINDING_UPDATED) {
        *r = (bsf_audit_record_t){.hlc = ev->hlc, .site = ev->site,
                                  .last_audited_ms = (int64_t)BSF_HLC_MS(ev->hlc),
                                  .last_audit_ms = -1};
        return;
    }
    r->attempts = ev->audit.attempts;
    r->last_audited_ms = ev->audit.last_audited_ms;
    r->not_found = ev->audit.not_found;
    r->suspected = ev->type == BSF_EVENT_AUDIT_SUSPECTED || ev->type == BSF_EVENT_AUDIT_FAILED;
    r->last_audit_ms = (int64_t)BSF_HLC_MS(ev->hlc);
}

int bsf_audit_projection_apply(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev)
{
    if (!p->has_audit)
        return 0;
    MDB_val k = {16, (void *)ev->binding_id.b}, v;
    if (ev->type == BSF_EVENT_BINDING_DEREGISTERED) {
        int rc = mdb_del(txn, p->audit, &k, NULL);
        return rc == MDB_NOTFOUND ? 0 : rc;
    }
    if (!bsf_event_is_audit(ev->type) && ev->type != BSF_EVENT_BINDING_UPDATED)
        return 0;
    bsf_record_t b;
    int rc = bsf_projection_get(p, txn, &ev->binding_id, &b);
    if (rc == 0 && b.state == BSF_RECORD_DEAD)
        return 0; /* removed: its audit state went with it */
    if (rc && rc != MDB_NOTFOUND)
        return rc;
    bsf_audit_record_t cur;
    rc = bsf_audit_projection_get(p, txn, &ev->binding_id, &cur);
    if (rc == 0 && bsf_record_version_cmp(cur.hlc, cur.site, ev->hlc, ev->site) >= 0)
        return 0;
    if (rc && rc != MDB_NOTFOUND)
        return rc;
    bsf_audit_record_t r = {0};
    record_of(ev, &r);
    uint8_t buf[BSF_AUDIT_RECORD_LEN];
    bsf_audit_record_write(&r, buf);
    v = (MDB_val){sizeof buf, buf};
    return mdb_put(txn, p->audit, &k, &v, 0);
}
