/* A growable text buffer for building responses (metrics, JSON written by hand). */
#ifndef BSF_COMMON_TEXT_H
#define BSF_COMMON_TEXT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *data; /* NUL-terminated when len > 0 */
    size_t len, cap;
    bool failed; /* an allocation failed; the content is incomplete */
} bsf_text_t;

/* Appends; on allocation failure sets `failed` and keeps what was there. The buffer is the
 * caller's (one thread at a time), freed with bsf_text_free. */
void bsf_text_printf(bsf_text_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bsf_text_free(bsf_text_t *t);

#endif
