/* The fuzz targets' shared harness (fuzz_support.h). */
#include "tests/fuzz/fuzz_support.h"

#include <stdlib.h>
#include <string.h>

char *fz_cstring(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return NULL;
    memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

void fz_with_zone(const uint8_t *data, size_t size, size_t chunk,
                  void (*check)(const char *text, size_t len, msgpack_zone *zone))
{
    msgpack_zone zone;
    msgpack_zone_init(&zone, chunk);
    check((const char *)data, size, &zone);
    msgpack_zone_destroy(&zone);
}

bool fz_parsed(int rc, const bsf_problem_t *problem)
{
    if (rc != 0 && problem->cause == BSF_CAUSE_NONE)
        abort(); /* every refusal names a cause */
    return rc == 0;
}
