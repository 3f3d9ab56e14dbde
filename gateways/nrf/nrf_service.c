/* bsfd's outbound side: instance id, SBI client, NRF client; see nrf_service.h. */
#include "gateways/nrf/nrf_service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "common/diag.h"
#include "engine/ext_meta.h"
#include "gateways/nrf/nrf_client.h"
#include "gateways/nrf/nrf_token.h"

#define META_INSTANCE_ID "nf_instance_id"

struct bsf_nrf_service {
    char instance_id[64];
    bsf_sbi_client_t *sbi;
    bsf_nrf_client_t *nrf;
    bsf_nrf_tokens_t *tokens;
    bsf_nrf_health_t *health;   /* the NRFs, shared by the client, discovery and tokens */
    bsf_nf_discovery_t *discovery;
    bsf_sbi_alt_route_t *alt;
};

/* NF discovery and alternate routing (seed §3.23) on the started client. Returns 0 or -1. */
static int start_egress(bsf_nrf_service_t *s, const bsf_nrf_service_config_t *cfg, char *err,
                        size_t err_cap)
{
    const bsf_sbi_egress_settings_t *e = cfg->egress;
    const bsf_nrf_settings_t *st = cfg->settings;
    bsf_nrf_health_config_t hc = {.uris = st->uri, .unhealthy_ms = st->unhealthy_s * 1000,
                                  .failure_codes = st->failure_codes,
                                  .primary_retries = st->primary_retries,
                                  .alternate_retries = st->alternate_retries};
    if (!(s->health = bsf_nrf_health_create(&hc, err, err_cap)))
        return -1;
    bsf_nf_discovery_config_t dc = {.nrfs = s->health,
                                    .requester_nf_instance_id = s->instance_id,
                                    .timeout_ms = e ? (unsigned)e->disc_timeout_ms : 0,
                                    .cache_size = e ? e->disc_cache_size : 0,
                                    .max_validity_ms = e ? e->disc_max_validity_ms : 0};
    if (!(s->discovery = bsf_nf_discovery_create(s->sbi, &dc))) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    bsf_sbi_alt_config_t ac = {.enabled = e && e->alt_enabled,
                               .max_alternates = e ? e->alt_max : 0,
                               .statuses = e ? e->alt_statuses : NULL,
                               .on_timeout = e && e->alt_on_timeout,
                               .on_connect_error = e && e->alt_on_connect_error};
    s->alt = bsf_sbi_alt_route_create(s->sbi, s->discovery, &ac, err, err_cap);
    return s->alt ? 0 : -1;
}

int bsf_nrf_service_resolve_instance_id(const bsf_nrf_settings_t *settings, bsf_store_t *store,
                                        char *out, size_t cap, char *err, size_t err_cap)
{
    if (settings->instance_id[0]) {
        snprintf(out, cap, "%s", settings->instance_id);
        return 0;
    }
    uuid_t u;
    char fresh[40];
    uuid_generate_random(u);
    uuid_unparse_lower(u, fresh);
    bool created;
    if (bsf_ext_meta_string(store, META_INSTANCE_ID, fresh, out, cap, &created, err, err_cap))
        return -1;
    if (created)
        BSF_INFO("nrf", "generated the NF instance id %s (kept in the store)", out);
    return 0;
}

int bsf_nrf_service_start(const bsf_nrf_service_config_t *cfg, bsf_nrf_service_t **out,
                          char *err, size_t err_cap)
{
    bsf_nrf_service_t *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    if (bsf_nrf_service_resolve_instance_id(cfg->settings, cfg->store, s->instance_id,
                                            sizeof s->instance_id, err, err_cap)) {
        free(s);
        return -1;
    }
    const bsf_nrf_settings_t *st = cfg->settings;
    bsf_sbi_client_config_t cc = {.nf_instance_id = s->instance_id, .fqdn = st->fqdn,
                                  .tls_verify = st->client_tls_verify,
                                  .tls_ca_file = st->client_tls_ca_file,
                                  .tls_cert_file = st->client_tls_cert_file,
                                  .tls_key_file = st->client_tls_key_file,
                                  .tls_ciphers = st->client_tls_ciphers,
                                  .tls_ciphersuites = st->client_tls_ciphersuites,
                                  .tls_groups = st->client_tls_groups,
                                  .max_connections = st->client_max_connections,
                                  .max_streams = st->client_max_streams,
                                  .connect_timeout_ms = st->client_connect_timeout_ms,
                                  .family = (bsf_family_pref_t)st->client_family,
                                  .scp_uris = st->scp_uris,
                                  .scp_temp_unavailable_ms = st->scp_temp_unavailable_s * 1000,
                                  .scp_health_interval_ms = st->scp_health_interval_ms,
                                  .scp_health_path = st->scp_health_path,
                                  .scp_health_failures = st->scp_health_failures,
                                  .scp_health_successes = st->scp_health_successes,
                                  .ignore_oci = cfg->ignore_oci};
    if (bsf_sbi_client_start(&cc, &s->sbi, err, err_cap)) {
        free(s);
        return -1;
    }
    if (start_egress(s, cfg, err, err_cap)) {
        bsf_sbi_client_stop(s->sbi);
        bsf_nf_discovery_free(s->discovery);
        bsf_nrf_health_free(s->health);
        free(s);
        return -1;
    }
    if (cfg->settings->uri[0]) {
        bsf_nrf_client_config_t nc = {cfg->settings, s->instance_id, cfg->listen_host,
                                      cfg->listen_port, cfg->api_root, cfg->rx_host,
                                      cfg->rx_realm, cfg->load_fn, cfg->load_ctx, s->health};
        if (bsf_nrf_client_start(&nc, s->sbi, &s->nrf, err, err_cap)) {
            bsf_sbi_client_stop(s->sbi);
            bsf_sbi_alt_route_free(s->alt);
            bsf_nf_discovery_free(s->discovery);
            bsf_nrf_health_free(s->health);
            free(s);
            return -1;
        }
        s->tokens = bsf_nrf_tokens_new(s->sbi, s->instance_id, s->health, st->timeout_ms);
        if (s->tokens)
            bsf_nrf_tokens_install(s->tokens);
    }
    *out = s;
    return 0;
}

static json_t *scp_status_route(void *ctx, const char *method, const char *body, size_t len,
                                int *status)
{
    (void)body;
    (void)len;
    if (strcmp(method, "GET") != 0) {
        *status = 405;
        return json_pack("{s:s}", "detail", "only GET");
    }
    *status = 200;
    return bsf_sbi_client_scp_status(ctx);
}

void bsf_nrf_service_attach_ops(bsf_nrf_service_t *s, bsf_ops_server_t *ops)
{
    bsf_ops_server_add_route(ops, BSF_SCP_STATUS_PATH, scp_status_route, s->sbi);
    bsf_ops_server_add_metrics(ops, bsf_sbi_client_write_metrics, s->sbi);
    bsf_ops_server_add_metrics(ops, bsf_sbi_alt_route_write_metrics, s->alt);
    bsf_ops_server_add_metrics(ops, bsf_nf_discovery_write_metrics, s->discovery);
    if (!s->nrf)
        return;
    bsf_ops_server_add_route(ops, BSF_NRF_STATUS_PATH, bsf_nrf_client_status_route, s->nrf);
    bsf_ops_server_add_metrics(ops, bsf_nrf_client_write_metrics, s->nrf);
}

const char *bsf_nrf_service_instance_id(const bsf_nrf_service_t *s)
{
    return s->instance_id;
}

bsf_sbi_client_t *bsf_nrf_service_client(bsf_nrf_service_t *s)
{
    return s->sbi;
}

bsf_nf_discovery_t *bsf_nrf_service_discovery(bsf_nrf_service_t *s)
{
    return s->discovery;
}

bsf_sbi_alt_route_t *bsf_nrf_service_alt_route(bsf_nrf_service_t *s)
{
    return s->alt;
}

bool bsf_nrf_service_registered(bsf_nrf_service_t *s, bool *registered)
{
    if (!s || !s->nrf)
        return false;
    *registered = bsf_nrf_client_registered(s->nrf);
    return true;
}

void bsf_nrf_service_set_timers(bsf_nrf_service_t *s, const bsf_nrf_settings_t *settings)
{
    if (s && s->nrf)
        bsf_nrf_client_set_timers(s->nrf, settings->timeout_ms, settings->retry_min_ms,
                                  settings->retry_max_ms);
}

void bsf_nrf_service_deregister(bsf_nrf_service_t *s)
{
    if (s && s->nrf)
        bsf_nrf_client_deregister(s->nrf);
}

void bsf_nrf_service_stop(bsf_nrf_service_t *s)
{
    if (!s)
        return;
    bsf_sbi_client_stop(s->sbi); /* no NRF callback after this */
    bsf_nrf_tokens_free(s->tokens);
    bsf_nrf_client_free(s->nrf);
    bsf_sbi_alt_route_free(s->alt);
    bsf_nf_discovery_free(s->discovery);
    bsf_nrf_health_free(s->health);
    free(s);
}
