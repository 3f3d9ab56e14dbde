/* The operational state's management resource; see ops_opstate.h. */
#include "gateways/ops/ops_opstate.h"

#include <stdio.h>
#include <string.h>

#include "common/diag.h"
#include "common/metrics_text.h"
#include "common/operational_state.h"

#define META_NAME "operational_state"

static json_t *problem(int *status, int code, const char *cause, const char *detail)
{
    const char *title = code == 400   ? "Bad Request"
                        : code == 405 ? "Method Not Allowed"
                                      : "Internal Server Error";
    *status = code;
    return json_pack("{s:s, s:i, s:s, s:s}", "title", title,
                     "status", code, "cause", cause, "detail", detail);
}

int bsf_ops_opstate_restore(bsf_store_t *store, char *err, size_t err_cap)
{
    char kept[64];
    int rc = bsf_ext_meta_get_string(store, META_NAME, kept, sizeof kept, err, err_cap);
    if (rc < 0)
        return -1;
    bsf_opstate_t st = BSF_OPSTATE_NORMAL;
    if (rc == 0 && bsf_opstate_parse(kept, &st)) {
        snprintf(err, err_cap, "store (ext/" META_NAME "): '%s' is not an operational state",
                 kept);
        return -1;
    }
    bsf_opstate_set(st);
    if (st != BSF_OPSTATE_NORMAL)
        BSF_WARN("ops", "operational state %s (kept in the store; PUT %s to change it)",
                 bsf_opstate_name(st), BSF_OPSTATE_PATH);
    return 0;
}

static json_t *state_json(void)
{
    return json_pack("{s:s}", "operationalState", bsf_opstate_name(bsf_opstate_get()));
}

/* PUT: the body's state, kept, then applied. */
static json_t *put_state(bsf_store_t *store, const char *body, size_t len, int *status)
{
    json_error_t je;
    json_t *root = body && len ? json_loadb(body, len, 0, &je) : NULL;
    json_t *v = json_is_object(root) ? json_object_get(root, "operationalState") : NULL;
    bsf_opstate_t st;
    if (!v || !json_is_string(v) || json_object_size(root) != 1 ||
        bsf_opstate_parse(json_string_value(v), &st)) {
        json_decref(root);
        return problem(status, 400, v ? "MANDATORY_IE_INCORRECT" : "MANDATORY_IE_MISSING",
                       "the body must be {\"operationalState\": \"NORMAL\" | "
                       "\"PARTIAL_SHUTDOWN\" | \"COMPLETE_SHUTDOWN\"}");
    }
    json_decref(root);
    char err[256];
    /* Kept first: a state that is served is one a restart comes back to. */
    if (bsf_ext_meta_put_string(store, META_NAME, bsf_opstate_name(st), err, sizeof err)) {
        BSF_ERROR("ops", "operational state %s not applied: %s", bsf_opstate_name(st), err);
        return problem(status, 500, "SYSTEM_FAILURE", err);
    }
    bsf_opstate_t from = bsf_opstate_set(st);
    if (from != st)
        BSF_WARN("ops", "operational state %s -> %s", bsf_opstate_name(from),
                 bsf_opstate_name(st));
    *status = 200;
    return state_json();
}

json_t *bsf_ops_opstate_route(void *store, const char *method, const char *body, size_t len,
                              int *status)
{
    if (strcmp(method, "GET") == 0) {
        *status = 200;
        return state_json();
    }
    if (strcmp(method, "PUT") == 0)
        return put_state(store, body, len, status);
    return problem(status, 405, "METHOD_NOT_ALLOWED", "allowed: GET, PUT");
}

void bsf_ops_opstate_write_metrics(void *ctx, bsf_text_t *out)
{
    (void)ctx;
    const bsf_metric_row_t rows[] = {
        {"system_operational_state", "gauge",
         "Operational state: 1 NORMAL, 2 PARTIAL_SHUTDOWN, 3 COMPLETE_SHUTDOWN (seed 3.39).",
         (uint64_t)bsf_opstate_get() + 1},
        {"bsf_shutting_down", "gauge", "1 once bsfd is terminating (SIGTERM).",
         bsf_opstate_terminating() ? 1 : 0},
        {"diam_controlled_shutdown_message_reject_total", "counter",
         "Rx requests refused by the operational state or the stop.",
         bsf_opstate_refusals(BSF_OPIF_DIAMETER)},
        {"bsf_sbi_controlled_shutdown_reject_total", "counter",
         "SBI requests refused by the operational state or the stop.",
         bsf_opstate_refusals(BSF_OPIF_SBI)},
    };
    BSF_METRICS_ROWS(out, rows);
}
