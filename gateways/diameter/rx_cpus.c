/* CPU lists of `diameter.cpus` (see rx_cpus.h). */
#include "gateways/diameter/rx_cpus.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A CPU number at *p (digits only), below CPU_SETSIZE; advances *p. */
static long cpu_number(const char **p)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    char *end = NULL;
    long v = strtol(*p, &end, 10);
    *p = end;
    return v < CPU_SETSIZE ? v : -1;
}

int bsf_rx_cpus_parse(const char *list, cpu_set_t *out, char *why, size_t cap)
{
    CPU_ZERO(out);
    char item[64];
    for (const char *cursor = list; cursor && *cursor;) {
        size_t n = strcspn(cursor, "\n");
        snprintf(item, sizeof item, "%.*s", (int)(n < sizeof item ? n : sizeof item - 1), cursor);
        cursor += n;
        if (*cursor)
            cursor++;
        const char *p = item;
        long first = cpu_number(&p), last = first;
        if (first >= 0 && *p == '-') {
            p++;
            last = cpu_number(&p);
        }
        if (n >= sizeof item || first < 0 || last < first || *p) {
            snprintf(why, cap, "'%.*s' is not a CPU number or range (e.g. 0, 2-3) below %d",
                     (int)(n < 32 ? n : 32), item, CPU_SETSIZE);
            return -1;
        }
        for (long c = first; c <= last; c++)
            CPU_SET((int)c, out);
    }
    return CPU_COUNT(out);
}
