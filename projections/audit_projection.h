/* The `audit` projection: the audit state of each live PCF binding (seed §3.34), id -> an
 * audit record. A binding without a record was never audited (attempts 0, last audited at
 * its creation).
 *
 * Apply is idempotent and order-insensitive like the bindings' own projection: the audit
 * events (AuditConfirmed / Suspected / Failed) and a BindingUpdated (the PCF touched the
 * binding: revalidation, seed §3.6, resets the state) write the record when newer by
 * (HLC, site) than the stored one and the binding is not dead; a BindingDeregistered removes
 * it whatever its version. Every function takes the caller's transaction. */
#ifndef BSF_PROJECTIONS_AUDIT_PROJECTION_H
#define BSF_PROJECTIONS_AUDIT_PROJECTION_H

#include <lmdb.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/event.h"
#include "projections/projection.h"

#define BSF_AUDIT_RECORD_FORMAT 1
#define BSF_AUDIT_RECORD_LEN 36

typedef struct {
    uint64_t hlc;            /* version: the event that wrote it */
    uint16_t site;
    uint32_t attempts;
    int64_t last_audited_ms; /* -1: never confirmed (then the binding's creation counts) */
    uint32_t not_found;
    bool suspected;          /* the last audit found it older than audit.min_ttl */
    int64_t last_audit_ms;   /* when it was last audited (any outcome); -1: not since reset */
} bsf_audit_record_t;

/* Applies an audit event, or the audit side of a BindingUpdated / BindingDeregistered
 * (other types: nothing). Call after the bindings projection applied the event. Returns 0
 * or an LMDB code. */
int bsf_audit_projection_apply(const bsf_projection_t *p, MDB_txn *txn, const bsf_event_t *ev);

/* The audit record of `id`: 0, MDB_NOTFOUND (never audited, or the store predates the
 * projection), MDB_CORRUPTED, or another LMDB code. */
int bsf_audit_projection_get(const bsf_projection_t *p, MDB_txn *txn, const bsf_binding_id_t *id,
                             bsf_audit_record_t *out);

/* The stored form (BSF_AUDIT_RECORD_LEN bytes) and back; parse returns 0 or -1. */
void bsf_audit_record_write(const bsf_audit_record_t *r, uint8_t out[BSF_AUDIT_RECORD_LEN]);
int bsf_audit_record_parse(const void *v, size_t len, bsf_audit_record_t *out);

#endif
