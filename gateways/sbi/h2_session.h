/* What the HTTP/2 client (h2_client.c) and server (h2_server.c) sessions share in their use of
 * nghttp2: the callbacks both ends set, a body sent from memory, the growth of the buffers
 * they gather bytes in, and the store of a stream's header strings.
 *
 * Thread: none of its own; a session and its bodies belong to the thread that runs it. */
#ifndef BSF_GATEWAYS_SBI_H2_SESSION_H
#define BSF_GATEWAYS_SBI_H2_SESSION_H

#include <nghttp2/nghttp2.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gateways/sbi/h2_budget.h"

/* A new set of callbacks with the four both ends set: headers, DATA chunks, complete frames
 * and stream close. The caller adds its own and frees it (nghttp2_session_callbacks_del).
 * Returns NULL when nghttp2 has no memory. */
nghttp2_session_callbacks *
bsf_h2_session_callbacks_new(nghttp2_on_header_callback on_header,
                             nghttp2_on_data_chunk_recv_callback on_data_chunk,
                             nghttp2_on_frame_recv_callback on_frame_recv,
                             nghttp2_on_stream_close_callback on_stream_close);

/* A body nghttp2 sends from memory: `len` bytes at `data` (owned by the stream that holds the
 * body), `off` of them sent so far. */
typedef struct {
    char *data;
    size_t len, off;
} bsf_h2_body_t;

/* The read callback of a data provider whose source.ptr is a bsf_h2_body_t: copies the next
 * bytes (at most `length`) into `buf` and sets EOF with the last. Returns how many it copied;
 * it cannot fail. */
ssize_t bsf_h2_body_read(nghttp2_session *session, int32_t stream_id, uint8_t *buf,
                         size_t length, uint32_t *data_flags, nghttp2_data_source *source,
                         void *user_data);

/* Grows the buffer at *data (*cap bytes, NULL and 0 at first) to hold `need` bytes: its
 * capacity doubled, from `first` when it has none, until it does; through the worker's budget
 * `bud` (the server's buffers), or realloc when `bud` is NULL (the client's). Returns 0, or -1
 * with the buffer as it was when there is no memory. Callers call it only when `need` > *cap,
 * so an append that fits costs no call. */
int bsf_h2_buf_grow(bsf_h2_budget_t *bud, char **data, size_t *cap, size_t need, size_t first);

/* Appends the `n` bytes at `v` and a NUL to a stream's header strings at `buf` (*len bytes
 * used; the caller has made room for n + 1 more). Returns the new string's offset, which the
 * stream keeps instead of a pointer (the server's buffer may move as it grows). Inline: it
 * runs for every header of every stream. */
static inline int bsf_h2_header_put(char *buf, size_t *len, const uint8_t *v, size_t n)
{
    int off = (int)*len;
    memcpy(buf + *len, v, n);
    buf[*len + n] = '\0';
    *len += n + 1;
    return off;
}

#endif
