/* What audit.c (the thread, the scan) and audit_jobs.c (one binding's audit: queries,
 * answers, outcomes) share. Not for other modules. */
#ifndef BSF_AUDIT_AUDIT_INTERNAL_H
#define BSF_AUDIT_AUDIT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "audit/audit.h"
#include "audit/token_bucket.h"
#include "common/fifo.h"
#include "common/worker_thread.h"
#include "core/pcf_vendor.h"
#include "engine/audit_read.h"

#define AUDIT_MAX_404 16
#define AUDIT_BATCH_SCAN 2000 /* records visited per snapshot */
#define AUDIT_BATCH_ITEMS 256 /* candidates per snapshot */

typedef enum { JOB_QUERY, JOB_ALTERNATE } job_wait_t;

/* One binding's audit, from its first query to its outcome. Owned by the audit thread,
 * except while a query or discovery is out (then by the answering thread until it queues
 * the job on `done`). */
typedef struct audit_job {
    struct audit_job *next; /* in `ready` */
    bsf_fifo_link_t done_link; /* in the audit's `done` */
    struct bsf_audit *a;
    bsf_binding_id_t id;
    uint64_t hlc, audit_hlc; /* the versions read (the command's expect_*) */
    uint32_t attempts;
    int64_t last_audited_ms;
    char url[BSF_NOTIFICATION_URL_MAX + 1];
    char set_id[BSF_MAX_IDENTITY_LEN + 1];
    unsigned not_found;
    size_t n_resp; /* distinct PCFs that answered 404 */
    char resp[AUDIT_MAX_404][BSF_AUDIT_RESPONDER_MAX];
    job_wait_t waiting;
    /* the answer (set by the answering thread) */
    bsf_audit_answer_kind_t answer;
    int status;
    char responder[BSF_AUDIT_RESPONDER_MAX];
    char alt_root[BSF_NOTIFICATION_URL_MAX + 1]; /* "" when no alternate */
} audit_job_t;

struct bsf_audit {
    bsf_store_t *store;
    bsf_engine_t *engine;
    bsf_audit_config_t cfg;
    bsf_worker_t worker; /* its stop flag is set under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bsf_fifo_t done; /* answered jobs (audit_job_t), under mu */
    /* audit thread */
    audit_job_t *ready;                 /* jobs waiting for a token to ask again */
    bsf_token_bucket_t bucket;
    msgpack_zone zone;
    bsf_audit_item_t items[AUDIT_BATCH_ITEMS];
    size_t n_items, next_item;
    bsf_audit_cursor_t cursor;
    bool in_cycle;
    uint64_t cycle_start_ms;
    /* counters (any thread) */
    _Atomic uint64_t inflight;
    _Atomic uint64_t n[14]; /* indexed by audit_counter_t */
};

typedef enum {
    C_CYCLES, C_CANDIDATES, C_QUERIES, C_FOUND, C_NOT_FOUND, C_FAILED_ANSWERS, C_CONFIRMED,
    C_SUSPECTED, C_FAILED, C_REMOVED_404, C_REMOVED_TTL, C_ALT_ASKED, C_ALT_FOUND, C_DROPPED,
} audit_counter_t;

static inline void audit_count(struct bsf_audit *a, audit_counter_t c)
{
    atomic_fetch_add_explicit(&a->n[c], 1, memory_order_relaxed);
}

/* Audit thread: acts on a scanned candidate at `now_ms`. Returns 0, or the ns to wait for a
 * token (the item was not taken). */
uint64_t bsf_audit_take_item(struct bsf_audit *a, const bsf_audit_item_t *it, int64_t now_ms);
/* Audit thread: sends a job's next query (a token was taken). */
void bsf_audit_job_send(audit_job_t *j);
/* Audit thread: acts on an answered job (queued on done). */
void bsf_audit_job_answered(audit_job_t *j);

#endif
