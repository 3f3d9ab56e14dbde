/* NF scoring for a site (seed §3.41), continuous mode: a thread samples the site every
 * `interval_ms`, turns the request count into a rate, computes the score (nf_score.h) and
 * keeps the last one for the metrics, the ops API and the NRF heartbeat's load.
 *
 * The inputs come from a gather function bsfd provides, so this module depends on no
 * gateway: it only sees numbers. */
#ifndef BSF_GATEWAYS_OPS_NF_SCORING_H
#define BSF_GATEWAYS_OPS_NF_SCORING_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/text.h"
#include "gateways/ops/nf_score.h"

/* What one sample reads. `requests` is a cumulative count (SBI and Diameter, ingress and
 * egress) since start; the rest are levels as they are now (inputs.tps is ignored). */
typedef struct {
    uint64_t requests;
    bsf_nf_score_inputs_t inputs;
} bsf_nf_scoring_sample_t;

/* Called on the scoring thread (and on the caller's thread by bsf_nf_scoring_refresh); it
 * must read its sources thread-safely and must not block. */
typedef void (*bsf_nf_scoring_gather_fn)(void *ctx, bsf_nf_scoring_sample_t *out);

typedef struct {
    bool enabled;                  /* nf_scoring.enabled: off, no thread and no metric */
    uint64_t interval_ms;          /* nf_scoring.interval */
    bsf_nf_score_weights_t weights;
    bsf_nf_scoring_gather_fn gather;
    void *ctx;
} bsf_nf_scoring_config_t;

typedef struct bsf_nf_scoring bsf_nf_scoring_t;

/* The ops route of the score (GET: computed on demand, seed 3.41's on-demand mode). */
#define BSF_NF_SCORE_PATH "/oc-bsf-configuration/v1/nfScore"

/* Takes a first sample and, when enabled, starts the thread. Start-up thread. Returns 0
 * (*out is the caller's, freed by bsf_nf_scoring_stop) or a negated errno (-ENOMEM,
 * -EAGAIN); *out is then NULL. */
int bsf_nf_scoring_start(const bsf_nf_scoring_config_t *cfg, bsf_nf_scoring_t **out);

/* Stops the thread and frees. NULL is a no-op. Start-up/shut-down thread. */
void bsf_nf_scoring_stop(bsf_nf_scoring_t *s);

/* On-demand mode: samples now (the rate over the time since the last sample) and keeps the
 * result. Any thread. */
void bsf_nf_scoring_refresh(bsf_nf_scoring_t *s);

/* The last score. Any thread. Returns false when scoring is disabled (NULL too). */
bool bsf_nf_scoring_last(bsf_nf_scoring_t *s, bsf_nf_score_t *out, double *tps);

/* The load to publish in the NF profile (0..100), from the last sampled rate; `fallback`
 * when scoring is disabled. Any thread. */
unsigned bsf_nf_scoring_load(bsf_nf_scoring_t *s, unsigned fallback);

/* Metrics: bsf_nf_score, bsf_nf_score_factor{factor=...}, bsf_nf_scoring_tps. `ctx` is the
 * bsf_nf_scoring_t (ops metrics callback shape). Writes nothing when disabled. */
void bsf_nf_scoring_write_metrics(void *ctx, bsf_text_t *out);

/* The score as JSON (caller owns): {"enabled", "score", "tps", "load", "factors": {...}}.
 * `refresh` takes a sample first (the seed's on-demand mode). Any thread; NULL for a
 * disabled scoring gives {"enabled": false}. Returns NULL when out of memory. */
json_t *bsf_nf_scoring_json(bsf_nf_scoring_t *s, bool refresh);

#endif
