#include "projections/mbs_projection.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "projections/doc_projection.h"

static size_t mbs_keys(const void *doc, size_t i, char out[BSF_DOC_MAX_KEYS][BSF_DOC_KEY_MAX])
{
    (void)i;
    const bsf_pcf_mbs_binding_t *b = doc;
    char keys[2][BSF_MBS_KEY_MAX];
    size_t n = bsf_mbs_session_id_keys(&b->mbs_session_id, keys);
    for (size_t j = 0; j < n; j++)
        snprintf(out[j], BSF_DOC_KEY_MAX, "%s", keys[j]);
    return n;
}

static bsf_doc_kind_t mbs_kind(const bsf_projection_t *p)
{
    return (bsf_doc_kind_t){.records = p->mbs_bindings,
                            .index = {p->mbs_session},
                            .n_index = 1,
                            .counter = BSF_MBS_COUNTER_TOTAL,
                            .keys = mbs_keys,
                            .type = &bsf_pcf_mbs_binding_type};
}

int bsf_mbs_projection_get(const bsf_projection_t *p, MDB_txn *txn, const bsf_binding_id_t *id,
                           bsf_record_t *out)
{
    bsf_doc_kind_t k = mbs_kind(p);
    return bsf_doc_projection_get(&k, txn, id, out);
}

int bsf_mbs_projection_get_live(const bsf_projection_t *p, MDB_txn *txn,
                                const bsf_binding_id_t *id, msgpack_zone *zone,
                                bsf_record_t *rec, bsf_pcf_mbs_binding_t *out)
{
    bsf_doc_kind_t k = mbs_kind(p);
    return bsf_doc_projection_get_live(&k, txn, id, zone, rec, out);
}

int bsf_mbs_projection_apply(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                             msgpack_sbuffer *scratch)
{
    bool dereg = ev->type == BSF_EVENT_MBS_BINDING_DEREGISTERED;
    if (!bsf_event_is_mbs(ev->type) || (!dereg && !ev->mbs_binding))
        return -EINVAL;
    bsf_doc_kind_t k = mbs_kind(p);
    return bsf_doc_projection_apply(&k, p, txn, ev, dereg ? NULL : ev->mbs_binding, scratch);
}

int bsf_mbs_projection_ids(const bsf_projection_t *p, MDB_txn *txn,
                           const bsf_mbs_session_id_t *session,
                           bool (*visit)(void *ctx, const bsf_binding_id_t *id), void *ctx)
{
    char keys[2][BSF_MBS_KEY_MAX];
    if (!bsf_mbs_session_id_keys(session, keys))
        return 0;
    bsf_doc_kind_t k = mbs_kind(p);
    return bsf_doc_projection_ids(&k, txn, 0, keys[0], visit, ctx);
}
