/* CPU lists of `diameter.cpus` (see rx_cpus.h). */
#include "gateways/diameter/rx_cpus.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text_list.h"

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
    bool cut;
    for (const char *cursor = list; bsf_text_list_next(&cursor, item, sizeof item, &cut);) {
        const char *p = item;
        long first = cpu_number(&p), last = first;
        if (first >= 0 && *p == '-') {
            p++;
            last = cpu_number(&p);
        }
        if (cut || first < 0 || last < first || *p) {
            snprintf(why, cap, "'%.32s' is not a CPU number or range (e.g. 0, 2-3) below %d", item,
                     CPU_SETSIZE);
            return -1;
        }
        for (long c = first; c <= last; c++)
            CPU_SET((int)c, out);
    }
    return CPU_COUNT(out);
}
