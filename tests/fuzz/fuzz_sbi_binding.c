/* libFuzzer target: 3gpp-Sbi-Binding / -Routing-Binding values (gateways/sbi/sbi_binding.h).
 * A parsed value has a level and NUL-terminated parameters without spaces or controls. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/sbi/sbi_binding.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_token(const char *s, size_t cap)
{
    size_t n = strnlen(s, cap);
    if (n == cap)
        abort();
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || s[i] == 0x7f)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bsf_sbi_binding_t b;
    if (bsf_sbi_binding_parse((const char *)data, size, &b) != 0) {
        if (b.level != BSF_BINDING_NONE || bsf_sbi_binding_reselect_set(&b))
            abort();
        return 0;
    }
    if (b.level == BSF_BINDING_NONE)
        abort();
    check_token(b.nf_instance, sizeof b.nf_instance);
    check_token(b.nf_set, sizeof b.nf_set);
    check_token(b.service_name, sizeof b.service_name);
    return 0;
}
