/* libFuzzer target: a POST /pcf-mbs-bindings body (PcfMbsBinding, with its MbsSessionId)
 * through the gateway's path: JSON -> msgpack -> decode -> rules -> canonical encode, which
 * must decode to itself; the same bytes as a PcfMbsBindingPatch on a fixed binding. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/pcf_mbs_binding.h"
#include "tests/fuzz/fuzz_doc_fixed_point.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char BASE[] =
    "{\"mbsSessionId\":{\"tmgi\":{\"mbsServiceId\":\"00AA01\",\"plmnId\":{\"mcc\":\"001\","
    "\"mnc\":\"01\"}}},\"pcfFqdn\":\"pcf.example.com\"}";

FZ_DOC_ADAPTERS(bsf_pcf_mbs_binding)
FZ_DOC_PATCH_ADAPTERS(bsf_pcf_mbs_binding)

static void check_again(const void *again_v, const void *b_v)
{
    const bsf_pcf_mbs_binding_t *again = again_v, *b = b_v;
    char keys[2][BSF_MBS_KEY_MAX];
    if (!bsf_mbs_session_id_keys(&again->mbs_session_id, keys) ||
        !bsf_mbs_session_id_matches(&again->mbs_session_id, &b->mbs_session_id))
        abort(); /* a session always has a key and matches itself */
}

static const fz_doc_kind_t kind = {
    FZ_DOC_FIELDS(bsf_pcf_mbs_binding),
    .check_again = check_again,
    FZ_DOC_PATCH_FIELDS(bsf_pcf_mbs_binding, BASE),
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_doc_run(&kind, data, size);
    return 0;
}
