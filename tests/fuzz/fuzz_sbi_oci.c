/* libFuzzer target: 3gpp-Sbi-Oci values from producers (sbi_oci.h), and the admission
 * settings' list parsers (admission_rules.h) on the same bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/admission/admission_rules.h"
#include "gateways/sbi/sbi_oci.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bsf_sbi_oci_t o;
    if (bsf_sbi_oci_parse((const char *)data, size, &o) == 0) {
        /* what parses has a time, a metric in range and a scope; it formats back */
        char v[BSF_SBI_OCI_MAX + BSF_SBI_OCI_SCOPE_MAX];
        if (o.ts_ms < 0 || o.metric > 100 || !o.scope[0] || !o.scope_kind[0])
            abort();
        if (bsf_sbi_oci_format((uint64_t)o.ts_ms, o.validity_s, o.metric, o.scope, v,
                               sizeof v) == 0 && o.ts_ms < 253402300800000ll)
            abort();
    }
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char why[256];
    uint32_t four[BSF_ADM_LEVELS], ops[BSF_ADM_OP_COUNT] = {0};
    uint8_t pct[BSF_ADM_LEVELS][BSF_ADM_PRIORITY_MAX + 1];
    bsf_adm_overload_thresholds_t ov;
    if (bsf_adm_parse_levels(text, 100, four, why, sizeof why) == 0 &&
        !(four[0] < four[1] && four[1] < four[2] && four[2] < four[3]))
        abort();
    bsf_adm_parse_discard_priorities(text, four, why, sizeof why);
    bsf_adm_parse_percentages(text, pct, why, sizeof why);
    if (bsf_adm_parse_overload(text, 100, &ov, why, sizeof why) == 0 &&
        (ov.abatement[0] > ov.onset[0] || ov.onset[2] > 100))
        abort();
    bsf_adm_parse_op_values(text, 31, ops, why, sizeof why);
    (void)bsf_adm_priority_parse(text);
    free(text);
    return 0;
}
