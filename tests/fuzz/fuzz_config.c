/* libFuzzer target: bsfd's configuration parser. The input is YAML file text, then optionally
 * a NUL byte and `--set` assignments, one a line; the finish checks run when both parsed. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bsfd/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bsf_config_t cfg; /* large: not on the stack */

/* Every refusal says why, and a message always ends within the buffer. */
static void check_error(const char *err, size_t cap)
{
    if (!err[0] || !memchr(err, '\0', cap))
        abort();
}

static int apply_sets(const char *text, size_t len, char *err, size_t cap)
{
    char line[2048];
    while (len) {
        const char *nl = memchr(text, '\n', len);
        size_t n = nl ? (size_t)(nl - text) : len;
        if (n < sizeof line) {
            memcpy(line, text, n);
            line[n] = '\0';
            if (bsf_config_set(&cfg, line, err, cap))
                return -1;
        }
        text += n + (nl ? 1 : 0);
        len -= n + (nl ? 1 : 0);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    size_t yaml_len = nul ? (size_t)(nul - text) : size;
    bsf_config_defaults(&cfg);
    if (bsf_config_load_text(&cfg, "fuzz", text, yaml_len, err, sizeof err)) {
        check_error(err, sizeof err);
        return 0;
    }
    if (nul && apply_sets(nul + 1, size - yaml_len - 1, err, sizeof err)) {
        check_error(err, sizeof err);
        return 0;
    }
    if (bsf_config_finish(&cfg, err, sizeof err))
        check_error(err, sizeof err);
    return 0;
}
