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

FZ_DOC_ADAPTERS(bsf_pcf_ue_binding)
FZ_DOC_PATCH_ADAPTERS(bsf_pcf_ue_binding)

static const fz_doc_kind_t kind = {
    FZ_DOC_FIELDS(bsf_pcf_ue_binding),
    FZ_DOC_PATCH_FIELDS(bsf_pcf_ue_binding, BASE),
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_doc_run(&kind, data, size);
    return 0;
}
