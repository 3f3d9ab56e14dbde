/* libFuzzer target: a POST /pcf-mbs-bindings body (PcfMbsBinding, with its MbsSessionId)
 * through the gateway's path: JSON -> msgpack -> decode -> rules -> canonical encode, which
 * must decode to itself; the same bytes as a PcfMbsBindingPatch on a fixed binding. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/pcf_mbs_binding.h"
#include "gateways/sbi/json_codec.h"
#include "tests/fuzz/fuzz_doc_fixed_point.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char BASE[] =
    "{\"mbsSessionId\":{\"tmgi\":{\"mbsServiceId\":\"00AA01\",\"plmnId\":{\"mcc\":\"001\","
    "\"mnc\":\"01\"}}},\"pcfFqdn\":\"pcf.example.com\"}";

static int decode(const msgpack_object *map, msgpack_zone *zone, void *out, bsf_problem_t *p)
{
    return bsf_pcf_mbs_binding_decode(map, zone, out, p);
}

static int check_rules(const void *b, bsf_problem_t *p)
{
    return bsf_pcf_mbs_binding_check_rules(b, p);
}

static int encode(const void *b, msgpack_packer *pk)
{
    return bsf_pcf_mbs_binding_encode(b, pk);
}

static void check_again(const void *again_v, const void *b_v)
{
    const bsf_pcf_mbs_binding_t *again = again_v, *b = b_v;
    char keys[2][BSF_MBS_KEY_MAX];
    if (!bsf_mbs_session_id_keys(&again->mbs_session_id, keys) ||
        !bsf_mbs_session_id_matches(&again->mbs_session_id, &b->mbs_session_id))
        abort(); /* a session always has a key and matches itself */
}

static const fz_doc_kind_t kind = {
    .size = sizeof(bsf_pcf_mbs_binding_t),
    .decode = decode,
    .check_rules = check_rules,
    .encode = encode,
    .check_again = check_again,
};

static void fixed_point(const bsf_pcf_mbs_binding_t *b, msgpack_zone *zone)
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
    bsf_pcf_mbs_binding_t base, b, result;
    bsf_pcf_mbs_binding_patch_t patch;
    if (bsf_json_to_msgpack(BASE, strlen(BASE), &base_doc, &zone, &base_obj, &problem) ||
        bsf_pcf_mbs_binding_decode(&base_obj, &zone, &base, &problem))
        abort();
    if (bsf_json_to_msgpack((const char *)data, size, &doc, &zone, &obj, &problem) == 0) {
        if (bsf_pcf_mbs_binding_decode(&obj, &zone, &b, &problem) == 0 &&
            bsf_pcf_mbs_binding_check_rules(&b, &problem) == 0)
            fixed_point(&b, &zone);
        if (bsf_pcf_mbs_binding_patch_decode(&obj, &zone, &patch, &problem) == 0) {
            bsf_pcf_mbs_binding_patch_apply(&base, &patch, &result);
            if (bsf_pcf_mbs_binding_check_rules(&result, &problem))
                abort();
            fixed_point(&result, &zone);
        }
    }
    msgpack_zone_destroy(&zone);
    msgpack_sbuffer_destroy(&doc);
    msgpack_sbuffer_destroy(&base_doc);
    return 0;
}
