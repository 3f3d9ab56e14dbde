/* The configuration as JSON; see config_json.h. */
#include "bsfd/config_json.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/duration_text.h"

#define NAME_MAX_LEN 160

static uint64_t uint_field(const void *field, size_t size)
{
    switch (size) {
    case 2:
        return *(const uint16_t *)field;
    case 4:
        return *(const uint32_t *)field;
    default:
        return *(const uint64_t *)field;
    }
}

/* A `name=value` client property whose name says it is a credential (sasl.password,
 * ssl.key.password, ...): its value never leaves bsfd. */
static bool secret_item(const char *item, size_t n)
{
    const char *eq = memchr(item, '=', n);
    char name[128];
    if (!eq || (size_t)(eq - item) >= sizeof name)
        return false;
    for (size_t i = 0; i < (size_t)(eq - item); i++)
        name[i] = (char)(item[i] >= 'A' && item[i] <= 'Z' ? item[i] + 32 : item[i]);
    name[eq - item] = '\0';
    return strstr(name, "password") || strstr(name, "secret");
}

/* A list field: items separated by '\n'; credentials hidden. */
static json_t *list_json(const char *text)
{
    json_t *a = json_array();
    for (const char *p = text; a && *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (secret_item(p, n)) {
            char hidden[160];
            snprintf(hidden, sizeof hidden, "%.*s=" BSF_CONFIG_HIDDEN,
                     (int)((const char *)memchr(p, '=', n) - p), p);
            json_array_append_new(a, json_string(hidden));
        } else {
            json_array_append_new(a, json_stringn(p, n));
        }
        p = end ? end + 1 : p + n;
    }
    return a;
}

json_t *bsf_config_key_json(const bsf_config_t *cfg, const bsf_config_key_t *k)
{
    const void *field = (const char *)cfg + k->offset;
    char text[BSF_DURATION_TEXT_MAX];
    switch (k->type) {
    case BSF_CFG_UINT: {
        uint64_t v = uint_field(field, k->size);
        if (v > (uint64_t)INT64_MAX) { /* beyond a JSON integer of jansson: as text */
            snprintf(text, sizeof text, "%" PRIu64, v);
            return json_string(text);
        }
        return json_integer((json_int_t)v);
    }
    case BSF_CFG_BOOL:
        return json_boolean(*(const bool *)field);
    case BSF_CFG_DURATION:
        return json_string(bsf_duration_format(*(const uint64_t *)field, text));
    case BSF_CFG_ENUM: {
        int i = *(const int *)field, n = 0;
        while (k->choices[n])
            n++;
        return json_string(i >= 0 && i < n ? k->choices[i] : "");
    }
    case BSF_CFG_LIST:
        return list_json(field);
    case BSF_CFG_STRING:
    case BSF_CFG_LISTEN:
    case BSF_CFG_ENUM_TEXT:
    default:
        return json_string(field);
    }
}

/* Puts `value` at the dotted `name` in `root`, creating the objects on the way. */
static int put_nested(json_t *root, const char *name, json_t *value)
{
    char path[NAME_MAX_LEN];
    snprintf(path, sizeof path, "%s", name);
    json_t *at = root;
    char *part = path;
    for (char *dot; (dot = strchr(part, '.')); part = dot + 1) {
        *dot = '\0';
        json_t *next = json_object_get(at, part);
        if (!next) {
            next = json_object();
            if (json_object_set_new(at, part, next))
                goto fail;
        } else if (!json_is_object(next)) {
            goto fail; /* a key that is also a prefix of another: never in the tables */
        }
        at = next;
    }
    return json_object_set_new(at, part, value);
fail:
    json_decref(value);
    return -1;
}

json_t *bsf_config_to_json(const bsf_config_t *cfg)
{
    json_t *root = json_object();
    const bsf_config_key_t *k;
    for (size_t i = 0; root && (k = bsf_config_key_at(i)); i++) {
        json_t *v = bsf_config_key_json(cfg, k);
        if (!v || put_nested(root, k->key, v)) {
            json_decref(root);
            return NULL;
        }
    }
    return root;
}

static int walk(json_t *obj, char *prefix, size_t used, bsf_config_leaf_fn fn, void *ctx,
                char *err, size_t err_cap)
{
    const char *name;
    json_t *v;
    json_object_foreach(obj, name, v) {
        size_t n = strlen(name);
        if (used + n + 2 > NAME_MAX_LEN) {
            snprintf(err, err_cap, "%.*s%s: key too long", (int)used, prefix, name);
            return -1;
        }
        size_t at = used;
        if (used)
            prefix[at++] = '.';
        memcpy(prefix + at, name, n + 1);
        int rc = json_is_object(v) ? walk(v, prefix, at + n, fn, ctx, err, err_cap)
                                   : fn(ctx, prefix, v);
        prefix[used] = '\0';
        if (rc)
            return -1;
    }
    return 0;
}

int bsf_config_json_walk(json_t *doc, bsf_config_leaf_fn fn, void *ctx, char *err,
                         size_t err_cap)
{
    char prefix[NAME_MAX_LEN] = "";
    return walk(doc, prefix, 0, fn, ctx, err, err_cap);
}

/* A list as one text for bsf_config_set: items joined by ',' (by ';' when one holds a ','). */
static char *list_text(const json_t *a, const char *name, char *err, size_t err_cap)
{
    size_t i, total = 1;
    json_t *item;
    bool comma = false;
    json_array_foreach(a, i, item) {
        if (!json_is_string(item)) {
            snprintf(err, err_cap, "%s: every item of the list must be a string", name);
            return NULL;
        }
        total += json_string_length(item) + 1;
        comma |= strchr(json_string_value(item), ',') != NULL;
    }
    char *out = calloc(1, total);
    if (!out) {
        snprintf(err, err_cap, "%s: out of memory", name);
        return NULL;
    }
    json_array_foreach(a, i, item) {
        if (i)
            strcat(out, comma ? ";" : ",");
        strcat(out, json_string_value(item));
    }
    return out;
}

/* The text bsf_config_set takes for `value`; the caller frees. NULL with a message. */
static char *value_text(const bsf_config_key_t *k, const json_t *value, char *err,
                        size_t err_cap)
{
    char num[32];
    bool ok;
    switch (k->type) {
    case BSF_CFG_UINT:
        ok = json_is_integer(value) || json_is_string(value);
        break;
    case BSF_CFG_BOOL:
        ok = json_is_boolean(value);
        break;
    case BSF_CFG_LIST:
        if (json_is_array(value))
            return list_text(value, k->key, err, err_cap);
        ok = json_is_string(value);
        break;
    default:
        ok = json_is_string(value);
    }
    if (!ok) {
        snprintf(err, err_cap, "%s: expected %s", k->key,
                 k->type == BSF_CFG_UINT   ? "an integer"
                 : k->type == BSF_CFG_BOOL ? "true or false"
                 : k->type == BSF_CFG_LIST ? "an array of strings"
                                           : "a string");
        return NULL;
    }
    const char *text = json_is_string(value) ? json_string_value(value) : num;
    if (json_is_integer(value))
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(value));
    else if (json_is_boolean(value))
        snprintf(num, sizeof num, "%s", json_is_true(value) ? "true" : "false");
    char *out = strdup(text);
    if (!out)
        snprintf(err, err_cap, "%s: out of memory", k->key);
    return out;
}

int bsf_config_set_json(bsf_config_t *cfg, const char *name, const json_t *value, char *err,
                        size_t err_cap)
{
    const bsf_config_key_t *k = bsf_config_find_key(name);
    if (!k) {
        snprintf(err, err_cap, "%s: unknown configuration key", name);
        return -1;
    }
    char *text = value_text(k, value, err, err_cap);
    if (!text)
        return -1;
    size_t n = strlen(name) + 1 + strlen(text) + 1;
    char *assignment = malloc(n);
    int rc = -1;
    if (assignment) {
        snprintf(assignment, n, "%s=%s", name, text);
        rc = bsf_config_set(cfg, assignment, err, err_cap);
    } else {
        snprintf(err, err_cap, "%s: out of memory", name);
    }
    free(assignment);
    free(text);
    return rc;
}
