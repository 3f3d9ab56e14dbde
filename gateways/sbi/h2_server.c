#include "gateways/sbi/h2_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "common/clock.h"
#include "common/diag.h"
#include "common/sockaddr_text.h"

#define READ_BUF_SIZE 65536
#define OUTPUT_HIGH_WATER (4u << 20) /* stop reading while this much output is unsent */
#define HEADER_BYTES_MAX 16384       /* all header strings of one request */

typedef struct post_item {
    void (*fn)(void *arg);
    void *arg;
    struct post_item *next;
} post_item_t;

typedef struct conn conn_t;

struct bsf_h2_worker {
    bsf_h2_server_t *srv;
    unsigned index;
    int fd;
    uv_loop_t loop;
    uv_tcp_t listener;
    uv_async_t async;
    uv_timer_t stop_timer;
    uv_timer_t idle_timer; /* closes idle connections (sbi.idle_timeout_s) */
    size_t n_conns;
    pthread_t thread;
    pthread_mutex_t mu;
    post_item_t *posts_head, *posts_tail;
    bool posts_closed;
    bool drain_requested, stop_requested;
    bool draining, stopping;
    uint64_t stop_deadline_ns;
    conn_t *conns;
    void *state;
};

struct bsf_h2_server {
    bsf_h2_config_t cfg;
    bsf_h2_handler_t handler;
    bsf_h2_worker_t *workers;
    unsigned n_workers;
    uint16_t port;
};

typedef struct {
    char *data;
    size_t len, cap;
} outbuf_t;

struct conn {
    bsf_h2_worker_t *w;
    uv_tcp_t tcp;
    nghttp2_session *session;
    conn_t *prev, *next;
    outbuf_t out, writing;
    uv_write_t wreq;
    bool write_in_flight;
    bool reading;
    bool closing;
    uint64_t last_active_ns; /* last byte received or answer queued */
    bool in_recv; /* inside nghttp2_session_mem_recv: output is flushed after it returns */
    bsf_h2_stream_t *streams; /* open streams, to abandon them if the connection dies */
    bool addrs_known;         /* local and peer are filled in on first use */
    char local[BSF_SOCKADDR_TEXT_MAX], peer[BSF_SOCKADDR_TEXT_MAX];
    char read_buf[READ_BUF_SIZE];
};

struct bsf_h2_stream {
    conn_t *conn;
    bsf_h2_stream_t *prev, *next;
    int32_t id;
    /* Header strings, NUL-terminated, stored back to back. */
    char hbuf[HEADER_BYTES_MAX];
    size_t hlen;
    int method, path, authority, content_type; /* offsets into hbuf, -1 when absent */
    size_t path_len;
    int64_t content_length;
    size_t n_extra;
    int extra_name[BSF_H2_MAX_HEADERS], extra_value[BSF_H2_MAX_HEADERS];
    bool too_many_headers, uri_too_long, headers_overflow;
    char *body;
    size_t body_len, body_cap;
    bool refused;   /* answered by the server, rest of the request ignored */
    bool responded;
    void *pending;
    char *resp;
    size_t resp_len, resp_off;
};

/* ---- output ------------------------------------------------------------------------ */

static void conn_close(conn_t *c);
static void conn_flush(conn_t *c);

static int outbuf_append(outbuf_t *b, const uint8_t *data, size_t len)
{
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 16384;
        while (cap < b->len + len)
            cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p)
            return -1;
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);
static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf);

static void update_reading(conn_t *c)
{
    bool want = !c->closing && c->out.len + c->writing.len < OUTPUT_HIGH_WATER;
    if (want && !c->reading) {
        if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) == 0)
            c->reading = true;
    } else if (!want && c->reading) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        c->reading = false;
    }
}

static void on_write_done(uv_write_t *req, int status)
{
    conn_t *c = req->data;
    c->write_in_flight = false;
    c->writing.len = 0;
    if (status < 0) {
        conn_close(c);
        return;
    }
    conn_flush(c);
}

static void start_write(conn_t *c)
{
    if (c->write_in_flight || c->out.len == 0 || c->closing)
        return;
    outbuf_t tmp = c->writing;
    c->writing = c->out;
    c->out = tmp;
    c->out.len = 0;
    uv_buf_t buf = uv_buf_init(c->writing.data, (unsigned)c->writing.len);
    c->wreq.data = c;
    if (uv_write(&c->wreq, (uv_stream_t *)&c->tcp, &buf, 1, on_write_done) != 0) {
        conn_close(c);
        return;
    }
    c->write_in_flight = true;
}

/* Moves everything nghttp2 wants to send into the output buffer and starts a write; closes
 * the connection when neither side has anything more to say. */
static void conn_flush(conn_t *c)
{
    if (c->closing || c->in_recv)
        return;
    for (;;) {
        const uint8_t *data;
        ssize_t n = nghttp2_session_mem_send(c->session, &data);
        if (n < 0) {
            conn_close(c);
            return;
        }
        if (n == 0)
            break;
        if (outbuf_append(&c->out, data, (size_t)n)) {
            conn_close(c);
            return;
        }
    }
    start_write(c);
    if (!nghttp2_session_want_read(c->session) && !nghttp2_session_want_write(c->session) &&
        !c->write_in_flight && c->out.len == 0) {
        conn_close(c);
        return;
    }
    update_reading(c);
}

/* ---- streams ----------------------------------------------------------------------- */

static const char *hstr(const bsf_h2_stream_t *s, int off)
{
    return off < 0 ? NULL : s->hbuf + off;
}

static int hstore(bsf_h2_stream_t *s, const uint8_t *v, size_t n)
{
    if (s->hlen + n + 1 > sizeof s->hbuf) {
        s->headers_overflow = true;
        return -1;
    }
    int off = (int)s->hlen;
    memcpy(s->hbuf + s->hlen, v, n);
    s->hbuf[s->hlen + n] = '\0';
    s->hlen += n + 1;
    return off;
}

/* Unlinks and frees; tells the handler when an answer was still pending. */
static void stream_free(bsf_h2_stream_t *s)
{
    conn_t *c = s->conn;
    if (s->prev)
        s->prev->next = s->next;
    else
        c->streams = s->next;
    if (s->next)
        s->next->prev = s->prev;
    if (s->pending) {
        bsf_h2_server_t *srv = c->w->srv;
        srv->handler.abandon(srv->handler.ctx, s->pending);
    }
    free(s->body);
    free(s->resp);
    free(s);
}

static ssize_t resp_read(nghttp2_session *session, int32_t stream_id, uint8_t *buf,
                         size_t length, uint32_t *data_flags, nghttp2_data_source *source,
                         void *user_data)
{
    (void)session;
    (void)stream_id;
    (void)user_data;
    bsf_h2_stream_t *s = source->ptr;
    size_t left = s->resp_len - s->resp_off;
    size_t n = left < length ? left : length;
    memcpy(buf, s->resp + s->resp_off, n);
    s->resp_off += n;
    if (s->resp_off == s->resp_len)
        *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

void bsf_h2_respond(bsf_h2_stream_t *s, int status, const char *content_type,
                    const bsf_h2_header_t *headers, size_t n_headers, const void *body,
                    size_t body_len)
{
    if (s->responded)
        return;
    s->responded = true;
    s->pending = NULL;
    char status_text[4];
    snprintf(status_text, sizeof status_text, "%03d", status);
    nghttp2_nv nva[BSF_H2_MAX_HEADERS + 3];
    size_t n = 0;
#define NV(nm, val)                                                                            \
    nva[n++] = (nghttp2_nv){(uint8_t *)(nm), (uint8_t *)(val), strlen(nm), strlen(val),       \
                            NGHTTP2_NV_FLAG_NONE}
    NV(":status", status_text);
    if (content_type && body_len)
        NV("content-type", content_type);
    for (size_t i = 0; i < n_headers && n < sizeof nva / sizeof nva[0]; i++)
        NV(headers[i].name, headers[i].value);
#undef NV
    nghttp2_data_provider prd = {.source.ptr = s, .read_callback = resp_read};
    if (body_len) {
        s->resp = malloc(body_len);
        if (!s->resp)
            body_len = 0;
        else
            memcpy(s->resp, body, body_len);
        s->resp_len = body_len;
    }
    nghttp2_submit_response(s->conn->session, s->id, nva, n, body_len ? &prd : NULL);
    conn_flush(s->conn);
}

void bsf_h2_stream_info(bsf_h2_stream_t *s, bsf_h2_stream_info_t *out)
{
    conn_t *c = s->conn;
    if (!c->addrs_known) {
        struct sockaddr_storage ss;
        int len = sizeof ss;
        if (uv_tcp_getsockname(&c->tcp, (struct sockaddr *)&ss, &len) == 0)
            bsf_sockaddr_format(&ss, c->local, sizeof c->local);
        len = sizeof ss;
        if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &len) == 0)
            bsf_sockaddr_format(&ss, c->peer, sizeof c->peer);
        c->addrs_known = true;
    }
    *out = (bsf_h2_stream_info_t){hstr(s, s->method), hstr(s, s->path), c->local, c->peer};
}

void bsf_h2_stream_set_pending(bsf_h2_stream_t *s, void *pending)
{
    s->pending = pending;
}

static void refuse(bsf_h2_stream_t *s, bsf_h2_reject_t why)
{
    if (s->refused || s->responded)
        return;
    s->refused = true;
    bsf_h2_server_t *srv = s->conn->w->srv;
    srv->handler.reject(srv->handler.ctx, s->conn->w, s, why);
}

static bool method_has_body(const char *m)
{
    return m && (strcmp(m, "POST") == 0 || strcmp(m, "PATCH") == 0 || strcmp(m, "PUT") == 0);
}

/* Headers complete: refuse what can be refused before any body byte is read. */
static void headers_complete(bsf_h2_stream_t *s, bool end_stream)
{
    const bsf_h2_config_t *cfg = &s->conn->w->srv->cfg;
    if (s->uri_too_long)
        refuse(s, BSF_H2_REJECT_URI_TOO_LONG);
    else if (s->too_many_headers || s->headers_overflow)
        refuse(s, BSF_H2_REJECT_HEADERS_TOO_MANY);
    else if (s->content_length > (int64_t)cfg->max_body_bytes)
        refuse(s, BSF_H2_REJECT_BODY_TOO_LARGE);
    else if (!end_stream && s->content_length < 0 && method_has_body(hstr(s, s->method)))
        refuse(s, BSF_H2_REJECT_LENGTH_REQUIRED);
}

static void dispatch(bsf_h2_stream_t *s)
{
    if (s->refused || s->responded)
        return;
    bsf_h2_worker_t *w = s->conn->w;
    if (method_has_body(hstr(s, s->method)) && s->content_length < 0) {
        refuse(s, BSF_H2_REJECT_LENGTH_REQUIRED);
        return;
    }
    bsf_h2_request_t r = {
        .method = hstr(s, s->method),
        .path = hstr(s, s->path),
        .path_len = s->path_len,
        .authority = hstr(s, s->authority),
        .content_type = hstr(s, s->content_type),
        .content_length = s->content_length,
        .body = s->body,
        .body_len = s->body_len,
        .n_headers = s->n_extra,
        .received_ns = bsf_clock_mono_ns(),
    };
    if (!r.method || !r.path) {
        nghttp2_submit_rst_stream(s->conn->session, NGHTTP2_FLAG_NONE, s->id,
                                  NGHTTP2_PROTOCOL_ERROR);
        return;
    }
    for (size_t i = 0; i < s->n_extra; i++)
        r.headers[i] = (bsf_h2_header_t){hstr(s, s->extra_name[i]), hstr(s, s->extra_value[i])};
    w->srv->handler.handle(w->srv->handler.ctx, w, s, &r);
}

/* ---- nghttp2 callbacks ------------------------------------------------------------- */

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame, void *user)
{
    conn_t *c = user;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    bsf_h2_stream_t *s = calloc(1, sizeof *s);
    if (!s)
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    s->conn = c;
    s->id = frame->hd.stream_id;
    s->method = s->path = s->authority = s->content_type = -1;
    s->content_length = -1;
    s->next = c->streams;
    if (c->streams)
        c->streams->prev = s;
    c->streams = s;
    nghttp2_session_set_stream_user_data(session, s->id, s);
    return 0;
}

static bool name_is(const uint8_t *name, size_t n, const char *lit)
{
    return n == strlen(lit) && memcmp(name, lit, n) == 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name,
                     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                     void *user)
{
    (void)flags;
    (void)user;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    bsf_h2_stream_t *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (!s)
        return 0;
    if (name_is(name, namelen, ":method"))
        s->method = hstore(s, value, valuelen);
    else if (name_is(name, namelen, ":path")) {
        if (valuelen > s->conn->w->srv->cfg.max_uri_bytes)
            s->uri_too_long = true;
        else {
            s->path = hstore(s, value, valuelen);
            s->path_len = valuelen;
        }
    } else if (name_is(name, namelen, ":authority"))
        s->authority = hstore(s, value, valuelen);
    else if (name_is(name, namelen, "content-type"))
        s->content_type = hstore(s, value, valuelen);
    else if (name_is(name, namelen, "content-length")) {
        int64_t v = 0;
        bool ok = valuelen > 0 && valuelen <= 18;
        for (size_t i = 0; ok && i < valuelen; i++) {
            ok = value[i] >= '0' && value[i] <= '9';
            v = v * 10 + (value[i] - '0');
        }
        /* nghttp2 itself rejects a malformed content-length; keep the guard anyway. */
        s->content_length = ok ? v : INT64_MAX;
    } else if (namelen > 0 && name[0] != ':') {
        if (s->n_extra == BSF_H2_MAX_HEADERS) {
            s->too_many_headers = true;
            return 0;
        }
        int n = hstore(s, name, namelen), v = hstore(s, value, valuelen);
        if (n >= 0 && v >= 0) {
            s->extra_name[s->n_extra] = n;
            s->extra_value[s->n_extra] = v;
            s->n_extra++;
        }
    }
    return 0;
}

static int on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id,
                         const uint8_t *data, size_t len, void *user)
{
    (void)flags;
    (void)user;
    bsf_h2_stream_t *s = nghttp2_session_get_stream_user_data(session, stream_id);
    if (!s || s->refused || s->responded)
        return 0;
    size_t max = s->conn->w->srv->cfg.max_body_bytes;
    if (s->body_len + len > max) {
        refuse(s, BSF_H2_REJECT_BODY_TOO_LARGE);
        return 0;
    }
    if (s->body_len + len > s->body_cap) {
        size_t cap = s->body_cap ? s->body_cap * 2 : 1024;
        while (cap < s->body_len + len)
            cap *= 2;
        if (cap > max)
            cap = max;
        char *p = realloc(s->body, cap);
        if (!p)
            return NGHTTP2_ERR_CALLBACK_FAILURE;
        s->body = p;
        s->body_cap = cap;
    }
    memcpy(s->body + s->body_len, data, len);
    s->body_len += len;
    return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user)
{
    (void)user;
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA)
        return 0;
    bsf_h2_stream_t *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (!s)
        return 0;
    bool end = frame->hd.flags & NGHTTP2_FLAG_END_STREAM;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST)
        headers_complete(s, end);
    if (end)
        dispatch(s);
    return 0;
}

/* Once the answer to a refused request is out, a reset (NO_ERROR, RFC 9113 §8.1) stops the
 * peer from sending the rest of a body nobody will read. Sent earlier, the reset would
 * discard the queued answer. */
static int on_frame_send(nghttp2_session *session, const nghttp2_frame *frame, void *user)
{
    (void)user;
    if (!(frame->hd.flags & NGHTTP2_FLAG_END_STREAM) ||
        (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA))
        return 0;
    bsf_h2_stream_t *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (s && s->refused && !nghttp2_session_get_stream_remote_close(session, s->id))
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_NO_ERROR);
    return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code,
                           void *user)
{
    (void)error_code;
    (void)user;
    bsf_h2_stream_t *s = nghttp2_session_get_stream_user_data(session, stream_id);
    if (!s)
        return 0;
    nghttp2_session_set_stream_user_data(session, stream_id, NULL);
    stream_free(s);
    return 0;
}

static nghttp2_session_callbacks *make_callbacks(void)
{
    nghttp2_session_callbacks *cbs;
    if (nghttp2_session_callbacks_new(&cbs))
        return NULL;
    nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, on_data_chunk);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs, on_frame_recv);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_stream_close);
    nghttp2_session_callbacks_set_on_frame_send_callback(cbs, on_frame_send);
    return cbs;
}

/* ---- connections ------------------------------------------------------------------- */

static void on_conn_closed(uv_handle_t *h)
{
    conn_t *c = h->data;
    free(c->out.data);
    free(c->writing.data);
    free(c);
}

static void conn_close(conn_t *c)
{
    if (c->closing)
        return;
    c->closing = true;
    if (c->prev)
        c->prev->next = c->next;
    else
        c->w->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->w->n_conns--;
    /* The streams still open die with the connection: detach them from the session first
     * so that no nghttp2 callback sees them again. */
    while (c->streams) {
        nghttp2_session_set_stream_user_data(c->session, c->streams->id, NULL);
        stream_free(c->streams);
    }
    nghttp2_session_del(c->session);
    c->session = NULL;
    uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    conn_t *c = h->data;
    *buf = uv_buf_init(c->read_buf, sizeof c->read_buf);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    conn_t *c = stream->data;
    if (nread < 0) {
        conn_close(c);
        return;
    }
    if (nread == 0)
        return;
    c->last_active_ns = bsf_clock_mono_ns();
    c->in_recv = true;
    ssize_t rv = nghttp2_session_mem_recv(c->session, (const uint8_t *)buf->base, (size_t)nread);
    c->in_recv = false;
    if (rv < 0) {
        BSF_DEBUG("sbi", "HTTP/2 error from peer: %s", nghttp2_strerror((int)rv));
        conn_close(c);
        return;
    }
    conn_flush(c);
}

static void on_connection(uv_stream_t *listener, int status)
{
    bsf_h2_worker_t *w = listener->data;
    if (status < 0 || w->draining)
        return;
    conn_t *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->last_active_ns = bsf_clock_mono_ns();
    c->w = w;
    uv_tcp_init(&w->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(listener, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    nghttp2_session_callbacks *cbs = make_callbacks();
    if (!cbs || nghttp2_session_server_new(&c->session, cbs, c)) {
        nghttp2_session_callbacks_del(cbs);
        uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
        return;
    }
    nghttp2_session_callbacks_del(cbs);
    if (w->srv->cfg.max_connections && w->n_conns >= w->srv->cfg.max_connections) {
        /* Over the limit: refuse at once rather than let one client exhaust the worker. */
        nghttp2_session_del(c->session);
        uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
        return;
    }
    w->n_conns++;
    c->next = w->conns;
    if (w->conns)
        w->conns->prev = c;
    w->conns = c;
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, w->srv->cfg.max_concurrent_streams},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, HEADER_BYTES_MAX},
    };
    if (nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, iv, 2)) {
        conn_close(c);
        return;
    }
    conn_flush(c);
}

/* ---- worker thread ----------------------------------------------------------------- */

static void run_posts(bsf_h2_worker_t *w)
{
    pthread_mutex_lock(&w->mu);
    post_item_t *items = w->posts_head;
    w->posts_head = w->posts_tail = NULL;
    pthread_mutex_unlock(&w->mu);
    while (items) {
        post_item_t *next = items->next;
        items->fn(items->arg);
        free(items);
        items = next;
    }
}

static bool has_pending_output(bsf_h2_worker_t *w)
{
    for (conn_t *c = w->conns; c; c = c->next)
        if (c->write_in_flight || c->out.len || (c->session && nghttp2_session_want_write(c->session)))
            return true;
    return false;
}

/* Once a second: connections with no open stream and no traffic for idle_timeout_ms get a
 * GOAWAY and are closed (slow or abandoned clients must not hold workers' resources). */
static void check_idle(uv_timer_t *t)
{
    bsf_h2_worker_t *w = t->data;
    uint64_t limit = (uint64_t)w->srv->cfg.idle_timeout_ms * 1000000u;
    uint64_t now = bsf_clock_mono_ns();
    conn_t *c = w->conns;
    while (c) {
        conn_t *next = c->next;
        if (!c->streams && now - c->last_active_ns > limit) {
            nghttp2_submit_goaway(c->session, NGHTTP2_FLAG_NONE,
                                  nghttp2_session_get_last_proc_stream_id(c->session),
                                  NGHTTP2_NO_ERROR, NULL, 0);
            /* Once the GOAWAY is written and no stream is open, conn_flush closes it. */
            conn_flush(c);
        }
        c = next;
    }
}

static void on_listener_closed(uv_handle_t *h)
{
    (void)h;
}

static void close_all(bsf_h2_worker_t *w)
{
    pthread_mutex_lock(&w->mu);
    w->posts_closed = true; /* the async handle closes below: no more wake-ups */
    pthread_mutex_unlock(&w->mu);
    while (w->conns)
        conn_close(w->conns);
    uv_close((uv_handle_t *)&w->async, NULL);
    uv_close((uv_handle_t *)&w->stop_timer, NULL);
    uv_close((uv_handle_t *)&w->idle_timer, NULL);
    if (!uv_is_closing((uv_handle_t *)&w->listener))
        uv_close((uv_handle_t *)&w->listener, on_listener_closed);
}

static void check_stop(uv_timer_t *t)
{
    bsf_h2_worker_t *w = t->data;
    if (has_pending_output(w) && bsf_clock_mono_ns() < w->stop_deadline_ns)
        return;
    uv_timer_stop(t);
    close_all(w);
}

static void start_drain(bsf_h2_worker_t *w)
{
    if (w->draining)
        return;
    w->draining = true;
    if (!uv_is_closing((uv_handle_t *)&w->listener))
        uv_close((uv_handle_t *)&w->listener, on_listener_closed);
    for (conn_t *c = w->conns; c; c = c->next) {
        nghttp2_submit_goaway(c->session, NGHTTP2_FLAG_NONE,
                              nghttp2_session_get_last_proc_stream_id(c->session),
                              NGHTTP2_NO_ERROR, NULL, 0);
        conn_flush(c);
    }
}

static void on_async(uv_async_t *a)
{
    bsf_h2_worker_t *w = a->data;
    run_posts(w);
    pthread_mutex_lock(&w->mu);
    bool drain = w->drain_requested, stop = w->stop_requested;
    pthread_mutex_unlock(&w->mu);
    if (drain || stop)
        start_drain(w);
    if (stop && !w->stopping) {
        w->stopping = true;
        uv_timer_start(&w->stop_timer, check_stop, 0, 10);
    }
}

static void *worker_main(void *arg)
{
    bsf_h2_worker_t *w = arg;
    bsf_h2_server_t *srv = w->srv;
    if (srv->handler.worker_init)
        w->state = srv->handler.worker_init(srv->handler.ctx, w);
    uv_run(&w->loop, UV_RUN_DEFAULT);
    pthread_mutex_lock(&w->mu);
    w->posts_closed = true;
    pthread_mutex_unlock(&w->mu);
    run_posts(w); /* posts that raced with the stop still run (their streams are gone) */
    if (srv->handler.worker_fini)
        srv->handler.worker_fini(srv->handler.ctx, w->state);
    return NULL;
}

int bsf_h2_worker_post(bsf_h2_worker_t *w, void (*fn)(void *arg), void *arg)
{
    post_item_t *item = malloc(sizeof *item);
    if (!item)
        return -1;
    *item = (post_item_t){fn, arg, NULL};
    pthread_mutex_lock(&w->mu);
    if (w->posts_closed) {
        pthread_mutex_unlock(&w->mu);
        free(item);
        return -1;
    }
    if (w->posts_tail)
        w->posts_tail->next = item;
    else
        w->posts_head = item;
    w->posts_tail = item;
    pthread_mutex_unlock(&w->mu);
    uv_async_send(&w->async);
    return 0;
}

void *bsf_h2_worker_state(bsf_h2_worker_t *w)
{
    return w->state;
}

unsigned bsf_h2_worker_index(const bsf_h2_worker_t *w)
{
    return w->index;
}

/* ---- server ------------------------------------------------------------------------ */

static int bind_socket(const char *host, uint16_t port, int *fd_out, uint16_t *bound,
                       char *err, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    memset(&ss, 0, sizeof ss);
    struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons(port);
        sl = sizeof *s4;
    } else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons(port);
        sl = sizeof *s6;
    } else {
        snprintf(err, cap, "listen address %s is not a numeric IP address", host);
        return -1;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) ||
        bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 1024)) {
        snprintf(err, cap, "cannot listen on %s:%u: %s", host, port, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        *bound = ntohs(ss.ss_family == AF_INET ? s4->sin_port : s6->sin6_port);
    *fd_out = fd;
    return 0;
}

int bsf_h2_server_start(const bsf_h2_config_t *cfg, const bsf_h2_handler_t *handler,
                        bsf_h2_server_t **out, char *err, size_t err_cap)
{
    bsf_h2_server_t *srv = calloc(1, sizeof *srv);
    if (!srv) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    srv->cfg = *cfg;
    srv->handler = *handler;
    srv->n_workers = cfg->workers ? cfg->workers : 1;
    srv->workers = calloc(srv->n_workers, sizeof *srv->workers);
    if (!srv->workers) {
        free(srv);
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    uint16_t port = cfg->port;
    for (unsigned i = 0; i < srv->n_workers; i++) {
        bsf_h2_worker_t *w = &srv->workers[i];
        w->srv = srv;
        w->index = i;
        w->fd = -1;
        /* The first socket fixes the port (cfg->port may be 0); the others share it. */
        if (bind_socket(cfg->host, port, &w->fd, &port, err, err_cap)) {
            for (unsigned k = 0; k < i; k++)
                close(srv->workers[k].fd);
            free(srv->workers);
            free(srv);
            return -1;
        }
    }
    srv->port = port;
    for (unsigned i = 0; i < srv->n_workers; i++) {
        bsf_h2_worker_t *w = &srv->workers[i];
        pthread_mutex_init(&w->mu, NULL);
        uv_loop_init(&w->loop);
        uv_tcp_init(&w->loop, &w->listener);
        w->listener.data = w;
        uv_async_init(&w->loop, &w->async, on_async);
        w->async.data = w;
        uv_timer_init(&w->loop, &w->stop_timer);
        w->stop_timer.data = w;
        uv_timer_init(&w->loop, &w->idle_timer);
        w->idle_timer.data = w;
        if (cfg->idle_timeout_ms)
            uv_timer_start(&w->idle_timer, check_idle, 1000, 1000);
        if (uv_tcp_open(&w->listener, w->fd) ||
            uv_listen((uv_stream_t *)&w->listener, 1024, on_connection) ||
            pthread_create(&w->thread, NULL, worker_main, w)) {
            snprintf(err, err_cap, "cannot start SBI worker %u", i);
            return -1; /* start-up failure: the process exits */
        }
    }
    *out = srv;
    return 0;
}

uint16_t bsf_h2_server_port(const bsf_h2_server_t *srv)
{
    return srv->port;
}

void bsf_h2_server_drain(bsf_h2_server_t *srv)
{
    for (unsigned i = 0; i < srv->n_workers; i++) {
        bsf_h2_worker_t *w = &srv->workers[i];
        pthread_mutex_lock(&w->mu);
        w->drain_requested = true;
        pthread_mutex_unlock(&w->mu);
        uv_async_send(&w->async);
    }
}

void bsf_h2_server_stop(bsf_h2_server_t *srv, unsigned timeout_ms)
{
    for (unsigned i = 0; i < srv->n_workers; i++) {
        bsf_h2_worker_t *w = &srv->workers[i];
        pthread_mutex_lock(&w->mu);
        w->stop_requested = true;
        w->stop_deadline_ns = bsf_clock_mono_ns() + (uint64_t)timeout_ms * 1000000u;
        pthread_mutex_unlock(&w->mu);
        uv_async_send(&w->async);
    }
    for (unsigned i = 0; i < srv->n_workers; i++) {
        bsf_h2_worker_t *w = &srv->workers[i];
        pthread_join(w->thread, NULL);
        uv_loop_close(&w->loop);
    }
}

void bsf_h2_server_free(bsf_h2_server_t *srv)
{
    if (!srv)
        return;
    for (unsigned i = 0; i < srv->n_workers; i++)
        pthread_mutex_destroy(&srv->workers[i].mu);
    free(srv->workers);
    free(srv);
}
