/* Lists of HTTP status codes; see status_list.h. */
#include "gateways/sbi/status_list.h"

#include <stdlib.h>

int bsf_status_list_parse(const char *list, uint8_t set[BSF_STATUS_LIST_SIZE])
{
    const char *p = list;
    while (*p) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 300 || v > 599 ||
            (*end && *end != ',' && *end != ';' && *end != '\n'))
            return -1;
        set[v] = 1;
        p = *end ? end + 1 : end;
    }
    return 0;
}
