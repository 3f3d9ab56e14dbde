#include "audit/deletion_log.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/metrics_text.h"
#include "common/time_text.h"
#include "core/hlc.h"

struct bsf_deletion_log {
    int level;
    bool ue_ids;
    _Atomic uint64_t removed[BSF_REASON_COUNT];
    /* engine thread: the removals of the open transaction */
    bsf_text_t pending;            /* their lines, '\n'-separated */
    uint64_t pending_n[BSF_REASON_COUNT];
};

#define MASK "XXXX"

bsf_deletion_log_t *bsf_deletion_log_create(int level, bool ue_ids)
{
    bsf_deletion_log_t *d = calloc(1, sizeof *d);
    if (d) {
        d->level = level;
        d->ue_ids = ue_ids;
    }
    return d;
}

void bsf_deletion_log_free(bsf_deletion_log_t *d)
{
    if (d)
        bsf_text_free(&d->pending);
    free(d);
}

const char *bsf_deletion_reason_text(bsf_dereg_reason_t reason)
{
    switch (reason) {
    case BSF_REASON_AUDIT_NOT_FOUND:
        return "404 Response received from PCF";
    case BSF_REASON_AUDIT_MAX_TTL:
        return "Max TTL Reached";
    case BSF_REASON_DIAMETER_FAILURE:
        return "Stale Session Notification received from Diameter Gateway";
    case BSF_REASON_OPERATOR:
        return "Removed by the operator";
    default:
        return bsf_dereg_reason_name(reason);
    }
}

static void set_str(json_t *o, const char *k, const char *v)
{
    if (v)
        json_object_set_new(o, k, json_string(v));
}

/* A UE identifier: in clear or masked. */
static void set_ue(json_t *o, const char *k, const char *v, bool clear)
{
    if (v)
        json_object_set_new(o, k, json_string(clear ? v : MASK));
}

static void set_addresses(json_t *o, const bsf_pcf_binding_t *b, bool clear)
{
    char t[BSF_IPV6_TEXT_MAX];
    if (b->has_ipv4) {
        bsf_ipv4_format(&b->ipv4, t);
        set_ue(o, "ipv4Addr", t, clear);
    }
    set_ue(o, "ipDomain", b->ip_domain, clear);
    if (b->has_ipv6) {
        bsf_ipv6_prefix_format(&b->ipv6, t);
        set_ue(o, "ipv6Prefix", t, clear);
    }
    if (b->has_mac) {
        bsf_mac48_format(&b->mac, t);
        set_ue(o, "macAddr48", t, clear);
    }
}

static void set_time(json_t *o, const char *k, int64_t ms)
{
    char t[32];
    if (ms >= 0) {
        bsf_time_format_rfc3339(ms, t);
        json_object_set_new(o, k, json_string(t));
    }
}

char *bsf_deletion_log_format(const bsf_removal_t *r, bool ue_ids)
{
    const bsf_pcf_binding_t *b = r->binding;
    json_t *o = json_object();
    if (!o)
        return NULL;
    char id[BSF_BINDING_ID_TEXT_LEN + 1];
    bsf_binding_id_format(r->id, id);
    set_str(o, "reason", bsf_deletion_reason_text(r->reason));
    set_str(o, "reasonCode", bsf_dereg_reason_name(r->reason));
    set_str(o, "bindingId", id);
    set_ue(o, "supi", b->supi, ue_ids);
    set_ue(o, "gpsi", b->gpsi, ue_ids);
    set_str(o, "dnn", b->dnn);
    set_addresses(o, b, ue_ids);
    set_str(o, "pcfFqdn", b->pcf_fqdn);
    set_str(o, "pcfId", b->pcf_id);
    set_str(o, "pcfSetId", b->pcf_set_id);
    if (b->has_snssai) {
        json_t *s = json_pack("{s:i}", "sst", b->snssai.sst);
        if (s && b->snssai.has_sd) {
            char sd[8];
            snprintf(sd, sizeof sd, "%06X", (unsigned)b->snssai.sd);
            json_object_set_new(s, "sd", json_string(sd));
        }
        if (s)
            json_object_set_new(o, "snssai", s);
    }
    set_str(o, "pcfDiamHost", b->pcf_diam_host);
    set_str(o, "pcfDiamRealm", b->pcf_diam_realm);
    set_str(o, "notificationUrl", b->notification_url);
    set_time(o, "createdDateTime", (int64_t)BSF_HLC_MS(r->created_hlc));
    set_time(o, "lastAuditedDateTime", r->last_audited_ms);
    json_object_set_new(o, "auditAttempts", json_integer(r->attempts));
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return text;
}

void bsf_deletion_log_removal(void *ctx, const bsf_removal_t *r)
{
    bsf_deletion_log_t *d = ctx;
    if ((unsigned)r->reason < BSF_REASON_COUNT)
        d->pending_n[r->reason]++;
    if (d->level < 0 || (int)bsf_log_get_level() < d->level)
        return;
    char *text = bsf_deletion_log_format(r, d->ue_ids);
    if (text)
        bsf_text_printf(&d->pending, "%s\n", text);
    free(text);
}

void bsf_deletion_log_settled(void *ctx, bool committed)
{
    bsf_deletion_log_t *d = ctx;
    for (int i = 0; i < BSF_REASON_COUNT; i++) {
        if (committed && d->pending_n[i])
            atomic_fetch_add(&d->removed[i], d->pending_n[i]);
        d->pending_n[i] = 0;
    }
    for (char *line = d->pending.data; committed && line && *line;) {
        char *end = strchr(line, '\n');
        if (!end)
            break;
        bsf_log((bsf_log_level_t)d->level, "stale-binding-deletion", "%.*s", (int)(end - line),
                line);
        line = end + 1;
    }
    d->pending.len = 0;
    if (d->pending.data)
        d->pending.data[0] = '\0';
}

void bsf_deletion_log_write_metrics(void *ctx, bsf_text_t *out)
{
    bsf_deletion_log_t *d = ctx;
    if (!d)
        return;
    static const bsf_dereg_reason_t reasons[] = {BSF_REASON_AUDIT_NOT_FOUND,
                                                 BSF_REASON_AUDIT_MAX_TTL,
                                                 BSF_REASON_DIAMETER_FAILURE,
                                                 BSF_REASON_OPERATOR};
    bsf_metrics_family(out, "bsf_stale_bindings_removed_total", "counter",
                       "PCF bindings removed without their PCF asking (audit, Diameter stale "
                       "notification, operator)");
    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        bsf_metrics_u64_label(out, "bsf_stale_bindings_removed_total", "reason",
                              bsf_dereg_reason_name(reasons[i]),
                              atomic_load(&d->removed[reasons[i]]));
}
