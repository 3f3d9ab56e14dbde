/* The /pcfBindings operations (TS 29.521 Nbsf_Management): each answers through
 * nbsf_exchange.h, at once or when the engine is done. Called by the router on the request's
 * worker thread. */
#ifndef BSF_GATEWAYS_SBI_PCF_BINDINGS_H
#define BSF_GATEWAYS_SBI_PCF_BINDINGS_H

#include "gateways/sbi/nbsf_internal.h"

void bsf_pcf_bindings_register(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r);
void bsf_pcf_bindings_discover(bsf_nbsf_request_t *rq, const char *query, size_t query_len);
void bsf_pcf_bindings_update(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r,
                             const bsf_binding_id_t *id);
void bsf_pcf_bindings_deregister(bsf_nbsf_request_t *rq, const bsf_binding_id_t *id);

#endif
