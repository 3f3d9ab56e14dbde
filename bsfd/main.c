/* bsfd: the BSF daemon. Opens the store, starts the engine (the single writer), the SBI
 * HTTP/2 service and the ops endpoint, then waits for SIGTERM or SIGINT and shuts down in
 * order: stop accepting, finish every accepted write, answer, close. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bsfd/config.h"
#include "bsfd/fd_limit.h"
#include "common/diag.h"
#include "engine/engine.h"
#include "engine/store.h"
#include "engine/warmup.h"
#include "gateways/diameter/rx_gateway.h"
#include "gateways/diameter/rx_repaving_api.h"
#include "feed/feed.h"
#include "gateways/nrf/nrf_service.h"
#include "gateways/ops/ops_server.h"
#include "gateways/sbi/nbsf_service.h"
#include "replication/replication.h"

#define EXIT_CONFIG 2

static void usage(FILE *out)
{
    fprintf(out, "usage: bsfd [-c FILE] [--set section.key=value]...\n"
                 "       bsfd --config-reference\n"
                 "Runs the Binding Support Function. Without options it serves Nbsf_Management "
                 "on h2c 127.0.0.1:8080 with its store in ./data.\n");
}

static int load_config(int argc, char **argv, bsf_config_t *cfg)
{
    char err[512];
    bsf_config_defaults(cfg);
    /* The file first, then every --set over it, whatever their order on the line. */
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc &&
            bsf_config_load_file(cfg, argv[++i], err, sizeof err)) {
            fprintf(stderr, "bsfd: invalid configuration: %s\n", err);
            return -1;
        }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-c") == 0 && i + 1 < argc) {
            i++;
        } else if (strcmp(argv[i], "--set") == 0 && i + 1 < argc) {
            if (bsf_config_set(cfg, argv[++i], err, sizeof err)) {
                fprintf(stderr, "bsfd: invalid configuration: %s\n", err);
                return -1;
            }
        } else {
            fprintf(stderr, "bsfd: unknown argument %s\n", argv[i]);
            usage(stderr);
            return -1;
        }
    }
    if (bsf_config_finish(cfg, err, sizeof err)) {
        fprintf(stderr, "bsfd: invalid configuration: %s\n", err);
        return -1;
    }
    return 0;
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
    bsf_config_t cfg;
    if (load_config(argc, argv, &cfg))
        return EXIT_CONFIG;
    bsf_log_level_t level;
    if (bsf_log_level_parse(cfg.log_level, &level) == 0)
        bsf_log_set_level(level);
    bsf_fd_limit_raise();

    /* Signals are taken by sigwait in this thread; every thread inherits the mask. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
    signal(SIGPIPE, SIG_IGN);

    char err[512];
    bsf_store_t store;
    bsf_store_options_t so = {.path = cfg.store_path,
                              .map_size_mb = cfg.store_map_size_mb,
                              .read_only = false,
                              .max_readers = 512};
    if (bsf_store_open(&store, &so, err, sizeof err)) {
        BSF_ERROR("bsfd", "%s", err);
        return 1;
    }
    bsf_engine_config_t ec = {
        .site_id = cfg.site_id,
        .collision_detection = cfg.bindings_collision_detection,
        .max_batch = cfg.store_max_batch,
        .queue_capacity = cfg.store_queue_capacity,
        .hooks = {0}, /* set by bsf_replication_create when the log is Kafka */
        .tombstone_horizon_ms = (uint64_t)cfg.store_tombstone_horizon_h * 3600000u,
        .reserve_percent = cfg.store_reserve_percent,
    };
    bsf_replication_t *repl;
    if (bsf_replication_create(&cfg.replication, cfg.site_id, &store, &ec, &repl, err,
                               sizeof err)) {
        BSF_ERROR("bsfd", "%s", err);
        return 1;
    }
    bsf_engine_t *engine;
    if (bsf_engine_create(&store, &ec, &engine, err, sizeof err) || bsf_engine_start(engine)) {
        BSF_ERROR("bsfd", "cannot start the engine: %s", err);
        return 1;
    }
    if (bsf_replication_start(repl, engine, err, sizeof err)) {
        /* e.g. a new store that cannot bootstrap: nothing served yet, release it all */
        BSF_ERROR("bsfd", "%s", err);
        bsf_engine_stop(engine);
        bsf_replication_stop(repl);
        bsf_engine_destroy(engine);
        bsf_replication_destroy(repl);
        bsf_store_close(&store);
        return 1;
    }
    bsf_ops_server_t *ops = NULL;
    if (cfg.ops_listen[0]) {
        bsf_ops_config_t oc = {.host = cfg.ops_host,
                               .port = cfg.ops_port,
                               .site_id = cfg.site_id,
                               .store = &store,
                               .engine = engine};
        if (bsf_ops_server_start(&oc, &ops, err, sizeof err)) {
            BSF_ERROR("bsfd", "%s", err);
            return 1;
        }
    }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    bsf_h2_config_t h2 = {
        .host = cfg.sbi_host,
        .port = cfg.sbi_port,
        .workers = cfg.sbi_workers ? cfg.sbi_workers : (unsigned)(cpus > 0 ? cpus : 1),
        .max_body_bytes = cfg.sbi_max_body_bytes,
        .max_uri_bytes = cfg.sbi_max_uri_bytes,
        .max_concurrent_streams = cfg.sbi_max_concurrent_streams,
        .idle_timeout_ms = cfg.sbi_idle_timeout_s * 1000u,
        .max_connections = cfg.sbi_max_connections,
        .preface_timeout_ms = cfg.sbi_preface_timeout_s * 1000u,
        .header_timeout_ms = cfg.sbi_header_timeout_s * 1000u,
        .body_timeout_ms = cfg.sbi_body_timeout_s * 1000u,
        .send_timeout_ms = cfg.sbi_send_timeout_s * 1000u,
        .worker_memory_bytes = (size_t)cfg.sbi_worker_memory_mb << 20,
        .max_header_list_bytes = cfg.sbi_max_header_list_bytes,
    };
    h2.max_connections = bsf_fd_limit_connections(h2.max_connections, h2.workers);
    bsf_feed_t *feed = NULL;
    if (cfg.feed.enabled && bsf_feed_create(&cfg.feed, cfg.site_id, &feed, err, sizeof err)) {
        BSF_ERROR("bsfd", "%s", err);
        return 1;
    }
    bsf_nbsf_config_t nc = {.api_root = cfg.sbi_api_root,
                            .multiple_match = cfg.discovery_multiple_match,
                            .late_arrival = cfg.sbi_late_arrival,
                            .pcf_cookie = cfg.bindings_pcf_cookie,
                            .feed = feed,
                            .ipv6_min_prefix_len = cfg.bindings_ipv6_min_prefix_len};
    bsf_nbsf_service_t *sbi;
    if (bsf_nbsf_service_start(&nc, &h2, &store, engine, &sbi, err, sizeof err)) {
        BSF_ERROR("bsfd", "%s", err);
        return 1;
    }
    bsf_rx_gateway_t *rx = NULL;
    if (cfg.diameter.enabled &&
        bsf_rx_gateway_start(&cfg.diameter, &store, engine, feed, &rx, err, sizeof err)) {
        BSF_ERROR("bsfd", "%s", err);
        return 1;
    }
    bsf_nrf_service_config_t nrfc = {&cfg.nrf, &store, cfg.sbi_host, bsf_nbsf_service_port(sbi),
                                     cfg.sbi_api_root, rx ? cfg.diameter.identity : NULL,
                                     rx ? cfg.diameter.realm : NULL};
    bsf_nrf_service_t *nrf;
    if (bsf_nrf_service_start(&nrfc, &nrf, err, sizeof err)) {
        BSF_ERROR("bsfd", "%s", err);
        return 1;
    }
    if (ops) {
        bsf_ops_server_add_metrics(ops, bsf_nbsf_service_write_metrics, sbi);
        bsf_nrf_service_attach_ops(nrf, ops);
        if (repl)
            bsf_ops_server_add_metrics(ops, bsf_replication_write_metrics, repl);
        if (rx) {
            bsf_rx_repaving_t *repaving = bsf_rx_gateway_repaving(rx);
            bsf_ops_server_add_metrics(ops, bsf_rx_gateway_write_metrics, rx);
            bsf_ops_server_add_route(ops, BSF_RX_REPAVING_TRIGGER_PATH,
                                     bsf_rx_repaving_api_trigger, repaving);
            bsf_ops_server_add_route(ops, BSF_RX_REPAVING_CONFIG_PATH,
                                     bsf_rx_repaving_api_config, repaving);
            bsf_ops_server_add_route(ops, BSF_RX_REPAVING_STATUS_PATH,
                                     bsf_rx_repaving_api_status, repaving);
        }
        if (feed)
            bsf_ops_server_add_metrics(ops, bsf_feed_write_metrics, feed);
        bsf_ops_server_set_ready(ops, true);
    }
    bsf_warmup_t *warmup = cfg.store_warmup ? bsf_warmup_start(&store) : NULL;
    BSF_INFO("bsfd", "site %u serving Nbsf_Management on h2c %s:%u (%u workers), store %s, "
             "log position %llu",
             cfg.site_id, cfg.sbi_host, bsf_nbsf_service_port(sbi), h2.workers, cfg.store_path,
             (unsigned long long)store.log.last);

    int sig = 0;
    sigwait(&stop_signals, &sig);
    BSF_INFO("bsfd", "signal %d: shutting down", sig);
    bsf_nrf_service_deregister(nrf); /* consumers stop finding us first */
    bsf_warmup_stop(warmup);
    if (ops)
        bsf_ops_server_set_ready(ops, false);
    if (rx)
        bsf_rx_gateway_drain(rx);
    bsf_nbsf_service_drain(sbi);
    bsf_engine_stop(engine); /* every accepted write is committed and answered */
    bsf_replication_stop(repl);
    /* The ops endpoint's metrics and routes read the gateways: it stops before they go. */
    if (ops)
        bsf_ops_server_stop(ops);
    bsf_nrf_service_stop(nrf);
    if (rx)
        bsf_rx_gateway_stop(rx);
    bsf_nbsf_service_stop(sbi, 2000);
    bsf_nbsf_service_free(sbi);
    bsf_feed_destroy(feed); /* after every gateway that offers records stopped */
    bsf_engine_destroy(engine);
    bsf_replication_destroy(repl);
    bsf_store_close(&store);
    BSF_INFO("bsfd", "stopped");
    return 0;
}
