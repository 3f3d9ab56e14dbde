/* libFuzzer target: a POST /pcf-ue-bindings body (PcfForUeBinding) through the same path as
 * the gateway: JSON -> msgpack -> decode -> rules -> canonical encode; the canonical form
 * must decode to itself (a fixed point). The same bytes are also tried as a
 * PcfForUeBindingPatch applied to a fixed binding. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/pcf_ue_binding_patch.h"
#include "gateways/sbi/json_codec.h"
#include "tests/fuzz/fuzz_doc_fixed_point.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char BASE[] =
    "{\"supi\":\"imsi-001010000000001\",\"gpsi\":\"msisdn-4912345678\","
    "\"pcfForUeFqdn\":\"pcf.example.com\"}";

static int decode(const msgpack_object *map, msgpack_zone *zone, void *out, bsf_problem_t *p)
{
    return bsf_pcf_ue_binding_decode(map, zone, out, p);
}

static int check_rules(const void *b, bsf_problem_t *p)
{
    return bsf_pcf_ue_binding_check_rules(b, p);
}

static int encode(const void *b, msgpack_packer *pk)
{
    return bsf_pcf_ue_binding_encode(b, pk);
}

static const fz_doc_kind_t kind = {
    .size = sizeof(bsf_pcf_ue_binding_t),
    .decode = decode,
    .check_rules = check_rules,
    .encode = encode,
    .check_again = NULL,
};

static void fixed_point(const bsf_pcf_ue_binding_t *b, msgpack_zone *zone)
{
    fz_doc_fixed_point(&kind, b, zone);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    msgpack_sbuffer doc, base_doc;
    msgpack_zone zone;
    msgpack_sbuffer_init(&doc);
    msgpack_sbuffer_init(&base_doc);
    msgpack_zone_init(&zone, 4096);
    msgpack_object base_obj, obj;
    bsf_problem_t problem;
    bsf_pcf_ue_binding_t base, b, result;
    bsf_pcf_ue_binding_patch_t patch;
    if (bsf_json_to_msgpack(BASE, strlen(BASE), &base_doc, &zone, &base_obj, &problem) ||
        bsf_pcf_ue_binding_decode(&base_obj, &zone, &base, &problem))
        abort();
    if (bsf_json_to_msgpack((const char *)data, size, &doc, &zone, &obj, &problem) == 0) {
        if (bsf_pcf_ue_binding_decode(&obj, &zone, &b, &problem) == 0 &&
            bsf_pcf_ue_binding_check_rules(&b, &problem) == 0)
            fixed_point(&b, &zone);
        if (bsf_pcf_ue_binding_patch_decode(&obj, &zone, &patch, &problem) == 0) {
            bsf_pcf_ue_binding_patch_apply(&base, &patch, &result);
            if (bsf_pcf_ue_binding_check_rules(&result, &problem))
                abort(); /* nothing can be removed: the result stays valid */
            fixed_point(&result, &zone);
        }
    }
    msgpack_zone_destroy(&zone);
    msgpack_sbuffer_destroy(&doc);
    msgpack_sbuffer_destroy(&base_doc);
    return 0;
}
