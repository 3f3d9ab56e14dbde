#include "common/duration_text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    uint64_t ms;
} unit_t;

/* Largest first: bsf_duration_format takes the first that divides; "ms" before "m" matters
 * only for the parse, which matches whole unit names. */
static const unit_t units[] = {
    {"d", 86400000u}, {"h", 3600000u}, {"m", 60000u}, {"s", 1000u}, {"ms", 1u},
};
#define N_UNITS (sizeof units / sizeof units[0])

/* The unit at `p` (its index), or -1; `len` is the name's length. */
static int match_unit(const char *p, size_t *len)
{
    size_t n = 0;
    while (p[n] >= 'a' && p[n] <= 'z')
        n++;
    for (size_t i = 0; i < N_UNITS; i++)
        if (n && strlen(units[i].name) == n && memcmp(p, units[i].name, n) == 0) {
            *len = n;
            return (int)i;
        }
    return -1;
}

int bsf_duration_parse(const char *s, uint64_t *ms)
{
    if (strcmp(s, "0") == 0) {
        *ms = 0;
        return 0;
    }
    uint64_t total = 0;
    int prev = -1;
    const char *p = s;
    if (!*p)
        return -EINVAL;
    while (*p) {
        if (*p < '0' || *p > '9')
            return -EINVAL;
        uint64_t v = 0;
        for (; *p >= '0' && *p <= '9'; p++) {
            if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
                return -ERANGE;
            v = v * 10 + (uint64_t)(*p - '0');
        }
        size_t len;
        int u = match_unit(p, &len);
        if (u < 0 || u <= prev)
            return -EINVAL; /* no unit, an unknown one, or `5m1h` / `1s1s` */
        if (v > UINT64_MAX / units[u].ms || total > UINT64_MAX - v * units[u].ms)
            return -ERANGE;
        total += v * units[u].ms;
        prev = u;
        p += len;
    }
    *ms = total;
    return 0;
}

char *bsf_duration_format(uint64_t ms, char *out)
{
    if (ms == 0) {
        snprintf(out, BSF_DURATION_TEXT_MAX, "0");
        return out;
    }
    for (size_t i = 0; i < N_UNITS; i++)
        if (ms % units[i].ms == 0) {
            snprintf(out, BSF_DURATION_TEXT_MAX, "%" PRIu64 "%s", ms / units[i].ms,
                     units[i].name);
            break;
        }
    return out;
}
