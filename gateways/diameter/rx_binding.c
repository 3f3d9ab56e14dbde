/* Binding lookup and stale-binding removal for the Rx gateway. */
#include "gateways/diameter/rx_binding.h"

#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/error.h"
#include "engine/read.h"

/* Copies what the gateway keeps out of the snapshot: nothing may point into it afterwards. */
static bsf_rx_lookup_result_t copy_match(const bsf_match_t *best, bool want_cookie,
                                         bsf_rx_binding_t *out)
{
    out->id = best->id;
    bsf_rx_identity_copy(out->pcf_host, best->binding.pcf_diam_host, SIZE_MAX);
    bsf_rx_identity_copy(out->pcf_realm, best->binding.pcf_diam_realm, SIZE_MAX);
    if (!want_cookie || best->record.cookie_len == 0)
        return BSF_RX_LOOKUP_FOUND;
    out->cookie = malloc(best->record.cookie_len);
    if (!out->cookie)
        return BSF_RX_LOOKUP_ERROR;
    memcpy(out->cookie, best->record.cookie, best->record.cookie_len);
    out->cookie_len = best->record.cookie_len;
    return BSF_RX_LOOKUP_FOUND;
}

bsf_rx_lookup_result_t bsf_rx_binding_lookup(bsf_store_t *store, const bsf_discovery_query_t *q,
                                             bool want_cookie, bsf_rx_binding_t *out)
{
    memset(out, 0, sizeof *out);
    /* A pooled handle: its read transaction is renewed and its zone reused, so an AAR-I
     * costs neither a new transaction nor an allocation. */
    bsf_read_t *r = NULL;
    int rc = bsf_read_acquire(store, &r);
    if (!rc)
        rc = bsf_read_begin(r);
    bsf_match_t best;
    size_t n = 0;
    if (!rc)
        rc = bsf_read_discover(r, q, bsf_read_zone(r), &best, &n);
    bsf_rx_lookup_result_t res = BSF_RX_LOOKUP_NOT_FOUND;
    if (rc) {
        BSF_ERROR("diameter", "binding lookup: %s", bsf_strerror(rc));
        res = BSF_RX_LOOKUP_ERROR;
    } else if (n > 0 && (rc = bsf_read_match_complete(&best, bsf_read_zone(r))) != 0) {
        BSF_ERROR("diameter", "binding record: %s", bsf_strerror(rc));
        res = BSF_RX_LOOKUP_ERROR;
    } else if (n > 0) {
        res = copy_match(&best, want_cookie, out);
    }
    bsf_read_release(r);
    return res;
}

void bsf_rx_binding_clear(bsf_rx_binding_t *b)
{
    free(b->cookie);
    b->cookie = NULL;
    b->cookie_len = 0;
}

/* Engine thread: the deregistration is durable (or failed). */
static void stale_done(bsf_command_t *cmd)
{
    bsf_rx_metrics_t *m = cmd->owner;
    char id[BSF_BINDING_ID_TEXT_LEN + 1];
    bsf_binding_id_format(&cmd->id, id);
    if (cmd->status == BSF_CMD_OK) {
        bsf_rx_metrics_count_stale(m, BSF_RX_STALE_REMOVED);
        BSF_INFO("diameter", "binding %s removed: the PCF answered an AAR with a stale code", id);
    } else if (cmd->status == BSF_CMD_REFUSED) {
        bsf_rx_metrics_count_stale(m, BSF_RX_STALE_ALREADY_GONE);
    } else {
        bsf_rx_metrics_count_stale(m, BSF_RX_STALE_FAILED);
        BSF_WARN("diameter", "binding %s: stale removal failed", id);
    }
    bsf_command_free(cmd);
}

int bsf_rx_binding_remove_stale(bsf_engine_t *engine, const bsf_binding_id_t *id,
                                bsf_rx_metrics_t *m)
{
    bsf_command_t *cmd = bsf_command_new(BSF_CMD_DEREGISTER);
    if (!cmd) {
        bsf_rx_metrics_count_stale(m, BSF_RX_STALE_FAILED);
        return -1;
    }
    cmd->id = *id;
    cmd->reason = BSF_REASON_DIAMETER_FAILURE;
    cmd->done = stale_done;
    cmd->owner = m;
    if (bsf_engine_submit(engine, cmd)) {
        bsf_command_free(cmd);
        bsf_rx_metrics_count_stale(m, BSF_RX_STALE_FAILED);
        return -1;
    }
    bsf_rx_metrics_count_stale(m, BSF_RX_STALE_REQUESTED);
    return 0;
}
