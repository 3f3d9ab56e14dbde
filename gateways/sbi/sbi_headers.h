/* Values of the TS 29.500 custom headers the SBI client sends: the sender timestamp, the
 * HTTP Date of answers, the User-Agent of an NF (§3.37) and checks of caller-supplied values. Pure functions. */
#ifndef BSF_GATEWAYS_SBI_SBI_HEADERS_H
#define BSF_GATEWAYS_SBI_SBI_HEADERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BSF_SBI_TIME_HEADER_MAX 40

/* A header of a request or an answer of the SBI client; names in lowercase. */
typedef struct {
    const char *name;
    const char *value;
} bsf_sbi_header_t;

/* Writes `ms` (Unix epoch) as TS 29.500 §5.2.3.2.17 wants it: "Sun, 04 Aug 2019 08:49:37.845
 * GMT". Returns the length (29 + 4), 0 when the time cannot be represented. */
size_t bsf_sbi_time_format_header(int64_t ms, char out[BSF_SBI_TIME_HEADER_MAX]);

/* Writes `secs` (Unix epoch) as the HTTP Date header wants it (RFC 9110 §5.6.7 IMF-fixdate,
 * "Sun, 04 Aug 2019 08:49:37 GMT"). Returns the length (29), 0 when the time cannot be
 * represented. */
size_t bsf_sbi_http_date(int64_t secs, char out[BSF_SBI_TIME_HEADER_MAX]);

/* "BSF-<nfInstanceId>" or "BSF-<nfInstanceId> <fqdn>" (fqdn NULL or empty: none).
 * Returns the length, 0 when it does not fit in cap. */
size_t bsf_sbi_user_agent(const char *nf_instance_id, const char *fqdn, char *out, size_t cap);

/* 3gpp-Sbi-Message-Priority is 0..31 (TS 29.500 §6.8.2). */
bool bsf_sbi_priority_valid(int priority);

/* A header value a caller passed on is safe to send: printable ASCII or tab, no CR/LF, not
 * longer than max. */
bool bsf_sbi_header_value_valid(const char *v, size_t max);

#endif
