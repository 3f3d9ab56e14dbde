/* libFuzzer target: a POST /pcf-ue-bindings body (PcfForUeBinding) through the same path as
 * the gateway: JSON -> msgpack -> decode -> rules -> canonical encode; the canonical form
 * must decode to itself (a fixed point). The same bytes are also tried as a
 * PcfForUeBindingPatch applied to a fixed binding. */
#include <stddef.h>
#include <stdint.h>

#include "core/pcf_ue_binding_patch.h"
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

static int patch_decode(const msgpack_object *map, msgpack_zone *zone, void *out,
                        bsf_problem_t *p)
{
    return bsf_pcf_ue_binding_patch_decode(map, zone, out, p);
}

static void patch_apply(const void *base, const void *patch, void *result)
{
    bsf_pcf_ue_binding_patch_apply(base, patch, result);
}

static const fz_doc_kind_t kind = {
    .size = sizeof(bsf_pcf_ue_binding_t),
    .decode = decode,
    .check_rules = check_rules,
    .encode = encode,
    .base = BASE,
    .patch_size = sizeof(bsf_pcf_ue_binding_patch_t),
    .patch_decode = patch_decode,
    .patch_apply = patch_apply,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_doc_run(&kind, data, size);
    return 0;
}
