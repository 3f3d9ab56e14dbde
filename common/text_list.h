/* Lists as the configuration stores them: items separated by '\n'. */
#ifndef BSF_COMMON_TEXT_LIST_H
#define BSF_COMMON_TEXT_LIST_H

#include <stdbool.h>
#include <stddef.h>

/* Copies the next item of *cursor into `item` (at most cap - 1 characters) and moves *cursor
 * past it. Returns false at the end of the list. `cut` (may be NULL) tells whether the item
 * was longer than `item` holds. */
bool bsf_text_list_next(const char **cursor, char *item, size_t cap, bool *cut);

#endif
