#include "projections/ue_projection.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "projections/doc_projection.h"

static size_t ue_keys(const void *doc, size_t i, char out[BSF_DOC_MAX_KEYS][BSF_DOC_KEY_MAX])
{
    const bsf_pcf_ue_binding_t *b = doc;
    const char *v = i == 0 ? b->supi : b->gpsi;
    if (!v || strlen(v) >= BSF_DOC_KEY_MAX)
        return 0;
    snprintf(out[0], BSF_DOC_KEY_MAX, "%s", v);
    return 1;
}

static bsf_doc_kind_t ue_kind(const bsf_projection_t *p)
{
    return (bsf_doc_kind_t){.records = p->ue_bindings,
                            .index = {p->ue_supi, p->ue_gpsi},
                            .n_index = 2,
                            .counter = BSF_UE_COUNTER_TOTAL,
                            .keys = ue_keys,
                            .type = &bsf_pcf_ue_binding_type};
}

int bsf_ue_projection_get(const bsf_projection_t *p, MDB_txn *txn, const bsf_binding_id_t *id,
                          bsf_record_t *out)
{
    bsf_doc_kind_t k = ue_kind(p);
    return bsf_doc_projection_get(&k, txn, id, out);
}

int bsf_ue_projection_get_live(const bsf_projection_t *p, MDB_txn *txn,
                               const bsf_binding_id_t *id, msgpack_zone *zone,
                               bsf_record_t *rec, bsf_pcf_ue_binding_t *out)
{
    bsf_doc_kind_t k = ue_kind(p);
    return bsf_doc_projection_get_live(&k, txn, id, zone, rec, out);
}

int bsf_record_decode_ue_binding(const bsf_record_t *r, msgpack_zone *zone,
                                 bsf_pcf_ue_binding_t *out)
{
    return bsf_doc_record_decode(&bsf_pcf_ue_binding_type, r, zone, out);
}

int bsf_ue_projection_apply(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev,
                            msgpack_sbuffer *scratch)
{
    bool dereg = ev->type == BSF_EVENT_UE_BINDING_DEREGISTERED;
    if (!bsf_event_is_ue(ev->type) || (!dereg && !ev->ue_binding))
        return -EINVAL;
    bsf_doc_kind_t k = ue_kind(p);
    return bsf_doc_projection_apply(&k, p, txn, ev, dereg ? NULL : ev->ue_binding, scratch);
}

int bsf_ue_projection_ids(const bsf_projection_t *p, MDB_txn *txn, const char *value, bool gpsi,
                          bool (*visit)(void *ctx, const bsf_binding_id_t *id), void *ctx)
{
    bsf_doc_kind_t k = ue_kind(p);
    return bsf_doc_projection_ids(&k, txn, gpsi ? 1 : 0, value, visit, ctx);
}
