/* OAuth2 access tokens from the NRF for bsfd's requests to producers that require them
 * (Nnrf_AccessToken, TS 29.510 §5.4: client credentials): fetched per (scope, target NF
 * type), shared by concurrent requests, cached until shortly before they expire. It is the
 * SBI client's token provider; everything runs on the SBI client's thread. The NRF asked is
 * the shared health view's (nrf_health.h): the first healthy one by priority; a failure (no
 * answer, one of nrf.failure_codes, Retry-After) marks it unhealthy for the NRF client and
 * discovery too, and the request goes to the next NRF (within nrf.alternate_retries). */
#ifndef BSF_GATEWAYS_NRF_NRF_TOKEN_H
#define BSF_GATEWAYS_NRF_NRF_TOKEN_H

#include "gateways/sbi/nrf_health.h"
#include "gateways/sbi/sbi_client.h"

typedef struct bsf_nrf_tokens bsf_nrf_tokens_t;

/* Returns NULL when out of memory. `sbi` and `nrfs` (not owned) outlive it; free after
 * bsf_sbi_client_stop. `timeout_ms`: of one token request to one NRF. */
bsf_nrf_tokens_t *bsf_nrf_tokens_new(bsf_sbi_client_t *sbi, const char *nf_instance_id,
                                     bsf_nrf_health_t *nrfs, unsigned timeout_ms);
/* Installs it as the SBI client's token provider. */
void bsf_nrf_tokens_install(bsf_nrf_tokens_t *t);
void bsf_nrf_tokens_free(bsf_nrf_tokens_t *t);

#endif
