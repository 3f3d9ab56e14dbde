#include "common/diag.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/error.h"
#include "common/time_text.h"

const char *const bsf_log_modules[] = {"bsfd",  "config", "diameter",    "engine",    "feed",
                                       "kafka", "nrf",    "replication", "retention", "sbi",
                                       "store", "ops",    NULL};
#define N_MODULES (sizeof bsf_log_modules / sizeof bsf_log_modules[0] - 1)
#define LEVEL_UNSET (-1)

static const char *const level_names[] = {"error", "warn", "info", "debug"};
static _Atomic int current_level = BSF_LOG_INFO;
static _Atomic int current_format = BSF_LOG_TEXT;
/* Per module (index in bsf_log_modules): its level, or LEVEL_UNSET for the process-wide one. */
static _Atomic int module_level[N_MODULES] = {[0 ... N_MODULES - 1] = LEVEL_UNSET};
static _Thread_local char correlation[128];

void bsf_log_set_level(bsf_log_level_t level)
{
    atomic_store(&current_level, (int)level);
}

bsf_log_level_t bsf_log_get_level(void)
{
    return (bsf_log_level_t)atomic_load(&current_level);
}

void bsf_log_set_format(bsf_log_format_t format)
{
    atomic_store(&current_format, (int)format);
}

int bsf_log_level_parse(const char *s, bsf_log_level_t *out)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(s, level_names[i]) == 0) {
            *out = (bsf_log_level_t)i;
            return 0;
        }
    return BSF_EBADINPUT;
}

int bsf_log_format_parse(const char *s, bsf_log_format_t *out)
{
    if (strcmp(s, "text") == 0 || strcmp(s, "json") == 0) {
        *out = s[0] == 'j' ? BSF_LOG_JSON : BSF_LOG_TEXT;
        return 0;
    }
    return BSF_EBADINPUT;
}

static int module_index(const char *name, size_t len)
{
    for (size_t i = 0; i < N_MODULES; i++)
        if (strlen(bsf_log_modules[i]) == len && memcmp(bsf_log_modules[i], name, len) == 0)
            return (int)i;
    return -1;
}

/* Parses `spec` into levels[] (LEVEL_UNSET where not named). Returns 0 or BSF_EBADINPUT. */
static int parse_modules(const char *spec, int levels[N_MODULES], char *err, size_t err_cap)
{
    for (size_t i = 0; i < N_MODULES; i++)
        levels[i] = LEVEL_UNSET;
    for (const char *p = spec; *p;) {
        size_t len = strcspn(p, ",\n");
        const char *eq = memchr(p, '=', len);
        char level_text[16] = "";
        int m = eq ? module_index(p, (size_t)(eq - p)) : -1;
        if (eq && (size_t)(p + len - eq - 1) < sizeof level_text)
            memcpy(level_text, eq + 1, (size_t)(p + len - eq - 1));
        bsf_log_level_t level;
        if (len && (m < 0 || bsf_log_level_parse(level_text, &level))) {
            snprintf(err, err_cap,
                     "\"%.*s\" is not module=level (modules: bsfd, config, diameter, engine, "
                     "feed, kafka, nrf, ops, replication, retention, sbi, store; levels: error, "
                     "warn, info, debug)",
                     (int)len, p);
            return BSF_EBADINPUT;
        }
        if (len)
            levels[m] = (int)level;
        p += len;
        if (*p)
            p++;
    }
    return 0;
}

int bsf_log_module_levels_check(const char *spec, char *err, size_t err_cap)
{
    int levels[N_MODULES];
    return parse_modules(spec, levels, err, err_cap);
}

int bsf_log_set_module_levels(const char *spec, char *err, size_t err_cap)
{
    int levels[N_MODULES];
    int rc = parse_modules(spec, levels, err, err_cap);
    if (rc)
        return rc;
    for (size_t i = 0; i < N_MODULES; i++)
        atomic_store(&module_level[i], levels[i]);
    return 0;
}

bool bsf_log_enabled(bsf_log_level_t level, const char *module)
{
    int m = module_index(module, strlen(module));
    int limit = m >= 0 ? atomic_load(&module_level[m]) : LEVEL_UNSET;
    if (limit == LEVEL_UNSET)
        limit = atomic_load(&current_level);
    return (int)level <= limit;
}

void bsf_log_set_correlation(const char *id)
{
    /* Not snprintf: this runs twice per SBI request. */
    size_t n = id ? strnlen(id, sizeof correlation - 1) : 0;
    memcpy(correlation, id ? id : "", n);
    correlation[n] = '\0';
}

/* The JSON line of a message; NULL when jansson cannot make one (no memory). A message that
 * is not UTF-8 (a peer's bytes) has its other bytes replaced by '?'. */
static char *json_line(const char *ts, const char *level, const char *module, char *msg)
{
    json_t *text = json_string(msg);
    if (!text) {
        for (char *c = msg; *c; c++)
            if ((unsigned char)*c >= 0x80 || (unsigned char)*c < 0x20)
                *c = '?';
        text = json_string(msg);
    }
    json_t *o = json_object();
    json_object_set_new(o, "ts", json_string(ts));
    json_object_set_new(o, "level", json_string(level));
    json_object_set_new(o, "module", json_string(module));
    json_object_set_new(o, "msg", text);
    if (correlation[0])
        json_object_set_new(o, "correlation", json_stringn_nocheck(correlation,
                                                                   strlen(correlation)));
    char *line = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII);
    json_decref(o);
    return line;
}

void bsf_log(bsf_log_level_t level, const char *module, const char *fmt, ...)
{
    static const char *const tags[] = {"ERROR", "WARN", "INFO", "DEBUG"};
    if (!bsf_log_enabled(level, module))
        return;
    char msg[1024], line[1280], ts[32];
    bsf_time_format_rfc3339((int64_t)bsf_clock_wall_ms(), ts);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (atomic_load(&current_format) == BSF_LOG_JSON) {
        char *json = json_line(ts, tags[level], module, msg);
        size_t n = json ? strlen(json) : 0;
        char *whole = json ? realloc(json, n + 2) : NULL;
        if (whole) {
            memcpy(whole + n, "\n", 2);
            fputs(whole, stderr);
            free(whole);
            return;
        }
        free(json);
    }
    if (correlation[0])
        snprintf(line, sizeof line, "%s %s %s: [%s] %s\n", ts, tags[level], module, correlation,
                 msg);
    else
        snprintf(line, sizeof line, "%s %s %s: %s\n", ts, tags[level], module, msg);
    /* One fputs per line keeps lines from different threads whole. */
    fputs(line, stderr);
}
