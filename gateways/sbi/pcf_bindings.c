/* The /pcfBindings operations of Nbsf_Management (TS 29.521 clause 5.3.2). */
#include "gateways/sbi/pcf_bindings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/diag.h"
#include "common/error.h"
#include "core/features.h"
#include "core/sbi_time.h"
#include "gateways/sbi/discovery_query.h"
#include "gateways/sbi/json_codec.h"
#include "gateways/sbi/nbsf_doc_resource.h"
#include "gateways/sbi/nbsf_exchange.h"
#include "gateways/sbi/nbsf_write.h"

static int64_t header_time(const bsf_h2_request_t *r, const char *name)
{
    const char *v = bsf_nbsf_header(r, name);
    return v ? bsf_sbi_time_parse(v, strlen(v)) : -1;
}

static int discover(bsf_nbsf_request_t *rq, const char *query, size_t query_len,
                    bsf_problem_t *p);

/* ---- decoding of writes ------------------------------------------------------------ */

static int decode_binding(const bsf_nbsf_config_t *cfg, const msgpack_object *doc,
                          bsf_command_t *cmd, const char ***supp_feat, bsf_problem_t *p)
{
    *supp_feat = &cmd->binding.supp_feat;
    return bsf_pcf_binding_decode(doc, &cmd->zone, &cmd->binding, p) ||
                   bsf_pcf_binding_check_rules(&cmd->binding, p) ||
                   bsf_pcf_binding_check_ipv6_lengths(&cmd->binding, cfg->ipv6_min_prefix_len, p)
               ? -1
               : 0;
}

/* The patch's new values hold only the members it sets. */
static int decode_patch(const bsf_nbsf_config_t *cfg, const msgpack_object *doc,
                        bsf_command_t *cmd, bsf_problem_t *p)
{
    return bsf_pcf_binding_patch_decode(doc, &cmd->zone, &cmd->patch, p) ||
                   bsf_pcf_binding_check_ipv6_lengths(&cmd->patch.values,
                                                      cfg->ipv6_min_prefix_len, p)
               ? -1
               : 0;
}

/* What bsf_nbsf_doc_command, bsf_nbsf_doc_submit and bsf_nbsf_doc_discover read: the
 * collection's name, its command kinds, that a refusal carries the binding the engine
 * answered with, its discovery and its decoders (nbsf_service.c routes /pcfBindings itself:
 * its refusals name the query parameter, and its registrations read the service's headers). */
static const bsf_nbsf_doc_resource_t pcf_bindings = {
    .name = "pcfBindings",
    .register_kind = BSF_CMD_REGISTER,
    .update_kind = BSF_CMD_UPDATE,
    .deregister_kind = BSF_CMD_DEREGISTER,
    .refusal_body = BSF_NBSF_REFUSAL_BINDING,
    .discover = discover,
    .decode_binding = decode_binding,
    .decode_patch = decode_patch,
};

/* ---- register ---------------------------------------------------------------------- */

void bsf_pcf_bindings_register(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r)
{
    bsf_command_t *cmd = bsf_nbsf_doc_command(&pcf_bindings, rq, r, NULL);
    if (!cmd)
        return;
    const char *cookie = rq->w->svc->cfg.pcf_cookie ? bsf_nbsf_header(r, "ocnf-service-cookie")
                                                    : NULL;
    if (cookie && strlen(cookie) <= BSF_COOKIE_MAX &&
        (cmd->cookie = msgpack_zone_malloc(&cmd->zone, strlen(cookie) + 1))) {
        cmd->cookie_len = strlen(cookie);
        memcpy(cmd->cookie, cookie, cmd->cookie_len + 1);
    }
    cmd->origin_ts_ms = header_time(r, "3gpp-sbi-origination-timestamp");
    cmd->sender_ts_ms = header_time(r, "3gpp-sbi-sender-timestamp");
    bsf_nbsf_doc_submit(&pcf_bindings, rq, cmd);
}

/* ---- update and deregister --------------------------------------------------------- */

void bsf_pcf_bindings_update(bsf_nbsf_request_t *rq, const bsf_h2_request_t *r,
                             const bsf_binding_id_t *id)
{
    bsf_command_t *cmd = bsf_nbsf_doc_command(&pcf_bindings, rq, r, id);
    if (cmd)
        bsf_nbsf_doc_submit(&pcf_bindings, rq, cmd);
}

void bsf_pcf_bindings_deregister(bsf_nbsf_request_t *rq, const bsf_binding_id_t *id)
{
    bsf_nbsf_doc_deregister(&pcf_bindings, rq, id);
}

/* ---- discovery --------------------------------------------------------------------- */

/* Members that belong to MultiUeAddr: left out for consumers without it. */
static const char *const multi_ue_addr_members[] = {"addIpv6Prefixes", "addMacAddrs", NULL};

static int render_match(bsf_nbsf_request_t *rq, const bsf_discovery_query_t *q,
                        const bsf_match_t *m)
{
    const char *const *skip = NULL;
    char agreed[72];
    const char *supp_feat = NULL;
    if (q->supp_feat) {
        bsf_features_intersect(q->supp_feat, BSF_SUPPORTED_FEATURES, agreed, sizeof agreed);
        supp_feat = agreed;
        if (!bsf_features_has(q->supp_feat, BSF_FEATURE_MULTI_UE_ADDR))
            skip = multi_ue_addr_members;
    }
    msgpack_sbuffer_clear(&rq->w->json);
    return bsf_json_write(&m->doc, &rq->w->json, skip, supp_feat);
}

static int discover(bsf_nbsf_request_t *rq, const char *query, size_t query_len,
                    bsf_problem_t *p)
{
    bsf_nbsf_worker_t *w = rq->w;
    bsf_discovery_query_t q;
    if (bsf_discovery_query_parse(query, query_len, &w->zone, &q, p))
        return -1;
    int rc = bsf_read_begin(w->reader);
    bsf_match_t best;
    size_t n = 0;
    if (!rc)
        rc = bsf_read_discover(w->reader, &q, &w->zone, &best, &n);
    if (rc == 0 && n > 1 && w->svc->cfg.multiple_match == BSF_MULTIPLE_MATCH_REJECT) {
        bsf_read_end(w->reader);
        bsf_problem_set(p, BSF_CAUSE_MULTIPLE_BINDING_INFO_FOUND,
                        "%zu PCF bindings match the query", n);
        return -1;
    }
    /* The record lives in the snapshot's pages: render before ending it. */
    if (rc == 0 && n > 0 && render_match(rq, &q, &best))
        rc = -1;
    bsf_read_end(w->reader);
    if (rc) {
        BSF_ERROR("sbi", "discovery failed: %s", rc == -1 ? "render" : bsf_strerror(rc));
        bsf_problem_set(p, BSF_CAUSE_SYSTEM_FAILURE, "the binding store failed");
        return -1;
    }
    if (n == 0)
        bsf_nbsf_respond_empty(rq, 204);
    else
        bsf_nbsf_respond_json(rq, 200, NULL, 0, &w->json);
    return 0;
}

void bsf_pcf_bindings_discover(bsf_nbsf_request_t *rq, const char *query, size_t query_len)
{
    bsf_nbsf_doc_discover(&pcf_bindings, rq, query, query_len);
}
