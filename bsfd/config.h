/* bsfd configuration: a YAML file of sections and keys, overridden by --set section.key=value.
 *
 * Every key, its type, default and range is declared once, in the key table of the
 * subsystem that uses it (config_keys_*.c); the tables also produce docs/configuration.md
 * (`bsfd --config-reference`). A list key takes a YAML sequence of strings, or on the command
 * line items separated by ';'. */
#ifndef BSF_BSFD_CONFIG_H
#define BSF_BSFD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gateways/diameter/rx_settings.h"
#include "gateways/feed/feed_settings.h"
#include "replication/replication_settings.h"
#include "core/discovery.h"

typedef struct {
    uint16_t site_id;
    char log_level[16];

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

    char ops_listen[128];
    char ops_host[64];
    uint16_t ops_port;

    char store_path[1024];
    uint64_t store_map_size_mb;
    unsigned store_reserve_percent;
    unsigned store_max_batch;
    unsigned store_queue_capacity;
    bool store_warmup;
    unsigned store_tombstone_horizon_h;

    bsf_multiple_match_t discovery_multiple_match;
    bool bindings_collision_detection;
    bool bindings_pcf_cookie;

    bsf_replication_settings_t replication; /* log backend, Kafka, sites, feed */
    bsf_diameter_settings_t diameter;       /* Rx gateway */
    bsf_feed_settings_t feed;               /* message feed */
} bsf_config_t;

typedef enum {
    BSF_CFG_UINT,
    BSF_CFG_BOOL,
    BSF_CFG_STRING,
    BSF_CFG_LISTEN, /* host:port or [v6]:port; empty allowed */
    BSF_CFG_ENUM,   /* stored as int (index) or as the string, by field size */
    BSF_CFG_LIST,   /* strings; stored joined with '\n' */
} bsf_config_type_t;

typedef struct {
    const char *key;
    bsf_config_type_t type;
    const char *def;
    uint64_t min, max;          /* UINT range; STRING/LIST maximum length in max */
    const char *const *choices; /* ENUM, NULL-terminated */
    size_t offset;
    size_t size;                /* bytes of the field */
    const char *doc;
} bsf_config_key_t;

#define BSF_CFG_FIELD(field) offsetof(bsf_config_t, field), sizeof(((bsf_config_t *)0)->field)

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

/* Sets every key to its default. */
void bsf_config_defaults(bsf_config_t *cfg);
/* Loads a YAML file over the current values. Returns 0 or -1 with a message naming the key. */
int bsf_config_load_file(bsf_config_t *cfg, const char *path, char *err, size_t err_cap);
/* Applies "section.key=value". Returns 0 or -1 with a message. */
int bsf_config_set(bsf_config_t *cfg, const char *assignment, char *err, size_t err_cap);
/* Runs every section's checks. Returns 0 or -1 with a message. */
int bsf_config_finish(bsf_config_t *cfg, char *err, size_t err_cap);
/* Writes the Markdown reference of every key. */
void bsf_config_print_reference(void);

/* host:port or [v6]:port into host and port. Returns 0 or -1. */
int bsf_config_split_listen(const char *v, char *host, size_t host_cap, uint16_t *port);

#endif
