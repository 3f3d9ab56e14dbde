/* The admission controller of bsfd (issue 14): one state for the SBI server and the Rx
 * gateway. Its own thread samples the inputs every interval — the process's CPU use, its
 * memory, and the requests each front end holds (the sources added below) — and keeps:
 *   - the congestion state NORMAL/DOC/L1/L2/CONGESTED (seed §3.4, §3.26): the highest level
 *     any resource reaches, changed only after it held for sample_count samples;
 *   - the overload level 0..3 (seed §3.27) with onset/abatement, and the Overload Control
 *     Information it implies (TS 29.500 §6.4: reduction metric, timestamp), and the load
 *     (§6.3, LCI);
 *   - the discard decision of the SBI (bsf_admission_sbi_admit): lock-free, a few ns.
 * The Rx gateway keeps its own priorities and answers (rx_congestion_monitor.h) but reads
 * this state.
 *
 * Threads: create, add_* and start on one thread (bsfd's main) before or while serving;
 * the decision and the read functions on any thread; stop/free after the front ends
 * stopped using it. */
#ifndef BSF_GATEWAYS_ADMISSION_ADMISSION_H
#define BSF_GATEWAYS_ADMISSION_ADMISSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/text.h"
#include "gateways/admission/admission_rules.h"

typedef struct bsf_admission bsf_admission_t;

#define BSF_ADM_NO_LEVELS {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX}

typedef struct {
    bool sbi_enabled;        /* admission.enabled: the SBI sheds and advertises OCI/LCI */
    uint32_t interval_ms;    /* stateCalculationInterval */
    uint32_t sample_count;   /* stateChangeSampleCount */
    uint32_t cpu[BSF_ADM_LEVELS];     /* % of the CPUs bsfd may use; UINT32_MAX: unwatched */
    uint32_t pending[BSF_ADM_LEVELS]; /* SBI requests complete and not yet answered */
    uint32_t receiving[BSF_ADM_LEVELS]; /* SBI requests admitted, body still coming */
    uint32_t memory[BSF_ADM_LEVELS];  /* % of the memory bsfd may use (cgroup or RAM) */
    bsf_adm_shedding_t shedding;
    uint32_t op_priority[BSF_ADM_OP_COUNT]; /* priority when 3gpp-Sbi-Message-Priority is absent */
    uint32_t route_rate[BSF_ADM_OP_COUNT];  /* ratelimit.routes: requests/s, 0 none */
    bool overload_enabled;
    bsf_adm_overload_thresholds_t ov_cpu, ov_pending, ov_memory;
    uint8_t reduction[BSF_ADM_OVERLOAD_LEVELS]; /* OCI reduction metric per level, % */
    uint32_t validity_s;                        /* OCI period of validity */
} bsf_admission_config_t;

/* A count a front end holds (pending requests); called on the sampling thread. */
typedef size_t (*bsf_admission_count_fn)(void *ctx);

/* NULL when memory is short. The config is copied. */
bsf_admission_t *bsf_admission_new(const bsf_admission_config_t *cfg);
/* Stops the sampling thread (if started): the sources' count functions are not called any
 * more; the state stays as it was. Before the sources go. NULL is accepted. */
void bsf_admission_stop(bsf_admission_t *a);
/* Stops the thread (if started) and frees. NULL is accepted. */
void bsf_admission_free(bsf_admission_t *a);

/* A resource of the congestion state: the CPU use against `thresholds` (count NULL) or the
 * count `count(ctx)` returns. `name` is static. Returns the resource's index, -1 when there
 * are too many (8). */
int bsf_admission_add_resource(bsf_admission_t *a, const char *name,
                               const uint32_t thresholds[BSF_ADM_LEVELS],
                               bsf_admission_count_fn count, void *ctx);

/* Replaces resource `index`'s thresholds (runtime configuration); the next sample uses them.
 * Any thread. Returns 0, or -1 for an index no resource has (or a NULL controller). */
int bsf_admission_set_thresholds(bsf_admission_t *a, int index,
                                 const uint32_t thresholds[BSF_ADM_LEVELS]);

/* Starts the sampling thread. Returns 0 or -1 (errno). */
int bsf_admission_start(bsf_admission_t *a);

/* Takes one sample now with the given CPU use and memory use (%), as the thread would: for
 * unit tests and benchmarks. Returns the state. */
bsf_adm_state_t bsf_admission_sample(bsf_admission_t *a, uint32_t cpu_pct, uint32_t mem_pct);

/* The congestion state (NORMAL before the first change). Any thread. */
bsf_adm_state_t bsf_admission_state(const bsf_admission_t *a);
/* The level resource `index` reached at the last sample. */
bsf_adm_state_t bsf_admission_resource_level(const bsf_admission_t *a, int index);

/* The SBI's decision for a request of `priority` (0..31; bsf_admission_sbi_priority). True:
 * admitted. False: discarded, counted. Any thread; no lock, no allocation. */
bool bsf_admission_sbi_admit(bsf_admission_t *a, uint32_t priority);

/* A request's priority: 3gpp-Sbi-Message-Priority (`header`, may be NULL) when valid, else
 * the operation's default. */
uint32_t bsf_admission_sbi_priority(const bsf_admission_t *a, const char *method,
                                    const char *header);

/* The overload control information now: level 0..3, the reduction metric (%), its
 * timestamp (Unix ms; changes only when the metric does or the validity is renewed) and the
 * validity (s). Returns false when there is nothing to advertise (level 0 and no recent
 * overload: a metric of 0 is advertised for one validity period after an overload ends). */
bool bsf_admission_oci(const bsf_admission_t *a, unsigned *level, unsigned *metric,
                       uint64_t *ts_ms, uint32_t *validity_s);
/* The load (LCI, 0..100 in steps of 5) and its timestamp. False when the SBI part is off. */
bool bsf_admission_lci(const bsf_admission_t *a, unsigned *metric, uint64_t *ts_ms);

/* A draw in 0..99 (xorshift per thread). */
uint32_t bsf_admission_draw(void);

/* ocbsf_admission_state, _resource_state{resource}, _overload_level, _discards_total{state},
 * _cpu_percent, _memory_percent. */
void bsf_admission_write_metrics(const bsf_admission_t *a, bsf_text_t *out);

#endif
