/* Time formats of the SBI: the TS 29.500 header timestamps (IMF-fixdate with milliseconds,
 * "Sun, 04 Aug 2019 08:49:37.845 GMT") and RFC 3339 date-times of JSON members (parsing;
 * formatting is common/time_text.h). */
#ifndef BSF_CORE_SBI_TIME_H
#define BSF_CORE_SBI_TIME_H

#include <stddef.h>
#include <stdint.h>

/* Milliseconds since the Unix epoch, or -1 when the text is not a valid timestamp. Accepted
 * zones: GMT, UTC, IST (+05:30) and PST (-08:00), as seed §3.21 lists. The milliseconds are
 * optional. */
int64_t bsf_sbi_time_parse(const char *s, size_t n);

/* Milliseconds since the Unix epoch of an RFC 3339 date-time ("2026-12-01T10:00:00Z",
 * fractions and offsets allowed), or -1 when the text is not one. */
int64_t bsf_rfc3339_parse_ms(const char *s, size_t n);

#endif
