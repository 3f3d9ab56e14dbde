/* The keys that change while bsfd runs; see config_runtime.h. */
#include "bsfd/config_runtime.h"

#include <stdio.h>
#include <string.h>

#include "bsfd/config_json.h"
#include "bsfd/grace_timer.h"
#include "common/diag.h"
#include "common/operational_state.h"
#include "gateways/diameter/rx_gateway.h"
#include "gateways/nrf/nrf_service.h"

#include <stdatomic.h>

typedef void (*applier_fn)(const bsf_config_t *cfg);

static void apply_log_level(const bsf_config_t *cfg)
{
    bsf_log_level_t level;
    if (bsf_log_level_parse(cfg->log_level, &level) == 0)
        bsf_log_set_level(level);
}

static void apply_codes(const bsf_config_t *cfg)
{
    bsf_opstate_set_codes(cfg->cs_sbi_status, cfg->cs_sbi_cause, cfg->cs_diameter_result);
}

static void apply_grace(const bsf_config_t *cfg)
{
    bsf_grace_timer_set_period(cfg->shutdown_grace_ms);
}

static _Atomic(bsf_nrf_service_t *) nrf_target;

void bsf_config_runtime_attach_nrf(bsf_nrf_service_t *nrf)
{
    atomic_store(&nrf_target, nrf);
}

static void apply_nrf_timers(const bsf_config_t *cfg)
{
    bsf_nrf_service_set_timers(atomic_load(&nrf_target), &cfg->nrf);
}

static _Atomic(bsf_rx_gateway_t *) rx_target;

void bsf_config_runtime_attach_rx(bsf_rx_gateway_t *rx)
{
    atomic_store(&rx_target, rx);
}

/* Checked with the whole configuration before (config_keys_diameter.c): cannot fail here. */
static void apply_rx_thresholds(const bsf_config_t *cfg)
{
    bsf_rx_gateway_t *rx = atomic_load(&rx_target);
    char err[256];
    if (rx && bsf_rx_gateway_set_congestion_thresholds(rx, cfg->diameter.congestion_cpu,
                                                       cfg->diameter.congestion_queue, err,
                                                       sizeof err))
        BSF_WARN("config", "%s", err);
}

static const struct {
    const char *key;
    applier_fn fn;
} appliers[] = {
    {"log.level", apply_log_level},
    {"controlled_shutdown.sbi_status", apply_codes},
    {"controlled_shutdown.sbi_cause", apply_codes},
    {"controlled_shutdown.diameter_result_code", apply_codes},
    {"shutdown.grace_period", apply_grace},
    {"nrf.timeout_ms", apply_nrf_timers},
    {"nrf.retry_min_ms", apply_nrf_timers},
    {"nrf.retry_max_ms", apply_nrf_timers},
    {"diameter.congestion.cpu_thresholds", apply_rx_thresholds},
    {"diameter.congestion.queue_thresholds", apply_rx_thresholds},
};
#define N_APPLIERS (sizeof appliers / sizeof appliers[0])

static applier_fn applier_of(const bsf_config_key_t *k)
{
    for (size_t i = 0; i < N_APPLIERS; i++)
        if (strcmp(appliers[i].key, k->key) == 0)
            return appliers[i].fn;
    return NULL;
}

int bsf_config_runtime_check(char *err, size_t err_cap)
{
    const bsf_config_key_t *k;
    for (size_t i = 0; (k = bsf_config_key_at(i)); i++)
        if (k->runtime != (applier_of(k) != NULL)) {
            snprintf(err, err_cap, "%s: %s", k->key,
                     k->runtime ? "marked runtime but nothing applies it"
                                : "applied at run time but not marked runtime");
            return -1;
        }
    for (size_t i = 0; i < N_APPLIERS; i++)
        if (!bsf_config_find_key(appliers[i].key)) {
            snprintf(err, err_cap, "%s: an applier of no key", appliers[i].key);
            return -1;
        }
    return 0;
}

bool bsf_config_runtime_differs(const bsf_config_t *a, const bsf_config_t *b,
                                const bsf_config_key_t *k)
{
    json_t *va = bsf_config_key_json(a, k), *vb = bsf_config_key_json(b, k);
    bool differs = !json_equal(va, vb);
    json_decref(va);
    json_decref(vb);
    return differs;
}

void bsf_config_runtime_apply(const bsf_config_t *cfg, const bsf_config_key_t *k)
{
    applier_fn fn = applier_of(k);
    if (fn)
        fn(cfg);
}

void bsf_config_runtime_apply_all(const bsf_config_t *cfg)
{
    for (size_t i = 0; i < N_APPLIERS; i++)
        appliers[i].fn(cfg);
}

void bsf_config_runtime_copy(bsf_config_t *to, const bsf_config_t *from,
                             const bsf_config_key_t *k)
{
    memcpy((char *)to + k->offset, (const char *)from + k->offset, k->size);
}
