/* Where bsfd's NF score (gateways/ops/nf_scoring.h) takes its numbers from: the SBI server
 * and client, the Rx gateway, the NRF registration, replication and the store. What each
 * factor and alert counts is written in docs/operations.md ("NF score"). */
#ifndef BSFD_NF_SCORING_INPUTS_H
#define BSFD_NF_SCORING_INPUTS_H

#include <stdint.h>

#include "bsfd/config.h"
#include "engine/engine.h"
#include "gateways/diameter/rx_gateway.h"
#include "gateways/nrf/nrf_service.h"
#include "gateways/ops/nf_scoring.h"
#include "gateways/sbi/nbsf_service.h"
#include "replication/replication.h"

/* The sources; any may be NULL (not configured). They outlive the scoring thread. */
typedef struct {
    const bsf_config_t *cfg;
    bsf_nbsf_service_t *sbi;
    bsf_rx_gateway_t *rx;
    bsf_nrf_service_t *nrf;
    bsf_replication_t *repl;
    bsf_engine_t *engine;
    uint64_t egress_failures; /* at the previous sample: scoring thread only */
} bsfd_score_inputs_t;

/* A bsf_nf_scoring_gather_fn over a bsfd_score_inputs_t. */
void bsfd_score_gather(void *ctx, bsf_nf_scoring_sample_t *out);

/* The weights of the configuration (nf_scoring.*). */
bsf_nf_score_weights_t bsfd_score_weights(const bsf_config_t *cfg);

#endif
