#include "core/binding_id.h"

#include <string.h>

void bsf_binding_id_make(uint16_t site, uint64_t seq, const uint8_t random[8],
                         bsf_binding_id_t *out)
{
    out->b[0] = (uint8_t)(site >> 8);
    out->b[1] = (uint8_t)site;
    for (int i = 0; i < 6; i++)
        out->b[2 + i] = (uint8_t)(seq >> (8 * (5 - i)));
    memcpy(out->b + 8, random, 8);
}

void bsf_binding_id_format(const bsf_binding_id_t *id, char out[BSF_BINDING_ID_TEXT_LEN + 1])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        out[2 * i] = digits[id->b[i] >> 4];
        out[2 * i + 1] = digits[id->b[i] & 15];
    }
    out[BSF_BINDING_ID_TEXT_LEN] = '\0';
}

static int lower_hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

bool bsf_binding_id_parse(const char *s, size_t n, bsf_binding_id_t *out)
{
    if (n != BSF_BINDING_ID_TEXT_LEN)
        return false;
    for (int i = 0; i < 16; i++) {
        int hi = lower_hex(s[2 * i]), lo = lower_hex(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out->b[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

uint16_t bsf_binding_id_site(const bsf_binding_id_t *id)
{
    return (uint16_t)(id->b[0] << 8 | id->b[1]);
}
