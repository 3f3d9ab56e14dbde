/* The characters of a plain name: ASCII letters, digits, '-', '.' and '_'. Diameter identities
 * in the Rx configuration and Kafka topic names are limited to them.
 *
 * Any thread; no state. */
#ifndef BSF_COMMON_NAME_CHARS_H
#define BSF_COMMON_NAME_CHARS_H

#include <stdbool.h>
#include <stddef.h>

/* True when each of the `n` bytes at `s` is a name character (n == 0: true; the caller checks
 * the length it needs). */
bool bsf_name_chars_only(const char *s, size_t n);

#endif
