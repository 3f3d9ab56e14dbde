/* libFuzzer target: the Nnrf_NFDiscovery SearchResult the audit picks an alternate PCF from
 * (gateways/sbi/audit_pcf_client.h). Whatever comes back is an absolute http(s) API root. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/sbi/audit_pcf_client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const exclude[] = {"PCF-5a1c6a4e-0000-4000-8000-000000000001",
                                          "127.0.0.1:80"};
    char root[512];
    if (bsf_audit_pick_alternate((const char *)data, size, exclude, 2, root, sizeof root) == 0 &&
        strncmp(root, "http://", 7) != 0 && strncmp(root, "https://", 8) != 0)
        abort();
    return 0;
}
