/* The overload and load control headers of TS 29.500 (§5.2.3.3.10 3gpp-Sbi-Oci, §5.2.3.3.9
 * 3gpp-Sbi-Lci, §6.3 and §6.4): their values as the BSF sends them, and the OCI it receives
 * from producers. Pure functions, any thread.
 *
 *   3gpp-Sbi-Oci: Timestamp: "Tue, 04 Feb 2020 08:49:37.845 GMT"; Validity: 60; Metric: 20%;
 *                 NFInst: 54804518-4191-46b3-955c-ac631f953ed8
 *   3gpp-Sbi-Lci: Timestamp: "Tue, 04 Feb 2020 08:49:37.845 GMT"; Metric: 25%;
 *                 NFInst: 54804518-4191-46b3-955c-ac631f953ed8 */
#ifndef BSF_GATEWAYS_SBI_SBI_OCI_H
#define BSF_GATEWAYS_SBI_SBI_OCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BSF_SBI_OCI_MAX 192 /* a header value the BSF writes, NUL included */
#define BSF_SBI_OCI_SCOPE_MAX 128

/* The OCI value for an NF instance. Returns its length, 0 when it does not fit or the time
 * cannot be written. */
size_t bsf_sbi_oci_format(uint64_t ts_ms, uint32_t validity_s, unsigned metric,
                          const char *nf_instance_id, char *out, size_t cap);
/* The LCI value for an NF instance. Returns its length, 0 when it does not fit. */
size_t bsf_sbi_lci_format(uint64_t ts_ms, unsigned metric, const char *nf_instance_id,
                          char *out, size_t cap);

/* A received OCI. The scope is its first scope parameter: kind "NFInst", "NFSet",
 * "NFService", "NFServiceSet", "CallbackUri", "SCP" or "SEPP" and its value. */
typedef struct {
    int64_t ts_ms;
    uint32_t validity_s;
    unsigned metric; /* 0..100 */
    char scope_kind[16];
    char scope[BSF_SBI_OCI_SCOPE_MAX];
} bsf_sbi_oci_t;

/* Parses one OCI value (of `len` bytes). Returns 0, or -1 when a mandatory parameter
 * (Timestamp, Validity, Metric, a scope) is missing or malformed, or the value holds a
 * control byte (NUL, CR, LF, ...; RFC 9110 §5.5). */
int bsf_sbi_oci_parse(const char *value, size_t len, bsf_sbi_oci_t *out);

#endif
