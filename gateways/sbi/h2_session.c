/* The nghttp2 glue the HTTP/2 client and server share. */
#include "gateways/sbi/h2_session.h"

#include <stdlib.h>
#include <string.h>

nghttp2_session_callbacks *
bsf_h2_session_callbacks_new(nghttp2_on_header_callback on_header,
                             nghttp2_on_data_chunk_recv_callback on_data_chunk,
                             nghttp2_on_frame_recv_callback on_frame_recv,
                             nghttp2_on_stream_close_callback on_stream_close)
{
    nghttp2_session_callbacks *cbs;
    if (nghttp2_session_callbacks_new(&cbs))
        return NULL;
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close);
    return cbs;
}

ssize_t bsf_h2_body_read(nghttp2_session *session, int32_t stream_id, uint8_t *buf,
                         size_t length, uint32_t *data_flags, nghttp2_data_source *source,
                         void *user_data)
{
    (void)session;
    (void)stream_id;
    (void)user_data;
    bsf_h2_body_t *b = source->ptr;
    size_t left = b->len - b->off;
    size_t n = left < length ? left : length;
    memcpy(buf, b->data + b->off, n);
    b->off += n;
    if (b->off == b->len)
        *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

int bsf_h2_buf_grow(bsf_h2_budget_t *bud, char **data, size_t *cap, size_t need, size_t first)
{
    size_t n = *cap ? *cap : first;
    while (n < need)
        n *= 2;
    char *p = bud ? bsf_h2_budget_realloc(bud, *data, n) : realloc(*data, n);
    if (!p)
        return -1;
    *data = p;
    *cap = n;
    return 0;
}
