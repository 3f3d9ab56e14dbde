/* The configuration machinery: defaults, YAML files, --set, checks, the reference. The keys
 * themselves live in the config_keys_*.c tables. */
#include "bsfd/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/diag.h"

static const bsf_config_section_t *const sections[] = {
    &bsf_config_core_section,
    &bsf_config_replication_section,
    &bsf_config_diameter_section,
    &bsf_config_feed_section,
    &bsf_config_nrf_section,
};
#define N_SECTIONS (sizeof sections / sizeof sections[0])

static const bsf_config_key_t *find_key(const char *name)
{
    for (size_t s = 0; s < N_SECTIONS; s++)
        for (size_t i = 0; i < sections[s]->n_keys; i++)
            if (strcmp(sections[s]->keys[i].key, name) == 0)
                return &sections[s]->keys[i];
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

int bsf_config_split_listen(const char *v, char *host, size_t host_cap, uint16_t *port)
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

/* Stores `value` in a list field: items separated by '\n'. `append` adds to what is there
 * (YAML sequences arrive one item at a time). */
static int set_list(const bsf_config_key_t *k, void *field, const char *value, bool append,
                    char *err, size_t err_cap)
{
    char *dst = field;
    size_t used = append ? strlen(dst) : 0;
    size_t need = used + (used ? 1 : 0) + strlen(value);
    if (need > k->max || need >= k->size) {
        snprintf(err, err_cap, "%s: the list is longer than %llu characters", k->key,
                 (unsigned long long)k->max);
        return -1;
    }
    if (!append)
        dst[0] = '\0';
    if (used)
        strcat(dst, "\n");
    strcat(dst, value);
    return 0;
}

static int apply(bsf_config_t *cfg, const bsf_config_key_t *k, const char *value, char *err,
                 size_t err_cap)
{
    void *field = (char *)cfg + k->offset;
    switch (k->type) {
    case BSF_CFG_UINT: {
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
    case BSF_CFG_BOOL:
        if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0) {
            *(bool *)field = value[0] == 't';
            return 0;
        }
        snprintf(err, err_cap, "%s: '%s' is not true or false", k->key, value);
        return -1;
    case BSF_CFG_ENUM:
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
    case BSF_CFG_LISTEN: {
        char host[64];
        uint16_t port;
        if (value[0] && bsf_config_split_listen(value, host, sizeof host, &port)) {
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
    case BSF_CFG_LIST: {
        /* On the command line (and for a scalar in YAML) items are separated by ';'. */
        ((char *)field)[0] = '\0';
        char item[1024];
        const char *p = value;
        while (*p) {
            const char *semi = strchr(p, ';');
            size_t n = semi ? (size_t)(semi - p) : strlen(p);
            while (n && (*p == ' ' || *p == '\t'))
                p++, n--;
            while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
                n--;
            if (n >= sizeof item) {
                snprintf(err, err_cap, "%s: an item is too long", k->key);
                return -1;
            }
            snprintf(item, sizeof item, "%.*s", (int)n, p);
            if (n && set_list(k, field, item, true, err, err_cap))
                return -1;
            p = semi ? semi + 1 : p + strlen(p);
        }
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
    const bsf_config_key_t *k = find_key(name);
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
    for (size_t s = 0; s < N_SECTIONS; s++)
        for (size_t i = 0; i < sections[s]->n_keys; i++)
            if (apply(cfg, &sections[s]->keys[i], sections[s]->keys[i].def, err, sizeof err)) {
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

/* The YAML file is a mapping of sections; each section maps keys to scalars or to sequences
 * of scalars (list keys). */
typedef struct {
    bsf_config_t *cfg;
    const char *path;
    char section[64], key[64];
    int depth;         /* mapping depth: 1 = sections, 2 = keys */
    bool expect_key;
    bool in_sequence;  /* inside a list value */
    const bsf_config_key_t *list_key;
    char *err;
    size_t err_cap;
} yaml_state_t;

static int on_scalar(yaml_state_t *y, const char *v)
{
    char name[160];
    if (y->in_sequence)
        return set_list(y->list_key, (char *)y->cfg + y->list_key->offset, v, true, y->err,
                        y->err_cap);
    if (y->depth == 1) {
        if (!y->expect_key) {
            snprintf(y->err, y->err_cap, "%s: section '%s' must be a mapping of keys", y->path,
                     y->section);
            return -1;
        }
        snprintf(y->section, sizeof y->section, "%s", v);
        y->expect_key = false;
        return 0;
    }
    if (y->depth == 2 && y->expect_key) {
        snprintf(y->key, sizeof y->key, "%s", v);
        y->expect_key = false;
        return 0;
    }
    if (y->depth == 2) {
        snprintf(name, sizeof name, "%s.%s", y->section, y->key);
        y->expect_key = true;
        return set_key(y->cfg, name, v, y->err, y->err_cap);
    }
    snprintf(y->err, y->err_cap, "%s: the document must be a mapping of sections", y->path);
    return -1;
}

static int on_sequence_start(yaml_state_t *y)
{
    char name[160];
    snprintf(name, sizeof name, "%s.%s", y->section, y->key);
    const bsf_config_key_t *k = y->depth == 2 && !y->expect_key ? find_key(name) : NULL;
    if (!k || k->type != BSF_CFG_LIST || y->in_sequence) {
        snprintf(y->err, y->err_cap, "%s: %s", name,
                 k ? "this key does not take a list" : "unknown configuration key or misplaced list");
        return -1;
    }
    y->in_sequence = true;
    y->list_key = k;
    ((char *)y->cfg + k->offset)[0] = '\0';
    return 0;
}

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
    yaml_state_t y = {.cfg = cfg, .path = path, .expect_key = true, .err = err,
                      .err_cap = err_cap};
    int rc = 0;
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
            if (y.in_sequence || ++y.depth > 2) {
                snprintf(err, err_cap, "%s.%s: nested mappings are not supported", y.section,
                         y.key);
                rc = -1;
            }
            y.expect_key = true;
            break;
        case YAML_MAPPING_END_EVENT:
            y.depth--;
            y.expect_key = true;
            break;
        case YAML_SEQUENCE_START_EVENT:
            rc = on_sequence_start(&y);
            break;
        case YAML_SEQUENCE_END_EVENT:
            y.in_sequence = false;
            y.expect_key = true;
            break;
        case YAML_SCALAR_EVENT:
            rc = on_scalar(&y, (const char *)ev.data.scalar.value);
            break;
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
    for (size_t s = 0; s < N_SECTIONS; s++)
        if (sections[s]->finish && sections[s]->finish(cfg, err, err_cap))
            return -1;
    return 0;
}

void bsf_config_print_reference(void)
{
    static const char *const type_names[] = {"integer", "boolean", "string",
                                             "host:port", "enum",   "list"};
    printf("| key | type | default | range / values | meaning |\n|---|---|---|---|---|\n");
    for (size_t s = 0; s < N_SECTIONS; s++)
        for (size_t i = 0; i < sections[s]->n_keys; i++) {
            const bsf_config_key_t *k = &sections[s]->keys[i];
            char range[200] = "";
            if (k->type == BSF_CFG_UINT)
                snprintf(range, sizeof range, "%llu – %llu", (unsigned long long)k->min,
                         (unsigned long long)k->max);
            else if (k->type == BSF_CFG_ENUM)
                for (int c = 0; k->choices[c]; c++)
                    snprintf(range + strlen(range), sizeof range - strlen(range), "%s`%s`",
                             c ? ", " : "", k->choices[c]);
            else if (k->type == BSF_CFG_BOOL)
                snprintf(range, sizeof range, "`true`, `false`");
            else if (k->type == BSF_CFG_STRING || k->type == BSF_CFG_LIST)
                snprintf(range, sizeof range, "up to %llu characters", (unsigned long long)k->max);
            printf("| `%s` | %s | `%s` | %s | %s |\n", k->key, type_names[k->type], k->def,
                   range, k->doc);
        }
}
