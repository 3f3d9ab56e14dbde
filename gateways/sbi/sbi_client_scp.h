/* The SCPs of the SBI client (Model C, issue 10 §3): the configured SCPs in order of
 * preference, each available or not. An SCP becomes temporarily unavailable when it fails a
 * request (seed 001) for temp_unavailable_ms, or unhealthy after `health_failures` failed
 * OPTIONS probes in a row (seed §3.18) until `health_successes` probes succeed. Requests go
 * to the first available SCP; when none is, to the first one not tried yet.
 * Changed on the client thread; read by any thread (status, metrics) under its mutex. */
#ifndef BSF_GATEWAYS_SBI_SBI_CLIENT_SCP_H
#define BSF_GATEWAYS_SBI_SBI_CLIENT_SCP_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/text.h"
#include "gateways/sbi/sbi_uri.h"

#define BSF_SCP_MAX 8

typedef struct {
    char uri[256];
    bsf_sbi_uri_t parsed;
    int64_t unavailable_until_ms; /* monotonic; failed a request */
    bool unhealthy;               /* failed the OPTIONS probes */
    unsigned probe_failures, probe_successes; /* in a row */
    uint64_t marked, probes, probes_failed;
} bsf_scp_t;

typedef struct {
    bsf_scp_t scps[BSF_SCP_MAX];
    size_t n;
    unsigned temp_unavailable_ms;
    unsigned health_failures, health_successes;
    pthread_mutex_t mu;
} bsf_scp_table_t;

/* From a '\n'-separated list of apiRoots (the path, if any, is the SCP's apiPrefix).
 * Returns 0 or -1 with a message (bad URI, too many). */
int bsf_scp_table_init(bsf_scp_table_t *t, const char *uris, unsigned temp_unavailable_ms,
                       unsigned health_failures, unsigned health_successes, char *err,
                       size_t err_cap);
void bsf_scp_table_destroy(bsf_scp_table_t *t);

/* The SCP for an attempt: the first available one not in `tried` (a bit per index), else the
 * first not tried; -1 when every SCP was tried. */
int bsf_scp_table_pick(bsf_scp_table_t *t, int64_t now_ms, uint32_t tried);
bool bsf_scp_table_available(bsf_scp_table_t *t, int i, int64_t now_ms);
/* A request failed because of the SCP: temporarily unavailable. */
void bsf_scp_table_mark(bsf_scp_table_t *t, int i, int64_t now_ms);
/* A success or an answer for the target through the SCP: available again at once. */
void bsf_scp_table_fine(bsf_scp_table_t *t, int i);
/* The outcome of one OPTIONS probe. */
void bsf_scp_table_probe(bsf_scp_table_t *t, int i, bool ok);

/* {"scps":[{"uri","status":"AVAILABLE|TEMPORARILY_UNAVAILABLE|UNHEALTHY",...}]}; caller owns. */
json_t *bsf_scp_table_status(bsf_scp_table_t *t, int64_t now_ms);
void bsf_scp_table_write_metrics(bsf_scp_table_t *t, int64_t now_ms, bsf_text_t *out);

#endif
