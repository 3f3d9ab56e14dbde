#include "core/features.h"

#include "core/bytes.h"

#include <string.h>

static unsigned nibble(const char *hex, size_t len, size_t index_from_right)
{
    if (index_from_right >= len)
        return 0;
    int v = bsf_hex_value(hex[len - 1 - index_from_right]);
    return v < 0 ? 0 : (unsigned)v;
}

bool bsf_features_has(const char *hex, unsigned feature)
{
    if (!hex || feature == 0)
        return false;
    unsigned bit = feature - 1;
    return (nibble(hex, strlen(hex), bit / 4) >> (bit % 4)) & 1;
}

void bsf_features_intersect(const char *a, const char *b, char *out, size_t cap)
{
    static const char digits[] = "0123456789abcdef";
    size_t la = strlen(a), lb = strlen(b);
    size_t n = la < lb ? la : lb;
    while (n > 1 && (nibble(a, la, n - 1) & nibble(b, lb, n - 1)) == 0)
        n--;
    if (cap == 0)
        return;
    if (n == 0 || n + 1 > cap) {
        out[0] = cap > 1 ? '0' : '\0';
        if (cap > 1)
            out[1] = '\0';
        return;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = digits[nibble(a, la, n - 1 - i) & nibble(b, lb, n - 1 - i)];
    out[n] = '\0';
}
