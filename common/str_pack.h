/* Strings copied into one allocation the caller sized: a request or a record kept with its
 * strings after it, freed at once. Any thread: the functions touch the caller's memory only. */
#ifndef BSF_COMMON_STR_PACK_H
#define BSF_COMMON_STR_PACK_H

#include <stddef.h>

/* The bytes bsf_str_pack_put takes for `s`: its length and NUL, 0 for NULL. */
size_t bsf_str_pack_size(const char *s);

/* Copies `s` (with its NUL) to *cursor and moves the cursor past it; returns the copy, or
 * NULL (nothing written) when `s` is NULL. The caller made room: bsf_str_pack_size(s). */
const char *bsf_str_pack_put(char **cursor, const char *s);

#endif
