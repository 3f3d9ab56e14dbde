#include "gateways/sbi/sbi_metrics.h"

static const int status_slots[BSF_SBI_STATUS_SLOTS] = {200, 201, 204, 400, 403, 404, 405, 411,
                                                       413, 414, 415, 431, 500, 503, 504,
                                                       507, 0};
static const double latency_bounds[BSF_SBI_LATENCY_BUCKETS] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0};

const char *bsf_sbi_op_name(bsf_sbi_op_t op)
{
    static const char *const names[BSF_SBI_OP_COUNT] = {"register", "discovery", "update",
                                                        "deregister", "other"};
    return (unsigned)op < BSF_SBI_OP_COUNT ? names[op] : "other";
}

int bsf_sbi_status_of_slot(unsigned slot)
{
    return slot < BSF_SBI_STATUS_SLOTS ? status_slots[slot] : 0;
}

double bsf_sbi_latency_bound(unsigned bucket)
{
    return bucket < BSF_SBI_LATENCY_BUCKETS ? latency_bounds[bucket] : 0;
}

void bsf_sbi_metrics_record(bsf_sbi_metrics_t *m, bsf_sbi_op_t op, int status, uint64_t ns)
{
    unsigned slot = BSF_SBI_STATUS_SLOTS - 1;
    for (unsigned i = 0; i < BSF_SBI_STATUS_SLOTS - 1; i++)
        if (status_slots[i] == status) {
            slot = i;
            break;
        }
    unsigned bucket = BSF_SBI_LATENCY_BUCKETS - 1;
    double s = (double)ns / 1e9;
    for (unsigned i = 0; i < BSF_SBI_LATENCY_BUCKETS - 1; i++)
        if (s <= latency_bounds[i]) {
            bucket = i;
            break;
        }
    atomic_fetch_add_explicit(&m->responses[op][slot], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->latency[op][bucket], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->latency_sum_ns[op], ns, memory_order_relaxed);
}
