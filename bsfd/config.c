/* The configuration machinery: defaults, YAML files, --set, checks, the reference. The keys
 * themselves live in the config_keys_*.c tables. */
#include "bsfd/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "common/diag.h"
#include "common/duration_text.h"
#include "common/error.h"

static const bsf_config_section_t *const sections[] = {
    &bsf_config_core_section,
    &bsf_config_replication_section,
    &bsf_config_diameter_section,
    &bsf_config_feed_section,
    &bsf_config_nrf_section,
    &bsf_config_scoring_section,
    &bsf_config_hygiene_section,
    &bsf_config_ops_section,
    &bsf_config_observe_section,
    &bsf_config_admission_section,
    &bsf_config_audit_section,
    &bsf_config_subscriptions_section,
    &bsf_config_tls_section,
    &bsf_config_upgrade_section,
    &bsf_config_write_path_section,
    &bsf_config_egress_section,
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

const bsf_config_key_t *bsf_config_key_at(size_t i)
{
    for (size_t s = 0; s < N_SECTIONS; s++) {
        if (i < sections[s]->n_keys)
            return &sections[s]->keys[i];
        i -= sections[s]->n_keys;
    }
    return NULL;
}

const bsf_config_key_t *bsf_config_find_key(const char *name)
{
    return find_key(name);
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

/* A list written as one text (--set, a YAML scalar, a default): items separated by ',', or by
 * ';' when the text holds one, so that an item can contain commas ("debug=broker,topic;").
 * Blanks around items and empty items are dropped. */
static int set_list_text(const bsf_config_key_t *k, void *field, const char *value, char *err,
                         size_t err_cap)
{
    const char sep = strchr(value, ';') ? ';' : ',';
    ((char *)field)[0] = '\0';
    char item[1024];
    const char *p = value;
    while (*p) {
        const char *end = strchr(p, sep);
        size_t n = end ? (size_t)(end - p) : strlen(p);
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
        p = end ? end + 1 : p + strlen(p);
    }
    return 0;
}

static int apply_duration(const bsf_config_key_t *k, void *field, const char *value, char *err,
                          size_t err_cap)
{
    uint64_t v, lo = 0, hi = UINT64_MAX;
    int rc = bsf_duration_parse(value, &v);
    if ((k->min_text && bsf_duration_parse(k->min_text, &lo)) ||
        (k->max_text && bsf_duration_parse(k->max_text, &hi))) {
        snprintf(err, err_cap, "%s: the key's range is not a duration", k->key);
        return -1;
    }
    if (rc || v < lo || v > hi) {
        snprintf(err, err_cap,
                 "%s: '%s' is not a duration in %s..%s (a number and a unit: ms, s, m, h, d; "
                 "e.g. 30s, 5m, 12h, 7d)",
                 k->key, value, k->min_text ? k->min_text : "0", k->max_text ? k->max_text : "");
        return -1;
    }
    *(uint64_t *)field = v;
    return 0;
}

static int apply(bsf_config_t *cfg, const bsf_config_key_t *k, const char *value, char *err,
                 size_t err_cap)
{
    void *field = (char *)cfg + k->offset;
    switch (k->type) {
    case BSF_CFG_DURATION:
        return apply_duration(k, field, value, err, err_cap);
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
    case BSF_CFG_ENUM_TEXT:
        for (int i = 0; k->choices[i]; i++)
            if (strcmp(value, k->choices[i]) == 0) {
                if (k->type == BSF_CFG_ENUM)
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
    case BSF_CFG_LIST:
        return set_list_text(k, field, value, err, err_cap);
    case BSF_CFG_STRING:
        if (strlen(value) > k->max) {
            snprintf(err, err_cap, "%s: longer than %llu characters", k->key,
                     (unsigned long long)k->max);
            return -1;
        }
        snprintf(field, k->size, "%s", value);
        return 0;
    }
    return -1;
}

static int set_key(bsf_config_t *cfg, const char *name, const char *value, char *err,
                   size_t err_cap)
{
    const bsf_config_key_t *k = find_key(name);
    if (!k) {
        snprintf(err, err_cap, "%s: unknown configuration key", name);
        return -1;
    }
    if (apply(cfg, k, value, err, err_cap))
        return -1;
    if (!bsf_config_is_set(cfg, name) && cfg->n_explicit < BSF_CFG_MAX_EXPLICIT)
        cfg->explicit_keys[cfg->n_explicit++] = k;
    return 0;
}

bool bsf_config_is_set(const bsf_config_t *cfg, const char *key)
{
    const bsf_config_key_t *k = find_key(key);
    for (unsigned i = 0; k && i < cfg->n_explicit; i++)
        if (cfg->explicit_keys[i] == k)
            return true;
    return false;
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

/* The YAML file is a mapping whose keys join with '.' into configuration keys, at any depth:
 * `sbi: {listen: …}`, `nf: {bsf_info: {dnn_list: […]}}` and `sbi.listen: …` all name
 * sbi.listen. A value is a scalar, or a sequence of scalars for a list key. A key given twice
 * (in one mapping, or spelled two ways) is refused, naming both lines. */
#define YAML_MAX_DEPTH 8
#define YAML_MAX_NAMES 1024

typedef struct {
    size_t prefix_len; /* of the path: the keys of the mappings around this one */
    bool expect_key;
    unsigned serial;   /* which mapping of the document */
} yaml_frame_t;

typedef struct {
    bsf_config_t *cfg;
    char path[160]; /* the key being read, dotted */
    yaml_frame_t frames[YAML_MAX_DEPTH];
    int depth;      /* frames in use: 0 before the document's mapping */
    bool in_sequence;
    const bsf_config_key_t *list_key;
    size_t key_line; /* of the key whose value comes next */
    size_t err_line; /* where the error is, when not at the event's start */
    struct {
        char *name;
        size_t line;
        unsigned mapping; /* serial of the mapping holding it */
        bool leaf;        /* its value is a scalar or a list */
    } seen[YAML_MAX_NAMES]; /* every key read so far, for duplicates */
    size_t n_seen;
    unsigned mappings;
    char *err;
    size_t err_cap;
} yaml_state_t;

static void mark_explicit(bsf_config_t *cfg, const bsf_config_key_t *k)
{
    if (!bsf_config_is_set(cfg, k->key) && cfg->n_explicit < BSF_CFG_MAX_EXPLICIT)
        cfg->explicit_keys[cfg->n_explicit++] = k;
}

/* A mapping key at `line`: the path becomes the mapping's prefix plus it. Returns 0 or -1. */
static int on_key(yaml_state_t *y, const char *key, size_t line)
{
    yaml_frame_t *f = &y->frames[y->depth - 1];
    if (!key[0] || f->prefix_len + 1 + strlen(key) >= sizeof y->path) {
        snprintf(y->err, y->err_cap, "%s: %s", key[0] ? key : "''",
                 key[0] ? "key too long" : "empty key");
        return -1;
    }
    y->path[f->prefix_len] = '\0';
    if (f->prefix_len)
        strcat(y->path, ".");
    strcat(y->path, key);
    y->key_line = line;
    f->expect_key = false;
    return 0;
}

/* The key just read gets its value: a leaf (scalar, list) must not be given twice however
 * spelled; a mapping key must not repeat in its mapping (YAML's rule; the same prefix in two
 * mappings is fine: `diameter.congestion: {…}` beside `diameter: {congestion: {…}}`).
 * Returns 0 or -1. */
static int check_duplicate(yaml_state_t *y, bool leaf)
{
    unsigned mapping = y->frames[y->depth - 1].serial;
    for (size_t i = 0; i < y->n_seen; i++)
        if (strcmp(y->seen[i].name, y->path) == 0 &&
            (leaf ? y->seen[i].leaf : y->seen[i].mapping == mapping)) {
            snprintf(y->err, y->err_cap, "%s: given twice (first at line %zu)", y->path,
                     y->seen[i].line);
            y->err_line = y->key_line;
            return -1;
        }
    char *copy = y->n_seen < YAML_MAX_NAMES ? strdup(y->path) : NULL;
    if (!copy) {
        snprintf(y->err, y->err_cap, "%s: too many keys", y->path);
        return -1;
    }
    y->seen[y->n_seen].name = copy;
    y->seen[y->n_seen].line = y->key_line;
    y->seen[y->n_seen].mapping = mapping;
    y->seen[y->n_seen++].leaf = leaf;
    return 0;
}

static int on_scalar(yaml_state_t *y, const char *v, size_t line)
{
    if (y->in_sequence)
        return set_list(y->list_key, (char *)y->cfg + y->list_key->offset, v, true, y->err,
                        y->err_cap);
    if (!y->depth) {
        snprintf(y->err, y->err_cap, "the document must be a mapping of keys");
        return -1;
    }
    if (y->frames[y->depth - 1].expect_key)
        return on_key(y, v, line);
    y->frames[y->depth - 1].expect_key = true;
    if (check_duplicate(y, true))
        return -1;
    return set_key(y->cfg, y->path, v, y->err, y->err_cap);
}

static int on_mapping_start(yaml_state_t *y)
{
    if (y->in_sequence || (y->depth && y->frames[y->depth - 1].expect_key)) {
        snprintf(y->err, y->err_cap, "%s: %s", y->depth ? y->path : "document",
                 y->in_sequence ? "a list holds scalars only" : "a key must be a scalar");
        return -1;
    }
    if (y->depth == YAML_MAX_DEPTH) {
        snprintf(y->err, y->err_cap, "%s: nested deeper than %d mappings", y->path,
                 YAML_MAX_DEPTH);
        return -1;
    }
    if (y->depth && check_duplicate(y, false))
        return -1;
    size_t prefix_len = y->depth ? strlen(y->path) : 0;
    y->frames[y->depth++] =
        (yaml_frame_t){.prefix_len = prefix_len, .expect_key = true, .serial = ++y->mappings};
    return 0;
}

static int on_sequence_start(yaml_state_t *y)
{
    const bsf_config_key_t *k =
        y->depth && !y->frames[y->depth - 1].expect_key && !y->in_sequence ? find_key(y->path)
                                                                            : NULL;
    if (!k || k->type != BSF_CFG_LIST) {
        snprintf(y->err, y->err_cap, "%s: %s", y->depth ? y->path : "document",
                 k ? "this key does not take a list"
                   : "unknown configuration key or misplaced list");
        return -1;
    }
    if (check_duplicate(y, true))
        return -1;
    y->in_sequence = true;
    y->list_key = k;
    ((char *)y->cfg + k->offset)[0] = '\0';
    mark_explicit(y->cfg, k);
    return 0;
}

/* One YAML event into the state. Returns 0, -1 with a message, or 1 at the stream's end. */
static int on_event(yaml_state_t *y, const yaml_event_t *ev)
{
    size_t line = ev->start_mark.line + 1;
    switch (ev->type) {
    case YAML_MAPPING_START_EVENT:
        return on_mapping_start(y);
    case YAML_MAPPING_END_EVENT:
        if (--y->depth > 0)
            y->frames[y->depth - 1].expect_key = true;
        return 0;
    case YAML_SEQUENCE_START_EVENT:
        return on_sequence_start(y);
    case YAML_SEQUENCE_END_EVENT:
        y->in_sequence = false;
        y->frames[y->depth - 1].expect_key = true;
        return 0;
    case YAML_SCALAR_EVENT:
        return on_scalar(y, (const char *)ev->data.scalar.value, line);
    case YAML_ALIAS_EVENT:
        snprintf(y->err, y->err_cap, "aliases (*name) are not supported");
        return -1;
    case YAML_STREAM_END_EVENT:
        return 1;
    default:
        return 0;
    }
}

/* Runs a parser whose input is set up to the end of the stream or the first error; errors
 * name the file and the line. */
static int parse(yaml_parser_t *parser, bsf_config_t *cfg, const char *name, char *err,
                 size_t err_cap)
{
    yaml_state_t *y = calloc(1, sizeof *y);
    char why[512] = "";
    if (!y) {
        snprintf(err, err_cap, "%s: out of memory", name);
        return -1;
    }
    *y = (yaml_state_t){.cfg = cfg, .err = why, .err_cap = sizeof why};
    int rc = 0;
    while (rc == 0) {
        yaml_event_t ev;
        if (!yaml_parser_parse(parser, &ev)) {
            snprintf(err, err_cap, "%s:%zu: %s", name, parser->problem_mark.line + 1,
                     parser->problem ? parser->problem : "YAML syntax error");
            rc = -1;
            break;
        }
        rc = on_event(y, &ev);
        if (rc < 0)
            snprintf(err, err_cap, "%s:%zu: %s", name,
                     y->err_line ? y->err_line : ev.start_mark.line + 1, why);
        yaml_event_delete(&ev);
    }
    for (size_t i = 0; i < y->n_seen; i++)
        free(y->seen[i].name);
    free(y);
    return rc < 0 ? -1 : 0;
}

int bsf_config_load_file(bsf_config_t *cfg, const char *path, char *err, size_t err_cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_cap, "%s: %s", path, bsf_strerror(errno));
        return -1;
    }
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, err_cap, "%s: out of memory", path);
        fclose(f);
        return -1;
    }
    yaml_parser_set_input_file(&parser, f);
    int rc = parse(&parser, cfg, path, err, err_cap);
    yaml_parser_delete(&parser);
    fclose(f);
    return rc;
}

int bsf_config_load_text(bsf_config_t *cfg, const char *name, const char *text, size_t len,
                         char *err, size_t err_cap)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, err_cap, "%s: out of memory", name);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int rc = parse(&parser, cfg, name, err, err_cap);
    yaml_parser_delete(&parser);
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
    static const char *const type_names[] = {
        [BSF_CFG_UINT] = "integer", [BSF_CFG_BOOL] = "boolean",   [BSF_CFG_STRING] = "string",
        [BSF_CFG_LISTEN] = "host:port", [BSF_CFG_ENUM] = "enum", [BSF_CFG_LIST] = "list",
        [BSF_CFG_ENUM_TEXT] = "enum", [BSF_CFG_DURATION] = "duration",
    };
    printf("| key | type | default | range / values | meaning |\n|---|---|---|---|---|\n");
    for (size_t s = 0; s < N_SECTIONS; s++)
        for (size_t i = 0; i < sections[s]->n_keys; i++) {
            const bsf_config_key_t *k = &sections[s]->keys[i];
            char range[200] = "";
            if (k->type == BSF_CFG_UINT)
                snprintf(range, sizeof range, "%llu – %llu", (unsigned long long)k->min,
                         (unsigned long long)k->max);
            else if (k->type == BSF_CFG_ENUM || k->type == BSF_CFG_ENUM_TEXT)
                for (int c = 0; k->choices[c]; c++)
                    snprintf(range + strlen(range), sizeof range - strlen(range), "%s`%s`",
                             c ? ", " : "", k->choices[c]);
            else if (k->type == BSF_CFG_BOOL)
                snprintf(range, sizeof range, "`true`, `false`");
            else if (k->type == BSF_CFG_DURATION)
                snprintf(range, sizeof range, "%s – %s", k->min_text, k->max_text);
            else if (k->type == BSF_CFG_STRING || k->type == BSF_CFG_LIST)
                snprintf(range, sizeof range, "up to %llu characters", (unsigned long long)k->max);
            printf("| `%s` | %s%s | `%s` | %s | %s |\n", k->key, type_names[k->type],
                   k->runtime ? " (runtime)" : "", k->def, range, k->doc);
        }
}
