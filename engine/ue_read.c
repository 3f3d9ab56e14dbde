/* The read facade's lookups of PCF-for-UE bindings (engine/read.h). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common/error.h"
#include "engine/read.h"
#include "engine/read_pool.h"
#include "engine/store.h"
#include "projections/ue_projection.h"

typedef struct {
    const bsf_projection_t *proj;
    MDB_txn *txn;
    const char *gpsi; /* filter, or NULL */
    msgpack_zone *zone;
    bsf_ue_match_t *out;
    size_t cap, n;
    int rc;
} discover_t;

static bool discover_visit(void *ctx, const bsf_binding_id_t *id)
{
    discover_t *d = ctx;
    bsf_ue_match_t *m = &d->out[d->n];
    int rc = bsf_ue_projection_get_live(d->proj, d->txn, id, d->zone, &m->record, &m->binding);
    if (rc == MDB_NOTFOUND)
        return false;
    if (rc) {
        d->rc = rc;
        return true;
    }
    if (d->gpsi && (!m->binding.gpsi || strcmp(m->binding.gpsi, d->gpsi) != 0))
        return false;
    m->id = *id;
    return ++d->n == d->cap;
}

int bsf_read_ue_discover(bsf_read_t *r, const char *supi, const char *gpsi, msgpack_zone *zone,
                         bsf_ue_match_t *out, size_t cap, size_t *n)
{
    *n = 0;
    if (!supi && !gpsi)
        return -EINVAL;
    if (!cap)
        return 0;
    discover_t d = {&bsf_read_store(r)->proj, bsf_read_txn(r), supi ? gpsi : NULL, zone, out,
                    cap, 0, 0};
    int rc = bsf_ue_projection_ids(d.proj, d.txn, supi ? supi : gpsi, supi == NULL,
                                   discover_visit, &d);
    if (!rc)
        rc = d.rc;
    *n = d.n;
    bsf_read_sort_by_creation(out, d.n, sizeof *out, offsetof(bsf_ue_match_t, id),
                              offsetof(bsf_ue_match_t, record));
    return bsf_err_from_lmdb(rc);
}

int bsf_read_ue_binding(bsf_read_t *r, const bsf_binding_id_t *id, msgpack_zone *zone,
                        bsf_ue_match_t *out)
{
    out->id = *id;
    int rc = bsf_ue_projection_get_live(&bsf_read_store(r)->proj, bsf_read_txn(r), id, zone,
                                        &out->record, &out->binding);
    return rc == MDB_NOTFOUND ? BSF_ENOTFOUND : bsf_err_from_lmdb(rc);
}
