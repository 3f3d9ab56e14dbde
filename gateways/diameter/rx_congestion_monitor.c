/* Congestion state sampling and admission of the Diameter front end (see
 * rx_congestion_monitor.h). */
#include "gateways/diameter/rx_congestion_monitor.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "common/diag.h"

struct bsf_rx_cong_monitor {
    bool enabled;
    bsf_rx_cong_rules_t rules;
    uint32_t interval_ms;
    uint32_t code, vendor;
    unsigned cpus; /* CPUs bsfd may run on: 100 % CPU use is all of them busy */
    /* sampling thread only */
    bsf_rx_cong_t machine;
    uint64_t next_ns, last_ns, last_cpu_ns;
    /* shared */
    atomic_int state;
    atomic_int cpu_level, queue_level; /* the levels of the last sample, per resource */
    atomic_uint_fast64_t discards[BSF_RX_CONG_CONGESTED + 1];
};

bsf_rx_cong_monitor_t *bsf_rx_cong_monitor_new(const bsf_diameter_settings_t *s, char *err,
                                               size_t cap)
{
    bsf_rx_cong_monitor_t *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, cap, "diameter: out of memory");
        return NULL;
    }
    m->enabled = s->congestion;
    m->interval_ms = s->congestion_interval_ms ? s->congestion_interval_ms : 200;
    m->code = s->congestion_code;
    m->vendor = s->congestion_vendor;
    if (m->enabled && bsf_rx_cong_rules_from_settings(s, &m->rules, err, cap)) {
        free(m);
        return NULL;
    }
    cpu_set_t set;
    m->cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? (unsigned)CPU_COUNT(&set) : 1;
    if (!m->cpus)
        m->cpus = 1;
    atomic_init(&m->state, BSF_RX_CONG_NORMAL);
    return m;
}

void bsf_rx_cong_monitor_free(bsf_rx_cong_monitor_t *m)
{
    free(m);
}

static uint64_t process_cpu_ns(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
           ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

uint32_t bsf_rx_cong_monitor_tick(bsf_rx_cong_monitor_t *m, uint64_t now_ns, size_t pending)
{
    if (!m->enabled)
        return UINT32_MAX;
    uint64_t interval_ns = (uint64_t)m->interval_ms * 1000000u;
    if (m->last_ns == 0) { /* the first call starts the CPU measurement */
        m->last_ns = now_ns;
        m->last_cpu_ns = process_cpu_ns();
        m->next_ns = now_ns + interval_ns;
        return m->interval_ms;
    }
    if (now_ns < m->next_ns)
        return (uint32_t)((m->next_ns - now_ns + 999999u) / 1000000u);
    uint64_t cpu = process_cpu_ns(), wall = now_ns - m->last_ns;
    uint32_t cpu_pct =
        wall ? (uint32_t)((cpu - m->last_cpu_ns) * 100u / (wall * m->cpus)) : 0;
    m->last_ns = now_ns;
    m->last_cpu_ns = cpu;
    m->next_ns = now_ns + interval_ns;
    atomic_store(&m->cpu_level, bsf_rx_cong_level(m->rules.cpu_pct, cpu_pct));
    atomic_store(&m->queue_level, bsf_rx_cong_level(m->rules.queue, pending));
    bsf_rx_cong_state_t before = m->machine.state;
    bsf_rx_cong_state_t now = bsf_rx_cong_sample(&m->machine, &m->rules, cpu_pct, pending);
    if (now != before) {
        atomic_store(&m->state, now);
        /* No log per discarded request (seed §3.26): one line per change of state. */
        if (now == BSF_RX_CONG_NORMAL)
            BSF_INFO("diameter", "congestion state NORMAL (CPU %u %%, %zu pending)", cpu_pct,
                     pending);
        else if (now == BSF_RX_CONG_CONGESTED)
            BSF_ERROR("diameter", "congestion state CONGESTED (CPU %u %%, %zu pending): "
                      "requests are being discarded, add capacity", cpu_pct, pending);
        else
            BSF_WARN("diameter", "congestion state %s (CPU %u %%, %zu pending)",
                     bsf_rx_cong_state_name(now), cpu_pct, pending);
    }
    return m->interval_ms;
}

bsf_rx_cong_state_t bsf_rx_cong_monitor_state(const bsf_rx_cong_monitor_t *m)
{
    return (bsf_rx_cong_state_t)atomic_load_explicit(&m->state, memory_order_relaxed);
}

/* A draw in 0..99 for the percentage mode (xorshift, one generator per thread). */
static uint32_t draw_percent(void)
{
    static _Thread_local uint64_t x;
    if (!x) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        x = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)(uintptr_t)&x ^ 0x9e3779b97f4a7c15ull;
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return (uint32_t)(x % 100u);
}

bool bsf_rx_cong_monitor_admit(bsf_rx_cong_monitor_t *m, bsf_rx_kind_t kind, int drmp,
                               int64_t oc)
{
    bsf_rx_cong_state_t s = bsf_rx_cong_monitor_state(m);
    if (s == BSF_RX_CONG_NORMAL)
        return true;
    uint32_t priority = bsf_rx_cong_priority(&m->rules, kind, drmp, oc);
    if (!bsf_rx_cong_discard(&m->rules, s, priority, draw_percent()))
        return true;
    atomic_fetch_add_explicit(&m->discards[s], 1, memory_order_relaxed);
    return false;
}

void bsf_rx_cong_monitor_answer(const bsf_rx_cong_monitor_t *m, uint32_t *code, uint32_t *vendor)
{
    *code = m->code;
    *vendor = m->vendor;
}

void bsf_rx_cong_monitor_write_metrics(const bsf_rx_cong_monitor_t *m, bsf_text_t *out)
{
    bsf_text_printf(out,
                    "# HELP ocbsf_diam_congestion_state Congestion state of the Diameter front "
                    "end (0 NORMAL, 1 DOC, 2 L1, 3 L2, 4 CONGESTED).\n"
                    "# TYPE ocbsf_diam_congestion_state gauge\nocbsf_diam_congestion_state %d\n"
                    "# HELP ocbsf_diam_congestion_resource_state Level each resource reached at "
                    "the last sample.\n# TYPE ocbsf_diam_congestion_resource_state gauge\n"
                    "ocbsf_diam_congestion_resource_state{resource=\"cpu\"} %d\n"
                    "ocbsf_diam_congestion_resource_state{resource=\"queue\"} %d\n"
                    "# HELP ocbsf_diam_congestion_discards_total Requests discarded by congestion "
                    "control, by state.\n# TYPE ocbsf_diam_congestion_discards_total counter\n",
                    atomic_load(&m->state), atomic_load(&m->cpu_level),
                    atomic_load(&m->queue_level));
    for (int s = BSF_RX_CONG_DOC; s <= BSF_RX_CONG_CONGESTED; s++)
        bsf_text_printf(out, "ocbsf_diam_congestion_discards_total{state=\"%s\"} %llu\n",
                        bsf_rx_cong_state_name((bsf_rx_cong_state_t)s),
                        (unsigned long long)atomic_load(&m->discards[s]));
}
