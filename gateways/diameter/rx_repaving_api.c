/* Repaving's management resources; see rx_repaving_api.h. */
#include "gateways/diameter/rx_repaving_api.h"

#include <stdio.h>
#include <string.h>

#include "common/time_text.h"
#include "gateways/diameter/rx_repaving.h"

static json_t *problem(int *status, int code, const char *title, const char *cause,
                       const char *detail)
{
    *status = code;
    return json_pack("{s:s, s:i, s:s, s:s}", "title", title, "status", code, "cause", cause,
                     "detail", detail);
}

static json_t *wrong_method(int *status, const char *allowed)
{
    char detail[64];
    snprintf(detail, sizeof detail, "allowed: %s", allowed);
    return problem(status, 405, "Method Not Allowed", "METHOD_NOT_ALLOWED", detail);
}

/* Parses an optional JSON object body; NULL with *status and *err set when it is not one. */
static json_t *object_body(const char *body, size_t len, int *status, json_t **err)
{
    json_error_t je;
    json_t *root = len ? json_loadb(body, len, 0, &je) : json_object();
    if (!root || !json_is_object(root)) {
        json_decref(root);
        *err = problem(status, 400, "Bad Request", "INVALID_MSG_FORMAT",
                       "the body must be a JSON object");
        return NULL;
    }
    return root;
}

static json_t *time_or_null(uint64_t ms)
{
    char ts[32];
    if (!ms)
        return json_null();
    bsf_time_format_rfc3339((int64_t)ms, ts);
    return json_string(ts);
}

json_t *bsf_rx_repaving_api_trigger(void *ctx, const char *method, const char *body, size_t len,
                                    int *status)
{
    if (strcmp(method, "POST") != 0)
        return wrong_method(status, "POST");
    json_t *err = NULL, *root = object_body(body, len, status, &err);
    if (!root)
        return err;
    const char *id = NULL;
    json_t *jid = json_object_get(root, "invocationId");
    char why[128];
    if (jid && !json_is_string(jid)) {
        err = problem(status, 400, "Bad Request", "INVALID_MSG_FORMAT",
                      "invocationId must be a string");
    } else if (jid && bsf_rx_repave_check_id((id = json_string_value(jid)), why, sizeof why)) {
        err = problem(status, 400, "Bad Request", "INVALID_MSG_FORMAT", why);
    }
    if (err) {
        json_decref(root);
        return err;
    }
    bsf_rx_repave_trigger_t t;
    bsf_rx_repave_offer_t o = bsf_rx_repaving_trigger(ctx, id, &t);
    json_decref(root);
    if (o == BSF_RX_REPAVE_QUEUE_FULL)
        return problem(status, 503, "Service Unavailable", "INSUFFICIENT_RESOURCES",
                       "too many repaving triggers are waiting");
    *status = o == BSF_RX_REPAVE_DUPLICATE ? 200 : 202;
    return json_pack("{s:s, s:o, s:s}", "invocationId", t.id, "requestTimestamp",
                     time_or_null(t.request_ms), "outcome", bsf_rx_repave_offer_name(o));
}

static json_t *config_json(bsf_rx_repaving_t *r)
{
    bsf_rx_repaving_status_t st;
    bsf_rx_repaving_status(r, &st);
    return json_pack("{s:b, s:I, s:I, s:I, s:s}", "enabled", st.enabled, "maxStaggerJitterMs",
                     (json_int_t)st.jitter_ms, "connectionDisconnectIntervalMs",
                     (json_int_t)st.interval_ms, "reinvocationDelayMin",
                     (json_int_t)st.delay_min, "dprDisconnectCause", st.cause);
}

json_t *bsf_rx_repaving_api_config(void *ctx, const char *method, const char *body, size_t len,
                                   int *status)
{
    if (strcmp(method, "GET") == 0) {
        *status = 200;
        return config_json(ctx);
    }
    if (strcmp(method, "PUT") != 0)
        return wrong_method(status, "GET, PUT");
    json_t *err = NULL, *root = object_body(body, len, status, &err);
    if (!root)
        return err;
    json_t *enabled = json_object_get(root, "enabled");
    if (!json_is_boolean(enabled) || json_object_size(root) != 1) {
        json_decref(root);
        return problem(status, 400, "Bad Request", "INVALID_MSG_FORMAT",
                       "the body must be {\"enabled\": true|false}; the other settings come "
                       "from the configuration file");
    }
    bsf_rx_repaving_set_enabled(ctx, json_is_true(enabled));
    json_decref(root);
    *status = 200;
    return config_json(ctx);
}

json_t *bsf_rx_repaving_api_status(void *ctx, const char *method, const char *body, size_t len,
                                   int *status)
{
    (void)body;
    (void)len;
    if (strcmp(method, "GET") != 0)
        return wrong_method(status, "GET");
    bsf_rx_repaving_status_t st;
    bsf_rx_repaving_status(ctx, &st);
    json_t *current = json_null();
    if (st.busy)
        current = json_pack("{s:s, s:o}", "invocationId", st.current.id, "requestTimestamp",
                            time_or_null(st.current.request_ms));
    *status = 200;
    return json_pack("{s:b, s:b, s:o, s:I, s:o, s:o, s:I}", "enabled", st.enabled, "busy",
                     st.busy, "current", current, "queued", (json_int_t)st.queued,
                     "lastInvocationId", st.last_id[0] ? json_string(st.last_id) : json_null(),
                     "lastCompleted", time_or_null(st.last_completed_ms), "disconnections",
                     (json_int_t)st.disconnections);
}
