/* The congestion control of the Diameter front end at run time (seed §3.26): its CPU and
 * pending-request thresholds are resources of the shared admission controller (one state
 * for the SBI and Rx, gateways/admission/admission.h), which samples them; the gateway's
 * worker reports its pending requests; the monitor decides for each request received
 * whether it is admitted by its priority (rx_congestion.h rules). Thread-safe: one reporting
 * thread, any number of deciding threads. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_CONGESTION_MONITOR_H
#define BSF_GATEWAYS_DIAMETER_RX_CONGESTION_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/text.h"
#include "gateways/admission/admission.h"
#include "gateways/diameter/rx_congestion.h"
#include "gateways/diameter/rx_settings.h"

typedef struct bsf_rx_cong_monitor bsf_rx_cong_monitor_t;

/* NULL with the reason in err when the settings do not parse or memory is short. With
 * diameter.congestion.enabled false (or no controller) the monitor admits everything. `adm`
 * (borrowed, outlives the monitor's use) gets two resources, diameter_cpu and
 * diameter_queue. */
bsf_rx_cong_monitor_t *bsf_rx_cong_monitor_new(const bsf_diameter_settings_t *s,
                                               bsf_admission_t *adm, char *err, size_t cap);
void bsf_rx_cong_monitor_free(bsf_rx_cong_monitor_t *m);

/* New CPU and pending-request thresholds (the lists of diameter.congestion.cpu_thresholds and
 * queue_thresholds, runtime configuration); the next sample uses them. Any thread. Returns 0
 * (nothing changes when congestion control is off), or -1 with the key and reason in err when
 * a list does not parse (nothing changed). */
int bsf_rx_cong_monitor_set_thresholds(bsf_rx_cong_monitor_t *m, const char *cpu,
                                       const char *queue, char *err, size_t cap);

/* The gateway's worker, as often as it likes: reports the pending requests. Returns the
 * milliseconds until the next report is useful (UINT32_MAX when disabled). */
uint32_t bsf_rx_cong_monitor_tick(bsf_rx_cong_monitor_t *m, uint64_t now_ns, size_t pending);

/* The current state (NORMAL when disabled). */
bsf_rx_cong_state_t bsf_rx_cong_monitor_state(const bsf_rx_cong_monitor_t *m);

/* Whether a request of `kind` (with its DRMP and OC-Message-Priority values, -1 when
 * absent; bsf_rx_cong_priority) is admitted; a discard is counted. Any thread. */
bool bsf_rx_cong_monitor_admit(bsf_rx_cong_monitor_t *m, bsf_rx_kind_t kind, int drmp,
                               int64_t oc);

/* Result of a discarded request: the code and, when non-zero, its Experimental-Result vendor. */
void bsf_rx_cong_monitor_answer(const bsf_rx_cong_monitor_t *m, uint32_t *code,
                                uint32_t *vendor);

/* ocbsf_diam_congestion_state, _resource_state{resource}, _discards_total{state}. */
void bsf_rx_cong_monitor_write_metrics(const bsf_rx_cong_monitor_t *m, bsf_text_t *out);

#endif
