/* libFuzzer target: 3gpp-Sbi-Oci values from producers (sbi_oci.h), and the admission
 * settings' list parsers (admission_rules.h, message_profile.h) on the same bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "gateways/admission/admission_rules.h"
#include "gateways/admission/message_profile.h"
#include "gateways/sbi/sbi_oci.h"
#include "tests/fuzz/fuzz_support.h"

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
    char *text = fz_cstring(data, size);
    if (!text)
        return 0;
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
    static bsf_message_profile_t mp;
    if (bsf_message_profile_parse(text, &mp, why, sizeof why) == 0) {
        /* what parses is sorted, in range, and evaluates to a priority 0..31 or none */
        if (mp.n > BSF_MP_MAX_RULES)
            abort();
        for (size_t i = 0; i < mp.n; i++) {
            const bsf_mp_rule_t *r = &mp.rules[i];
            if ((i && mp.rules[i - 1].rule_priority > r->rule_priority) ||
                r->request_value > 31 || r->response_value > 31)
                abort();
            for (int rcvd = -1; rcvd <= 31; rcvd += 16)
                if (bsf_mp_request_priority(r, rcvd) > 31 ||
                    bsf_mp_response_priority(r, rcvd) > 31)
                    abort();
        }
        (void)bsf_message_profile_match(&mp, BSF_MP_NBSF_MANAGEMENT, BSF_ADM_OP_REGISTER);
    }
    free(text);
    return 0;
}
