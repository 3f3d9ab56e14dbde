/* libFuzzer target: answers the SBI client decodes (ProblemDetails bodies, Retry-After). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/sbi/problem_decode.h"
#include "gateways/sbi/sbi_retry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bsf_sbi_problem_t p;
    if (bsf_sbi_problem_decode((const char *)data, size, &p) == 0 && p.status != 0 &&
        (p.status < 100 || p.status > 599))
        abort();
    char text[256];
    size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = '\0';
    if (bsf_sbi_retry_after_ms(text, 1564908577000) < -1)
        abort();
    return 0;
}
