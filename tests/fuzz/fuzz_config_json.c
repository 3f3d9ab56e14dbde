/* libFuzzer target: the runtime configuration's JSON (bsfd/config_json): a document of the
 * management API walked into bsf_config_set_json, then the checks; and the configuration it
 * gives must render back to JSON that walks again. Every refusal says why. */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bsfd/config_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bsf_config_t cfg; /* large: not on the stack */
static char err[512];

static void check_error(void)
{
    if (!err[0] || !memchr(err, '\0', sizeof err))
        abort();
}

static int set_leaf(void *ctx, const char *name, json_t *value)
{
    (void)ctx;
    if (json_is_null(value))
        return 0; /* a merge patch's removal: the API handles it, not the setter */
    return bsf_config_set_json(&cfg, name, value, err, sizeof err);
}

static int count_leaf(void *ctx, const char *name, json_t *value)
{
    (void)name;
    (void)value;
    (*(size_t *)ctx)++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *doc = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
    err[0] = '\0';
    bsf_config_defaults(&cfg);
    if (json_is_object(doc)) {
        if (bsf_config_json_walk(doc, set_leaf, NULL, err, sizeof err))
            check_error();
        else if (bsf_config_finish(&cfg, err, sizeof err))
            check_error();
        json_t *out = bsf_config_to_json(&cfg);
        size_t n = 0;
        if (!out || bsf_config_json_walk(out, count_leaf, &n, err, sizeof err) || !n)
            abort(); /* every configuration renders and walks */
        json_decref(out);
    }
    json_decref(doc);
    return 0;
}
