#include "gateways/sbi/nbsf_write.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/diag.h"
#include "common/error.h"
#include "gateways/sbi/json_codec.h"
#include "gateways/sbi/nbsf_exchange.h"
#include "gateways/sbi/nbsf_opstate.h"

/* True when the content-type names `type`, with or without parameters. */
static bool media_type_is(const char *content_type, const char *type)
{
    if (!content_type)
        return false;
    size_t n = strlen(type);
    while (*content_type == ' ')
        content_type++;
    return strncasecmp(content_type, type, n) == 0 &&
           (content_type[n] == '\0' || content_type[n] == ';' || content_type[n] == ' ');
}

int bsf_nbsf_parse_body(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r, const char *media,
                        msgpack_object *obj)
{
    bsf_problem_t p;
    if (r->body_len == 0) { /* no body at all: the request is malformed, whatever its type */
        bsf_problem_set(&p, BSF_CAUSE_INVALID_MSG_FORMAT, "the %s request has no body (%s)",
                        r->method, media);
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return -1;
    }
    if (!media_type_is(r->content_type, media)) {
        bsf_problem_set(&p, BSF_CAUSE_UNSUPPORTED_MEDIA_TYPE, "the body must be %s, not %s",
                        media, r->content_type ? r->content_type : "untyped");
        /* RFC 5789 §2.2: a 415 to a PATCH says which patch documents are accepted */
        bsf_h2_header_t h = {"accept-patch", media};
        bool is_patch = strcmp(r->method, "PATCH") == 0;
        bsf_nbsf_respond_problem_with(rq, &p, NULL, is_patch ? &h : NULL, is_patch);
        return -1;
    }
    msgpack_zone_clear(&rq->w->zone);
    if (bsf_json_to_msgpack(r->body ? r->body : "", r->body_len, &rq->w->doc, &rq->w->zone, obj,
                            &p)) {
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return -1;
    }
    return 0;
}

int bsf_nbsf_unpack_result(bsf_nbsf_request_t *rq, const bsf_command_t *cmd,
                           msgpack_object *obj)
{
    size_t off = 0;
    if (!cmd->body.size)
        return -1;
    msgpack_zone_clear(&rq->w->zone);
    return msgpack_unpack(cmd->body.data, cmd->body.size, &off, &rq->w->zone, obj) ==
                   MSGPACK_UNPACK_SUCCESS
               ? 0
               : -1;
}

/* Retry-After of a 503 for a full write queue: the queue drains in well under a second at
 * the engine's rate, so one second spreads retries without idling the store. */
#define BSF_SBI_RETRY_AFTER_S 1
#define BSF_SBI_RETRY_AFTER_TEXT "1"

typedef struct {
    bsf_nbsf_request_t rq;
    bsf_command_t *cmd;
    bsf_nbsf_answer_fn answer;
    const void *ctx;
} pending_write_t;

/* Runs on the worker thread: the engine has committed (or failed) the command. */
static void on_write_answered(void *arg)
{
    pending_write_t *pw = arg;
    bsf_nbsf_service_t *svc = pw->rq.w->svc;
    pw->answer(&pw->rq, pw->cmd, pw->ctx);
    bsf_command_free(pw->cmd);
    free(pw);
    atomic_fetch_sub(&svc->writes_in_flight, 1);
}

/* Runs on the engine thread. */
static void on_command_done(bsf_command_t *cmd)
{
    pending_write_t *pw = cmd->owner;
    if (bsf_h2_worker_post(pw->rq.w->worker, on_write_answered, pw)) {
        BSF_WARN("sbi", "worker gone before an answer could be sent");
        atomic_fetch_sub(&pw->rq.w->svc->writes_in_flight, 1);
        bsf_sbi_feed_txn_free(pw->rq.feed);
        bsf_command_free(cmd);
        free(pw);
    }
}

void bsf_nbsf_submit(bsf_nbsf_request_t *rq, bsf_command_t *cmd, bsf_nbsf_answer_fn answer,
                     const void *ctx)
{
    pending_write_t *pw = malloc(sizeof *pw);
    if (!pw) {
        bsf_command_free(cmd);
        bsf_problem_t p;
        bsf_problem_set(&p, BSF_CAUSE_SYSTEM_FAILURE, "out of memory");
        bsf_nbsf_respond_problem(rq, &p, NULL);
        return;
    }
    pw->rq = *rq;
    pw->cmd = cmd;
    pw->answer = answer;
    pw->ctx = ctx;
    cmd->owner = pw;
    cmd->done = on_command_done;
    /* Counted before the engine may answer it (bsf_nbsf_service_wait_answered). */
    atomic_fetch_add(&rq->w->svc->writes_in_flight, 1);
    int rc = bsf_engine_submit(rq->w->svc->engine, cmd);
    if (rc)
        atomic_fetch_sub(&rq->w->svc->writes_in_flight, 1);
    if (rc == BSF_ESTOPPED) { /* read before SIGTERM, reached the engine after its stop */
        bsf_command_free(cmd);
        free(pw);
        bsf_nbsf_opstate_refuse(rq, BSF_OPVERDICT_STOPPING);
        return;
    }
    if (rc) {
        atomic_fetch_add_explicit(&rq->w->metrics->rejected_queue_full, 1,
                                  memory_order_relaxed);
        bsf_command_free(cmd);
        free(pw);
        bsf_problem_t p;
        /* Shed before the queue's backlog turns into seconds of latency and gigabytes of
         * memory: TS 29.500 §5.2.7.2 NF_CONGESTION_RISK, and when to come back (RFC 9110
         * §10.2.3). */
        bsf_problem_set(&p, BSF_CAUSE_NF_CONGESTION_RISK,
                        "the write queue is full; retry after %d s", BSF_SBI_RETRY_AFTER_S);
        bsf_h2_header_t retry = {"retry-after", BSF_SBI_RETRY_AFTER_TEXT};
        bsf_nbsf_respond_problem_with(rq, &p, NULL, &retry, 1);
        return;
    }
    bsf_h2_stream_set_pending(rq->stream, &pw->rq);
}

bsf_command_t *bsf_nbsf_new_command(bsf_nbsf_request_t *rq, bsf_command_kind_t kind)
{
    bsf_command_t *cmd = bsf_command_new(kind);
    if (!cmd) {
        bsf_problem_t p;
        bsf_problem_set(&p, BSF_CAUSE_SYSTEM_FAILURE, "out of memory");
        bsf_nbsf_respond_problem(rq, &p, NULL);
    }
    return cmd;
}

bsf_command_t *bsf_nbsf_body_command(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r,
                                     const char *media, bsf_command_kind_t kind,
                                     msgpack_object *doc)
{
    if (bsf_nbsf_parse_body(rq, r, media, doc))
        return NULL;
    return bsf_nbsf_new_command(rq, kind);
}
