/* bsfd configuration: a YAML file of sections and keys, overridden by --set section.key=value.
 *
 * Every key, its type, default and range is declared once, in the key table of the
 * subsystem that uses it (config_keys_*.c, one BSF_CFG_<TYPE>_KEY entry each: the macros check
 * the field's C type at compile time); the tables also produce docs/configuration.md
 * (`bsfd --config-reference`). A list key takes a YAML sequence of strings, or as one text
 * (--set, a YAML scalar) items separated by ',' — or by ';' when the text holds one, so that an
 * item can contain commas (librdkafka properties: "debug=broker,topic;"). Stored joined with
 * '\n'. */
#ifndef BSF_BSFD_CONFIG_H
#define BSF_BSFD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit/audit_settings.h"
#include "gateways/sbi/sbi_egress_settings.h"
#include "gateways/diameter/rx_settings.h"
#include "feed/feed_settings.h"
#include "gateways/nrf/nrf_settings.h"
#include "gateways/sbi/user_agent_check.h"
#include "gateways/sbi/xfcc.h"
#include "replication/replication_settings.h"
#include "core/discovery.h"
#include "gateways/admission/admission_settings.h"

#define BSF_CFG_MAX_EXPLICIT 512

typedef struct {
    uint16_t site_id;
    char log_level[16];
    char log_format[8];    /* log.format: text or json */
    char log_modules[512]; /* log.modules: module=level items joined with '\n' */

    char sbi_listen[128]; /* host:port as configured */
    char sbi_host[64];
    uint16_t sbi_port;
    char sbi_api_root[256];
    unsigned sbi_workers;
    uint64_t sbi_max_body_bytes;
    uint64_t sbi_max_uri_bytes;
    unsigned sbi_max_concurrent_streams;
    bool sbi_late_arrival;
    unsigned sbi_idle_timeout_s;
    unsigned sbi_max_connections;
    unsigned sbi_preface_timeout_s, sbi_header_timeout_s, sbi_body_timeout_s, sbi_send_timeout_s;
    unsigned sbi_worker_memory_mb;
    unsigned sbi_max_header_list_bytes;
    bool sbi_oauth2_required;
    char sbi_oauth2_keys[1024];
    bool sbi_oauth2_validate_signature;
    char sbi_oauth2_producer_nf_set_id[128];
    char sbi_oauth2_producer_plmn_id[16];
    /* TLS on the SBI and certificate reload (config_keys_tls.c, issue 13 §1, §3) */
    char sbi_tls_listen[128];
    char sbi_tls_host[64];
    uint16_t sbi_tls_port;
    char sbi_tls_cert[1024], sbi_tls_key[1024], sbi_tls_ca[1024];
    int sbi_tls_client_cert; /* bsf_sbi_tls_client_cert_t */
    char sbi_tls_ciphers[1024], sbi_tls_ciphersuites[256], sbi_tls_groups[256];
    unsigned tls_reload_interval_s;
    unsigned tls_expiry_warning_days;

    char ops_listen[128];
    char ops_host[64];
    uint16_t ops_port;
    char ops_admin_listen[128];
    char ops_admin_host[64];
    uint16_t ops_admin_port;
    char ops_admin_tls_cert[1024];
    char ops_admin_tls_key[1024];
    char ops_admin_tls_ca[1024];
    char ops_admin_token_file[1024];

    char store_path[1024];
    uint64_t store_map_size_mb;
    unsigned store_reserve_percent;
    unsigned store_max_batch;
    unsigned store_queue_capacity;
    unsigned store_commit_window_us;    /* store.commit_window_us (config_keys_write_path.c) */
    unsigned store_commit_window_batch; /* store.commit_window_batch */
    bool store_warmup;
    uint64_t store_tombstone_horizon_ms; /* store.tombstone_horizon */
    unsigned store_tombstone_horizon_h;  /* its alias in hours */

    uint64_t log_retention_ms; /* 0: events stay in the log */
    char log_archive_dir[1024];

    bsf_multiple_match_t discovery_multiple_match;
    bool bindings_collision_detection;
    bool bindings_pcf_cookie;
    unsigned bindings_ipv6_min_prefix_len;

    bsf_replication_settings_t replication; /* log backend, Kafka, sites, feed */
    bsf_diameter_settings_t diameter;       /* Rx gateway */
    bsf_feed_settings_t feed;               /* message feed */
    bsf_nrf_settings_t nrf;                 /* NRF client and NF profile (nrf.*, nf.*) */
    bsf_xfcc_settings_t sbi_xfcc;            /* sbi.xfcc.* (config_keys_hygiene.c) */
    bsf_user_agent_settings_t sbi_user_agent; /* sbi.user_agent.* */
    char sbi_listen_also[256];               /* more SBI listeners (dual stack), '\n'-joined */
    char sbi_also_host[3][64];               /* ... split */
    uint16_t sbi_also_port[3];
    unsigned sbi_n_also;

    /* NF scoring (nf_scoring.*, seed 3.41; gateways/ops/nf_score.h) */
    bool nf_scoring_enabled;
    uint64_t nf_scoring_interval_ms;
    unsigned nf_scoring_max_tps, nf_scoring_tps_score, nf_scoring_service_score,
        nf_scoring_connection_score, nf_scoring_expected_connections,
        nf_scoring_replication_score, nf_scoring_locality_preference,
        nf_scoring_critical_alert_score, nf_scoring_major_alert_score,
        nf_scoring_minor_alert_score;

    /* Controlled shutdown and termination (config_keys_ops.c, docs/operations.md). */
    unsigned cs_sbi_status;        /* controlled_shutdown.sbi_status */
    char cs_sbi_cause[64];         /* controlled_shutdown.sbi_cause */
    unsigned cs_diameter_result;   /* controlled_shutdown.diameter_result_code */
    uint64_t shutdown_grace_ms;    /* shutdown.grace_period */
    bsf_admission_settings_t admission;     /* admission.*, congestion.*, overload.*, ... */
    bsf_audit_settings_t audit;             /* binding audit, deletion log (audit.*) */
    bsf_sbi_egress_settings_t egress;       /* alternate routing, NF discovery (config_keys_egress.c) */

    /* Subscriptions to binding events and their notifications (config_keys_subscriptions.c) */
    uint64_t sub_max_expiry_ms;          /* subscriptions.max_expiry */
    unsigned notify_queue_per_subscriber; /* notify.queue_per_subscriber */
    unsigned notify_retries;             /* notify.retries */
    unsigned notify_timeout_ms;          /* notify.timeout_ms */
    unsigned notify_backoff_ms;          /* notify.backoff_ms */
    unsigned notify_backoff_max_ms;      /* notify.backoff_max_ms */
    unsigned notify_priority;            /* notify.priority */
    unsigned notify_sub_cache_mb;        /* notify.sub_cache_mb */
    unsigned notify_max_subscribers;     /* notify.max_subscribers */
    uint32_t events_write_version;       /* events.write_version (config_keys_upgrade.c) */
    unsigned store_migration_batch;      /* store.migration_batch (config_keys_upgrade.c) */
    unsigned notify_handoff_max;         /* notify.handoff_max */

    /* Keys set by the file or --set (not by the defaults), for aliases' checks. */
    const void *explicit_keys[BSF_CFG_MAX_EXPLICIT];
    unsigned n_explicit;
} bsf_config_t;

typedef enum {
    BSF_CFG_UINT,
    BSF_CFG_BOOL,
    BSF_CFG_STRING,
    BSF_CFG_LISTEN,    /* host:port or [v6]:port; empty allowed */
    BSF_CFG_ENUM,      /* stored as int: the index of the value in `choices` */
    BSF_CFG_LIST,      /* strings; stored joined with '\n' */
    BSF_CFG_ENUM_TEXT, /* an enum stored as the value's text (char array) */
    BSF_CFG_DURATION,  /* `30s`, `5m`, `12h`, `7d`, `250ms` (common/duration_text.h); stored as
                          uint64_t milliseconds; min/max in milliseconds */
} bsf_config_type_t;

/* One key. Write entries with the BSF_CFG_*_KEY macros below, never by hand: they take the
 * field's offset and size from its declaration and refuse to compile when the field's type
 * does not fit the key's type, so the writes by size in config.c are always right. */
typedef struct {
    const char *key;
    bsf_config_type_t type;
    const char *def;
    uint64_t min, max;          /* UINT range; STRING/LIST maximum length in max */
    const char *const *choices; /* ENUM, ENUM_TEXT: NULL-terminated */
    const char *min_text, *max_text; /* DURATION: the range as durations */
    size_t offset;
    size_t size;                /* bytes of the field: 2, 4 or 8 for UINT */
    const char *doc;
    bool runtime;               /* may change while bsfd runs (BSF_CFG_LIVE) */
} bsf_config_key_t;

/* The field of bsf_config_t, for type checks only (never evaluated). */
#define BSF_CFG_F(field) (((bsf_config_t *)0)->field)
/* 0, or a compile error with `msg` when `cond` is false; usable inside an initializer. */
#define BSF_CFG_ASSERT(cond, msg) (0 * sizeof(struct { _Static_assert(cond, msg); int ok; }))
/* Width in bytes of an unsigned integer field (2, 4 or 8); 0 for any other type. */
#define BSF_CFG_UINT_WIDTH(field)                                                              \
    _Generic(BSF_CFG_F(field), uint16_t: 2, uint32_t: 4, uint64_t: 8, default: 0)
#define BSF_CFG_UINT_LIMIT(field)                                                              \
    (BSF_CFG_UINT_WIDTH(field) == 2   ? (uint64_t)UINT16_MAX                                   \
     : BSF_CFG_UINT_WIDTH(field) == 4 ? (uint64_t)UINT32_MAX                                   \
                                      : UINT64_MAX)
/* True for a char array field (a pointer or another array type does not match). */
#define BSF_CFG_IS_CHARS(field)                                                                \
    _Generic(&BSF_CFG_F(field), char(*)[sizeof BSF_CFG_F(field)]: 1, default: 0)
#define BSF_CFG_AT(field, cond, msg) (offsetof(bsf_config_t, field) + BSF_CFG_ASSERT(cond, msg))

/* bool field; def "true" or "false". */
#define BSF_CFG_BOOL_FIELDS(k, field, d, doc_) \
     .key = (k), .type = BSF_CFG_BOOL, .def = (d),                                             \
     .offset = BSF_CFG_AT(field, _Generic(BSF_CFG_F(field), bool: 1, default: 0),              \
                          "BSF_CFG_BOOL_KEY needs a bool field"),                              \
     .size = sizeof(bool), .doc = (doc_)
#define BSF_CFG_BOOL_KEY(k, field, d, doc_) {BSF_CFG_BOOL_FIELDS(k, field, d, doc_)}
/* uint16_t, uint32_t (unsigned) or uint64_t field; lo..hi must fit the field. */
#define BSF_CFG_UINT_FIELDS(k, field, d, lo, hi, doc_) \
     .key = (k), .type = BSF_CFG_UINT, .def = (d), .min = (lo), .max = (hi),                   \
     .offset = BSF_CFG_AT(field,                                                               \
                          BSF_CFG_UINT_WIDTH(field) != 0 &&                                    \
                              (uint64_t)(hi) - (uint64_t)(lo) <= (uint64_t)(hi) && /* lo<=hi */ \
                              (uint64_t)(hi) <= BSF_CFG_UINT_LIMIT(field),                     \
                          "BSF_CFG_UINT_KEY needs a uint16/32/64_t field that holds lo..hi"),  \
     .size = BSF_CFG_UINT_WIDTH(field), .doc = (doc_)
#define BSF_CFG_UINT_KEY(k, field, d, lo, hi, doc_) {BSF_CFG_UINT_FIELDS(k, field, d, lo, hi, doc_)}
/* uint64_t field of milliseconds; def, lo and hi are texts of durations ("7d", "0", "3650d"):
 * one that does not parse makes bsf_config_defaults abort (every test that loads a
 * configuration would fail). */
#define BSF_CFG_DURATION_FIELDS(k, field, d, lo, hi, doc_) \
     .key = (k), .type = BSF_CFG_DURATION, .def = (d), .min_text = (lo), .max_text = (hi),    \
     .offset = BSF_CFG_AT(field, _Generic(BSF_CFG_F(field), uint64_t: 1, default: 0),          \
                          "BSF_CFG_DURATION_KEY needs a uint64_t field (milliseconds)"),       \
     .size = sizeof(uint64_t), .doc = (doc_)
#define BSF_CFG_DURATION_KEY(k, field, d, lo, hi, doc_) {BSF_CFG_DURATION_FIELDS(k, field, d, lo, hi, doc_)}
/* A char array field of more than `maxlen` bytes (0: any length), for the types held as text;
 * `msg` is the compile-time error when the field is not one. */
#define BSF_CFG_CHARS_FIELDS(k, type_, field, d, maxlen, choices_, doc_, msg)                \
     .key = (k), .type = (type_), .def = (d), .max = (maxlen), .choices = (choices_),          \
     .offset = BSF_CFG_AT(field, BSF_CFG_IS_CHARS(field) && (maxlen) < sizeof BSF_CFG_F(field), \
                          msg),                                                                \
     .size = sizeof BSF_CFG_F(field), .doc = (doc_)
/* char array field of more than `maxlen` bytes. */
#define BSF_CFG_STRING_FIELDS(k, field, d, maxlen, doc_) \
     BSF_CFG_CHARS_FIELDS(k, BSF_CFG_STRING, field, d, maxlen, NULL, doc_,               \
                          "BSF_CFG_STRING_KEY needs a char array longer than maxlen")
#define BSF_CFG_STRING_KEY(k, field, d, maxlen, doc_) {BSF_CFG_STRING_FIELDS(k, field, d, maxlen, doc_)}
/* char array field holding "host:port" (or empty). */
#define BSF_CFG_LISTEN_FIELDS(k, field, d, doc_) \
     BSF_CFG_CHARS_FIELDS(k, BSF_CFG_LISTEN, field, d, 0, NULL, doc_,                     \
                          "BSF_CFG_LISTEN_KEY needs a char array field")
#define BSF_CFG_LISTEN_KEY(k, field, d, doc_) {BSF_CFG_LISTEN_FIELDS(k, field, d, doc_)}
/* int (or enum) field set to the index of the value in `choices`. */
#define BSF_CFG_ENUM_FIELDS(k, field, d, choices_, doc_) \
     .key = (k), .type = BSF_CFG_ENUM, .def = (d), .choices = (choices_),                      \
     .offset = BSF_CFG_AT(field,                                                               \
                          _Generic(BSF_CFG_F(field), int: 1, unsigned: 1, default: 0) &&       \
                              sizeof BSF_CFG_F(field) == sizeof(int),                          \
                          "BSF_CFG_ENUM_KEY needs an int or enum field"),                      \
     .size = sizeof(int), .doc = (doc_)
#define BSF_CFG_ENUM_KEY(k, field, d, choices_, doc_) {BSF_CFG_ENUM_FIELDS(k, field, d, choices_, doc_)}
/* char array field set to the value's text, one of `choices`. */
#define BSF_CFG_ENUM_TEXT_FIELDS(k, field, d, choices_, doc_) \
     BSF_CFG_CHARS_FIELDS(k, BSF_CFG_ENUM_TEXT, field, d, 0, choices_, doc_,          \
                          "BSF_CFG_ENUM_TEXT_KEY needs a char array field")
#define BSF_CFG_ENUM_TEXT_KEY(k, field, d, choices_, doc_) {BSF_CFG_ENUM_TEXT_FIELDS(k, field, d, choices_, doc_)}
/* char array field of more than `maxlen` bytes; items joined with '\n'. */
#define BSF_CFG_LIST_FIELDS(k, field, d, maxlen, doc_) \
     BSF_CFG_CHARS_FIELDS(k, BSF_CFG_LIST, field, d, maxlen, NULL, doc_,                 \
                          "BSF_CFG_LIST_KEY needs a char array longer than maxlen")
#define BSF_CFG_LIST_KEY(k, field, d, maxlen, doc_) {BSF_CFG_LIST_FIELDS(k, field, d, maxlen, doc_)}

/* A key that may change while bsfd runs (management API, SIGHUP: bsfd/config_runtime.c
 * applies it): BSF_CFG_LIVE(UINT, "rx.x", field, ...) takes the arguments of
 * BSF_CFG_UINT_KEY, and likewise for every other type. */
#define BSF_CFG_LIVE(kind, ...) {BSF_CFG_##kind##_FIELDS(__VA_ARGS__), .runtime = true}

typedef struct {
    const bsf_config_key_t *keys;
    size_t n_keys;
    /* Cross-key checks and derived values of the section, after every key is set. */
    int (*finish)(bsf_config_t *cfg, char *err, size_t err_cap);
} bsf_config_section_t;

extern const bsf_config_section_t bsf_config_core_section;
extern const bsf_config_section_t bsf_config_replication_section;
extern const bsf_config_section_t bsf_config_diameter_section;
extern const bsf_config_section_t bsf_config_feed_section;
extern const bsf_config_section_t bsf_config_nrf_section;
extern const bsf_config_section_t bsf_config_scoring_section;
extern const bsf_config_section_t bsf_config_egress_section;
extern const bsf_config_section_t bsf_config_hygiene_section;
extern const bsf_config_section_t bsf_config_write_path_section;
extern const bsf_config_section_t bsf_config_ops_section;
extern const bsf_config_section_t bsf_config_observe_section;
extern const bsf_config_section_t bsf_config_admission_section;
extern const bsf_config_section_t bsf_config_audit_section;
extern const bsf_config_section_t bsf_config_subscriptions_section;
extern const bsf_config_section_t bsf_config_tls_section;
extern const bsf_config_section_t bsf_config_upgrade_section;

/* Sets every key to its default. */
void bsf_config_defaults(bsf_config_t *cfg);
/* Loads a YAML file over the current values. Returns 0 or -1 with a message naming the key. */
int bsf_config_load_file(bsf_config_t *cfg, const char *path, char *err, size_t err_cap);
/* The same from `len` bytes of YAML text (not owned, need not end in NUL); `name` stands for
 * the file in messages. Returns 0 or -1 with a message. */
int bsf_config_load_text(bsf_config_t *cfg, const char *name, const char *text, size_t len,
                         char *err, size_t err_cap);
/* Applies "section.key=value". Returns 0 or -1 with a message. */
int bsf_config_set(bsf_config_t *cfg, const char *assignment, char *err, size_t err_cap);
/* True when `key` was set by a file or --set (not only by the defaults). */
bool bsf_config_is_set(const bsf_config_t *cfg, const char *key);
/* Runs every section's checks. Returns 0 or -1 with a message. */
int bsf_config_finish(bsf_config_t *cfg, char *err, size_t err_cap);
/* Writes the Markdown reference of every key. */
void bsf_config_print_reference(void);

/* Every key of every table, in table order: the i-th one, or NULL past the last. */
const bsf_config_key_t *bsf_config_key_at(size_t i);
/* The key named `name`, or NULL. */
const bsf_config_key_t *bsf_config_find_key(const char *name);

/* host:port or [v6]:port into host and port. Returns 0 or -1. */
int bsf_config_split_listen(const char *v, char *host, size_t host_cap, uint16_t *port);

#endif
