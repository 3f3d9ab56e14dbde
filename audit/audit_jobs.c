/* One binding's audit: the PCF queries and the outcome they lead to, submitted to the engine
 * as a command. Audit thread, except the answer callbacks (any thread: they only queue). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/audit_internal.h"
#include "common/clock.h"
#include "common/diag.h"
#include "common/fifo.h"
#include "core/api_root.h"
#include "engine/command.h"

static void copy_text(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

/* The engine answered an outcome command (engine thread). */
static void outcome_done(bsf_command_t *cmd)
{
    struct bsf_audit *a = cmd->owner;
    if (cmd->status != BSF_CMD_OK)
        audit_count(a, C_DROPPED);
    bsf_command_free(cmd);
}

static void submit(struct bsf_audit *a, bsf_command_t *cmd)
{
    cmd->done = outcome_done;
    cmd->owner = a;
    if (bsf_engine_submit(a->engine, cmd)) {
        audit_count(a, C_DROPPED); /* busy or stopping: the next cycle audits it again */
        bsf_command_free(cmd);
    }
}

/* A command on binding `id` that applies only while the binding is still at `hlc` /
 * `audit_hlc` (the versions audited). NULL (counted as dropped) when out of memory. */
static bsf_command_t *new_command(struct bsf_audit *a, bsf_command_kind_t kind,
                                  const bsf_binding_id_t *id, uint64_t hlc, uint64_t audit_hlc)
{
    bsf_command_t *cmd = bsf_command_new(kind);
    if (!cmd) {
        audit_count(a, C_DROPPED);
        return NULL;
    }
    cmd->id = *id;
    cmd->expect_hlc = hlc;
    cmd->expect_audit_hlc = audit_hlc;
    return cmd;
}

static void submit_removal(struct bsf_audit *a, const bsf_binding_id_t *id, uint64_t hlc,
                           uint64_t audit_hlc, bsf_dereg_reason_t reason)
{
    bsf_command_t *cmd = new_command(a, BSF_CMD_DEREGISTER, id, hlc, audit_hlc);
    if (!cmd)
        return;
    cmd->reason = reason;
    audit_count(a, reason == BSF_REASON_AUDIT_MAX_TTL ? C_REMOVED_TTL : C_REMOVED_404);
    submit(a, cmd);
}

static void submit_outcome(struct bsf_audit *a, const bsf_binding_id_t *id, uint64_t hlc,
                           uint64_t audit_hlc, bsf_event_type_t type,
                           const bsf_audit_state_t *st)
{
    bsf_command_t *cmd = new_command(a, BSF_CMD_AUDIT, id, hlc, audit_hlc);
    if (!cmd)
        return;
    cmd->audit_outcome = type;
    cmd->audit_state = *st;
    if (st->responder) {
        size_t n = strlen(st->responder) + 1;
        char *r = msgpack_zone_malloc(&cmd->zone, n);
        if (r)
            memcpy(r, st->responder, n);
        cmd->audit_state.responder = r;
    }
    audit_count(a, type == BSF_EVENT_AUDIT_CONFIRMED   ? C_CONFIRMED
                   : type == BSF_EVENT_AUDIT_SUSPECTED ? C_SUSPECTED
                                                       : C_FAILED);
    submit(a, cmd);
}

/* Runs on the answering thread: keeps the answer, queues the job for the audit thread. */
static void queue_answered(audit_job_t *j)
{
    struct bsf_audit *a = j->a;
    pthread_mutex_lock(&a->mu);
    bsf_fifo_push(&a->done, &j->done_link);
    pthread_cond_signal(&a->cv);
    pthread_mutex_unlock(&a->mu);
}

static void on_answer(void *arg, const bsf_audit_answer_t *ans)
{
    audit_job_t *j = arg;
    j->answer = ans->kind;
    j->status = ans->status;
    copy_text(j->responder, sizeof j->responder, ans->responder);
    if (ans->kind == BSF_AUDIT_ANSWER_FAILED)
        BSF_DEBUG("audit", "PCF query %s failed: %s (status %d)", j->url,
                  ans->error ? ans->error : "-", ans->status);
    queue_answered(j);
}

static void on_alternate(void *arg, const char *api_root)
{
    audit_job_t *j = arg;
    copy_text(j->alt_root, sizeof j->alt_root, api_root);
    queue_answered(j);
}

static void finish(audit_job_t *j)
{
    atomic_fetch_sub(&j->a->inflight, 1);
    free(j);
}

void bsf_audit_job_send(audit_job_t *j)
{
    struct bsf_audit *a = j->a;
    j->waiting = JOB_QUERY;
    audit_count(a, C_QUERIES);
    unsigned timeout = (unsigned)a->cfg.settings.query_timeout_ms;
    if (a->cfg.pcf.query(a->cfg.pcf.ctx, j->url, j->set_id, timeout, on_answer, j) == 0)
        return;
    bsf_audit_answer_t failed = {BSF_AUDIT_ANSWER_FAILED, 0, NULL, "not sent"};
    on_answer(j, &failed);
}

/* The audit ends without removal: `type` with the job's state (attempts + 1 unless found). */
static void conclude(audit_job_t *j, bsf_event_type_t type)
{
    bool found = type == BSF_EVENT_AUDIT_CONFIRMED;
    bsf_audit_state_t st = {
        .attempts = found ? 0 : j->attempts + 1,
        .last_audited_ms = found ? (int64_t)bsf_clock_wall_ms() : j->last_audited_ms,
        .not_found = j->not_found,
        .responder = j->responder[0] ? j->responder : NULL};
    submit_outcome(j->a, &j->id, j->hlc, j->audit_hlc, type, &st);
    finish(j);
}

/* Asks the PCF set for another PCF than those that answered 404. */
static void ask_alternate(audit_job_t *j)
{
    struct bsf_audit *a = j->a;
    const char *exclude[AUDIT_MAX_404];
    for (size_t i = 0; i < j->n_resp; i++)
        exclude[i] = j->resp[i];
    j->waiting = JOB_ALTERNATE;
    j->alt_root[0] = '\0';
    if (j->set_id[0] && a->cfg.pcf.alternate && j->n_resp < AUDIT_MAX_404) {
        audit_count(a, C_ALT_ASKED);
        if (a->cfg.pcf.alternate(a->cfg.pcf.ctx, j->set_id, exclude, j->n_resp, on_alternate,
                                 j) == 0)
            return;
    }
    conclude(j, BSF_EVENT_AUDIT_SUSPECTED); /* no other PCF: the 404 quorum is not met */
}

/* The alternate's URL: its apiRoot (with its apiPrefix) and the notificationUrl's path below
 * the first PCF's apiRoot, /{service}/{version}/... (TS 29.501 §4.4.1); a notificationUrl
 * without such a path keeps everything after its authority. */
static bool retarget(audit_job_t *j)
{
    size_t at;
    const char *path;
    if (bsf_api_root_split(j->url, NULL, NULL, 0, &at) == BSF_API_ROOT_OK) {
        path = j->url + at;
    } else {
        const char *scheme = strstr(j->url, "://");
        path = scheme ? scheme + 3 + strcspn(scheme + 3, "/?") : NULL;
    }
    char url[sizeof j->url];
    if (bsf_api_root_join(j->alt_root, path, url, sizeof url) != BSF_API_ROOT_OK ||
        !bsf_pcf_vendor_url_ok(url, strlen(url)))
        return false;
    memcpy(j->url, url, strlen(url) + 1);
    return true;
}

static void push_ready(audit_job_t *j)
{
    j->next = j->a->ready;
    j->a->ready = j;
}

static void note_not_found(audit_job_t *j)
{
    j->not_found++;
    for (size_t i = 0; i < j->n_resp; i++)
        if (strcmp(j->resp[i], j->responder) == 0)
            return;
    if (j->n_resp < AUDIT_MAX_404)
        copy_text(j->resp[j->n_resp++], sizeof j->resp[0], j->responder);
}

void bsf_audit_job_answered(audit_job_t *j)
{
    struct bsf_audit *a = j->a;
    if (bsf_worker_stopping(&a->worker)) {
        finish(j);
        return;
    }
    if (j->waiting == JOB_ALTERNATE) {
        if (j->alt_root[0] && retarget(j)) {
            audit_count(a, C_ALT_FOUND);
            push_ready(j);
        } else {
            conclude(j, BSF_EVENT_AUDIT_SUSPECTED);
        }
        return;
    }
    audit_count(a, j->answer == BSF_AUDIT_ANSWER_FOUND       ? C_FOUND
                   : j->answer == BSF_AUDIT_ANSWER_NOT_FOUND ? C_NOT_FOUND
                                                             : C_FAILED_ANSWERS);
    if (j->answer == BSF_AUDIT_ANSWER_NOT_FOUND)
        note_not_found(j);
    switch (bsf_audit_decide_answer(&a->cfg.settings, j->answer, j->not_found,
                                    (unsigned)j->n_resp)) {
    case BSF_AUDIT_CONFIRM:
        conclude(j, BSF_EVENT_AUDIT_CONFIRMED);
        return;
    case BSF_AUDIT_FAIL:
        conclude(j, BSF_EVENT_AUDIT_FAILED);
        return;
    case BSF_AUDIT_REMOVE_NOT_FOUND:
        submit_removal(a, &j->id, j->hlc, j->audit_hlc, BSF_REASON_AUDIT_NOT_FOUND);
        finish(j);
        return;
    case BSF_AUDIT_ASK_SAME:
        if (j->not_found < AUDIT_MAX_404) {
            push_ready(j);
            return;
        }
        conclude(j, BSF_EVENT_AUDIT_SUSPECTED);
        return;
    default:
        ask_alternate(j);
    }
}

uint64_t bsf_audit_take_item(struct bsf_audit *a, const bsf_audit_item_t *it, int64_t now_ms)
{
    const bsf_pcf_binding_t *b = &it->binding;
    bsf_audit_due_t due = bsf_audit_decide_due(&a->cfg.settings, now_ms, it->created_ms,
                                               it->last_audited_ms, it->attempts,
                                               b->notification_url != NULL);
    if (due == BSF_AUDIT_SKIP)
        return 0;
    /* Every action takes a token, writes too: bindings without a query must not flood the
     * engine's queue either. */
    uint64_t wait = 0;
    if (!bsf_token_bucket_take(&a->bucket, bsf_clock_mono_ns(), &wait))
        return wait;
    if (due == BSF_AUDIT_REMOVE_MAX_TTL) {
        submit_removal(a, &it->id, it->hlc, it->audit_hlc, BSF_REASON_AUDIT_MAX_TTL);
        return 0;
    }
    if (due == BSF_AUDIT_MARK_SUSPECTED) {
        bsf_audit_state_t st = {it->attempts + 1, it->last_audited_ms, 0, NULL};
        submit_outcome(a, &it->id, it->hlc, it->audit_hlc, BSF_EVENT_AUDIT_SUSPECTED, &st);
        return 0;
    }
    audit_job_t *j = calloc(1, sizeof *j);
    if (!j) {
        audit_count(a, C_DROPPED);
        return 0;
    }
    *j = (audit_job_t){.a = a, .id = it->id, .hlc = it->hlc, .audit_hlc = it->audit_hlc,
                       .attempts = it->attempts, .last_audited_ms = it->last_audited_ms};
    copy_text(j->url, sizeof j->url, b->notification_url);
    copy_text(j->set_id, sizeof j->set_id, b->pcf_set_id);
    atomic_fetch_add(&a->inflight, 1);
    bsf_audit_job_send(j);
    return 0;
}
