/* Congestion state sampling and admission of the Diameter front end (see
 * rx_congestion_monitor.h). */
#include "gateways/diameter/rx_congestion_monitor.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/metrics_text.h"

struct bsf_rx_cong_monitor {
    bool enabled;
    bsf_rx_cong_rules_t rules;
    uint32_t interval_ms;
    uint32_t code, vendor;
    bsf_admission_t *adm; /* the shared state; NULL when disabled */
    int cpu_res, queue_res; /* this front end's resources in it */
    atomic_size_t pending;  /* the last count the worker reported */
    atomic_uint_fast64_t discards[BSF_RX_CONG_CONGESTED + 1];
};

static size_t pending_count(void *ctx)
{
    bsf_rx_cong_monitor_t *m = ctx;
    return atomic_load_explicit(&m->pending, memory_order_relaxed);
}

bsf_rx_cong_monitor_t *bsf_rx_cong_monitor_new(const bsf_diameter_settings_t *s,
                                               bsf_admission_t *adm, char *err, size_t cap)
{
    bsf_rx_cong_monitor_t *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, cap, "diameter: out of memory");
        return NULL;
    }
    m->enabled = s->congestion && adm;
    m->interval_ms = s->congestion_interval_ms ? s->congestion_interval_ms : 200;
    m->code = s->congestion_code;
    m->vendor = s->congestion_vendor;
    if (s->congestion && bsf_rx_cong_rules_from_settings(s, &m->rules, err, cap)) {
        free(m);
        return NULL;
    }
    if (m->enabled) {
        /* The Diameter thresholds join the shared state as resources of their own. */
        m->adm = adm;
        m->cpu_res = bsf_admission_add_resource(adm, "diameter_cpu", m->rules.cpu_pct, NULL, m);
        m->queue_res =
            bsf_admission_add_resource(adm, "diameter_queue", m->rules.queue, pending_count, m);
        if (m->cpu_res < 0 || m->queue_res < 0) {
            snprintf(err, cap, "diameter: too many admission resources");
            free(m);
            return NULL;
        }
    }
    return m;
}

/* The monitor must outlive nothing: bsfd frees the admission controller (whose thread reads
 * `pending`) only after the Rx gateway stopped, and stops its thread first. */
void bsf_rx_cong_monitor_free(bsf_rx_cong_monitor_t *m)
{
    free(m);
}

int bsf_rx_cong_monitor_set_thresholds(bsf_rx_cong_monitor_t *m, const char *cpu,
                                       const char *queue, char *err, size_t cap)
{
    uint32_t c[BSF_RX_CONG_LEVELS], q[BSF_RX_CONG_LEVELS];
    char why[256];
    if (bsf_rx_cong_parse_levels(cpu, 100, c, why, sizeof why)) {
        snprintf(err, cap, "diameter.congestion.cpu_thresholds: %s", why);
        return -1;
    }
    if (bsf_rx_cong_parse_levels(queue, 100000000, q, why, sizeof why)) {
        snprintf(err, cap, "diameter.congestion.queue_thresholds: %s", why);
        return -1;
    }
    if (!m->enabled)
        return 0;
    bsf_admission_set_thresholds(m->adm, m->cpu_res, c);
    bsf_admission_set_thresholds(m->adm, m->queue_res, q);
    return 0;
}

uint32_t bsf_rx_cong_monitor_tick(bsf_rx_cong_monitor_t *m, uint64_t now_ns, size_t pending)
{
    (void)now_ns;
    if (!m->enabled)
        return UINT32_MAX;
    atomic_store_explicit(&m->pending, pending, memory_order_relaxed);
    return m->interval_ms;
}

bsf_rx_cong_state_t bsf_rx_cong_monitor_state(const bsf_rx_cong_monitor_t *m)
{
    return m->enabled ? bsf_admission_state(m->adm) : BSF_RX_CONG_NORMAL;
}

bool bsf_rx_cong_monitor_admit(bsf_rx_cong_monitor_t *m, bsf_rx_kind_t kind, int drmp,
                               int64_t oc)
{
    bsf_rx_cong_state_t s = bsf_rx_cong_monitor_state(m);
    if (s == BSF_RX_CONG_NORMAL)
        return true;
    uint32_t priority = bsf_rx_cong_priority(&m->rules, kind, drmp, oc);
    if (!bsf_rx_cong_discard(&m->rules, s, priority, bsf_admission_draw()))
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
    bsf_metrics_u64_family(out, "ocbsf_diam_congestion_state", "gauge",
                           "Congestion state of the Diameter front end (0 NORMAL, 1 DOC, 2 L1, "
                           "3 L2, 4 CONGESTED).",
                           bsf_rx_cong_monitor_state(m));
    static const char *const resources[] = {"cpu", "queue"};
    const uint64_t levels[] = {bsf_admission_resource_level(m->adm, m->cpu_res),
                               bsf_admission_resource_level(m->adm, m->queue_res)};
    BSF_METRICS_LABELLED_FAMILY(out, "ocbsf_diam_congestion_resource_state", "gauge",
                                "Level each resource reached at the last sample.", "resource",
                                resources, levels);
    bsf_metrics_family(out, "ocbsf_diam_congestion_discards_total", "counter",
                       "Requests discarded by congestion control, by state.");
    for (int s = BSF_RX_CONG_DOC; s <= BSF_RX_CONG_CONGESTED; s++)
        bsf_metrics_u64_label(out, "ocbsf_diam_congestion_discards_total", "state",
                              bsf_rx_cong_state_name((bsf_rx_cong_state_t)s),
                              atomic_load(&m->discards[s]));
}
