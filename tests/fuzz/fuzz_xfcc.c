/* libFuzzer target: x-forwarded-client-cert values (gateways/sbi/xfcc.h), parsed alone and
 * checked as one or two header fields. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/sbi/xfcc.h"
#include "tests/fuzz/fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *v = (const char *)data;
    bsf_xfcc_t x;
    bsf_xfcc_init(&x);
    if (bsf_xfcc_parse(&x, v, size) == 0) {
        /* what parses has fields inside the input, in order, each in an element */
        if (x.n_elements == 0 || x.n_elements > BSF_XFCC_MAX_ELEMENTS || x.n_fields == 0)
            abort();
        for (size_t i = 0; i < x.n_fields; i++) {
            const bsf_xfcc_field_t *f = &x.fields[i];
            if (f->key < v || f->key + f->key_len > v + size || f->key_len == 0 ||
                f->value < v || f->value + f->value_len > v + size ||
                f->element >= x.n_elements || (i && f->element < x.fields[i - 1].element))
                abort();
            /* an unquoted value equals itself */
            if (!f->quoted && !bsf_xfcc_value_is(f, f->value, f->value_len))
                abort();
        }
    }
    /* the check takes NUL-terminated values: split the input at its first NUL */
    char *copy = fz_cstring(data, size);
    if (!copy)
        return 0;
    size_t first = strlen(copy);
    const char *values[2] = {copy, first < size ? copy + first + 1 : ""};
    bsf_xfcc_settings_t s = {.enabled = true, .match_certs = size % 4, .error_status = 400};
    strcpy(s.peers, "scp1.example.com\nhttp://scp2.example.com");
    strcpy(s.match_field, size % 3 == 0 ? "DNS" : size % 3 == 1 ? "URI" : "By");
    char why[192];
    bsf_xfcc_verdict_t verdict = bsf_xfcc_check(&s, values, first < size ? 2 : 1, why, sizeof why);
    if (verdict != BSF_XFCC_OK && !why[0])
        abort();
    free(copy);
    return 0;
}
