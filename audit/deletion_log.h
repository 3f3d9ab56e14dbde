/* Enhanced deletion logging (seed §3.34.1): one JSON line per PCF binding removed without its
 * PCF asking (audit 404, audit max TTL, Diameter stale notification, operator), with the
 * reason and the binding's details; UE identifiers (supi, gpsi, UE addresses) masked as
 * "XXXX" unless configured otherwise; null members left out. Its own level: the line is
 * written at that level, so it appears only when log_level is as verbose or more. Also
 * counts the removals by reason (metrics). */
#ifndef BSF_AUDIT_DELETION_LOG_H
#define BSF_AUDIT_DELETION_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "common/text.h"
#include "engine/engine.h"

typedef struct bsf_deletion_log bsf_deletion_log_t;

/* level: a bsf_log_level_t, or -1 for no lines (still counted). Returns NULL when out of
 * memory. Main thread. */
bsf_deletion_log_t *bsf_deletion_log_create(int level, bool ue_ids);
void bsf_deletion_log_free(bsf_deletion_log_t *d);

/* The engine's on_removal hook (ctx = the log). Engine thread. */
void bsf_deletion_log_removal(void *ctx, const bsf_removal_t *r);

/* The JSON object of a removal (caller frees), for the line and the tests. NULL: no memory. */
char *bsf_deletion_log_format(const bsf_removal_t *r, bool ue_ids);

/* The text of a reason as the seed words it ("404 Response received from PCF", ...). */
const char *bsf_deletion_reason_text(bsf_dereg_reason_t reason);

/* Prometheus text: bsf_stale_bindings_removed_total{reason}. Any thread. */
void bsf_deletion_log_write_metrics(void *ctx, bsf_text_t *out);

#endif
