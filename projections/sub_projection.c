/* Subscriptions on the document projection (projections/doc_projection.h). */
#include "projections/sub_projection.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "projections/doc_projection.h"

#define EXPIRY_KEY_LEN 16 /* hex digits of the expiry's Unix ms: key order is time order */

static size_t sub_keys(const void *doc, size_t i, char out[BSF_DOC_MAX_KEYS][BSF_DOC_KEY_MAX])
{
    const bsf_subscription_t *s = doc;
    if (i == 2) {
        if (s->expiry_ms < 0)
            return 0;
        snprintf(out[0], BSF_DOC_KEY_MAX, "%016llx", (unsigned long long)s->expiry_ms);
        return 1;
    }
    const char *v = i == 0 ? s->supi : s->gpsi;
    if (!v || strlen(v) >= BSF_DOC_KEY_MAX)
        return 0;
    snprintf(out[0], BSF_DOC_KEY_MAX, "%s", v);
    return 1;
}

static bsf_doc_kind_t sub_kind(const bsf_projection_t *p)
{
    return (bsf_doc_kind_t){.records = p->subscriptions,
                            .index = {p->sub_supi, p->sub_gpsi, p->sub_expiry},
                            .n_index = 3,
                            .counter = BSF_SUB_COUNTER_TOTAL,
                            .keys = sub_keys,
                            .type = &bsf_subscription_type};
}

int bsf_sub_projection_get(const bsf_projection_t *p, MDB_txn *txn, const bsf_binding_id_t *id,
                           bsf_record_t *out)
{
    bsf_doc_kind_t k = sub_kind(p);
    return bsf_doc_projection_get(&k, txn, id, out);
}

int bsf_record_decode_subscription(const bsf_record_t *r, msgpack_zone *zone,
                                   bsf_subscription_t *out)
{
    return bsf_doc_record_decode(&bsf_subscription_type, r, zone, out);
}

int bsf_sub_projection_apply(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                             msgpack_sbuffer *scratch)
{
    bool removed = ev->type == BSF_EVENT_SUBSCRIPTION_REMOVED;
    if (!bsf_event_is_subscription(ev->type) || (!removed && !ev->subscription))
        return -EINVAL;
    bsf_doc_kind_t k = sub_kind(p);
    return bsf_doc_projection_apply(&k, p, txn, ev, removed ? NULL : ev->subscription, scratch);
}

int bsf_sub_projection_ids(const bsf_projection_t *p, MDB_txn *txn, const char *value, bool gpsi,
                           bool (*visit)(void *ctx, const bsf_binding_id_t *id), void *ctx)
{
    bsf_doc_kind_t k = sub_kind(p);
    return bsf_doc_projection_ids(&k, txn, gpsi ? 1 : 0, value, visit, ctx);
}

int bsf_sub_projection_expired(const bsf_projection_t *p, MDB_txn *txn, int64_t now_ms,
                               bool (*visit)(void *ctx, const bsf_binding_id_t *id), void *ctx)
{
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, p->sub_expiry, &cur);
    if (rc)
        return rc;
    char limit[EXPIRY_KEY_LEN + 1];
    snprintf(limit, sizeof limit, "%016llx", (unsigned long long)(now_ms < 0 ? 0 : now_ms));
    MDB_val k, v;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size != EXPIRY_KEY_LEN + 1 + 16 || memcmp(k.mv_data, limit, EXPIRY_KEY_LEN) >= 0)
            break;
        bsf_binding_id_t id;
        memcpy(id.b, (const uint8_t *)k.mv_data + EXPIRY_KEY_LEN + 1, 16);
        if (visit(ctx, &id))
            break;
    }
    mdb_cursor_close(cur);
    return rc == 0 || rc == MDB_NOTFOUND ? 0 : rc;
}
