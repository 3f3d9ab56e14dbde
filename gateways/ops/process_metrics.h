/* The process's own Prometheus metrics: bsf_build_info and the standard process_* set
 * (CPU seconds, resident and virtual memory, open and maximum descriptors, start time), read
 * from /proc/self on every scrape. */
#ifndef BSF_GATEWAYS_OPS_PROCESS_METRICS_H
#define BSF_GATEWAYS_OPS_PROCESS_METRICS_H

#include "common/text.h"

/* Appends the samples to `out`. A /proc file that cannot be read leaves its metrics out (the
 * rest is written). Any thread. */
void bsf_process_metrics_write(bsf_text_t *out);

#endif
