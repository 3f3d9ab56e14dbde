/* One HTTP/2 client connection; see h2_client.h. */
#include "gateways/sbi/h2_client.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/dlist.h"
#include "gateways/sbi/h2_session.h"
#include "gateways/sbi/h2_tls.h"

#define READ_BUF_SIZE 65536
#define HEADER_BYTES_MAX 8192

typedef enum { ST_RESOLVING, ST_CONNECTING, ST_HANDSHAKE, ST_READY, ST_CLOSED } state_t;

typedef struct {
    char *data;
    size_t len, cap;
} buf_t;

typedef struct stream {
    bsf_h2c_t *c;
    struct stream *prev, *next;
    int32_t id;
    bsf_h2c_reply_fn fn;
    void *arg;
    bool complete; /* END_STREAM received with an answer */
    bool too_large;
    int status;
    char hbuf[HEADER_BYTES_MAX];
    size_t hlen;
    size_t n_headers;
    int hname[BSF_H2C_MAX_HEADERS], hvalue[BSF_H2C_MAX_HEADERS];
    buf_t body;
    bsf_h2_body_t req; /* the request's body, owned */
} stream_t;

struct bsf_h2c {
    bsf_h2c_params_t p;
    char host[256];
    state_t state;
    uv_getaddrinfo_t gai;
    uv_connect_t connect_req;
    uv_tcp_t tcp;
    uv_timer_t timer;
    bool tcp_init, timer_init, gai_pending;
    int handles_open;
    nghttp2_session *session;
    bsf_h2_tls_t *tls;
    buf_t out, writing;
    uv_write_t wreq;
    bool write_in_flight;
    bool in_recv, close_deferred, goaway;
    char close_why[128];
    stream_t *streams;
    size_t n_streams;
    uint64_t last_used_ns;
    char read_buf[READ_BUF_SIZE];
};

static void conn_flush(bsf_h2c_t *c);

/* ---- buffers and output ------------------------------------------------------------ */

static int buf_append(buf_t *b, const void *data, size_t len)
{
    if (b->len + len + 1 > b->cap &&
        bsf_h2_buf_grow(NULL, &b->data, &b->cap, b->len + len + 1, 4096))
        return -1;
    memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

static int sink_out(void *arg, const uint8_t *data, size_t len)
{
    bsf_h2c_t *c = arg;
    return buf_append(&c->out, data, len);
}

static void on_write_done(uv_write_t *req, int status)
{
    bsf_h2c_t *c = req->data;
    c->write_in_flight = false;
    c->writing.len = 0;
    if (c->state == ST_CLOSED)
        return;
    if (status < 0) {
        bsf_h2c_close(c, "write failed");
        return;
    }
    conn_flush(c);
}

static void start_write(bsf_h2c_t *c)
{
    if (c->write_in_flight || c->out.len == 0 || c->state == ST_CLOSED)
        return;
    buf_t tmp = c->writing;
    c->writing = c->out;
    c->out = tmp;
    c->out.len = 0;
    uv_buf_t b = uv_buf_init(c->writing.data, (unsigned)c->writing.len);
    c->wreq.data = c;
    if (uv_write(&c->wreq, (uv_stream_t *)&c->tcp, &b, 1, on_write_done) != 0) {
        bsf_h2c_close(c, "write failed");
        return;
    }
    c->write_in_flight = true;
}

/* Moves what nghttp2 wants to send (through TLS when on) to the socket; closes the
 * connection when neither side has more to say. */
static void conn_flush(bsf_h2c_t *c)
{
    if (c->state != ST_READY || c->in_recv)
        return;
    for (;;) {
        const uint8_t *data;
        ssize_t n = nghttp2_session_mem_send(c->session, &data);
        if (n < 0) {
            bsf_h2c_close(c, nghttp2_strerror((int)n));
            return;
        }
        if (n == 0)
            break;
        int rc = c->tls ? bsf_h2_tls_send(c->tls, data, (size_t)n, sink_out, c)
                        : buf_append(&c->out, data, (size_t)n);
        if (rc) {
            bsf_h2c_close(c, "cannot queue output");
            return;
        }
    }
    start_write(c);
    if (c->state == ST_READY && !nghttp2_session_want_read(c->session) &&
        !nghttp2_session_want_write(c->session) && !c->write_in_flight && c->out.len == 0)
        bsf_h2c_close(c, "connection ended");
}

/* ---- streams ----------------------------------------------------------------------- */

static void stream_unlink(stream_t *s)
{
    bsf_h2c_t *c = s->c;
    BSF_DLIST_UNLINK(c->streams, s);
    c->n_streams--;
    if (c->session)
        nghttp2_session_set_stream_user_data(c->session, s->id, NULL);
}

static void stream_free(stream_t *s)
{
    free(s->body.data);
    free(s->req.data);
    free(s);
}

/* Ends a stream: its callback with the answer or the error, then frees it. */
static void stream_finish(stream_t *s, int error, const char *why)
{
    bsf_h2c_t *c = s->c;
    stream_unlink(s);
    c->last_used_ns = bsf_clock_mono_ns();
    if (s->fn && error) {
        s->fn(s->arg, error, why, NULL);
    } else if (s->fn) {
        bsf_h2c_reply_t r = {.status = s->status, .n_headers = s->n_headers,
                             .body = s->body.data ? s->body.data : "",
                             .body_len = s->body.len};
        for (size_t i = 0; i < s->n_headers; i++) {
            r.headers[i].name = s->hbuf + s->hname[i];
            r.headers[i].value = s->hbuf + s->hvalue[i];
        }
        s->fn(s->arg, 0, NULL, &r);
    }
    stream_free(s);
    if (c->state == ST_READY && c->p.events->slot_free)
        c->p.events->slot_free(c->p.owner, c);
}

static int hstore(stream_t *s, const uint8_t *v, size_t n)
{
    if (s->hlen + n + 1 > sizeof s->hbuf)
        return -1;
    return bsf_h2_header_put(s->hbuf, &s->hlen, v, n);
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name,
                     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                     void *user)
{
    (void)flags;
    (void)user;
    if (frame->hd.type != NGHTTP2_HEADERS)
        return 0;
    stream_t *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (!s)
        return 0;
    if (namelen == 7 && memcmp(name, ":status", 7) == 0) {
        int st = 0;
        for (size_t i = 0; i < valuelen && i < 3; i++)
            st = st * 10 + (value[i] - '0');
        if (st >= 200) /* 1xx answers are interim */
            s->status = st;
        return 0;
    }
    if (s->status < 200 || s->n_headers >= BSF_H2C_MAX_HEADERS)
        return 0;
    int n = hstore(s, name, namelen), v = n < 0 ? -1 : hstore(s, value, valuelen);
    if (n >= 0 && v >= 0) {
        s->hname[s->n_headers] = n;
        s->hvalue[s->n_headers] = v;
        s->n_headers++;
    }
    return 0;
}

static int on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id,
                         const uint8_t *data, size_t len, void *user)
{
    (void)flags;
    bsf_h2c_t *c = user;
    stream_t *s = nghttp2_session_get_stream_user_data(session, stream_id);
    if (!s || s->too_large)
        return 0;
    if (s->body.len + len > c->p.max_body_bytes || buf_append(&s->body, data, len)) {
        s->too_large = true;
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_CANCEL);
    }
    return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user)
{
    bsf_h2c_t *c = user;
    if (frame->hd.type == NGHTTP2_GOAWAY) {
        c->goaway = true;
        return 0;
    }
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
        stream_t *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
        if (s && s->status >= 200)
            s->complete = true;
    }
    return 0;
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code,
                           void *user)
{
    (void)user;
    stream_t *s = nghttp2_session_get_stream_user_data(session, stream_id);
    if (!s)
        return 0;
    if (s->too_large)
        stream_finish(s, BSF_H2C_ERR_PROTOCOL, "answer body too large");
    else if (s->complete)
        stream_finish(s, 0, NULL);
    else if (error_code == NGHTTP2_REFUSED_STREAM)
        stream_finish(s, BSF_H2C_ERR_CONNECT, "stream refused");
    else
        stream_finish(s, BSF_H2C_ERR_PROTOCOL, nghttp2_http2_strerror(error_code));
    return 0;
}

static nghttp2_session_callbacks *make_callbacks(void)
{
    return bsf_h2_session_callbacks_new(on_header, on_data_chunk, on_frame_recv,
                                        on_stream_close);
}

int32_t bsf_h2c_submit(bsf_h2c_t *c, const nghttp2_nv *nva, size_t nvlen, const void *body,
                       size_t body_len, bsf_h2c_reply_fn fn, void *arg)
{
    if (!bsf_h2c_can_submit(c))
        return -1;
    /* not calloc: the header buffer (8 KiB) needs no zeroing */
    stream_t *s = malloc(sizeof *s);
    if (!s)
        return -1;
    memset(s, 0, offsetof(stream_t, hbuf));
    s->hlen = 0;
    s->n_headers = 0;
    s->body = (buf_t){0};
    s->req = (bsf_h2_body_t){0};
    s->c = c;
    s->fn = fn;
    s->arg = arg;
    nghttp2_data_provider prov = {.source.ptr = &s->req, .read_callback = bsf_h2_body_read};
    if (body && body_len) {
        s->req.data = malloc(body_len);
        if (!s->req.data) {
            free(s);
            return -1;
        }
        memcpy(s->req.data, body, body_len);
        s->req.len = body_len;
    }
    int32_t id = nghttp2_submit_request(c->session, NULL, nva, nvlen,
                                        s->req.data ? &prov : NULL, s);
    if (id < 0) {
        stream_free(s);
        return -1;
    }
    s->id = id;
    BSF_DLIST_PUSH(c->streams, s);
    c->n_streams++;
    c->last_used_ns = bsf_clock_mono_ns();
    conn_flush(c);
    return id;
}

void bsf_h2c_cancel(bsf_h2c_t *c, int32_t stream_id)
{
    stream_t *s = c->session ? nghttp2_session_get_stream_user_data(c->session, stream_id)
                             : NULL;
    if (!s)
        return;
    s->fn = NULL;
    nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, stream_id, NGHTTP2_CANCEL);
    conn_flush(c);
}

bool bsf_h2c_can_submit(const bsf_h2c_t *c)
{
    if (c->state != ST_READY || c->goaway || c->close_deferred)
        return false;
    uint32_t limit = nghttp2_session_get_remote_settings(
        c->session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);
    if (limit > c->p.max_streams)
        limit = c->p.max_streams;
    return c->n_streams < limit;
}

bool bsf_h2c_usable(const bsf_h2c_t *c)
{
    return c->state != ST_CLOSED && !c->goaway && !c->close_deferred;
}

size_t bsf_h2c_active(const bsf_h2c_t *c)
{
    return c->n_streams;
}

uint64_t bsf_h2c_last_used_ns(const bsf_h2c_t *c)
{
    return c->last_used_ns;
}

void bsf_h2c_shutdown(bsf_h2c_t *c)
{
    if (c->state != ST_READY) {
        bsf_h2c_close(c, "shut down");
        return;
    }
    c->goaway = true;
    nghttp2_session_terminate_session(c->session, NGHTTP2_NO_ERROR);
    conn_flush(c);
}

/* ---- connection life --------------------------------------------------------------- */

static void on_handle_closed(uv_handle_t *h)
{
    bsf_h2c_t *c = h->data;
    if (--c->handles_open > 0 || c->gai_pending)
        return;
    free(c->out.data);
    free(c->writing.data);
    free(c);
}

void bsf_h2c_close(bsf_h2c_t *c, const char *why)
{
    if (c->state == ST_CLOSED)
        return;
    if (c->in_recv) { /* inside nghttp2: finish after mem_recv returns */
        if (!c->close_deferred)
            snprintf(c->close_why, sizeof c->close_why, "%s", why);
        c->close_deferred = true;
        return;
    }
    c->state = ST_CLOSED;
    snprintf(c->close_why, sizeof c->close_why, "%s", why);
    while (c->streams)
        stream_finish(c->streams, BSF_H2C_ERR_CONNECT, c->close_why);
    nghttp2_session_del(c->session);
    c->session = NULL;
    bsf_h2_tls_free(c->tls);
    c->tls = NULL;
    if (c->gai_pending)
        uv_cancel((uv_req_t *)&c->gai);
    c->p.events->closed(c->p.owner, c, c->close_why);
    /* One extra count so that the free happens only after both handles closed. */
    c->handles_open++;
    if (c->tcp_init)
        uv_close((uv_handle_t *)&c->tcp, on_handle_closed);
    if (c->timer_init)
        uv_close((uv_handle_t *)&c->timer, on_handle_closed);
    on_handle_closed((uv_handle_t *)&c->timer);
}

static int sink_plain(void *arg, const uint8_t *data, size_t len)
{
    bsf_h2c_t *c = arg;
    ssize_t rv = nghttp2_session_mem_recv(c->session, data, len);
    return rv < 0 ? -1 : 0;
}

static void become_ready(bsf_h2c_t *c)
{
    uv_timer_stop(&c->timer);
    c->state = ST_READY;
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20},
    };
    nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof iv[0]);
    nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, 1 << 24);
    conn_flush(c);
    if (c->state == ST_READY)
        c->p.events->ready(c->p.owner, c);
}

static void continue_handshake(bsf_h2c_t *c)
{
    char err[160];
    int rc = bsf_h2_tls_handshake(c->tls, sink_out, c, err, sizeof err);
    start_write(c);
    if (rc < 0)
        bsf_h2c_close(c, err);
    else if (rc == 1)
        become_ready(c);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    bsf_h2c_t *c = h->data;
    *buf = uv_buf_init(c->read_buf, sizeof c->read_buf);
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    bsf_h2c_t *c = stream->data;
    if (c->state == ST_CLOSED || nread == 0)
        return;
    if (nread < 0) {
        bsf_h2c_close(c, nread == UV_EOF ? "closed by the server" : uv_strerror((int)nread));
        return;
    }
    const uint8_t *data = (const uint8_t *)buf->base;
    int rc = 0;
    c->in_recv = true;
    if (c->tls) {
        rc = bsf_h2_tls_recv(c->tls, data, (size_t)nread, sink_plain, sink_out, c);
        if (rc == 0 && c->state == ST_HANDSHAKE) {
            c->in_recv = false;
            continue_handshake(c);
            c->in_recv = true;
            /* application bytes that came with the end of the handshake */
            if (c->state == ST_READY)
                rc = bsf_h2_tls_recv(c->tls, data, 0, sink_plain, sink_out, c);
        }
    } else if (c->state == ST_READY) {
        rc = nghttp2_session_mem_recv(c->session, data, (size_t)nread) < 0 ? -1 : 0;
    }
    c->in_recv = false;
    if (c->close_deferred)
        bsf_h2c_close(c, c->close_why);
    else if (rc)
        bsf_h2c_close(c, "HTTP/2 or TLS error from the server");
    else
        conn_flush(c);
}

static void on_connected(uv_connect_t *req, int status)
{
    bsf_h2c_t *c = req->data;
    if (c->state == ST_CLOSED)
        return;
    if (status < 0) {
        bsf_h2c_close(c, uv_strerror(status));
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read)) {
        bsf_h2c_close(c, "cannot read");
        return;
    }
    if (c->tls) {
        c->state = ST_HANDSHAKE;
        continue_handshake(c);
    } else {
        become_ready(c);
    }
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
    bsf_h2c_t *c = req->data;
    c->gai_pending = false;
    if (c->state == ST_CLOSED) { /* closed while resolving: the last release frees */
        uv_freeaddrinfo(res);
        c->handles_open++;
        on_handle_closed((uv_handle_t *)&c->timer);
        return;
    }
    if (status < 0 || !res) {
        uv_freeaddrinfo(res);
        bsf_h2c_close(c, status == UV_ECANCELED ? "cancelled" : uv_strerror(status));
        return;
    }
    const struct addrinfo *addr = bsf_addr_select(res, c->p.family);
    if (!addr) { /* seed §3.8: no fallback to the other family */
        uv_freeaddrinfo(res);
        bsf_h2c_close(c, "no address of the preferred family (sbi_client.preferred_family)");
        return;
    }
    c->state = ST_CONNECTING;
    c->connect_req.data = c;
    int rc = uv_tcp_init(c->p.loop, &c->tcp);
    if (rc == 0) {
        c->tcp_init = true;
        c->handles_open++;
        c->tcp.data = c;
        rc = uv_tcp_connect(&c->connect_req, &c->tcp, addr->ai_addr, on_connected);
    }
    uv_freeaddrinfo(res);
    if (rc)
        bsf_h2c_close(c, uv_strerror(rc));
}

static void on_connect_timeout(uv_timer_t *t)
{
    bsf_h2c_t *c = t->data;
    if (c->state != ST_READY)
        bsf_h2c_close(c, "connect timeout");
}

static int make_session(bsf_h2c_t *c)
{
    nghttp2_session_callbacks *cbs = make_callbacks();
    nghttp2_option *opt = NULL;
    if (!cbs || nghttp2_option_new(&opt)) {
        nghttp2_session_callbacks_del(cbs);
        return -1;
    }
    nghttp2_option_set_no_auto_window_update(opt, 0);
    int rc = nghttp2_session_client_new2(&c->session, cbs, c, opt);
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cbs);
    return rc ? -1 : 0;
}

int bsf_h2c_open(const bsf_h2c_params_t *p, bsf_h2c_t **out, char *err, size_t err_cap)
{
    bsf_h2c_t *c = calloc(1, sizeof *c);
    if (!c || snprintf(c->host, sizeof c->host, "%s", p->host) >= (int)sizeof c->host) {
        snprintf(err, err_cap, "host too long or out of memory");
        free(c);
        return -1;
    }
    c->p = *p;
    c->p.host = c->host;
    c->last_used_ns = bsf_clock_mono_ns();
    if (make_session(c) || (p->tls && !(c->tls = bsf_h2_tls_new(p->tls, c->host)))) {
        snprintf(err, err_cap, "out of memory");
        nghttp2_session_del(c->session);
        free(c);
        return -1;
    }
    uv_timer_init(p->loop, &c->timer);
    c->timer.data = c;
    c->timer_init = true;
    c->handles_open = 1;
    uv_timer_start(&c->timer, on_connect_timeout, p->connect_timeout_ms, 0);
    char port[8];
    snprintf(port, sizeof port, "%u", p->port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    c->gai.data = c;
    int rc = uv_getaddrinfo(p->loop, &c->gai, on_resolved, c->host, port, &hints);
    if (rc) {
        snprintf(err, err_cap, "cannot resolve %s: %s", c->host, uv_strerror(rc));
        nghttp2_session_del(c->session);
        c->session = NULL;
        bsf_h2_tls_free(c->tls);
        c->state = ST_CLOSED;
        uv_close((uv_handle_t *)&c->timer, on_handle_closed);
        return -1;
    }
    c->gai_pending = true;
    *out = c;
    return 0;
}
