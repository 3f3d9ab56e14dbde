/* Counters of the SBI gateway, one block per worker thread (written only by that thread,
 * read by the ops endpoint with relaxed atomic loads). */
#ifndef BSF_GATEWAYS_SBI_SBI_METRICS_H
#define BSF_GATEWAYS_SBI_SBI_METRICS_H

#include <stdatomic.h>
#include <stdint.h>

#include "common/text.h"
#include "gateways/sbi/h2_server.h"

typedef enum {
    BSF_SBI_OP_REGISTER,
    BSF_SBI_OP_DISCOVER,
    BSF_SBI_OP_UPDATE,
    BSF_SBI_OP_DEREGISTER,
    BSF_SBI_OP_OTHER,
    BSF_SBI_OP_COUNT
} bsf_sbi_op_t;

#define BSF_SBI_STATUS_SLOTS 17
#define BSF_SBI_LATENCY_BUCKETS 12 /* the last one is +Inf */

typedef struct {
    _Alignas(64) atomic_uint_fast64_t responses[BSF_SBI_OP_COUNT][BSF_SBI_STATUS_SLOTS];
    atomic_uint_fast64_t latency[BSF_SBI_OP_COUNT][BSF_SBI_LATENCY_BUCKETS];
    atomic_uint_fast64_t latency_sum_ns[BSF_SBI_OP_COUNT];
    atomic_uint_fast64_t rejected_queue_full;
} bsf_sbi_metrics_t;

const char *bsf_sbi_op_name(bsf_sbi_op_t op);
/* The HTTP status a slot stands for (0 for "other"). */
int bsf_sbi_status_of_slot(unsigned slot);
/* Upper bound of a latency bucket in seconds (the last is +Inf, returned as 0). */
double bsf_sbi_latency_bound(unsigned bucket);

/* Answers of every operation and status in `blocks` since start. Any thread. */
uint64_t bsf_sbi_metrics_answers(const bsf_sbi_metrics_t *blocks, unsigned workers);
void bsf_sbi_metrics_record(bsf_sbi_metrics_t *m, bsf_sbi_op_t op, int status, uint64_t ns);
/* Appends the Prometheus text of `workers` blocks summed (relaxed loads: any thread). A failed
 * allocation is left in out->failed. */
void bsf_sbi_metrics_write(const bsf_sbi_metrics_t *blocks, unsigned workers, bsf_text_t *out);
/* The HTTP/2 server's own counters (timeouts per phase, refusals, memory) as Prometheus
 * text. Any thread. */
void bsf_sbi_metrics_write_h2(const bsf_h2_stats_t *st, bsf_text_t *out);

#endif
