/* The operational state's management resource (seed §3.39): GET and PUT of
 * {admin}/oc-bsf-configuration/v1/operationalState, the `system_operational_state` metric, and
 * the state kept in the store (ext "operational_state") so that it survives a restart. The
 * state itself and its rules are common/operational_state.h. */
#ifndef BSF_GATEWAYS_OPS_OPS_OPSTATE_H
#define BSF_GATEWAYS_OPS_OPS_OPSTATE_H

#include <jansson.h>
#include <stddef.h>

#include "common/text.h"
#include "engine/ext_meta.h"

#define BSF_OPSTATE_PATH "/oc-bsf-configuration/v1/operationalState"

/* Sets the state kept in the store (NORMAL when none) before anything serves; logs a state
 * other than NORMAL. Main thread. Returns 0, or -1 with a message (store error, or a kept value
 * that names no state). */
int bsf_ops_opstate_restore(bsf_store_t *store, char *err, size_t err_cap);
/* The resource: GET answers {"operationalState": NAME}; PUT takes the same object, keeps the
 * state in the store, then applies and logs it (200 with the new state; 400 for a body that is
 * not such an object; 500 when the store refuses: the state is then unchanged). A
 * bsf_ops_route_fn with the store as ctx; ops thread. */
json_t *bsf_ops_opstate_route(void *store, const char *method, const char *body, size_t len,
                              int *status);
/* system_operational_state (1 NORMAL, 2 PARTIAL_SHUTDOWN, 3 COMPLETE_SHUTDOWN) and
 * bsf_shutting_down (1 once SIGTERM came). A bsf_ops_metrics_fn (ctx unused). */
void bsf_ops_opstate_write_metrics(void *ctx, bsf_text_t *out);

#endif
