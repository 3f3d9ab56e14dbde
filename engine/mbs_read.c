/* The read facade's lookup of MBS session bindings (engine/read.h). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "common/error.h"
#include "engine/read.h"
#include "engine/read_pool.h"
#include "engine/store.h"
#include "projections/mbs_projection.h"

typedef struct {
    const bsf_projection_t *proj;
    MDB_txn *txn;
    const bsf_mbs_session_id_t *session;
    msgpack_zone *zone;
    bsf_mbs_match_t *out;
    size_t cap, n;
    int rc;
} discover_t;

static bool discover_visit(void *ctx, const bsf_binding_id_t *id)
{
    discover_t *d = ctx;
    bsf_mbs_match_t *m = &d->out[d->n];
    int rc = bsf_mbs_projection_get_live(d->proj, d->txn, id, d->zone, &m->record, &m->binding);
    if (rc == MDB_NOTFOUND)
        return false;
    if (rc) {
        d->rc = rc;
        return true;
    }
    if (!bsf_mbs_session_id_matches(d->session, &m->binding.mbs_session_id))
        return false;
    m->id = *id;
    return ++d->n == d->cap;
}

int bsf_read_mbs_discover(bsf_read_t *r, const bsf_mbs_session_id_t *session,
                          msgpack_zone *zone, bsf_mbs_match_t *out, size_t cap, size_t *n)
{
    *n = 0;
    if (!cap)
        return 0;
    discover_t d = {&bsf_read_store(r)->proj, bsf_read_txn(r), session, zone, out, cap, 0, 0};
    int rc = bsf_mbs_projection_ids(d.proj, d.txn, session, discover_visit, &d);
    if (!rc)
        rc = d.rc;
    *n = d.n;
    bsf_read_sort_by_creation(out, d.n, sizeof *out, offsetof(bsf_mbs_match_t, id),
                              offsetof(bsf_mbs_match_t, record));
    return bsf_err_from_lmdb(rc);
}
