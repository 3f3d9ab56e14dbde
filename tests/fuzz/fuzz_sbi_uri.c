/* libFuzzer target: URIs the SBI client is given or redirected to (Location). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/sbi/sbi_uri.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[128];
    bsf_sbi_uri_t u, base, out;
    if (bsf_sbi_uri_parse((const char *)data, size, &u, err, sizeof err) == 0) {
        /* what parses has a host, a port and a path starting with '/' */
        if (!u.host[0] || u.port == 0 || u.path[0] != '/')
            abort();
    }
    if (bsf_sbi_uri_parse("https://nrf.example:8443/a/b", 28, &base, err, sizeof err))
        abort();
    if (bsf_sbi_uri_resolve(&base, (const char *)data, size, &out, err, sizeof err) == 0 &&
        out.path[0] != '/')
        abort();
    return 0;
}
