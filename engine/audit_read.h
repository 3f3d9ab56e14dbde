/* The read side of the binding audit (audit/): the PCF bindings a site audits, in bounded
 * batches of the `bindings` projection, each with its audit state. A site audits the
 * bindings it created (the site named in the binding id), so exactly one site audits each.
 *
 * Threads: like engine/read.h, inside a snapshot of a handle used by one thread. */
#ifndef BSF_ENGINE_AUDIT_READ_H
#define BSF_ENGINE_AUDIT_READ_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/binding_id.h"
#include "core/pcf_binding.h"
#include "engine/read.h"

typedef struct {
    bsf_binding_id_t id;
    uint64_t hlc;            /* the binding record's version (bsf_command_t.expect_hlc) */
    int64_t created_ms;
    uint64_t audit_hlc;      /* the audit record's version; 0: never audited */
    uint32_t attempts;
    int64_t last_audited_ms; /* last confirmation; -1: never */
    int64_t last_audit_ms;   /* last audit of any outcome; -1: never (or since a reset) */
    bool suspected;
    bsf_pcf_binding_t binding; /* decoded into the caller's zone */
} bsf_audit_item_t;

typedef struct {
    uint16_t site;             /* only the bindings this site created */
    int64_t due_before_ms;     /* candidates: max(created, last confirmed) <= this ... */
    int64_t reaudit_before_ms; /* ... and last audited at or before this, or never */
    size_t max_scan;           /* records visited per call (bounds the snapshot's work) */
} bsf_audit_scan_t;

typedef struct {
    bsf_binding_id_t after; /* the last id visited */
    bool started;           /* false: from the first binding */
    bool done;              /* the last call reached the end */
} bsf_audit_cursor_t;

/* Visits up to q->max_scan bindings after the cursor (id order) and returns the candidates,
 * at most `cap`, in out[0..*n) (bindings decoded into `zone`). Advances the cursor; sets
 * cursor->done at the end. Returns 0, MDB_CORRUPTED (a record that does not parse), or
 * another LMDB code (as in engine/read.h). */
int bsf_read_audit_batch(bsf_read_t *r, const bsf_audit_scan_t *q, bsf_audit_cursor_t *cursor,
                         msgpack_zone *zone, bsf_audit_item_t *out, size_t cap, size_t *n);

/* Live PCF bindings (the "total" counter), inside a snapshot. */
uint64_t bsf_read_audit_population(bsf_read_t *r);

#endif
