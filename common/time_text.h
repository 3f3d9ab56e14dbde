/* Times as text for logs, bodies and tools. */
#ifndef BSF_COMMON_TIME_TEXT_H
#define BSF_COMMON_TIME_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Writes "2026-11-30T03:35:54.123Z" (UTC) for `ms` since the Unix epoch; returns the length.
 * Any thread. */
size_t bsf_time_format_rfc3339(int64_t ms, char out[32]);

#endif
