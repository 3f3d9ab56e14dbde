#include "bsfd/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/diag.h"

typedef enum { T_UINT, T_BOOL, T_STRING, T_LISTEN, T_ENUM } key_type_t;

typedef struct {
    const char *key;
    key_type_t type;
    const char *def;
    uint64_t min, max;          /* T_UINT range; T_STRING maximum length in max */
    const char *const *choices; /* T_ENUM */
    size_t offset;
    size_t size;                /* bytes of the field */
    const char *doc;
} key_def_t;

static const char *const multiple_match_choices[] = {"most_recent", "reject", NULL};
static const char *const log_level_choices[] = {"error", "warn", "info", "debug", NULL};
static const char *const log_backend_choices[] = {"embedded", NULL};

#define F(field) offsetof(bsf_config_t, field), sizeof(((bsf_config_t *)0)->field)

static const key_def_t keys[] = {
    {"site.id", T_UINT, "1", 1, 65535, NULL, F(site_id),
     "Site identifier, unique among the sites sharing a log; part of every event and binding id."},
    {"log.level", T_ENUM, "info", 0, 0, log_level_choices, F(log_level),
     "Diagnostics level on stderr."},
    {"log.backend", T_ENUM, "embedded", 0, 0, log_backend_choices, F(log_backend),
     "Where events are logged: `embedded` (in the store's LMDB environment)."},
    {"sbi.listen", T_LISTEN, "127.0.0.1:8080", 0, 0, NULL, F(sbi_listen),
     "HTTP/2 (h2c) address of Nbsf_Management, `host:port` or `[v6]:port`; numeric addresses."},
    {"sbi.api_root", T_STRING, "", 0, 255, NULL, F(sbi_api_root),
     "apiRoot used in `Location` headers; empty = `http://<sbi.listen>`."},
    {"sbi.workers", T_UINT, "0", 0, 64, NULL, F(sbi_workers),
     "SBI worker threads (one event loop each); 0 = one per CPU."},
    {"sbi.max_body_bytes", T_UINT, "65536", 1024, 16777216, NULL, F(sbi_max_body_bytes),
     "Largest request body; larger ones get 413 without being read."},
    {"sbi.max_uri_bytes", T_UINT, "8192", 256, 65536, NULL, F(sbi_max_uri_bytes),
     "Longest request path and query; longer ones get 414."},
    {"sbi.max_concurrent_streams", T_UINT, "1024", 1, 65536, NULL,
     F(sbi_max_concurrent_streams), "HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS per connection."},
    {"sbi.late_arrival", T_BOOL, "false", 0, 0, NULL, F(sbi_late_arrival),
     "Refuse requests whose origination time plus 3gpp-Sbi-Max-Rsp-Time has passed (504)."},
    {"ops.listen", T_LISTEN, "127.0.0.1:9090", 0, 0, NULL, F(ops_listen),
     "HTTP/1.1 address of health, metrics and the active-session count; empty disables."},
    {"store.path", T_STRING, "./data", 0, 1023, NULL, F(store_path),
     "Directory of the LMDB store (created when missing)."},
    {"store.map_size_mb", T_UINT, "65536", 16, 1048576, NULL, F(store_map_size_mb),
     "Upper bound of the store size in MiB (address space; the file grows as needed)."},
    {"store.max_batch", T_UINT, "512", 1, 65536, NULL, F(store_max_batch),
     "Most write commands committed in one transaction (group commit)."},
    {"store.queue_capacity", T_UINT, "65536", 16, 4194304, NULL, F(store_queue_capacity),
     "Write commands waiting for the store before new ones get 503 NF_CONGESTION."},
    {"discovery.multiple_match", T_ENUM, "most_recent", 0, 0, multiple_match_choices,
     F(discovery_multiple_match),
     "Several bindings match a discovery: answer the most recently created (`most_recent`, seed "
     "3.44) or 400 MULTIPLE_BINDING_INFO_FOUND (`reject`)."},
    {"bindings.collision_detection", T_BOOL, "true", 0, 0, NULL,
     F(bindings_collision_detection),
     "Seed 3.21: a registration colliding with an existing one (same SUPI, DNN, S-NSSAI and UE "
     "address) replaces it when newer, or gets 403 when older."},
};

#define N_KEYS (sizeof keys / sizeof keys[0])

static const key_def_t *find_key(const char *name)
{
    for (size_t i = 0; i < N_KEYS; i++)
        if (strcmp(keys[i].key, name) == 0)
            return &keys[i];
    return NULL;
}

static int set_uint_field(void *field, size_t size, uint64_t v)
{
    switch (size) {
    case 2:
        *(uint16_t *)field = (uint16_t)v;
        return 0;
    case 4:
        *(uint32_t *)field = (uint32_t)v;
        return 0;
    case 8:
        *(uint64_t *)field = v;
        return 0;
    default:
        return -1;
    }
}

/* host:port or [v6]:port into host and port. */
static int split_listen(const char *v, char *host, size_t host_cap, uint16_t *port)
{
    const char *colon;
    size_t hlen;
    if (v[0] == '[') {
        const char *close = strchr(v, ']');
        if (!close || close[1] != ':')
            return -1;
        hlen = (size_t)(close - v - 1);
        v++;
        colon = close + 1;
    } else {
        colon = strrchr(v, ':');
        if (!colon)
            return -1;
        hlen = (size_t)(colon - v);
    }
    if (hlen == 0 || hlen >= host_cap)
        return -1;
    char *end;
    errno = 0;
    unsigned long p = strtoul(colon + 1, &end, 10);
    if (errno || *end || end == colon + 1 || p > 65535)
        return -1;
    memcpy(host, v, hlen);
    host[hlen] = '\0';
    *port = (uint16_t)p;
    return 0;
}

static int apply(bsf_config_t *cfg, const key_def_t *k, const char *value, char *err,
                 size_t err_cap)
{
    void *field = (char *)cfg + k->offset;
    switch (k->type) {
    case T_UINT: {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(value, &end, 10);
        if (errno || *end || end == value || value[0] == '-' || v < k->min || v > k->max) {
            snprintf(err, err_cap, "%s: '%s' is not an integer in %llu..%llu", k->key, value,
                     (unsigned long long)k->min, (unsigned long long)k->max);
            return -1;
        }
        return set_uint_field(field, k->size, v);
    }
    case T_BOOL:
        if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0) {
            *(bool *)field = value[0] == 't';
            return 0;
        }
        snprintf(err, err_cap, "%s: '%s' is not true or false", k->key, value);
        return -1;
    case T_ENUM:
        for (int i = 0; k->choices[i]; i++)
            if (strcmp(value, k->choices[i]) == 0) {
                if (k->size == sizeof(int))
                    *(int *)field = i;
                else
                    snprintf(field, k->size, "%s", value);
                return 0;
            }
        snprintf(err, err_cap, "%s: '%s' is not one of the allowed values", k->key, value);
        return -1;
    case T_LISTEN: {
        char host[64];
        uint16_t port;
        if (value[0] && split_listen(value, host, sizeof host, &port)) {
            snprintf(err, err_cap, "%s: '%s' is not host:port", k->key, value);
            return -1;
        }
        if (strlen(value) >= k->size) {
            snprintf(err, err_cap, "%s: too long", k->key);
            return -1;
        }
        snprintf(field, k->size, "%s", value);
        return 0;
    }
    default:
        if (strlen(value) > k->max) {
            snprintf(err, err_cap, "%s: longer than %llu characters", k->key,
                     (unsigned long long)k->max);
            return -1;
        }
        snprintf(field, k->size, "%s", value);
        return 0;
    }
}

static int set_key(bsf_config_t *cfg, const char *name, const char *value, char *err,
                   size_t err_cap)
{
    const key_def_t *k = find_key(name);
    if (!k) {
        snprintf(err, err_cap, "%s: unknown configuration key", name);
        return -1;
    }
    return apply(cfg, k, value, err, err_cap);
}

void bsf_config_defaults(bsf_config_t *cfg)
{
    char err[256];
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < N_KEYS; i++)
        if (apply(cfg, &keys[i], keys[i].def, err, sizeof err)) {
            BSF_ERROR("config", "bad built-in default: %s", err);
            abort();
        }
}

int bsf_config_set(bsf_config_t *cfg, const char *assignment, char *err, size_t err_cap)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment) {
        snprintf(err, err_cap, "--set %s: expected section.key=value", assignment);
        return -1;
    }
    char name[128];
    size_t n = (size_t)(eq - assignment);
    if (n >= sizeof name) {
        snprintf(err, err_cap, "--set: key too long");
        return -1;
    }
    memcpy(name, assignment, n);
    name[n] = '\0';
    return set_key(cfg, name, eq + 1, err, err_cap);
}

/* The YAML file is a mapping of sections, each a mapping of keys to scalars. */
int bsf_config_load_file(bsf_config_t *cfg, const char *path, char *err, size_t err_cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_cap, "%s: %s", path, strerror(errno));
        return -1;
    }
    yaml_parser_t parser;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_file(&parser, f);
    char section[64] = "", key[64] = "";
    int depth = 0, rc = 0;
    bool expect_key = true;
    for (bool done = false; !done && rc == 0;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            snprintf(err, err_cap, "%s:%zu: %s", path, parser.problem_mark.line + 1,
                     parser.problem ? parser.problem : "YAML syntax error");
            rc = -1;
            break;
        }
        switch (ev.type) {
        case YAML_MAPPING_START_EVENT:
            if (depth == 1 && expect_key) {
                snprintf(err, err_cap, "%s: a mapping cannot be a key", path);
                rc = -1;
            } else if (++depth > 2) {
                snprintf(err, err_cap, "%s.%s: nested values are not supported", section, key);
                rc = -1;
            }
            expect_key = true;
            break;
        case YAML_MAPPING_END_EVENT:
            depth--;
            expect_key = true;
            break;
        case YAML_SEQUENCE_START_EVENT:
            snprintf(err, err_cap, "%s%s%s: lists are not supported here", section,
                     depth == 2 ? "." : "", depth == 2 ? key : "");
            rc = -1;
            break;
        case YAML_SCALAR_EVENT: {
            const char *v = (const char *)ev.data.scalar.value;
            if (depth == 1) {
                if (!expect_key) {
                    snprintf(err, err_cap, "%s: section '%s' must be a mapping of keys", path,
                             section);
                    rc = -1;
                    break;
                }
                snprintf(section, sizeof section, "%s", v);
                expect_key = false;
            } else if (depth == 2 && expect_key) {
                snprintf(key, sizeof key, "%s", v);
                expect_key = false;
            } else if (depth == 2) {
                char name[160];
                snprintf(name, sizeof name, "%s.%s", section, key);
                rc = set_key(cfg, name, v, err, err_cap);
                expect_key = true;
            } else {
                snprintf(err, err_cap, "%s: the document must be a mapping of sections", path);
                rc = -1;
            }
            break;
        }
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&parser);
    fclose(f);
    return rc;
}

int bsf_config_finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    if (split_listen(cfg->sbi_listen, cfg->sbi_host, sizeof cfg->sbi_host, &cfg->sbi_port)) {
        snprintf(err, err_cap, "sbi.listen: '%s' is not host:port", cfg->sbi_listen);
        return -1;
    }
    if (cfg->ops_listen[0] &&
        split_listen(cfg->ops_listen, cfg->ops_host, sizeof cfg->ops_host, &cfg->ops_port)) {
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

void bsf_config_print_reference(void)
{
    printf("| key | type | default | range / values | meaning |\n|---|---|---|---|---|\n");
    for (size_t i = 0; i < N_KEYS; i++) {
        const key_def_t *k = &keys[i];
        char range[160] = "";
        static const char *const type_names[] = {"integer", "boolean", "string", "host:port",
                                                 "enum"};
        if (k->type == T_UINT)
            snprintf(range, sizeof range, "%llu – %llu", (unsigned long long)k->min,
                     (unsigned long long)k->max);
        else if (k->type == T_ENUM)
            for (int c = 0; k->choices[c]; c++)
                snprintf(range + strlen(range), sizeof range - strlen(range), "%s`%s`",
                         c ? ", " : "", k->choices[c]);
        else if (k->type == T_BOOL)
            snprintf(range, sizeof range, "`true`, `false`");
        else if (k->type == T_STRING)
            snprintf(range, sizeof range, "up to %llu characters", (unsigned long long)k->max);
        printf("| `%s` | %s | `%s` | %s | %s |\n", k->key, type_names[k->type], k->def, range,
               k->doc);
    }
}
