/* bsfd: the BSF daemon. Opens the store, starts the engine (the single writer), the SBI
 * HTTP/2 service and the ops endpoint, then waits for SIGTERM or SIGINT and shuts down in
 * order: stop accepting, finish every accepted write, answer, close. */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "audit/audit.h"
#include "audit/deletion_log.h"
#include "bsfd/config.h"
#include "bsfd/config_api.h"
#include "bsfd/config_runtime.h"
#include "bsfd/fd_limit.h"
#include "bsfd/grace_timer.h"
#include "bsfd/nf_scoring_inputs.h"
#include "bsfd/service_notify.h"
#include "common/diag.h"
#include "common/error.h"
#include "common/operational_state.h"
#include "common/version.h"
#include "core/problem.h"
#include "engine/engine.h"
#include "engine/log_retention.h"
#include "engine/site_identity.h"
#include "engine/store.h"
#include "engine/warmup.h"
#include "gateways/diameter/rx_gateway.h"
#include "gateways/diameter/rx_repaving_api.h"
#include "feed/feed.h"
#include "gateways/nrf/nrf_service.h"
#include "gateways/ops/ops_opstate.h"
#include "gateways/sbi/audit_pcf_client.h"
#include "gateways/sbi/notifier.h"
#include "gateways/ops/ops_server.h"
#include "gateways/admission/admission.h"
#include "gateways/sbi/nbsf_service.h"
#include "gateways/sbi/sbi_admission.h"
#include "gateways/sbi/sbi_error_log.h"
#include "gateways/admission/message_profile.h"
#include "gateways/sbi/sbi_oauth2.h"
#include "gateways/sbi/sbi_tls.h"
#include "bsfd/cert_watch.h"
#include "replication/replication.h"

#define EXIT_CONFIG 2
#define SETTLE_MS 200 /* between the last write answered and GOAWAY */

static void usage(FILE *out)
{
    fprintf(out, "usage: bsfd [-c FILE] [--set section.key=value]...\n"
                 "       bsfd --check-config [-c FILE] [--set section.key=value]...\n"
                 "       bsfd --config-reference | --version | --help\n"
                 "Runs the Binding Support Function. Without options it serves Nbsf_Management "
                 "on h2c 127.0.0.1:8080 with its store in ./data.\n");
}

/* Defaults, the file, then every --set over it, whatever their order on the line; finished.
 * `--check-config` is skipped. Returns 0, or -1 with a message naming the key (or the
 * argument). */
static int read_config(int argc, char **argv, bsf_config_t *cfg, char *err, size_t cap)
{
    bsf_config_defaults(cfg);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc &&
            bsf_config_load_file(cfg, argv[++i], err, cap))
            return -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
            i++;
        } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
            if (bsf_config_set(cfg, argv[++i], err, cap))
                return -1;
        } else if (strcmp(argv[i], "--check-config") != 0) {
            snprintf(err, cap, "unknown argument %s", argv[i]);
            return -1;
        }
    }
    return bsf_config_finish(cfg, err, cap);
}

static int load_config(int argc, char **argv, bsf_config_t *cfg)
{
    char err[512];
    if (read_config(argc, argv, cfg, err, sizeof err) == 0)
        return 0;
    fprintf(stderr, "bsfd: invalid configuration: %s\n", err);
    if (strncmp(err, "unknown argument", 16) == 0)
        usage(stderr);
    return -1;
}

/* Everything bsfd runs, started in this order by bsfd_start and stopped in the reverse
 * order by bsfd_stop (which also cleans up after a start that failed half-way). */
typedef struct {
    bsf_config_t cfg;
    bsf_store_t store;
    bool store_open;
    int exit_code; /* a failed start's exit status other than 1 (EXIT_CONFIG) */
    bsf_engine_config_t ec;
    bsf_replication_t *repl;
    bsf_engine_t *engine;
    bsf_log_retention_t *retention;
    bsf_ops_server_t *ops;
    bsf_h2_config_t h2;
    bsf_feed_t *feed;
    bsf_nbsf_service_t *sbi;
    bsf_rx_gateway_t *rx;
    bsf_nrf_service_t *nrf;
    bsf_notifier_t *notifier; /* notifications of subscriptions, sent by the SBI client */
    bsf_warmup_t *warmup;
    bsf_deletion_log_t *deletion_log; /* the engine's on_removal (audit, Rx 5012, operator) */
    bsf_audit_pcf_client_t *audit_pcf;
    bsf_audit_t *audit;               /* NULL: audit.enabled false */
    bsf_oauth2_t *oauth2;    /* sbi.oauth2.required: the access-token checks */
    bsf_sbi_tls_t *sbi_tls;  /* sbi.tls.listen: the server's TLS context */
    bsf_cert_watch_t *watch; /* reloads sbi_tls and oauth2's keys; certificate expiry */
    bsfd_score_inputs_t score_inputs;
    /* nf_scoring.enabled: started after the gateways; the NRF heartbeat (SBI client thread)
     * reads it, so it is published atomically */
    _Atomic(bsf_nf_scoring_t *) scoring;
    bsf_admission_t *admission;         /* the congestion state shared by the SBI and Rx */
    bsf_sbi_admission_t *sbi_admission; /* its SBI side: decisions, answer headers */
    char instance_id[64];    /* nf.instance_id, or the one kept in the store */
    bsf_config_api_t *cfgapi; /* runtime configuration, SIGHUP */
    int argc;                /* the command line, read again on SIGHUP */
    char **argv;
} bsfd_t;

/* The NRF heartbeat's load: the NF score's measured TPS, or nrf.load (SBI client thread). */
static unsigned heartbeat_load(void *ctx, unsigned fallback)
{
    bsfd_t *d = ctx;
    return bsf_nf_scoring_load(atomic_load(&d->scoring), fallback);
}

/* SIGHUP's reading of the configuration: the same command line again. */
static int reload_config(void *ctx, bsf_config_t *out, char *err, size_t cap)
{
    bsfd_t *d = ctx;
    return read_config(d->argc, d->argv, out, err, cap);
}

/* The access-token checks (keys read once, here). Returns 0, or -1 with the reason logged
 * (a configuration error: exit 2). */
static int create_oauth2(bsfd_t *d)
{
    const bsf_config_t *cfg = &d->cfg;
    if (!cfg->sbi_oauth2_required)
        return 0;
    char err[512];
    bsf_oauth2_settings_t os = {.keys_path = cfg->sbi_oauth2_keys,
                                .validate_signature = cfg->sbi_oauth2_validate_signature,
                                .nf_instance_id = cfg->nrf.instance_id,
                                .producer_nf_set_id = cfg->sbi_oauth2_producer_nf_set_id,
                                .producer_plmn_id = cfg->sbi_oauth2_producer_plmn_id};
    if (bsf_oauth2_create(&os, &d->oauth2, err, sizeof err)) {
        BSF_ERROR("bsfd", "invalid configuration: %s", err);
        return -1;
    }
    BSF_INFO("bsfd", "access tokens required on Nbsf_Management (%zu NRF keys%s)",
             bsf_oauth2_key_count(d->oauth2),
             cfg->sbi_oauth2_validate_signature ? "" : ", signatures not checked");
    return 0;
}

/* The SBI server's TLS context (files read here: a missing one stops bsfd, naming its key).
 * Returns 0, or -1 with the reason logged (exit 2). */
static int create_sbi_tls(bsfd_t *d)
{
    const bsf_config_t *cfg = &d->cfg;
    if (!cfg->sbi_tls_listen[0])
        return 0;
    char err[512];
    bsf_sbi_tls_settings_t ts = {.cert = cfg->sbi_tls_cert,
                                 .key = cfg->sbi_tls_key,
                                 .ca = cfg->sbi_tls_ca,
                                 .client_cert = (bsf_sbi_tls_client_cert_t)cfg->sbi_tls_client_cert,
                                 .ciphers = cfg->sbi_tls_ciphers,
                                 .ciphersuites = cfg->sbi_tls_ciphersuites,
                                 .groups = cfg->sbi_tls_groups};
    if (bsf_sbi_tls_create(&ts, &d->sbi_tls, err, sizeof err)) {
        BSF_ERROR("bsfd", "invalid configuration: %s", err);
        return -1;
    }
    return 0;
}

/* GET /health/ready names the topics held at an event of a newer version (docs/replication.md):
 * {"replicationHeld": [{"topic", "offset", "version"}]}, nothing when none is. */
static json_t *replication_health(void *ctx)
{
    bsf_replication_hold_t held[BSF_REPLICATION_MAX_TOPICS];
    size_t n = bsf_replication_held(ctx, held, BSF_REPLICATION_MAX_TOPICS);
    json_t *list = n ? json_array() : NULL;
    for (size_t i = 0; list && i < n; i++)
        json_array_append_new(list, json_pack("{s:s,s:I,s:I}", "topic", held[i].topic,
                                              "offset", (json_int_t)held[i].offset,
                                              "version", (json_int_t)held[i].version));
    return list ? json_pack("{s:o}", "replicationHeld", list) : NULL;
}

/* The ops endpoint, before the log backend catches up: liveness answers and readiness says
 * 503 while a Kafka site applies the other sites' events, which may take minutes. Returns 0
 * or -1. */
static int start_ops(bsfd_t *d, char *err, size_t cap)
{
    const bsf_config_t *cfg = &d->cfg;
    if (!cfg->ops_listen[0] && !cfg->ops_admin_listen[0])
        return 0;
    bsf_ops_config_t oc = {.host = cfg->ops_listen[0] ? cfg->ops_host : NULL,
                           .port = cfg->ops_port,
                           .admin_host = cfg->ops_admin_listen[0] ? cfg->ops_admin_host : NULL,
                           .admin_port = cfg->ops_admin_port,
                           .admin_tls_cert = cfg->ops_admin_tls_cert,
                           .admin_tls_key = cfg->ops_admin_tls_key,
                           .admin_tls_ca = cfg->ops_admin_tls_ca,
                           .admin_token_file = cfg->ops_admin_token_file,
                           .site_id = cfg->site_id,
                           .store = &d->store,
                           .engine = d->engine,
                           .health = d->repl ? replication_health : NULL,
                           .health_ctx = d->repl};
    if (bsf_ops_server_start(&oc, &d->ops, err, cap))
        return -1;
    if (d->repl) /* the catch-up's progress (lag per site) is visible meanwhile */
        bsf_ops_server_add_metrics(d->ops, bsf_replication_write_metrics, d->repl);
    return 0;
}

/* The store, the engine (the single writer), the ops endpoint and the log backend. Returns 0
 * or -1 (logged). */
static int start_store(bsfd_t *d, char *err, size_t cap)
{
    const bsf_config_t *cfg = &d->cfg;
    bsf_store_options_t so = {.path = cfg->store_path,
                              .map_size_mb = cfg->store_map_size_mb,
                              .read_only = false,
                              .max_readers = 512,
                              .migration_batch = cfg->store_migration_batch};
    if (bsf_store_open(&d->store, &so, err, cap))
        return -1;
    d->store_open = true;
    d->store.event_version = cfg->events_write_version; /* rolling upgrades: docs/operations.md */
    /* A store of another site (a restored backup) is refused: its sequence is not ours. */
    int site_rc = bsf_site_identity_check(&d->store, cfg->site_id, err, cap);
    if (site_rc) {
        d->exit_code = site_rc == 1 ? EXIT_CONFIG : 0;
        return -1;
    }
    /* Known before anything serves: the audience of access tokens, the NRF profile's id. */
    if (bsf_nrf_service_resolve_instance_id(&cfg->nrf, &d->store, d->instance_id,
                                            sizeof d->instance_id, err, cap))
        return -1;
    if (d->oauth2)
        bsf_oauth2_set_instance_id(d->oauth2, d->instance_id);
    /* The operational state a PUT kept (seed §3.39), before anything serves. */
    if (bsf_ops_opstate_restore(&d->store, err, cap))
        return -1;
    /* The runtime keys set through the management API win over the file (config_api.h). */
    if (bsf_config_api_create(&d->cfg, &d->store, reload_config, d, &d->cfgapi, err, cap))
        return -1;
    bsf_config_api_effective(d->cfgapi, &d->cfg);
    bsf_notifier_config_t ncfg = {.queue_per_subscriber = cfg->notify_queue_per_subscriber,
                                  .max_subscribers = cfg->notify_max_subscribers,
                                  .handoff_max = cfg->notify_handoff_max,
                                  .retries = cfg->notify_retries,
                                  .timeout_ms = cfg->notify_timeout_ms,
                                  .backoff_ms = cfg->notify_backoff_ms,
                                  .backoff_max_ms = cfg->notify_backoff_max_ms,
                                  .priority = (int)cfg->notify_priority};
    if (!(d->notifier = bsf_notifier_create(&ncfg))) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    d->ec = (bsf_engine_config_t){
        .site_id = cfg->site_id,
        .collision_detection = cfg->bindings_collision_detection,
        .max_batch = cfg->store_max_batch,
        .queue_capacity = cfg->store_queue_capacity,
        .commit_window_us = cfg->store_commit_window_us,
        .commit_window_batch = cfg->store_commit_window_batch,
        .hooks = {0}, /* set by bsf_replication_create when the log is Kafka */
        .tombstone_horizon_ms = cfg->store_tombstone_horizon_ms,
        .reserve_percent = cfg->store_reserve_percent,
        .on_removal = bsf_deletion_log_removal,
        .notify = {d->notifier, d->notifier ? bsf_notifier_deliver : NULL},
        .removals_settled = bsf_deletion_log_settled,
    };
    d->deletion_log = bsf_deletion_log_create(cfg->audit.deletion_log_level,
                                              cfg->audit.deletion_log_ue_ids);
    if (!d->deletion_log) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    d->ec.removal_ctx = d->deletion_log;
    if (bsf_replication_create(&cfg->replication, cfg->site_id, &d->store, &d->ec, &d->repl, err,
                               cap))
        return -1;
    if (bsf_engine_create(&d->store, &d->ec, &d->engine, err, cap) ||
        bsf_engine_start(d->engine)) {
        BSF_ERROR("bsfd", "cannot start the engine");
        return -1;
    }
    if (start_ops(d, err, cap))
        return -1;
    bsf_service_notify_status("catching up with the log");
    /* e.g. a new store that cannot bootstrap: nothing is served yet */
    if (bsf_replication_start(d->repl, d->engine, err, cap))
        return -1;
    bsf_log_retention_config_t lr = {.retention_ms = cfg->log_retention_ms,
                                     .archive_dir = cfg->log_archive_dir,
                                     .limit = d->ec.hooks.trim_limit,
                                     .limit_ctx = d->ec.hooks.ctx};
    if (bsf_log_retention_create(&d->store, d->engine, &lr, &d->retention, err, cap) ||
        bsf_log_retention_start(d->retention)) {
        BSF_ERROR("bsfd", "log.retention: %s", err);
        err[0] = '\0';
        return -1;
    }
    return 0;
}

static void fill_h2_config(bsfd_t *d)
{
    const bsf_config_t *cfg = &d->cfg;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    d->h2 = (bsf_h2_config_t){
        .host = cfg->sbi_listen[0] ? cfg->sbi_host : NULL,
        .port = cfg->sbi_port,
        .tls_host = cfg->sbi_tls_listen[0] ? cfg->sbi_tls_host : NULL,
        .tls_port = cfg->sbi_tls_port,
        .tls = d->sbi_tls,
        .workers = cfg->sbi_workers ? cfg->sbi_workers : (unsigned)(cpus > 0 ? cpus : 1),
        .max_body_bytes = cfg->sbi_max_body_bytes,
        .max_uri_bytes = cfg->sbi_max_uri_bytes,
        .max_concurrent_streams = cfg->sbi_max_concurrent_streams,
        .idle_timeout_ms = cfg->sbi_idle_timeout_s * 1000u,
        .max_connections = cfg->sbi_max_connections,
        .preface_timeout_ms = cfg->sbi_preface_timeout_s * 1000u,
        .header_timeout_ms = cfg->sbi_header_timeout_s * 1000u,
        .body_timeout_ms = cfg->sbi_body_timeout_s * 1000u,
        .send_timeout_ms = cfg->sbi_send_timeout_s * 1000u,
        .worker_memory_bytes = (size_t)cfg->sbi_worker_memory_mb << 20,
        .max_header_list_bytes = cfg->sbi_max_header_list_bytes,
    };
    /* every listener of sbi.listen_also has workers of its own */
    d->h2.max_connections = bsf_fd_limit_connections(d->h2.max_connections,
                                                     d->h2.workers * (1 + cfg->sbi_n_also));
}

/* The SBI's pending requests; the service starts before the sampling thread does. */
static size_t sbi_pending(void *ctx)
{
    bsf_nbsf_service_t *const *sbi = ctx;
    return *sbi ? bsf_nbsf_service_in_flight(*sbi) : 0;
}

static size_t sbi_receiving(void *ctx)
{
    bsf_nbsf_service_t *const *sbi = ctx;
    return *sbi ? bsf_nbsf_service_receiving(*sbi) : 0;
}

static void admission_metrics(void *ctx, bsf_text_t *out)
{
    bsf_admission_write_metrics(ctx, out);
}

static void sbi_admission_metrics(void *ctx, bsf_text_t *out)
{
    bsf_sbi_admission_write_metrics(ctx, out);
}

/* The admission controller and its SBI side (issue 14), before the front ends that use them.
 * The sampling interval and count of the Diameter keys apply when only they are set (they
 * came first). Returns 0 or -1. */
static int create_admission(bsfd_t *d, char *err, size_t cap)
{
    const bsf_config_t *cfg = &d->cfg;
    bsf_admission_config_t ac;
    if (bsf_admission_settings_apply(&cfg->admission, &ac, err, cap))
        return -1;
    static bsf_cause_overrides_t errors; /* seed §3.33; checked by the configuration */
    if (bsf_cause_overrides_parse(cfg->admission.errors, &errors, err, cap))
        return -1;
    bsf_cause_overrides_install(&errors);
    if (!bsf_config_is_set(cfg, "congestion.interval_ms") &&
        bsf_config_is_set(cfg, "diameter.congestion.interval_ms"))
        ac.interval_ms = cfg->diameter.congestion_interval_ms;
    if (!bsf_config_is_set(cfg, "congestion.sample_count") &&
        bsf_config_is_set(cfg, "diameter.congestion.sample_count"))
        ac.sample_count = cfg->diameter.congestion_samples;
    bsf_sbi_admission_config_t sc = {.nf_instance_id = d->instance_id,
                                     .server_header = cfg->admission.server_header,
                                     .lci = cfg->admission.lci,
                                     .status = cfg->admission.status,
                                     .cause = cfg->admission.cause,
                                     .retry_after_s = cfg->admission.retry_after_s,
                                     .consumer_rate = cfg->admission.rate_per_consumer,
                                     .burst = cfg->admission.rate_burst,
                                     .rate_priority_cutoff = cfg->admission.rate_priority,
                                     .connection_refuse_state =
                                         (bsf_adm_state_t)(cfg->admission.connection_refuse + 1),
                                     .connection_max_streams =
                                         cfg->admission.connection_max_streams};
    memcpy(sc.route_rate, ac.route_rate, sizeof sc.route_rate);
    if (!(d->admission = bsf_admission_new(&ac)) ||
        (ac.sbi_enabled &&
         (bsf_admission_add_resource(d->admission, "cpu", ac.cpu, NULL, NULL) < 0 ||
          bsf_admission_add_resource(d->admission, "pending", ac.pending, sbi_pending,
                                     &d->sbi) < 0 ||
          bsf_admission_add_resource(d->admission, "receiving", ac.receiving, sbi_receiving,
                                     &d->sbi) < 0))) {
        snprintf(err, cap, "admission: out of memory");
        return -1;
    }
    sc.adm = ac.sbi_enabled ? d->admission : NULL;
    char host[256] = "";
    if (!cfg->nrf.fqdn[0] && gethostname(host, sizeof host - 1))
        host[0] = '\0';
    static bsf_message_profile_t profile; /* checked by the configuration */
    if (bsf_message_profile_parse(cfg->admission.message_profile, &profile, err, cap))
        return -1;
    bsf_message_profile_install(&profile);
    bsf_sbi_errors_install(&(bsf_sbi_errors_config_t){
        .enhanced_detail = cfg->admission.error_detail,
        .log = cfg->admission.error_log,
        .log_ue_id = cfg->admission.error_log_ue_id,
        .rate = cfg->admission.error_log_rate,
        .burst = cfg->admission.error_log_burst,
        .fqdn = cfg->nrf.fqdn[0] ? cfg->nrf.fqdn : host,
        .nf_instance_id = d->instance_id});
    if (!(d->sbi_admission = bsf_sbi_admission_new(&sc))) {
        snprintf(err, cap, "admission: out of memory");
        return -1;
    }
    return 0;
}

/* The ops endpoint, the feed, the SBI service, the Rx gateway and the outbound side (SBI
 * client, NRF). Returns 0 or -1. */
static int start_gateways(bsfd_t *d, char *err, size_t cap)
{
    const bsf_config_t *cfg = &d->cfg;
    fill_h2_config(d);
    if (cfg->feed.enabled && bsf_feed_create(&cfg->feed, cfg->site_id, &d->feed, err, cap))
        return -1;
    bsf_nbsf_config_t nc = {.api_root = cfg->sbi_api_root,
                            .oauth2 = d->oauth2,
                            .xfcc = &cfg->sbi_xfcc,
                            .user_agent = &cfg->sbi_user_agent,
                            .multiple_match = cfg->discovery_multiple_match,
                            .late_arrival = cfg->sbi_late_arrival,
                            .pcf_cookie = cfg->bindings_pcf_cookie,
                            .feed = d->feed,
                            .ipv6_min_prefix_len = cfg->bindings_ipv6_min_prefix_len,
                            .n_also = cfg->sbi_n_also,
                            .sub_max_expiry_ms = cfg->sub_max_expiry_ms};
    for (unsigned i = 0; i < cfg->sbi_n_also; i++)
        nc.also[i] = (bsf_nbsf_listen_t){cfg->sbi_also_host[i], cfg->sbi_also_port[i]};
    if (create_admission(d, err, cap))
        return -1;
    nc.admission = d->sbi_admission;
    if (bsf_nbsf_service_start(&nc, &d->h2, &d->store, d->engine, &d->sbi, err, cap))
        return -1;
    if (cfg->diameter.enabled &&
        bsf_rx_gateway_start(&cfg->diameter, &d->store, d->engine, d->feed, d->admission, &d->rx,
                             err, cap))
        return -1;
    if (bsf_admission_start(d->admission)) {
        snprintf(err, cap, "admission: cannot start its thread");
        return -1;
    }
    /* The NF profile names the cleartext listener, or the TLS one when it is alone. */
    bool plain = cfg->sbi_listen[0];
    bsf_nrf_service_config_t nrfc = {&cfg->nrf, &d->store, plain ? cfg->sbi_host : cfg->sbi_tls_host,
                                     plain ? bsf_nbsf_service_port(d->sbi)
                                           : bsf_nbsf_service_tls_port(d->sbi),
                                     cfg->sbi_api_root,
                                     d->rx ? cfg->diameter.identity : NULL,
                                     d->rx ? cfg->diameter.realm : NULL, heartbeat_load, d,
                                     !cfg->admission.client_oci, &cfg->egress};
    if (bsf_nrf_service_start(&nrfc, &d->nrf, err, cap))
        return -1;
    bsf_config_runtime_attach_nrf(d->nrf); /* nrf.timeout_ms and the back-off change live */
    bsf_config_runtime_attach_rx(d->rx);   /* and the Rx congestion thresholds */
    bsf_notifier_set_client(d->notifier, bsf_nrf_service_client(d->nrf));
    return 0;
}

static json_t *nf_score_route(void *ctx, const char *method, const char *body, size_t len,
                              int *status)
{
    (void)body;
    (void)len;
    if (strcmp(method, "GET") != 0) {
        *status = 405;
        return json_pack("{s:s,s:i,s:s}", "title", "Method Not Allowed", "status", 405,
                         "detail", "only GET");
    }
    *status = 200;
    return bsf_nf_scoring_json(atomic_load(&((bsfd_t *)ctx)->scoring), true); /* on demand */
}

/* NF scoring (seed 3.41), once every source it reads is running. Returns 0 or -1 (logged). */
static int start_scoring(bsfd_t *d)
{
    d->score_inputs = (bsfd_score_inputs_t){.cfg = &d->cfg, .sbi = d->sbi, .rx = d->rx,
                                            .nrf = d->nrf, .repl = d->repl,
                                            .engine = d->engine};
    bsf_nf_scoring_config_t sc = {.enabled = d->cfg.nf_scoring_enabled,
                                  .interval_ms = d->cfg.nf_scoring_interval_ms,
                                  .weights = bsfd_score_weights(&d->cfg),
                                  .gather = bsfd_score_gather,
                                  .ctx = &d->score_inputs};
    bsf_nf_scoring_t *s;
    int rc = bsf_nf_scoring_start(&sc, &s);
    if (rc) {
        BSF_ERROR("bsfd", "NF scoring: %s", bsf_strerror(rc));
        return -1;
    }
    atomic_store(&d->scoring, s);
    return 0;
}

/* The binding audit, over the SBI client (after the gateways). Returns 0 or -1. */
static int start_audit(bsfd_t *d, char *err, size_t cap)
{
    const bsf_config_t *cfg = &d->cfg;
    if (!cfg->audit.enabled)
        return 0;
    d->audit_pcf = bsf_audit_pcf_client_create(bsf_nrf_service_client(d->nrf),
                                               bsf_nrf_service_discovery(d->nrf),
                                               bsf_nrf_service_alt_route(d->nrf));
    if (!d->audit_pcf) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    bsf_audit_config_t ac = {.settings = cfg->audit, .site_id = cfg->site_id};
    bsf_audit_pcf_client_bind(d->audit_pcf, &ac.pcf);
    if (bsf_audit_create(&d->store, d->engine, &ac, &d->audit, err, cap))
        return -1;
    if (bsf_audit_start(d->audit)) {
        snprintf(err, cap, "cannot start the audit thread");
        return -1;
    }
    return 0;
}

/* Every module's metrics and routes on the ops endpoint, then readiness. */
static void attach_ops(bsfd_t *d)
{
    bsf_ops_server_t *ops = d->ops;
    if (!ops)
        return;
    bsf_ops_server_add_metrics(ops, bsf_nbsf_service_write_metrics, d->sbi);
    bsf_ops_server_add_metrics(ops, bsf_ops_opstate_write_metrics, NULL);
    bsf_ops_server_add_metrics(ops, bsf_sbi_errors_write_metrics, NULL);
    if (d->cfg.ops_admin_listen[0]) {
        bsf_ops_server_add_admin_route(ops, BSF_OPSTATE_PATH, bsf_ops_opstate_route, &d->store);
        bsf_ops_server_add_admin_route(ops, BSF_CONFIG_API_PATH, bsf_config_api_route,
                                       d->cfgapi);
    }
    if (d->cfg.admission.enabled) {
        bsf_ops_server_add_metrics(ops, admission_metrics, d->admission);
        bsf_ops_server_add_metrics(ops, sbi_admission_metrics, d->sbi_admission);
    }
    bsf_nrf_service_attach_ops(d->nrf, ops);
    bsf_ops_server_add_metrics(ops, bsf_notifier_write_metrics, d->notifier);
    if (d->rx) {
        bsf_rx_repaving_t *repaving = bsf_rx_gateway_repaving(d->rx);
        bsf_ops_server_add_metrics(ops, bsf_rx_gateway_write_metrics, d->rx);
        /* They change state: the admin listener only (issue 13 §5). */
        if (!d->cfg.ops_admin_listen[0])
            BSF_WARN("bsfd", "ops.admin_listen is empty: the repaving resources are not served");
        bsf_ops_server_add_admin_route(ops, BSF_RX_REPAVING_TRIGGER_PATH,
                                       bsf_rx_repaving_api_trigger, repaving);
        bsf_ops_server_add_admin_route(ops, BSF_RX_REPAVING_CONFIG_PATH,
                                       bsf_rx_repaving_api_config, repaving);
        bsf_ops_server_add_admin_route(ops, BSF_RX_REPAVING_STATUS_PATH,
                                       bsf_rx_repaving_api_status, repaving);
    }
    if (d->feed)
        bsf_ops_server_add_metrics(ops, bsf_feed_write_metrics, d->feed);
    bsf_ops_server_add_metrics(ops, bsf_log_retention_write_metrics, d->retention);
    bsf_ops_server_add_metrics(ops, bsf_nf_scoring_write_metrics, atomic_load(&d->scoring));
    bsf_ops_server_add_route(ops, BSF_NF_SCORE_PATH, nf_score_route, d);
    bsf_ops_server_add_metrics(ops, bsf_deletion_log_write_metrics, d->deletion_log);
    if (d->audit)
        bsf_ops_server_add_metrics(ops, bsf_audit_write_metrics, d->audit);
    bsf_ops_server_add_metrics(ops, bsf_cert_watch_write_metrics, d->watch);
    bsf_ops_server_set_ready(ops, true);
}

/* Starts everything. Returns 0, or -1 with the reason logged (bsfd_stop then releases what
 * was started). */
static int bsfd_start(bsfd_t *d)
{
    char err[512] = "";
    if (start_store(d, err, sizeof err) || start_gateways(d, err, sizeof err) ||
        start_audit(d, err, sizeof err)) {
        if (err[0])
            BSF_ERROR("bsfd", "%s", err);
        return -1;
    }
    if (start_scoring(d))
        return -1;
    bsf_cert_watch_config_t wc = {
        .interval_s = d->cfg.tls_reload_interval_s,
        .warning_days = d->cfg.tls_expiry_warning_days,
        .sbi_tls = d->sbi_tls,
        .oauth2 = d->oauth2,
        .diameter_cert = d->cfg.diameter.enabled ? d->cfg.diameter.tls_cert : NULL};
    if (!(d->watch = bsf_cert_watch_create(&wc)) || bsf_cert_watch_start(d->watch)) {
        BSF_ERROR("bsfd", "cannot start the certificate watch");
        return -1;
    }
    attach_ops(d);
    d->warmup = d->cfg.store_warmup ? bsf_warmup_start(&d->store) : NULL;
    char tls[96] = "";
    if (d->sbi_tls)
        snprintf(tls, sizeof tls, ", h2 over TLS %s:%u", d->cfg.sbi_tls_host,
                 bsf_nbsf_service_tls_port(d->sbi));
    BSF_INFO("bsfd", "site %u serving Nbsf_Management on h2c %s:%u%s (%u workers), store %s, "
             "log position %llu",
             d->cfg.site_id, d->cfg.sbi_listen[0] ? d->cfg.sbi_host : "-",
             bsf_nbsf_service_port(d->sbi), tls, d->h2.workers, d->cfg.store_path,
             (unsigned long long)d->store.log.last);
    for (unsigned i = 0; i < d->cfg.sbi_n_also; i++)
        BSF_INFO("bsfd", "Nbsf_Management also on h2c %s%s%s:%u (sbi.listen_also)",
                 strchr(d->cfg.sbi_also_host[i], ':') ? "[" : "", d->cfg.sbi_also_host[i],
                 strchr(d->cfg.sbi_also_host[i], ':') ? "]" : "",
                 bsf_nbsf_service_port_of(d->sbi, i + 1));
    bsf_service_notify_ready();
    return 0;
}

/* Stops in order: leave the NRF, stop accepting, finish every accepted write, answer, close.
 * Every step skips what was never started. */
static void bsfd_stop(bsfd_t *d)
{
    bsf_service_notify_stopping();
    bsf_nrf_service_deregister(d->nrf); /* consumers stop finding us first */
    bsf_cert_watch_stop(d->watch);
    bsf_warmup_stop(d->warmup);
    if (d->ops)
        bsf_ops_server_set_ready(d->ops, false);
    /* New requests are refused as stopping since SIGTERM: what the engine took is answered
     * before GOAWAY (bounded by shutdown.grace_period anyway). */
    if (d->sbi && bsf_nbsf_service_wait_answered(d->sbi, 10000))
        BSF_WARN("bsfd", "writes still unanswered after 10 s: draining anyway");
    /* Some clients (httpcore) fail every stream in flight when a GOAWAY comes, even one whose
     * answer came with it: the last answers get a moment to be read first. */
    if (d->sbi)
        nanosleep(&(struct timespec){0, SETTLE_MS * 1000000L}, NULL);
    if (d->rx)
        bsf_rx_gateway_drain(d->rx);
    if (d->sbi)
        bsf_nbsf_service_drain(d->sbi);
    bsf_audit_stop(d->audit); /* its queries answered, before the SBI client and engine go */
    bsf_log_retention_stop(d->retention);
    if (d->engine)
        bsf_engine_stop(d->engine); /* every accepted write is committed and answered */
    bsf_replication_stop(d->repl);
    /* The ops endpoint's metrics and routes read the gateways: it stops before they go. */
    if (d->ops)
        bsf_ops_server_stop(d->ops);
    /* After the ops endpoint (its metrics read the score) and the NRF deregistration (no
     * heartbeat asks for the load any more); before the gateways it reads go. */
    bsf_nf_scoring_stop(atomic_exchange(&d->scoring, NULL));
    bsf_config_runtime_attach_nrf(NULL);
    bsf_config_runtime_attach_rx(NULL);
    bsf_nrf_service_stop(d->nrf);
    bsf_admission_stop(d->admission); /* its thread reads the front ends' counts */
    bsf_notifier_destroy(d->notifier); /* after the engine and the client stopped */
    if (d->rx)
        bsf_rx_gateway_stop(d->rx);
    if (d->sbi) {
        bsf_nbsf_service_stop(d->sbi, 2000);
        bsf_nbsf_service_free(d->sbi);
    }
    bsf_cert_watch_free(d->watch); /* stopped above: it used oauth2 and sbi_tls */
    bsf_sbi_admission_free(d->sbi_admission);
    bsf_admission_free(d->admission);
    bsf_oauth2_free(d->oauth2);
    bsf_sbi_tls_free(d->sbi_tls);
    bsf_feed_destroy(d->feed); /* after every gateway that offers records stopped */
    bsf_log_retention_destroy(d->retention);
    bsf_audit_destroy(d->audit); /* the engine answered its commands */
    bsf_audit_pcf_client_free(d->audit_pcf);
    if (d->engine)
        bsf_engine_destroy(d->engine);
    bsf_deletion_log_free(d->deletion_log);
    bsf_replication_destroy(d->repl);
    bsf_config_api_free(d->cfgapi);
    if (d->store_open)
        bsf_store_close(&d->store);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--config-reference") == 0) {
        bsf_config_print_reference();
        return 0;
    }
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("bsfd %s\n", bsf_version());
        return 0;
    }
    static bsfd_t d; /* large (the configuration): not on the stack */
    bool check_only = false;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--check-config") == 0)
            check_only = true;
        else if ((strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "--set") == 0) && i + 1 < argc)
            i++;
    if (load_config(argc, argv, &d.cfg))
        return EXIT_CONFIG;
    if (check_only) { /* seed §3.20: validated, nothing started */
        printf("bsfd: configuration valid\n");
        return 0;
    }
    d.argc = argc;
    d.argv = argv;
    bsf_log_level_t level;
    bsf_log_format_t format;
    if (bsf_log_level_parse(d.cfg.log_level, &level) == 0)
        bsf_log_set_level(level);
    if (bsf_log_format_parse(d.cfg.log_format, &format) == 0)
        bsf_log_set_format(format);
    bsf_log_set_module_levels(d.cfg.log_modules, NULL, 0); /* checked by the configuration */
    BSF_INFO("bsfd", "bsfd %s starting", bsf_version());
    bsf_fd_limit_raise();
    if (create_oauth2(&d) || create_sbi_tls(&d)) {
        bsf_oauth2_free(d.oauth2);
        return EXIT_CONFIG;
    }

    /* Signals are taken by sigwait in this thread; every thread inherits the mask. */
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &signals, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (bsfd_start(&d)) {
        bsfd_stop(&d);
        return d.exit_code ? d.exit_code : 1;
    }
    int sig;
    while ((sig = bsf_service_notify_wait(&signals)) == SIGHUP)
        bsf_config_api_reload(d.cfgapi); /* the file again: what can change at run time */
    /* Seed §3.40: from here every new request is refused as "stopping", what was read
     * finishes, and the whole stop is bounded by shutdown.grace_period. */
    bsf_opstate_begin_termination();
    bsf_grace_timer_arm();
    BSF_INFO("bsfd", "signal %d: shutting down (grace period %llu ms)", sig,
             (unsigned long long)bsf_grace_timer_period());
    bsfd_stop(&d);
    BSF_INFO("bsfd", "stopped");
    return 0;
}
