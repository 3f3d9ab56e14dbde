/* Connection repaving rules (seed §3.45); see rx_repaving_rules.h. */
#include "gateways/diameter/rx_repaving_rules.h"

#include <stdio.h>
#include <string.h>

const char *bsf_rx_disconnect_cause_name(bsf_rx_disconnect_cause_t c)
{
    switch (c) {
    case BSF_RX_DC_BUSY:
        return "BUSY";
    case BSF_RX_DC_DO_NOT_WANT_TO_TALK_TO_YOU:
        return "DO_NOT_WANT_TO_TALK_TO_YOU";
    case BSF_RX_DC_REBOOTING:
    default:
        return "REBOOTING";
    }
}

const char *bsf_rx_repave_offer_name(bsf_rx_repave_offer_t o)
{
    switch (o) {
    case BSF_RX_REPAVE_QUEUED:
        return "queued";
    case BSF_RX_REPAVE_DUPLICATE:
        return "duplicate";
    case BSF_RX_REPAVE_DISABLED:
        return "disabled";
    case BSF_RX_REPAVE_QUEUE_FULL:
    default:
        return "queue_full";
    }
}

static bool known_id(const bsf_rx_repave_queue_t *q, const char *id)
{
    if (strcmp(q->last_id, id) == 0 || (q->busy && strcmp(q->current.id, id) == 0))
        return true;
    for (size_t i = 0; i < q->count; i++)
        if (strcmp(q->queue[(q->head + i) % BSF_RX_REPAVE_QUEUE_MAX].id, id) == 0)
            return true;
    return false;
}

bsf_rx_repave_offer_t bsf_rx_repave_queue_offer(bsf_rx_repave_queue_t *q,
                                                const bsf_rx_repave_trigger_t *t, bool enabled)
{
    if (known_id(q, t->id))
        return BSF_RX_REPAVE_DUPLICATE;
    if (!enabled)
        return BSF_RX_REPAVE_DISABLED;
    if (q->count == BSF_RX_REPAVE_QUEUE_MAX)
        return BSF_RX_REPAVE_QUEUE_FULL;
    q->queue[(q->head + q->count) % BSF_RX_REPAVE_QUEUE_MAX] = *t;
    q->count++;
    return BSF_RX_REPAVE_QUEUED;
}

bsf_rx_repave_next_t bsf_rx_repave_queue_next(bsf_rx_repave_queue_t *q,
                                              uint64_t reinvocation_delay_ms,
                                              bsf_rx_repave_trigger_t *out)
{
    if (q->busy || q->count == 0)
        return BSF_RX_REPAVE_NONE;
    *out = q->queue[q->head];
    q->head = (q->head + 1) % BSF_RX_REPAVE_QUEUE_MAX;
    q->count--;
    snprintf(q->last_id, sizeof q->last_id, "%s", out->id);
    /* The delay runs from the previous run's end to this trigger's request time: a trigger
     * queued behind a run is judged by when it was asked for, not by when it is taken. */
    if (reinvocation_delay_ms && q->last_completed_ms &&
        out->request_ms < q->last_completed_ms + reinvocation_delay_ms)
        return BSF_RX_REPAVE_SKIPPED;
    q->busy = true;
    q->current = *out;
    return BSF_RX_REPAVE_RUN;
}

void bsf_rx_repave_queue_done(bsf_rx_repave_queue_t *q, uint64_t now_ms)
{
    q->busy = false;
    q->last_completed_ms = now_ms;
}

bool bsf_rx_repave_eligible(bool inbound, uint64_t established_ms, uint64_t request_ms)
{
    return inbound && established_ms < request_ms;
}

int bsf_rx_repave_check_id(const char *id, char *why, size_t cap)
{
    size_t n = strlen(id);
    if (n == 0 || n >= BSF_RX_REPAVE_ID_MAX) {
        snprintf(why, cap, "invocationId must have 1 to %d characters",
                 BSF_RX_REPAVE_ID_MAX - 1);
        return -1;
    }
    if (strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:-") != n) {
        snprintf(why, cap, "invocationId may only hold letters, digits and . _ : -");
        return -1;
    }
    return 0;
}
