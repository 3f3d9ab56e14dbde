/* OAuth2 access tokens from the NRF for bsfd's requests to producers that require them
 * (Nnrf_AccessToken, TS 29.510 §5.4: client credentials): fetched per (scope, target NF
 * type), shared by concurrent requests, cached until shortly before they expire. It is the
 * SBI client's token provider; everything runs on the SBI client's thread. */
#ifndef BSF_GATEWAYS_NRF_NRF_TOKEN_H
#define BSF_GATEWAYS_NRF_NRF_TOKEN_H

#include "gateways/sbi/sbi_client.h"

typedef struct bsf_nrf_tokens bsf_nrf_tokens_t;

/* The NRF's apiRoot for a token request into out; returns 0, -1 when none. */
typedef int (*bsf_nrf_root_fn)(void *ctx, char *out, size_t cap);

/* Returns NULL when out of memory. `sbi` outlives it; free after bsf_sbi_client_stop. */
bsf_nrf_tokens_t *bsf_nrf_tokens_new(bsf_sbi_client_t *sbi, const char *nf_instance_id,
                                     bsf_nrf_root_fn root, void *root_ctx, unsigned timeout_ms);
/* Installs it as the SBI client's token provider. */
void bsf_nrf_tokens_install(bsf_nrf_tokens_t *t);
void bsf_nrf_tokens_free(bsf_nrf_tokens_t *t);

#endif
