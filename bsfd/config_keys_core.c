/* Configuration keys of the site, the SBI gateway, the ops endpoint, the store and the
 * binding rules. */
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"

static const char *const multiple_match_choices[] = {"most_recent", "reject", NULL};
static const char *const log_level_choices[] = {"error", "warn", "info", "debug", NULL};

static const bsf_config_key_t keys[] = {
    {"site.id", BSF_CFG_UINT, "1", 1, 65535, NULL, BSF_CFG_FIELD(site_id),
     "Site identifier, unique among the sites sharing a log; part of every event and binding id."},
    {"log.level", BSF_CFG_ENUM, "info", 0, 0, log_level_choices, BSF_CFG_FIELD(log_level),
     "Diagnostics level on stderr."},
    {"sbi.listen", BSF_CFG_LISTEN, "127.0.0.1:8080", 0, 0, NULL, BSF_CFG_FIELD(sbi_listen),
     "HTTP/2 (h2c) address of Nbsf_Management, `host:port` or `[v6]:port`; numeric addresses."},
    {"sbi.api_root", BSF_CFG_STRING, "", 0, 255, NULL, BSF_CFG_FIELD(sbi_api_root),
     "apiRoot used in `Location` headers; empty = `http://<sbi.listen>`."},
    {"sbi.workers", BSF_CFG_UINT, "0", 0, 64, NULL, BSF_CFG_FIELD(sbi_workers),
     "SBI worker threads (one event loop each); 0 = one per CPU."},
    {"sbi.max_body_bytes", BSF_CFG_UINT, "65536", 1024, 16777216, NULL,
     BSF_CFG_FIELD(sbi_max_body_bytes),
     "Largest request body; larger ones get 413 without being read."},
    {"sbi.max_uri_bytes", BSF_CFG_UINT, "8192", 256, 65536, NULL,
     BSF_CFG_FIELD(sbi_max_uri_bytes), "Longest request path and query; longer ones get 414."},
    {"sbi.max_concurrent_streams", BSF_CFG_UINT, "1024", 1, 65536, NULL,
     BSF_CFG_FIELD(sbi_max_concurrent_streams),
     "HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS per connection."},
    {"sbi.idle_timeout_s", BSF_CFG_UINT, "300", 0, 86400, NULL, BSF_CFG_FIELD(sbi_idle_timeout_s),
     "Close connections with no request in progress and no traffic for this long (GOAWAY); 0 "
     "keeps them forever."},
    {"sbi.max_connections", BSF_CFG_UINT, "10000", 0, 1000000, NULL,
     BSF_CFG_FIELD(sbi_max_connections),
     "Connections accepted per SBI worker; more are closed at once; 0 = no limit."},
    {"sbi.preface_timeout_s", BSF_CFG_UINT, "10", 0, 3600, NULL,
     BSF_CFG_FIELD(sbi_preface_timeout_s),
     "Close a connection whose client preface and SETTINGS have not arrived this long after "
     "accept (slowloris); 0 = no limit."},
    {"sbi.header_timeout_s", BSF_CFG_UINT, "10", 0, 3600, NULL,
     BSF_CFG_FIELD(sbi_header_timeout_s),
     "Close a connection (GOAWAY) whose request header block, or any other frame, is not "
     "complete this long after it began; 0 = no limit."},
    {"sbi.body_timeout_s", BSF_CFG_UINT, "30", 0, 3600, NULL, BSF_CFG_FIELD(sbi_body_timeout_s),
     "Reset a stream (RST_STREAM CANCEL) whose body has not ended this long after its "
     "headers; 0 = no limit."},
    {"sbi.send_timeout_s", BSF_CFG_UINT, "30", 0, 3600, NULL, BSF_CFG_FIELD(sbi_send_timeout_s),
     "Close a connection whose peer has not taken an answer (socket or flow-control window) "
     "this long; 0 = no limit."},
    {"sbi.worker_memory_mb", BSF_CFG_UINT, "256", 0, 65536, NULL,
     BSF_CFG_FIELD(sbi_worker_memory_mb),
     "Memory budget of each SBI worker for its connections and streams: above 7/8 of it new "
     "streams get RST_STREAM REFUSED_STREAM, above it new connections are closed; 0 = none."},
    {"sbi.max_header_list_bytes", BSF_CFG_UINT, "16384", 1024, 1048576, NULL,
     BSF_CFG_FIELD(sbi_max_header_list_bytes),
     "SETTINGS_MAX_HEADER_LIST_SIZE advertised and enforced on receipt (RFC 9113 §6.5.2 "
     "size): larger header lists get 431, far larger ones a stream reset."},
    {"sbi.late_arrival", BSF_CFG_BOOL, "false", 0, 0, NULL, BSF_CFG_FIELD(sbi_late_arrival),
     "Refuse requests whose origination time plus 3gpp-Sbi-Max-Rsp-Time has passed (504)."},
    {"ops.listen", BSF_CFG_LISTEN, "127.0.0.1:9090", 0, 0, NULL, BSF_CFG_FIELD(ops_listen),
     "HTTP/1.1 address of health, metrics and the active-session count; empty disables."},
    {"store.path", BSF_CFG_STRING, "./data", 0, 1023, NULL, BSF_CFG_FIELD(store_path),
     "Directory of the LMDB store (created when missing)."},
    {"store.map_size_mb", BSF_CFG_UINT, "65536", 16, 1048576, NULL,
     BSF_CFG_FIELD(store_map_size_mb),
     "Upper bound of the store size in MiB (address space; the file grows as needed)."},
    {"store.reserve_percent", BSF_CFG_UINT, "2", 0, 50, NULL,
     BSF_CFG_FIELD(store_reserve_percent),
     "Share of `store.map_size_mb` kept for updates, deregistrations and other sites' events: "
     "while less is free, registrations get 507 INSUFFICIENT_RESOURCES, so a full store can "
     "still shed bindings; 0 keeps none."},
    {"store.max_batch", BSF_CFG_UINT, "512", 1, 65536, NULL, BSF_CFG_FIELD(store_max_batch),
     "Most write commands committed in one transaction (group commit)."},
    {"store.queue_capacity", BSF_CFG_UINT, "65536", 16, 4194304, NULL,
     BSF_CFG_FIELD(store_queue_capacity),
     "Write commands waiting for the store before new ones get 503 NF_CONGESTION."},
    {"store.tombstone_horizon_h", BSF_CFG_UINT, "168", 0, 87600, NULL,
     BSF_CFG_FIELD(store_tombstone_horizon_h),
     "Hours a deregistered binding's tombstone is kept (it stops a late registration or update "
     "of the same id from other sites); must exceed the longest replication delay; 0 keeps "
     "them forever."},
    {"store.warmup", BSF_CFG_BOOL, "true", 0, 0, NULL, BSF_CFG_FIELD(store_warmup),
     "After start-up, populate the memory map in the background (when the store fits in half "
     "of the memory) so that the first lookups do not each pay a page fault."},
    {"discovery.multiple_match", BSF_CFG_ENUM, "most_recent", 0, 0, multiple_match_choices,
     BSF_CFG_FIELD(discovery_multiple_match),
     "Several bindings match a discovery: answer the most recently created (`most_recent`, seed "
     "3.44) or 400 MULTIPLE_BINDING_INFO_FOUND (`reject`)."},
    {"bindings.collision_detection", BSF_CFG_BOOL, "true", 0, 0, NULL,
     BSF_CFG_FIELD(bindings_collision_detection),
     "Seed 3.21: a registration colliding with an existing one (same SUPI, DNN, S-NSSAI and UE "
     "address) replaces it when newer, or gets 403 when older."},
    {"bindings.pcf_cookie", BSF_CFG_BOOL, "false", 0, 0, NULL, BSF_CFG_FIELD(bindings_pcf_cookie),
     "Seed 3.3: keep the `ocnf-service-cookie` header of a registration (at most 1024 bytes) "
     "with the binding, for the Rx gateway to pass to the PCF."},
};

static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    if (bsf_config_split_listen(cfg->sbi_listen, cfg->sbi_host, sizeof cfg->sbi_host,
                                &cfg->sbi_port)) {
        snprintf(err, err_cap, "sbi.listen: '%s' is not host:port", cfg->sbi_listen);
        return -1;
    }
    if (cfg->ops_listen[0] && bsf_config_split_listen(cfg->ops_listen, cfg->ops_host,
                                                      sizeof cfg->ops_host, &cfg->ops_port)) {
        snprintf(err, err_cap, "ops.listen: '%s' is not host:port", cfg->ops_listen);
        return -1;
    }
    if (!cfg->sbi_api_root[0])
        snprintf(cfg->sbi_api_root, sizeof cfg->sbi_api_root, "http://%s", cfg->sbi_listen);
    size_t n = strlen(cfg->sbi_api_root);
    if (n && cfg->sbi_api_root[n - 1] == '/')
        cfg->sbi_api_root[n - 1] = '\0';
    if (strncmp(cfg->sbi_api_root, "http://", 7) != 0 &&
        strncmp(cfg->sbi_api_root, "https://", 8) != 0) {
        snprintf(err, err_cap, "sbi.api_root: '%s' must start with http:// or https://",
                 cfg->sbi_api_root);
        return -1;
    }
    return 0;
}

const bsf_config_section_t bsf_config_core_section = {keys, sizeof keys / sizeof keys[0],
                                                      finish};
