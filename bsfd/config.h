/* bsfd configuration: a YAML file of sections and keys, overridden by --set section.key=value.
 * Every key, its type, default and range is declared in one table (config.c), which also
 * produces the reference in docs/configuration.md (`bsfd --config-reference`). */
#ifndef BSF_BSFD_CONFIG_H
#define BSF_BSFD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

    char ops_listen[128];
    char ops_host[64];
    uint16_t ops_port;

    char store_path[1024];
    uint64_t store_map_size_mb;
    unsigned store_max_batch;
    unsigned store_queue_capacity;

    bsf_multiple_match_t discovery_multiple_match;
    bool bindings_collision_detection;

    char log_backend[16];
} bsf_config_t;

/* Sets every key to its default. */
void bsf_config_defaults(bsf_config_t *cfg);
/* Loads a YAML file over the current values. Returns 0 or -1 with a message naming the key. */
int bsf_config_load_file(bsf_config_t *cfg, const char *path, char *err, size_t err_cap);
/* Applies "section.key=value". Returns 0 or -1 with a message. */
int bsf_config_set(bsf_config_t *cfg, const char *assignment, char *err, size_t err_cap);
/* Cross-key checks and derived values (api_root default). Returns 0 or -1 with a message. */
int bsf_config_finish(bsf_config_t *cfg, char *err, size_t err_cap);
/* Writes the Markdown reference of every key. */
void bsf_config_print_reference(void);

#endif
