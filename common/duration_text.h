/* Durations as text: a number and a unit (`250ms`, `30s`, `5m`, `12h`, `7d`), or several in
 * decreasing order of unit (`1h30m`); a bare `0` is zero. Pure functions, any thread. */
#ifndef BSF_COMMON_DURATION_TEXT_H
#define BSF_COMMON_DURATION_TEXT_H

#include <stddef.h>
#include <stdint.h>

#define BSF_DURATION_TEXT_MAX 32 /* bsf_duration_format's longest output, NUL included */

/* Parses `s` into milliseconds. Returns 0, or -EINVAL (no unit, an unknown unit, units not in
 * decreasing order, a sign, blanks) or -ERANGE (more than UINT64_MAX ms); *ms is unchanged
 * on failure. */
int bsf_duration_parse(const char *s, uint64_t *ms);

/* Writes `ms` with the largest unit that divides it (`7d`, `90m`, `1500ms`, `0`) into `out`
 * (at least BSF_DURATION_TEXT_MAX bytes). Returns out. */
char *bsf_duration_format(uint64_t ms, char *out);

#endif
