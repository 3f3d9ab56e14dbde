/* libFuzzer target: a PATCH merge-patch body applied to a fixed binding. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/pcf_binding_patch.h"
#include "gateways/sbi/json_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char BASE[] =
    "{\"supi\":\"imsi-001010000000001\",\"ipv4Addr\":\"10.0.0.1\",\"ipDomain\":\"d\","
    "\"dnn\":\"internet\",\"snssai\":{\"sst\":1},\"pcfFqdn\":\"pcf.example.com\"}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    msgpack_sbuffer doc, base_doc;
    msgpack_zone zone;
    msgpack_sbuffer_init(&doc);
    msgpack_sbuffer_init(&base_doc);
    msgpack_zone_init(&zone, 4096);
    msgpack_object base_obj, obj;
    bsf_problem_t problem;
    bsf_pcf_binding_t base, result;
    bsf_pcf_binding_patch_t patch;
    if (bsf_json_to_msgpack(BASE, strlen(BASE), &base_doc, &zone, &base_obj, &problem) ||
        bsf_pcf_binding_decode(&base_obj, &zone, &base, &problem))
        abort();
    if (bsf_json_to_msgpack((const char *)data, size, &doc, &zone, &obj, &problem) == 0 &&
        bsf_pcf_binding_patch_decode(&obj, &zone, &patch, &problem) == 0) {
        bsf_pcf_binding_patch_apply(&base, &patch, &result);
        (void)bsf_pcf_binding_check_rules(&result, &problem);
    }
    msgpack_zone_destroy(&zone);
    msgpack_sbuffer_destroy(&doc);
    msgpack_sbuffer_destroy(&base_doc);
    return 0;
}
