/* Lists as the configuration stores them: items separated by '\n', and the numbers in them.
 * Any thread: the functions read only their arguments. */
#ifndef BSF_COMMON_TEXT_LIST_H
#define BSF_COMMON_TEXT_LIST_H

#include <stdbool.h>
#include <stddef.h>

/* Copies the next item of *cursor into `item` (at most cap - 1 characters) and moves *cursor
 * past it. Returns false at the end of the list. `cut` (may be NULL) tells whether the item
 * was longer than `item` holds. */
bool bsf_text_list_next(const char **cursor, char *item, size_t cap, bool *cut);

/* A decimal number from 0 to `max` at *p (digits only, no sign or space), as the items of
 * rule lists hold them; moves *p past the digits. Returns it, or -1 when *p holds no digit
 * or the number is above `max`. Any thread. */
long bsf_text_list_number(const char **p, long max);

#endif
