#include "common/diag.h"

#include <stdatomic.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/error.h"
#include "common/time_text.h"

/* Set at start-up and again by a configuration change at run time (log.level). */
static _Atomic int current_level = BSF_LOG_INFO;

void bsf_log_set_level(bsf_log_level_t level)
{
    atomic_store_explicit(&current_level, (int)level, memory_order_relaxed);
}

bsf_log_level_t bsf_log_get_level(void)
{
    return (bsf_log_level_t)atomic_load_explicit(&current_level, memory_order_relaxed);
}

int bsf_log_level_parse(const char *s, bsf_log_level_t *out)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (bsf_log_level_t)i;
            return 0;
        }
    return BSF_EBADINPUT;
}

void bsf_log(bsf_log_level_t level, const char *module, const char *fmt, ...)
{
    static const char *const tags[] = {"ERROR", "WARN", "INFO", "DEBUG"};
    if ((int)level > atomic_load_explicit(&current_level, memory_order_relaxed))
        return;
    char line[1024], ts[32];
    bsf_time_format_rfc3339((int64_t)bsf_clock_wall_ms(), ts);
    int n = snprintf(line, sizeof line, "%s %s %s: ", ts, tags[level], module);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* One fputs per line keeps lines from different threads whole. */
    size_t len = strlen(line);
    if (len < sizeof line - 1) {
        line[len] = '\n';
        line[len + 1] = '\0';
    }
    fputs(line, stderr);
}
