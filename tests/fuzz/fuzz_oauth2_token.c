/* libFuzzer target: the Authorization header of an Nbsf_Management request, checked with
 * signatures off so that every input reaches the JOSE header and claims parsers. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/sbi/sbi_oauth2.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bsf_oauth2_t *o;
    if (!o) {
        bsf_oauth2_settings_t s = {NULL, false, "5a1b9c3e-0d7f-4b2a-9e61-3c8d2f4a7b10", "set1",
                                   "001-01"};
        char err[256];
        if (bsf_oauth2_create(&s, &o, err, sizeof err))
            abort();
    }
    char *header = malloc(size + 8);
    if (!header)
        return 0;
    memcpy(header, "Bearer ", 7);
    memcpy(header + 7, data, size);
    header[size + 7] = '\0';
    char why[128];
    bsf_oauth2_verdict_t v = bsf_oauth2_check(o, header, 1800000000, why, sizeof why);
    if (v != BSF_OAUTH2_OK && v != BSF_OAUTH2_NO_TOKEN && v != BSF_OAUTH2_INVALID_TOKEN &&
        v != BSF_OAUTH2_INSUFFICIENT_SCOPE)
        abort();
    free(header);
    return 0;
}
