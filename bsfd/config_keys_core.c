/* Configuration keys of the site, the SBI gateway, the ops endpoint, the store and the
 * binding rules. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"

static const char *const multiple_match_choices[] = {"most_recent", "reject", NULL};
static const char *const log_level_choices[] = {"error", "warn", "info", "debug", NULL};

static const bsf_config_key_t keys[] = {
    BSF_CFG_UINT_KEY("site.id", site_id, "1", 1, 65535,
        "Site identifier, unique among the sites sharing a log; part of every event and binding "
        "id."),
    BSF_CFG_LIVE(ENUM_TEXT, "log.level", log_level, "info", log_level_choices,
        "Diagnostics level on stderr; changes at run time (management API, SIGHUP)."),
    BSF_CFG_LISTEN_KEY("sbi.listen", sbi_listen, "127.0.0.1:8080",
        "HTTP/2 (h2c) address of Nbsf_Management, `host:port` or `[v6]:port`; numeric addresses; "
        "empty: no cleartext listener (then `sbi.tls.listen` is needed)."),
    BSF_CFG_STRING_KEY("sbi.api_root", sbi_api_root, "", 255,
        "apiRoot used in `Location` headers; empty = `http://<sbi.listen>`, or "
        "`https://<sbi.tls.listen>` when only TLS listens."),
    BSF_CFG_UINT_KEY("sbi.workers", sbi_workers, "0", 0, 64,
        "SBI worker threads (one event loop each); 0 = one per CPU."),
    BSF_CFG_UINT_KEY("sbi.max_body_bytes", sbi_max_body_bytes, "65536", 1024, 16777216,
        "Largest request body; larger ones get 413 without being read."),
    BSF_CFG_UINT_KEY("sbi.max_uri_bytes", sbi_max_uri_bytes, "8192", 256, 65536,
        "Longest request path and query; longer ones get 414."),
    BSF_CFG_UINT_KEY("sbi.max_concurrent_streams", sbi_max_concurrent_streams, "1024", 1, 65536,
        "HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS per connection."),
    BSF_CFG_UINT_KEY("sbi.idle_timeout_s", sbi_idle_timeout_s, "300", 0, 86400,
        "Close connections with no request in progress and no traffic for this long (GOAWAY); 0 "
        "keeps them forever."),
    BSF_CFG_UINT_KEY("sbi.max_connections", sbi_max_connections, "10000", 0, 1000000,
        "Connections accepted per SBI worker; more are closed at once; 0 = no limit."),
    BSF_CFG_UINT_KEY("sbi.preface_timeout_s", sbi_preface_timeout_s, "10", 0, 3600,
        "Close a connection whose client preface and SETTINGS have not arrived this long after "
        "accept (slowloris); 0 = no limit."),
    BSF_CFG_UINT_KEY("sbi.header_timeout_s", sbi_header_timeout_s, "10", 0, 3600,
        "Close a connection (GOAWAY) whose request header block, or any other frame, is not "
        "complete this long after it began; 0 = no limit."),
    BSF_CFG_UINT_KEY("sbi.body_timeout_s", sbi_body_timeout_s, "30", 0, 3600,
        "Reset a stream (RST_STREAM CANCEL) whose body has not ended this long after its "
        "headers; 0 = no limit."),
    BSF_CFG_UINT_KEY("sbi.send_timeout_s", sbi_send_timeout_s, "30", 0, 3600,
        "Close a connection whose peer has not taken an answer (socket or flow-control window) "
        "this long; 0 = no limit."),
    BSF_CFG_UINT_KEY("sbi.worker_memory_mb", sbi_worker_memory_mb, "256", 0, 65536,
        "Memory budget of each SBI worker for its connections and streams: above 7/8 of it new "
        "streams get RST_STREAM REFUSED_STREAM, above it new connections are closed; 0 = none."),
    BSF_CFG_UINT_KEY("sbi.max_header_list_bytes", sbi_max_header_list_bytes, "16384", 1024, 1048576,
        "SETTINGS_MAX_HEADER_LIST_SIZE advertised and enforced on receipt (RFC 9113 §6.5.2 "
        "size): larger header lists get 431, far larger ones a stream reset."),
    BSF_CFG_BOOL_KEY("sbi.late_arrival", sbi_late_arrival, "false",
        "Refuse requests whose origination time plus 3gpp-Sbi-Max-Rsp-Time has passed (504)."),
    BSF_CFG_BOOL_KEY("sbi.oauth2.required", sbi_oauth2_required, "false",
        "Every Nbsf_Management request needs `Authorization: Bearer <JWT>` (RS256 or ES256, TS "
        "33.501 §13.4.1): exp/nbf/iat (30 s clock skew), aud (`nf.instance_id` or `BSF`), scope "
        "`nbsf-management`. No token: 401; a bad one: 401 `invalid_token`; no scope: 403 "
        "`insufficient_scope`."),
    BSF_CFG_STRING_KEY("sbi.oauth2.keys", sbi_oauth2_keys, "", 1023,
        "PEM file of the NRF's public keys (`PUBLIC KEY` or `CERTIFICATE` blocks; RSA of 2048 "
        "bits or more, EC P-256) that sign access tokens; read at start."),
    BSF_CFG_BOOL_KEY("sbi.oauth2.validate_signature", sbi_oauth2_validate_signature, "true",
        "Seed 3.31: false skips the signature check (e.g. a mesh validates tokens) while every "
        "claim is still checked; `sbi.oauth2.keys` may then be empty."),
    BSF_CFG_STRING_KEY("sbi.oauth2.producer_nf_set_id", sbi_oauth2_producer_nf_set_id, "", 127,
        "When set, a token's `producerNfSetId` claim, if present, must equal it (invalid_token "
        "otherwise); empty: not checked."),
    BSF_CFG_STRING_KEY("sbi.oauth2.producer_plmn_id", sbi_oauth2_producer_plmn_id, "", 7,
        "`MCC-MNC` (e.g. `001-01`): a token's `producerPlmnId` claim, if present, must name it; "
        "empty: not checked."),
    BSF_CFG_LISTEN_KEY("ops.listen", ops_listen, "127.0.0.1:9090",
        "HTTP/1.1 address of health, metrics and the active-session count; empty disables."),
    BSF_CFG_LISTEN_KEY("ops.admin_listen", ops_admin_listen, "127.0.0.1:9091",
        "HTTP/1.1 address of the management routes that change state (repaving triggers and "
        "configuration). On a loopback address they answer without credentials unless some are "
        "configured; on any other address `ops.admin_tls.*` (mTLS) or `ops.admin_token_file` "
        "is required, else bsfd does not start. Empty disables."),
    BSF_CFG_STRING_KEY("ops.admin_tls.cert", ops_admin_tls_cert, "", 1023,
        "PEM certificate (chain) of the admin listener; with `ops.admin_tls.key` it serves "
        "HTTPS."),
    BSF_CFG_STRING_KEY("ops.admin_tls.key", ops_admin_tls_key, "", 1023,
        "PEM private key of `ops.admin_tls.cert`."),
    BSF_CFG_STRING_KEY("ops.admin_tls.ca", ops_admin_tls_ca, "", 1023,
        "PEM CA bundle of admin clients: when set, every admin request needs a client "
        "certificate that verifies against it (mTLS); needs `ops.admin_tls.cert` and `.key`."),
    BSF_CFG_STRING_KEY("ops.admin_token_file", ops_admin_token_file, "", 1023,
        "File holding the admin bearer token (surrounding whitespace ignored, 16 bytes at "
        "least): when set, every admin request needs `Authorization: Bearer <token>` (compared "
        "in constant time)."),
    BSF_CFG_STRING_KEY("store.path", store_path, "./data", 1023,
        "Directory of the LMDB store (created when missing)."),
    BSF_CFG_UINT_KEY("store.map_size_mb", store_map_size_mb, "65536", 16, 1048576,
        "Upper bound of the store size in MiB (address space; the file grows as needed)."),
    BSF_CFG_UINT_KEY("store.reserve_percent", store_reserve_percent, "2", 0, 50,
        "Share of `store.map_size_mb` kept for updates, deregistrations and other sites' events: "
        "while less is free, registrations get 507 INSUFFICIENT_RESOURCES, so a full store can "
        "still shed bindings; 0 keeps none."),
    BSF_CFG_UINT_KEY("store.max_batch", store_max_batch, "512", 1, 65536,
        "Most write commands committed in one transaction (group commit)."),
    BSF_CFG_UINT_KEY("store.queue_capacity", store_queue_capacity, "65536", 16, 4194304,
        "Write commands waiting for the store before new ones get 503 NF_CONGESTION."),
    BSF_CFG_DURATION_KEY("store.tombstone_horizon", store_tombstone_horizon_ms, "7d", "0", "3650d",
        "How long a deregistered binding's tombstone is kept (it stops a late registration or "
        "update of the same id from other sites); must exceed the longest replication delay; 0 "
        "keeps them forever."),
    BSF_CFG_UINT_KEY("store.tombstone_horizon_h", store_tombstone_horizon_h, "168", 0, 87600,
        "Alias of `store.tombstone_horizon` in hours (the older name); setting both is an "
        "error."),
    BSF_CFG_DURATION_KEY("log.retention", log_retention_ms, "1d", "0", "3650d",
        "Events older than this (by their HLC time) leave the local log, in bounded batches "
        "between write transactions (into `log.archive_dir` first when set); with `log.backend = "
        "kafka` only once shipped. 0 keeps every event forever (the store then grows without "
        "bound). Sizing: docs/operations.md (Capacity)."),
    BSF_CFG_STRING_KEY("log.archive_dir", log_archive_dir, "", 1023,
        "Directory of the log's archive: events leaving the log are first written there (zstd "
        "segment files, fsynced) for `bsfctl history`, `export` and `rebuild --archive`; empty: "
        "they are dropped."),
    BSF_CFG_BOOL_KEY("store.warmup", store_warmup, "true",
        "After start-up, read in the background what discovery reads (the bindings and address "
        "indexes, when they fit in 3/4 of the memory: the RAM or the cgroup's limit), then "
        "populate the whole memory map (when the store fits in half of it), so that the first "
        "lookups do not each pay a page fault."),
    BSF_CFG_ENUM_KEY("discovery.multiple_match", discovery_multiple_match, "most_recent",
        multiple_match_choices,
        "Several bindings match a discovery: answer the most recently created (`most_recent`, "
        "seed 3.44) or 400 MULTIPLE_BINDING_INFO_FOUND (`reject`)."),
    BSF_CFG_BOOL_KEY("bindings.collision_detection", bindings_collision_detection, "true",
        "Seed 3.21: a registration colliding with an existing one (same SUPI, DNN, S-NSSAI and "
        "UE address) replaces it when newer, or gets 403 when older."),
    BSF_CFG_BOOL_KEY("bindings.pcf_cookie", bindings_pcf_cookie, "false",
        "Seed 3.3: keep the `ocnf-service-cookie` header of a registration (at most 1024 bytes) "
        "with the binding, for the Rx gateway to pass to the PCF."),
    BSF_CFG_UINT_KEY("bindings.ipv6_min_prefix_len", bindings_ipv6_min_prefix_len, "32", 1, 128,
        "Shortest IPv6 prefix a registration or update may carry in `ipv6Prefix`, "
        "`addIpv6Prefixes` and `ipv6FrameRouteList` (framed routes too: discovery indexes them "
        "alike); shorter ones get 400 naming the member. /0 is never accepted."),
};

static bool loopback_host(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    return inet_pton(AF_INET6, host, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

/* The admin listener: TLS files in pairs, and credentials off loopback (issue 13 §5). */
static int finish_admin(bsf_config_t *cfg, char *err, size_t err_cap)
{
    if (!cfg->ops_admin_listen[0])
        return 0;
    if (bsf_config_split_listen(cfg->ops_admin_listen, cfg->ops_admin_host,
                                sizeof cfg->ops_admin_host, &cfg->ops_admin_port)) {
        snprintf(err, err_cap, "ops.admin_listen: '%s' is not host:port", cfg->ops_admin_listen);
        return -1;
    }
    if (!cfg->ops_admin_tls_cert[0] != !cfg->ops_admin_tls_key[0]) {
        snprintf(err, err_cap, "ops.admin_tls.%s: required with ops.admin_tls.%s",
                 cfg->ops_admin_tls_cert[0] ? "key" : "cert",
                 cfg->ops_admin_tls_cert[0] ? "cert" : "key");
        return -1;
    }
    if (cfg->ops_admin_tls_ca[0] && !cfg->ops_admin_tls_cert[0]) {
        snprintf(err, err_cap, "ops.admin_tls.ca: mTLS needs ops.admin_tls.cert and "
                               "ops.admin_tls.key");
        return -1;
    }
    if (!loopback_host(cfg->ops_admin_host) && !cfg->ops_admin_tls_ca[0] &&
        !cfg->ops_admin_token_file[0]) {
        snprintf(err, err_cap, "ops.admin_listen: %s is not a loopback address: set "
                               "ops.admin_tls.cert, ops.admin_tls.key and ops.admin_tls.ca "
                               "(mTLS) or ops.admin_token_file",
                 cfg->ops_admin_listen);
        return -1;
    }
    return 0;
}

static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    if (!cfg->sbi_listen[0] && !cfg->sbi_tls_listen[0]) {
        snprintf(err, err_cap, "sbi.listen and sbi.tls.listen are both empty: nothing would "
                               "serve Nbsf_Management");
        return -1;
    }
    if (cfg->sbi_listen[0] && bsf_config_split_listen(cfg->sbi_listen, cfg->sbi_host,
                                                      sizeof cfg->sbi_host, &cfg->sbi_port)) {
        snprintf(err, err_cap, "sbi.listen: '%s' is not host:port", cfg->sbi_listen);
        return -1;
    }
    if (cfg->ops_listen[0] && bsf_config_split_listen(cfg->ops_listen, cfg->ops_host,
                                                      sizeof cfg->ops_host, &cfg->ops_port)) {
        snprintf(err, err_cap, "ops.listen: '%s' is not host:port", cfg->ops_listen);
        return -1;
    }
    if (finish_admin(cfg, err, err_cap))
        return -1;
    if (bsf_config_is_set(cfg, "store.tombstone_horizon") &&
        bsf_config_is_set(cfg, "store.tombstone_horizon_h")) {
        snprintf(err, err_cap, "store.tombstone_horizon and store.tombstone_horizon_h (its alias "
                               "in hours) are both set: keep one");
        return -1;
    }
    if (bsf_config_is_set(cfg, "store.tombstone_horizon_h"))
        cfg->store_tombstone_horizon_ms = (uint64_t)cfg->store_tombstone_horizon_h * 3600000u;
    if (!cfg->sbi_api_root[0] && cfg->sbi_listen[0])
        snprintf(cfg->sbi_api_root, sizeof cfg->sbi_api_root, "http://%s", cfg->sbi_listen);
    else if (!cfg->sbi_api_root[0]) /* only TLS listens */
        snprintf(cfg->sbi_api_root, sizeof cfg->sbi_api_root, "https://%s", cfg->sbi_tls_listen);
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
