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
#include "common/dlist.h"
#include "common/fifo.h"
#include "common/sockaddr_text.h"

#include "gateways/sbi/h2_budget.h"
#include "gateways/sbi/h2_server_testing.h"
#include "gateways/sbi/h2_session.h"
#include "gateways/sbi/h2_tls.h"
#include "gateways/sbi/sbi_headers.h"
#include "gateways/sbi/sbi_tls.h"
#include "common/error.h"

#define READ_CHUNK 16384           /* one read(), into the worker's buffer */
#define READ_QUANTUM 65536         /* per connection and loop iteration, then the others */
/* Requests begun per connection and loop iteration (issue 14 §6): a flood connection's
 * 64 KiB can hold thousands of HEADERS, so bytes alone do not bound the work another
 * connection waits behind; the rest of the read is kept (conn_t.held) for the next round. */
#define STREAM_QUANTUM 16
/* While the worker sheds (issue 14 §6): fewer requests per connection and round. While it
 * sheds or connections push more than their quantum (contended), the connections that carry
 * requests more important than the shed ones and the pushers' (URGENT_MAX at most, for
 * URGENT_HOLD_NS after their last one) are read between the others' reads, every
 * URGENT_POLL_NS at most, with the answers posted to the worker meanwhile. That holds from
 * the flood's first round on, before admission control's samples make it shed. */
#define STREAM_QUANTUM_SHEDDING 4
#define SHED_HOLD_NS 200000000ull  /* a request shed this recently: the worker is shedding */
#define PUSH_HOLD_NS 200000000ull  /* a quantum used up this recently: the connection pushes */
#define URGENT_HOLD_NS 1000000000ull
#define URGENT_POLL_NS 200000ull
#define URGENT_MAX 8
/* While shedding, a connection resumed on input it holds writes once this much output
 * gathered (or its input is used up): as many answers per write as STREAM_QUANTUM gives. */
#define WRITE_BATCH 4096
#define PRIORITY_UNKNOWN 255
#define OUTPUT_HIGH_WATER 65536    /* stop reading and pulling frames while this much is unsent */
#define OUTBUF_KEEP 0              /* an emptied output buffer larger than this is freed */
#define HEADER_LIST_DEFAULT 16384  /* sbi.max_header_list_bytes when 0 */
#define HEADER_BOMB_FACTOR 4       /* a list this many times the limit is reset, not answered */
#define LINGER_NS 1000000000ull    /* after the last frame: read and discard this long */
#define LINGER_BYTES 65536         /* ... or this much */
#define WARN_INTERVAL_NS 10000000000ull /* at most one protocol warning per worker per 10 s */
#define CLIENT_PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#define CLIENT_PREFACE_LEN 24
#define OPENED_WINDOW 64 /* client stream ids below the highest whose opening is remembered */
/* What a TLS connection holds inside OpenSSL (the SSL object, its session, the record
 * buffers while busy: SSL_MODE_RELEASE_BUFFERS frees them when idle), charged to the
 * worker's budget: OpenSSL's allocations cannot be counted one by one per worker. */
#define TLS_CONN_BYTES 40960
#define TLS_RECORD 16384 /* the largest TLS record's plaintext */

/* What the client's first bytes say on a cleartext connection. Until they match the HTTP/2
 * client preface the server sends nothing, so that an HTTP/1.1 client can get an HTTP/1.1
 * answer instead of frames. A TLS connection is HTTP/2 from the start (ALPN h2 only). */
typedef enum { PREFACE_PENDING, PREFACE_H2, PREFACE_HTTP1 } preface_t;

enum { LSN_PLAIN, LSN_TLS, LSN_COUNT };

typedef struct post_item {
    void (*fn)(void *arg);
    void *arg;
    struct post_item *next;
} post_item_t;

typedef struct conn conn_t;

/* One listening socket of a worker: the cleartext one (sbi.listen) or the TLS one. */
typedef struct {
    bsf_h2_worker_t *w;
    bool used, tls;
    int fd;
    uv_tcp_t tcp;
    uv_timer_t relisten_timer; /* out of descriptors: listen again later */
    bool closed;
    uint64_t last_emfile_warn_ns;
} listener_t;

struct bsf_h2_worker {
    bsf_h2_server_t *srv;
    unsigned index;
    uv_loop_t loop;
    listener_t lsn[LSN_COUNT];
    uv_async_t async;
    uv_timer_t stop_timer;
    uv_timer_t tick_timer; /* phase timeouts, idle connections, lingering closes */
    uv_prepare_t prepare;  /* once per loop iteration: resumes connections that yielded */
    uv_idle_t idle;        /* active while a connection holds unprocessed input: no blocking poll */
    uint64_t iteration;
    size_t n_conns;
    pthread_t thread;
    pthread_mutex_t mu;
    post_item_t *posts_head, *posts_tail;
    bool posts_closed;
    bool in_posts;          /* running posted answers: connections flush once, after them */
    conn_t *flush_deferred; /* the connections that wait for that flush */
    bool drain_requested, stop_requested;
    bool draining, stopping;
    uint64_t stop_deadline_ns;
    conn_t *conns;
    void *state;
    bsf_h2_budget_t budget;
    bsf_h2_header_t *scratch; /* request headers handed to the handler */
    size_t scratch_cap;
    uint64_t last_warn_ns;
    unsigned warns_suppressed;
    int64_t date_secs; /* second `date` was written for (RFC 9110 §6.6.1 Date of answers) */
    uint64_t last_shed_ns;      /* the last request admission control refused */
    uint64_t shed_window_ns;    /* shed_min_priority is over the sheds since then */
    uint8_t shed_min_priority;  /* the most important priority shed in that window */
    uint64_t last_push_ns;      /* the last time a connection used up its quantum */
    uint64_t push_window_ns;    /* push_min_priority is over the pushers' requests since then */
    uint8_t push_min_priority;  /* the most important priority pushers sent in that window */
    conn_t *urgent[URGENT_MAX]; /* connections read between the others while contended */
    size_t n_urgent;
    uint64_t last_urgent_poll_ns;
    bool polling_urgent;
    char date[BSF_SBI_TIME_HEADER_MAX];
    atomic_uint_fast64_t timeouts[BSF_H2_TIMEOUT_COUNT];
    atomic_uint_fast64_t refused_streams, refused_connections, headers_too_large;
    atomic_uint_fast64_t protocol_errors, accept_errors, open_conns, priority_reads;
    atomic_uint_fast64_t in_flight; /* complete requests not answered yet */
    atomic_uint_fast64_t receiving; /* admitted requests whose body is still coming */
    atomic_uint_fast64_t tls_handshakes, tls_failures;
    char read_buf[READ_CHUNK]; /* one connection reads at a time; nghttp2 copies what it keeps */
    uint8_t tls_plain[TLS_RECORD]; /* frames gathered into one TLS record (one flush at a time) */
};

struct bsf_h2_server {
    bsf_h2_config_t cfg;
    bsf_h2_handler_t handler;
    bsf_h2_worker_t *workers;
    unsigned n_workers;
    uint16_t port, tls_port;
};

typedef struct {
    char *data;
    size_t len, cap;
} outbuf_t;

struct conn {
    bsf_h2_worker_t *w;
    uv_tcp_t tcp;
    nghttp2_session *session;
    bsf_h2_tls_t *tls;  /* NULL on the cleartext listener */
    bool tls_failed;    /* handshake or record error: the alert goes out, then the socket */
    bool tls_closing;   /* close_notify queued */
    ssize_t recv_rv;    /* nghttp2's verdict on the plaintext of the last TLS read */
    conn_t *prev, *next;
    outbuf_t out, writing;
    uv_write_t wreq;
    uv_shutdown_t sreq;
    bool write_in_flight;
    bool reading;
    bool yielded; /* read its quantum this iteration; resumed by the prepare handle */
    bool closing;
    bool got_settings;  /* the client preface and SETTINGS arrived */
    preface_t preface;
    unsigned preface_off; /* bytes of CLIENT_PREFACE matched so far */
    int32_t max_stream_id; /* highest client stream id begun */
    uint64_t opened;       /* bit i: stream max_stream_id - 2 i was begun (OPENED_WINDOW) */
    bool finishing;     /* nothing more to say: shut down writing once the output is out */
    bool lingering;     /* write side shut down: discarding what the peer still sends */
    bool in_recv; /* inside nghttp2_session_mem_recv: output is flushed after it returns */
    bool flush_queued;      /* on w->flush_deferred */
    conn_t *flush_next;
    bool addrs_known;   /* local and peer are filled in on first use */
    uint64_t accepted_ns;
    uint64_t last_active_ns;   /* last request begun or answer queued (idle timeout) */
    uint64_t last_byte_ns;     /* last read */
    uint64_t last_progress_ns; /* last frame begun or completed, or body chunk */
    uint64_t write_start_ns;   /* the write in flight started */
    uint64_t linger_deadline_ns;
    size_t linger_bytes;
    uint64_t iteration;        /* loop iteration iter_bytes and iter_streams belong to */
    size_t iter_bytes;
    unsigned iter_streams;     /* requests begun in that iteration */
    bool pause_next;           /* STREAM_QUANTUM reached: pause at the next header */
    outbuf_t held;             /* input nghttp2 was paused before (STREAM_QUANTUM) */
    size_t held_off;           /* ... of which nghttp2 took this much already */
    bool urgent;               /* in w->urgent */
    uint64_t last_push_ns;     /* it last used up its quantum with input left */
    bool batching;             /* resumed, input still held: writes wait (WRITE_BATCH) */
    uint64_t urgent_until_ns;
    uint32_t max_streams;      /* its SETTINGS_MAX_CONCURRENT_STREAMS */
    bsf_h2_stream_t *streams; /* open streams, to abandon them if the connection dies */
    char local[BSF_SOCKADDR_TEXT_MAX], peer[BSF_SOCKADDR_TEXT_MAX];
};

struct bsf_h2_stream {
    conn_t *conn;
    bsf_h2_stream_t *prev, *next;
    int32_t id;
    /* Header strings, NUL-terminated, stored back to back; grown as headers arrive. */
    char *hbuf;
    size_t hlen, hcap;
    size_t list_bytes; /* header list size as RFC 9113 §6.5.2 counts it */
    int method, path, authority, content_type; /* offsets into hbuf, -1 when absent */
    size_t path_len;
    int64_t content_length;
    size_t n_extra, extra_cap;
    int *extra; /* name and value offsets of other headers, in pairs */
    bool uri_too_long, headers_too_large, headers_done, dispatched;
    bool in_flight, receiving; /* counted in the worker's in_flight / receiving */
    uint64_t begin_ns, headers_ns, responded_ns;
    char *body;
    size_t body_len, body_cap;
    bool refused;   /* answered by the server, rest of the request ignored */
    char answer_priority[4]; /* 3gpp-Sbi-Message-Priority of the answer; "": none */
    int8_t answer_prio;      /* the same as a number; -1: none */
    uint8_t priority;        /* the request's evaluated priority; PRIORITY_UNKNOWN */
    char status_text[4];     /* the answer's :status (nghttp2 does not copy it) */
    bool resp_static;        /* resp is the caller's (bsf_h2_respond_static), not freed */
    bool responded;
    void *pending;
    bsf_h2_body_t resp;
};

static size_t header_list_max(const bsf_h2_server_t *srv)
{
    return srv->cfg.max_header_list_bytes ? srv->cfg.max_header_list_bytes : HEADER_LIST_DEFAULT;
}

static void count(atomic_uint_fast64_t *c)
{
    atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

/* ---- output ------------------------------------------------------------------------ */

static void conn_close(conn_t *c);
static void conn_flush(conn_t *c);
static int sink_out(void *arg, const uint8_t *data, size_t len);

static int outbuf_append(bsf_h2_budget_t *bud, outbuf_t *b, const uint8_t *data, size_t len)
{
    if (b->len + len > b->cap && bsf_h2_buf_grow(bud, &b->data, &b->cap, b->len + len, 1024))
        return -1;
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

/* An idle connection keeps no large buffer. */
static void outbuf_trim(bsf_h2_budget_t *bud, outbuf_t *b)
{
    if (b->len == 0 && b->cap > OUTBUF_KEEP) {
        bsf_h2_budget_free(bud, b->data);
        *b = (outbuf_t){0};
    }
}

static size_t unsent(const conn_t *c)
{
    return c->out.len + c->writing.len;
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf);
static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf);

/* Keeps the loop's poll from blocking while input is held (its work is in on_prepare). */
static void on_idle(uv_idle_t *h)
{
    (void)h;
}

static void update_reading(conn_t *c)
{
    bool want = !c->closing && !c->yielded && unsent(c) < OUTPUT_HIGH_WATER;
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
    if (c->closing)
        return;
    if (status < 0) {
        conn_close(c);
        return;
    }
    outbuf_trim(&c->w->budget, &c->writing);
    conn_flush(c);
}

/* Writes the output at once when the socket takes it (the usual case: nothing stays
 * allocated); what it does not take goes out with uv_write from the same buffer. */
static void start_write(conn_t *c)
{
    if (c->write_in_flight || c->out.len == 0 || c->closing)
        return;
    uv_buf_t buf = uv_buf_init(c->out.data, (unsigned)c->out.len);
    int r = uv_try_write((uv_stream_t *)&c->tcp, &buf, 1);
    if (r < 0 && r != UV_EAGAIN) {
        conn_close(c);
        return;
    }
    size_t done = r > 0 ? (size_t)r : 0;
    if (done == c->out.len) {
        c->out.len = 0;
        outbuf_trim(&c->w->budget, &c->out);
        return;
    }
    outbuf_t tmp = c->writing;
    c->writing = c->out;
    c->out = tmp;
    c->out.len = 0;
    buf = uv_buf_init(c->writing.data + done, (unsigned)(c->writing.len - done));
    c->wreq.data = c;
    if (uv_write(&c->wreq, (uv_stream_t *)&c->tcp, &buf, 1, on_write_done) != 0) {
        conn_close(c);
        return;
    }
    c->write_in_flight = true;
    c->write_start_ns = bsf_clock_mono_ns();
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    conn_t *c = req->data;
    if (c->closing)
        return;
    if (status < 0) {
        conn_close(c);
        return;
    }
    c->lingering = true;
    c->linger_deadline_ns = bsf_clock_mono_ns() + LINGER_NS;
    update_reading(c);
}

/* Nothing more to say: once the output is written, shut down the write side and discard
 * what the peer still sends for a moment, so that a reset does not destroy the last GOAWAY
 * or answer in the peer's receive buffer (RFC 9113 §6.8, RFC 9293 §3.6). */
static void conn_finish(conn_t *c)
{
    c->finishing = true;
    if (c->tls && !c->tls_failed && !c->tls_closing && !c->closing && !c->lingering) {
        c->tls_closing = true; /* the TLS closure alert after the last frame */
        if (bsf_h2_tls_close_notify(c->tls, sink_out, c)) {
            conn_close(c);
            return;
        }
        start_write(c);
    }
    if (c->closing || c->write_in_flight || c->out.len || c->lingering ||
        uv_is_closing((uv_handle_t *)&c->tcp))
        return;
    if (c->sreq.data == c)
        return; /* shutdown already requested */
    c->sreq.data = c;
    if (uv_shutdown(&c->sreq, (uv_stream_t *)&c->tcp, on_shutdown) != 0)
        conn_close(c);
}

static int sink_out(void *arg, const uint8_t *data, size_t len)
{
    conn_t *c = arg;
    return outbuf_append(&c->w->budget, &c->out, data, len);
}

/* HTTP/2 frames may go out: always in cleartext, after the handshake with TLS. */
static bool h2_up(const conn_t *c)
{
    return !c->tls || (bsf_h2_tls_done(c->tls) && !c->tls_failed && !c->tls_closing);
}

/* What nghttp2 wants to send, into the output buffer. Returns 0, or -1 when it closed the
 * connection. */
static int plain_pull(conn_t *c)
{
    while (c->out.len < OUTPUT_HIGH_WATER) {
        const uint8_t *data;
        ssize_t n = nghttp2_session_mem_send(c->session, &data);
        if (n == 0)
            return 0;
        if (n < 0 || outbuf_append(&c->w->budget, &c->out, data, (size_t)n)) {
            conn_close(c);
            return -1;
        }
    }
    return 0;
}

/* The same through TLS, once the handshake is done: the frames of one flush are gathered
 * into records of up to 16 KiB (one SSL_write, one AEAD seal per record, not per frame). */
static int tls_pull(conn_t *c)
{
    uint8_t *buf = c->w->tls_plain;
    size_t len = 0;
    int rc = 0;
    while (rc == 0 && h2_up(c) && c->out.len < OUTPUT_HIGH_WATER) {
        const uint8_t *data;
        ssize_t n = nghttp2_session_mem_send(c->session, &data);
        if (n <= 0) {
            rc = n < 0 ? -1 : 0;
            break;
        }
        if (len + (size_t)n > TLS_RECORD && len) {
            rc = bsf_h2_tls_send(c->tls, buf, len, sink_out, c);
            len = 0;
        }
        if (rc == 0 && (size_t)n >= TLS_RECORD)
            rc = bsf_h2_tls_send(c->tls, data, (size_t)n, sink_out, c);
        else if (rc == 0) {
            memcpy(buf + len, data, (size_t)n);
            len += (size_t)n;
        }
    }
    if (rc == 0 && len)
        rc = bsf_h2_tls_send(c->tls, buf, len, sink_out, c);
    if (rc) {
        conn_close(c);
        return -1;
    }
    return 0;
}

/* Moves what nghttp2 wants to send to the socket (or the output buffer, up to the high
 * water mark: a peer that does not read is not answered further); closes the connection
 * when neither side has anything more to say. */
static void conn_flush(conn_t *c)
{
    if (c->closing || c->in_recv || c->lingering)
        return;
    if (c->w->in_posts) { /* one write for all the answers a batch of posts gives it */
        if (!c->flush_queued) {
            c->flush_queued = true;
            c->flush_next = c->w->flush_deferred;
            c->w->flush_deferred = c;
        }
        return;
    }
    if (c->preface == PREFACE_PENDING) { /* nothing is said before the client spoke */
        update_reading(c);
        return;
    }
    if (c->preface == PREFACE_HTTP1) { /* the HTTP/1.1 answer, then a clean close */
        start_write(c);
        if (!c->closing)
            conn_finish(c);
        return;
    }
    if (c->tls ? tls_pull(c) : plain_pull(c))
        return;
    if (c->batching && c->out.len < WRITE_BATCH)
        return; /* more answers come from the input it holds: one write for several rounds */
    start_write(c);
    if (c->closing)
        return;
    if (c->finishing || c->tls_failed ||
        (!nghttp2_session_want_read(c->session) && !nghttp2_session_want_write(c->session))) {
        conn_finish(c);
        if (c->closing)
            return;
    }
    update_reading(c);
}

/* ---- streams ----------------------------------------------------------------------- */

static const char *hstr(const bsf_h2_stream_t *s, int off)
{
    return off < 0 ? NULL : s->hbuf + off;
}

/* Stores a header string; the caller has checked the list size against the limit. */
static int hstore(bsf_h2_stream_t *s, const uint8_t *v, size_t n)
{
    if (s->hlen + n + 1 > s->hcap &&
        bsf_h2_buf_grow(&s->conn->w->budget, &s->hbuf, &s->hcap, s->hlen + n + 1, 256))
        return -1;
    return bsf_h2_header_put(s->hbuf, &s->hlen, v, n);
}

/* Unlinks and frees; tells the handler when an answer was still pending. */
static void settle(bsf_h2_stream_t *s)
{
    if (s->receiving) {
        s->receiving = false;
        atomic_fetch_sub_explicit(&s->conn->w->receiving, 1, memory_order_relaxed);
    }
    if (s->in_flight) {
        s->in_flight = false;
        atomic_fetch_sub_explicit(&s->conn->w->in_flight, 1, memory_order_relaxed);
    }
}

static void stream_free(bsf_h2_stream_t *s)
{
    conn_t *c = s->conn;
    bsf_h2_budget_t *bud = &c->w->budget;
    settle(s);
    BSF_DLIST_UNLINK(c->streams, s);
    if (s->pending) {
        bsf_h2_server_t *srv = c->w->srv;
        srv->handler.abandon(srv->handler.ctx, s->pending);
    }
    bsf_h2_budget_free(bud, s->hbuf);
    bsf_h2_budget_free(bud, s->extra);
    bsf_h2_budget_free(bud, s->body);
    if (!s->resp_static)
        bsf_h2_budget_free(bud, s->resp.data);
    bsf_h2_budget_free(bud, s);
}

/* The Date of an answer, written once per second per worker. */
static const char *http_date(bsf_h2_worker_t *w)
{
    int64_t now = (int64_t)(bsf_clock_wall_ms() / 1000);
    if (now != w->date_secs || !w->date[0]) {
        if (!bsf_sbi_http_date(now, w->date))
            w->date[0] = '\0';
        w->date_secs = now;
    }
    return w->date;
}

static void respond(bsf_h2_stream_t *s, int status, const char *content_type,
                    const bsf_h2_header_t *headers, size_t n_headers, const void *body,
                    size_t body_len, bool copy)
{
    if (s->responded)
        return;
    s->responded = true;
    s->pending = NULL;
    settle(s);
    s->responded_ns = bsf_clock_mono_ns();
    s->conn->last_active_ns = s->responded_ns;
    unsigned st = status >= 100 && status <= 999 ? (unsigned)status : 500;
    s->status_text[0] = (char)('0' + st / 100);
    s->status_text[1] = (char)('0' + st / 10 % 10);
    s->status_text[2] = (char)('0' + st % 10);
    s->status_text[3] = '\0';
    nghttp2_nv nva[BSF_H2_MAX_HEADERS + 8]; /* status, date, server, OCI, LCI and the rest */
    size_t n = 0;
    const char *date = http_date(s->conn->w);
    /* nghttp2 copies no string that lives longer than the stream: the stream's own, the
     * worker's date, string literals, and with !copy the caller's (prepared once). */
    const uint8_t keep = NGHTTP2_NV_FLAG_NO_COPY_NAME | NGHTTP2_NV_FLAG_NO_COPY_VALUE;
    const uint8_t caller = copy ? NGHTTP2_NV_FLAG_NO_COPY_NAME : keep;
#define NV(nm, val, fl)                                                                        \
    nva[n++] = (nghttp2_nv){(uint8_t *)(nm), (uint8_t *)(val), strlen(nm), strlen(val), (fl)}
    NV(":status", s->status_text, keep);
    if (date[0])
        NV("date", date, keep);
    if (content_type && body_len)
        NV("content-type", content_type, caller);
    for (size_t i = 0; i < n_headers && n < sizeof nva / sizeof nva[0]; i++)
        NV(headers[i].name, headers[i].value, copy ? NGHTTP2_NV_FLAG_NONE : keep);
    if (s->answer_priority[0] && n < sizeof nva / sizeof nva[0])
        NV("3gpp-sbi-message-priority", s->answer_priority, keep);
    const bsf_h2_handler_t *hd = &s->conn->w->srv->handler;
    bsf_h2_header_t added[4];
    size_t n_added = hd->response_headers ? hd->response_headers(hd->ctx, added, 4) : 0;
    for (size_t i = 0; i < n_added && n < sizeof nva / sizeof nva[0]; i++)
        NV(added[i].name, added[i].value, NGHTTP2_NV_FLAG_NONE);
#undef NV
    if (hd->answered)
        hd->answered(hd->ctx, hstr(s, s->method), (int)st,
                     s->answer_priority[0] ? s->answer_prio : -1);
    nghttp2_data_provider prd = {.source.ptr = &s->resp, .read_callback = bsf_h2_body_read};
    if (body_len && !copy) { /* the caller's, for longer than the stream */
        s->resp.data = (char *)body;
        s->resp_static = true;
        s->resp.len = body_len;
    } else if (body_len) {
        s->resp.data = bsf_h2_budget_malloc(&s->conn->w->budget, body_len);
        if (!s->resp.data)
            body_len = 0;
        else
            memcpy(s->resp.data, body, body_len);
        s->resp.len = body_len;
    }
    nghttp2_submit_response(s->conn->session, s->id, nva, n, body_len ? &prd : NULL);
    conn_flush(s->conn);
}

void bsf_h2_respond(bsf_h2_stream_t *s, int status, const char *content_type,
                    const bsf_h2_header_t *headers, size_t n_headers, const void *body,
                    size_t body_len)
{
    respond(s, status, content_type, headers, n_headers, body, body_len, true);
}

void bsf_h2_respond_static(bsf_h2_stream_t *s, int status, const char *content_type,
                           const bsf_h2_header_t *headers, size_t n_headers, const void *body,
                           size_t body_len)
{
    respond(s, status, content_type, headers, n_headers, body, body_len, false);
}

void bsf_h2_stream_set_priority(bsf_h2_stream_t *s, uint32_t priority)
{
    s->priority = priority < PRIORITY_UNKNOWN ? (uint8_t)priority : PRIORITY_UNKNOWN;
}

void bsf_h2_stream_set_answer_priority(bsf_h2_stream_t *s, int priority)
{
    if (priority < 0 || priority > 31)
        s->answer_priority[0] = '\0';
    else
        snprintf(s->answer_priority, sizeof s->answer_priority, "%d", priority);
    s->answer_prio = (int8_t)(priority < 0 || priority > 31 ? -1 : priority);
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

static const bsf_h2_header_t *extra_headers(bsf_h2_stream_t *s);

/* ---- priority first while shedding (issue 14 §6) ------------------------------------ */

static bool shedding(const bsf_h2_worker_t *w, uint64_t now)
{
    return w->last_shed_ns && now - w->last_shed_ns < SHED_HOLD_NS;
}

static bool pushing(uint64_t last_push_ns, uint64_t now)
{
    return last_push_ns && now - last_push_ns < PUSH_HOLD_NS;
}

/* Shedding, or connections bring more than a round's quantum: urgent connections go first. */
static bool contended(const bsf_h2_worker_t *w, uint64_t now)
{
    return shedding(w, now) || pushing(w->last_push_ns, now);
}

/* A connection used up its quantum with input left: the worker is behind its input. */
static void note_push(conn_t *c, uint64_t now)
{
    c->last_push_ns = c->w->last_push_ns = now;
}

/* Keeps *min the most important priority noted since *window_ns, a window that starts
 * again once HOLD has passed without a note (last_ns is the previous note). */
static void window_note(uint64_t *window_ns, uint8_t *min, uint64_t last_ns, uint64_t now,
                        uint64_t hold_ns, uint8_t priority)
{
    if (!last_ns || now - last_ns >= hold_ns || now - *window_ns > hold_ns) {
        *window_ns = now;
        *min = priority;
    } else if (priority < *min)
        *min = priority;
}

/* The priority a request must be more important than to make its connection urgent. */
static uint8_t urgent_below(const bsf_h2_worker_t *w, uint64_t now)
{
    uint8_t below = PRIORITY_UNKNOWN;
    if (shedding(w, now))
        below = w->shed_min_priority;
    if (pushing(w->last_push_ns, now) && w->push_min_priority < below)
        below = w->push_min_priority;
    return below;
}

static void urgent_drop(conn_t *c)
{
    bsf_h2_worker_t *w = c->w;
    for (size_t i = 0; c->urgent && i < w->n_urgent; i++)
        if (w->urgent[i] == c) {
            w->urgent[i] = w->urgent[--w->n_urgent];
            c->urgent = false;
        }
}

/* A refused request makes the worker shedding; a pusher's admitted request counts for the
 * pushers' priority; any other admitted request more important than every request shed or
 * pushed lately makes its connection urgent. */
static void note_admission(bsf_h2_stream_t *s, bool refused)
{
    conn_t *c = s->conn;
    bsf_h2_worker_t *w = c->w;
    uint64_t now = s->headers_ns;
    if (refused) {
        window_note(&w->shed_window_ns, &w->shed_min_priority, w->last_shed_ns, now,
                    SHED_HOLD_NS, s->priority);
        w->last_shed_ns = now;
        return;
    }
    if (pushing(c->last_push_ns, now)) {
        window_note(&w->push_window_ns, &w->push_min_priority, w->last_push_ns, now,
                    PUSH_HOLD_NS, s->priority);
        return;
    }
    if (!contended(w, now) || s->priority >= urgent_below(w, now))
        return;
    c->urgent_until_ns = now + URGENT_HOLD_NS;
    if (!c->urgent && w->n_urgent < URGENT_MAX) {
        w->urgent[w->n_urgent++] = c;
        c->urgent = true;
    }
}

static size_t held_left(const conn_t *c)
{
    return c->held.len - c->held_off;
}

static void run_posts(bsf_h2_worker_t *w);

/* Between two other connections' reads: what the urgent connections sent (read here, off
 * libuv's turn: its polling is level-triggered and finds the socket empty), and the answers
 * posted to the worker meanwhile. */
static void poll_urgent(bsf_h2_worker_t *w, uint64_t now)
{
    if (w->polling_urgent || !w->n_urgent || now - w->last_urgent_poll_ns < URGENT_POLL_NS ||
        !contended(w, now))
        return;
    w->polling_urgent = true;
    w->last_urgent_poll_ns = now;
    run_posts(w);
    conn_t *list[URGENT_MAX];
    size_t n = w->n_urgent;
    memcpy(list, w->urgent, n * sizeof list[0]);
    for (size_t i = 0; i < n; i++) {
        conn_t *c = list[i];
        uv_os_fd_t fd;
        if (c->closing || now > c->urgent_until_ns) {
            urgent_drop(c);
            continue;
        }
        if (!c->reading || c->in_recv || c->lingering || held_left(c) ||
            uv_fileno((uv_handle_t *)&c->tcp, &fd) != 0)
            continue;
        ssize_t got = recv(fd, w->read_buf, sizeof w->read_buf, MSG_DONTWAIT);
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            continue;
        if (got > 0)
            count(&w->priority_reads);
        uv_buf_t buf = uv_buf_init(w->read_buf, got > 0 ? (unsigned)got : 0);
        on_read((uv_stream_t *)&c->tcp, got > 0 ? got : UV_EOF, &buf);
    }
    w->polling_urgent = false;
}

/* The handler's view in *r of the stream's request without its body, received at
 * `received_ns`: true, or false when a header or the headers array is missing (no memory). */
static bool request_view(bsf_h2_stream_t *s, uint64_t received_ns, bsf_h2_request_t *r)
{
    *r = (bsf_h2_request_t){.method = hstr(s, s->method),
                            .path = hstr(s, s->path),
                            .path_len = s->path_len,
                            .authority = hstr(s, s->authority),
                            .content_type = hstr(s, s->content_type),
                            .content_length = s->content_length,
                            .n_headers = s->n_extra,
                            .headers = extra_headers(s),
                            .received_ns = received_ns};
    return r->method && r->path && (!s->n_extra || r->headers);
}

/* Admission control before the body is read: a refused request is answered by `admit`. */
static void admit(bsf_h2_stream_t *s)
{
    bsf_h2_worker_t *w = s->conn->w;
    const bsf_h2_handler_t *hd = &w->srv->handler;
    if (hd->admit) {
        bsf_h2_request_t r;
        if (request_view(s, s->headers_ns, &r)) {
            bool ok = hd->admit(hd->ctx, w, s, &r);
            note_admission(s, !ok);
            if (!ok) {
                s->refused = true;
                return;
            }
        }
    }
    s->receiving = true;
    atomic_fetch_add_explicit(&w->receiving, 1, memory_order_relaxed);
}

/* Headers complete: refuse what can be refused before any body byte is read. A body of
 * unknown length (no content-length) is legal HTTP/2 and is read until END_STREAM. */
static void headers_complete(bsf_h2_stream_t *s)
{
    const bsf_h2_config_t *cfg = &s->conn->w->srv->cfg;
    s->headers_done = true;
    s->headers_ns = bsf_clock_mono_ns();
    if (s->headers_too_large) {
        count(&s->conn->w->headers_too_large);
        refuse(s, BSF_H2_REJECT_HEADERS_TOO_LARGE);
    } else if (s->uri_too_long)
        refuse(s, BSF_H2_REJECT_URI_TOO_LONG);
    else if (s->content_length > (int64_t)cfg->max_body_bytes)
        refuse(s, BSF_H2_REJECT_BODY_TOO_LARGE);
    else
        admit(s);
}

/* The handler's view of the other headers, in the worker's scratch array. */
static const bsf_h2_header_t *extra_headers(bsf_h2_stream_t *s)
{
    bsf_h2_worker_t *w = s->conn->w;
    if (s->n_extra > w->scratch_cap) {
        bsf_h2_header_t *p = realloc(w->scratch, s->n_extra * sizeof *p);
        if (!p)
            return NULL;
        w->scratch = p;
        w->scratch_cap = s->n_extra;
    }
    for (size_t i = 0; i < s->n_extra; i++)
        w->scratch[i] =
            (bsf_h2_header_t){hstr(s, s->extra[2 * i]), hstr(s, s->extra[2 * i + 1])};
    return w->scratch;
}

static void dispatch(bsf_h2_stream_t *s)
{
    if (s->refused || s->responded || s->dispatched)
        return;
    s->dispatched = true;
    bsf_h2_worker_t *w = s->conn->w;
    settle(s); /* complete: from receiving to in flight */
    s->in_flight = true;
    atomic_fetch_add_explicit(&w->in_flight, 1, memory_order_relaxed);
    bsf_h2_request_t r;
    bool whole = request_view(s, bsf_clock_mono_ns(), &r);
    r.body = s->body;
    r.body_len = s->body_len;
    if (!whole) {
        nghttp2_submit_rst_stream(s->conn->session, NGHTTP2_FLAG_NONE, s->id,
                                  r.headers ? NGHTTP2_PROTOCOL_ERROR : NGHTTP2_INTERNAL_ERROR);
        return;
    }
    w->srv->handler.handle(w->srv->handler.ctx, w, s, &r);
}

/* Rate-limited warning for fatal HTTP/2 errors: a flood of bad peers must not flood the log. */
static void warn_protocol(conn_t *c, const char *what, const char *detail)
{
    bsf_h2_worker_t *w = c->w;
    count(&w->protocol_errors);
    uint64_t now = bsf_clock_mono_ns();
    if (w->last_warn_ns && now - w->last_warn_ns < WARN_INTERVAL_NS) {
        w->warns_suppressed++;
        return;
    }
    bsf_h2_stream_info_t info;
    bsf_h2_stream_t probe = {.conn = c, .method = -1, .path = -1};
    bsf_h2_stream_info(&probe, &info);
    BSF_WARN("sbi", "HTTP/2 connection from %s ended: %s%s%s (%u similar suppressed)",
             info.peer[0] ? info.peer : "?", what, detail[0] ? ": " : "", detail,
             w->warns_suppressed);
    w->last_warn_ns = now;
    w->warns_suppressed = 0;
}

/* ---- nghttp2 callbacks ------------------------------------------------------------- */

/* RFC 9113 §5.1.1: a client's new stream id must exceed every one it used; a HEADERS for a
 * lower id that never began a stream is a connection error PROTOCOL_ERROR. nghttp2 ignores
 * such a block (it keeps no record of the ids it saw), so the ids opened lately are kept
 * here; a lower id outside that window, or one that was opened (trailers, or a HEADERS after
 * a reset that RFC 9113 §5.1 says to ignore), is left to nghttp2. Returns false when the
 * connection is ended. */
static bool stream_id_in_order(conn_t *c, nghttp2_session *session, int32_t id)
{
    if (id > c->max_stream_id) {
        uint32_t steps = (uint32_t)(id - c->max_stream_id) / 2;
        c->opened = c->max_stream_id && steps < OPENED_WINDOW ? c->opened << steps | 1 : 1;
        c->max_stream_id = id;
        return true;
    }
    uint32_t back = (uint32_t)(c->max_stream_id - id) / 2;
    if (back >= OPENED_WINDOW || (c->opened >> back & 1) ||
        nghttp2_session_find_stream(session, id))
        return true;
    char detail[64];
    snprintf(detail, sizeof detail, "stream %d after stream %d", (int)id, (int)c->max_stream_id);
    warn_protocol(c, "stream id not increasing", detail);
    c->finishing = true;
    nghttp2_session_terminate_session(session, NGHTTP2_PROTOCOL_ERROR);
    return false;
}

static int on_begin_frame(nghttp2_session *session, const nghttp2_frame_hd *hd, void *user)
{
    conn_t *c = user;
    c->last_progress_ns = bsf_clock_mono_ns();
    if (hd->type == NGHTTP2_HEADERS && (hd->stream_id & 1) && !c->finishing)
        stream_id_in_order(c, session, hd->stream_id);
    return 0;
}

/* The per-iteration counters of the connection belong to the worker's current iteration. */
static void iter_sync(conn_t *c)
{
    if (c->iteration != c->w->iteration) {
        c->iteration = c->w->iteration;
        c->iter_bytes = 0;
        c->iter_streams = 0;
    }
}

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame, void *user)
{
    conn_t *c = user;
    if (frame->hd.type != NGHTTP2_HEADERS || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    /* Over most of the budget: new streams are refused (the client may retry them
     * elsewhere, RFC 9113 §8.7); the connections already open keep their streams. */
    if (bsf_h2_budget_over(&c->w->budget, 7, 8)) {
        count(&c->w->refused_streams);
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, frame->hd.stream_id,
                                  NGHTTP2_REFUSED_STREAM);
        return 0;
    }
    bsf_h2_stream_t *s = bsf_h2_budget_calloc(&c->w->budget, 1, sizeof *s);
    if (!s)
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    iter_sync(c);
    s->begin_ns = c->last_active_ns = bsf_clock_mono_ns();
    unsigned quantum =
        !c->urgent && shedding(c->w, s->begin_ns) ? STREAM_QUANTUM_SHEDDING : STREAM_QUANTUM;
    if (++c->iter_streams > quantum)
        c->pause_next = true; /* this request waits for the next round (on_header) */
    s->conn = c;
    s->id = frame->hd.stream_id;
    s->method = s->path = s->authority = s->content_type = -1;
    s->priority = PRIORITY_UNKNOWN;
    s->content_length = -1;
    BSF_DLIST_PUSH(c->streams, s);
    nghttp2_session_set_stream_user_data(session, s->id, s);
    return 0;
}

static bool name_is(const uint8_t *name, size_t n, const char *lit)
{
    return n == strlen(lit) && memcmp(name, lit, n) == 0;
}

static int64_t parse_length(const uint8_t *value, size_t valuelen)
{
    int64_t v = 0;
    bool ok = valuelen > 0 && valuelen <= 18;
    for (size_t i = 0; ok && i < valuelen; i++) {
        ok = value[i] >= '0' && value[i] <= '9';
        v = v * 10 + (value[i] - '0');
    }
    /* nghttp2 itself rejects a malformed content-length; keep the guard anyway. */
    return ok ? v : INT64_MAX;
}

static int store_extra(bsf_h2_stream_t *s, const uint8_t *name, size_t namelen,
                       const uint8_t *value, size_t valuelen)
{
    if (s->n_extra == s->extra_cap) {
        size_t cap = s->extra_cap ? s->extra_cap * 2 : 8;
        int *p = bsf_h2_budget_realloc(&s->conn->w->budget, s->extra, cap * 2 * sizeof *p);
        if (!p)
            return -1;
        s->extra = p;
        s->extra_cap = cap;
    }
    int n = hstore(s, name, namelen), v = hstore(s, value, valuelen);
    if (n < 0 || v < 0)
        return -1;
    s->extra[2 * s->n_extra] = n;
    s->extra[2 * s->n_extra + 1] = v;
    s->n_extra++;
    return 0;
}

/* Counts the header list as RFC 9113 §6.5.2 does. Over the advertised limit the request
 * gets 431; far over it (an HPACK bomb) the stream is reset at once, which makes nghttp2
 * skip the rest of the block without validating or handing it over. */
static int account_header(bsf_h2_stream_t *s, size_t namelen, size_t valuelen)
{
    size_t max = header_list_max(s->conn->w->srv);
    s->list_bytes += namelen + valuelen + 32;
    if (s->list_bytes <= max)
        return 0;
    s->headers_too_large = true;
    if (s->list_bytes > max * HEADER_BOMB_FACTOR) {
        count(&s->conn->w->headers_too_large);
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    }
    return 1;
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
    int acct = account_header(s, namelen, valuelen);
    if (acct)
        return acct < 0 ? acct : 0;
    int rc = 0;
    if (name_is(name, namelen, ":method"))
        rc = s->method = hstore(s, value, valuelen);
    else if (name_is(name, namelen, ":path")) {
        if (valuelen > s->conn->w->srv->cfg.max_uri_bytes)
            s->uri_too_long = true;
        else {
            rc = s->path = hstore(s, value, valuelen);
            s->path_len = valuelen;
        }
    } else if (name_is(name, namelen, ":authority"))
        rc = s->authority = hstore(s, value, valuelen);
    else if (name_is(name, namelen, "content-type"))
        rc = s->content_type = hstore(s, value, valuelen);
    else if (name_is(name, namelen, "content-length"))
        s->content_length = parse_length(value, valuelen);
    else if (namelen > 0 && name[0] != ':')
        rc = store_extra(s, name, namelen, value, valuelen);
    if (rc < 0)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    if (s->conn->pause_next) { /* the header is stored; the rest of the input waits */
        s->conn->pause_next = false;
        return NGHTTP2_ERR_PAUSE;
    }
    return 0;
}

static int on_data_chunk(nghttp2_session *session, uint8_t flags, int32_t stream_id,
                         const uint8_t *data, size_t len, void *user)
{
    (void)flags;
    conn_t *c = user;
    c->last_progress_ns = bsf_clock_mono_ns();
    bsf_h2_stream_t *s = nghttp2_session_get_stream_user_data(session, stream_id);
    if (!s || s->refused || s->responded)
        return 0;
    size_t max = c->w->srv->cfg.max_body_bytes;
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
        char *p = bsf_h2_budget_realloc(&c->w->budget, s->body, cap);
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
    conn_t *c = user;
    c->last_progress_ns = bsf_clock_mono_ns();
    if (frame->hd.type == NGHTTP2_SETTINGS && !(frame->hd.flags & NGHTTP2_FLAG_ACK))
        c->got_settings = true;
    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA)
        return 0;
    bsf_h2_stream_t *s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (!s)
        return 0;
    bool end = frame->hd.flags & NGHTTP2_FLAG_END_STREAM;
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST)
        headers_complete(s);
    if (end)
        dispatch(s);
    return 0;
}

/* Once the answer to a refused request is out, a reset (NO_ERROR, RFC 9113 §8.1) stops the
 * peer from sending the rest of a body nobody will read. Sent earlier, the reset would
 * discard the queued answer. A GOAWAY with an error code ends the connection: say why. */
static int on_frame_send(nghttp2_session *session, const nghttp2_frame *frame, void *user)
{
    conn_t *c = user;
    if (frame->hd.type == NGHTTP2_GOAWAY && frame->goaway.error_code != NGHTTP2_NO_ERROR &&
        !c->finishing) { /* an error nghttp2 found itself (ours are logged where decided) */
        char detail[128];
        snprintf(detail, sizeof detail, "%.*s",
                 (int)(frame->goaway.opaque_data_len < 100 ? frame->goaway.opaque_data_len : 100),
                 frame->goaway.opaque_data ? (const char *)frame->goaway.opaque_data : "");
        char what[64];
        snprintf(what, sizeof what, "GOAWAY %s",
                 nghttp2_http2_strerror(frame->goaway.error_code));
        warn_protocol(c, what, detail);
        c->finishing = true;
        return 0;
    }
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
    nghttp2_session_callbacks *cbs =
        bsf_h2_session_callbacks_new(on_header, on_data_chunk, on_frame_recv, on_stream_close);
    if (!cbs)
        return NULL;
    nghttp2_session_callbacks_set_on_begin_frame_callback(cbs, on_begin_frame);
    nghttp2_session_callbacks_set_on_begin_headers_callback(cbs, on_begin_headers);
    nghttp2_session_callbacks_set_on_frame_send_callback(cbs, on_frame_send);
    return cbs;
}

/* ---- connections ------------------------------------------------------------------- */

static void on_conn_closed(uv_handle_t *h)
{
    conn_t *c = h->data;
    bsf_h2_budget_t *bud = &c->w->budget;
    if (c->tls) {
        bsf_h2_tls_free(c->tls);
        bsf_h2_budget_release(bud, TLS_CONN_BYTES);
    }
    bsf_h2_budget_free(bud, c->out.data);
    bsf_h2_budget_free(bud, c->writing.data);
    bsf_h2_budget_free(bud, c->held.data);
    bsf_h2_budget_free(bud, c);
}

static void conn_close(conn_t *c)
{
    if (c->closing)
        return;
    c->closing = true;
    urgent_drop(c);
    BSF_DLIST_UNLINK(c->w->conns, c);
    c->w->n_conns--;
    atomic_fetch_sub_explicit(&c->w->open_conns, 1, memory_order_relaxed);
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
    *buf = uv_buf_init(c->w->read_buf, sizeof c->w->read_buf);
}

/* A fatal error nghttp2 reported without queuing a GOAWAY itself: send one (RFC 9113
 * §5.4.1) and close once it is written. */
static void conn_fail(conn_t *c, int rv)
{
    uint32_t code = rv == NGHTTP2_ERR_FLOODED ? NGHTTP2_ENHANCE_YOUR_CALM
                    : rv == NGHTTP2_ERR_CALLBACK_FAILURE || rv == NGHTTP2_ERR_NOMEM
                        ? NGHTTP2_INTERNAL_ERROR
                        : NGHTTP2_PROTOCOL_ERROR;
    warn_protocol(c, nghttp2_strerror(rv), "");
    c->finishing = true; /* before the GOAWAY goes out: on_frame_send does not warn again */
    nghttp2_session_terminate_session(c->session, code);
    conn_flush(c);
}

/* RFC 9113 §3.3 leaves an HTTP/1.1 request on an h2c port unanswered in HTTP/2 terms; it gets
 * an HTTP/1.1 505 and the connection closes (this server does not upgrade, RFC 9113 §3.1). */
static void answer_http1(conn_t *c)
{
    static const char body[] = "This server speaks HTTP/2 only (prior knowledge, RFC 9113 §3.3).\n";
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 505 HTTP Version Not Supported\r\ndate: %s\r\n"
                     "content-type: text/plain; charset=utf-8\r\ncontent-length: %zu\r\n"
                     "connection: close\r\n\r\n",
                     http_date(c->w), sizeof body - 1);
    c->preface = PREFACE_HTTP1;
    if (n < 0 || (size_t)n >= sizeof head ||
        outbuf_append(&c->w->budget, &c->out, (const uint8_t *)head, (size_t)n) ||
        outbuf_append(&c->w->budget, &c->out, (const uint8_t *)body, sizeof body - 1)) {
        conn_close(c);
        return;
    }
    conn_flush(c);
}

/* An HTTP/1.x request line: a method token, a space, and " HTTP/1." before the line's end. */
static bool looks_like_http1(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && i < 16 && p[i] >= 'A' && p[i] <= 'Z')
        i++;
    if (i == 0 || i >= n || p[i] != ' ')
        return false;
    const char *eol = memchr(p, '\n', n);
    size_t line = eol ? (size_t)(eol - p) : n;
    static const char version[] = " HTTP/1.";
    for (size_t k = i; k + sizeof version - 1 <= line; k++)
        if (memcmp(p + k, version, sizeof version - 1) == 0)
            return true;
    return false;
}

/* Checks the client's first bytes against the HTTP/2 preface. Returns false when they were
 * an HTTP/1.1 request (answered) instead. Anything else goes to nghttp2, which ends the
 * connection with a GOAWAY when it is not HTTP/2. */
static bool check_preface(conn_t *c, const char *p, size_t n)
{
    size_t want = CLIENT_PREFACE_LEN - c->preface_off, k = n < want ? n : want;
    if (memcmp(p, &CLIENT_PREFACE[c->preface_off], k) == 0) {
        c->preface_off += (unsigned)k;
        if (c->preface_off == CLIENT_PREFACE_LEN)
            c->preface = PREFACE_H2;
        return true;
    }
    if (c->preface_off == 0 && looks_like_http1(p, n)) {
        answer_http1(c);
        return false;
    }
    c->preface = PREFACE_H2;
    return true;
}

/* Input for nghttp2. Behind held input, or when nghttp2 pauses (STREAM_QUANTUM), what it
 * did not take is kept in c->held for the next loop iteration and reading stops. Returns 0
 * or nghttp2's error (< 0). */
static ssize_t conn_recv(conn_t *c, const uint8_t *data, size_t n)
{
    size_t done = 0;
    if (!held_left(c)) {
        c->held.len = c->held_off = 0;
        ssize_t rv = nghttp2_session_mem_recv(c->session, data, n);
        if (rv < 0)
            return rv;
        done = (size_t)rv;
    }
    if (done == n)
        return 0;
    if (outbuf_append(&c->w->budget, &c->held, data + done, n - done))
        return NGHTTP2_ERR_NOMEM;
    note_push(c, c->last_byte_ns);
    c->yielded = true;
    uv_idle_start(&c->w->idle, on_idle);
    return 0;
}

/* Plaintext out of TLS into nghttp2. */
static int sink_plain(void *arg, const uint8_t *data, size_t len)
{
    conn_t *c = arg;
    c->recv_rv = conn_recv(c, data, len);
    return c->recv_rv < 0 ? -1 : 0;
}

static void tls_refused(conn_t *c, const char *why)
{
    count(&c->w->tls_failures);
    c->tls_failed = true;
    warn_protocol(c, "TLS", why);
}

/* Ciphertext from the socket: the handshake, then records whose plaintext goes to nghttp2.
 * Returns nghttp2's error (< 0) or 0; a TLS failure sets tls_failed. */
static ssize_t tls_read(conn_t *c, const uint8_t *data, size_t n)
{
    c->recv_rv = 0;
    int rc = bsf_h2_tls_recv(c->tls, data, n, sink_plain, sink_out, c);
    if (rc == 0 && !bsf_h2_tls_done(c->tls)) {
        char err[200];
        int hs = bsf_h2_tls_handshake(c->tls, sink_out, c, err, sizeof err);
        if (hs < 0) {
            tls_refused(c, err);
            return 0;
        }
        if (hs == 0)
            return 0;
        count(&c->w->tls_handshakes);
        rc = bsf_h2_tls_recv(c->tls, data, 0, sink_plain, sink_out, c); /* data that came along */
    }
    if (c->recv_rv < 0)
        return c->recv_rv;
    if (rc)
        c->tls_failed = true; /* close_notify or a bad record: the peer is done */
    return 0;
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
    if (c->lingering || c->preface == PREFACE_HTTP1) {
        c->linger_bytes += (size_t)nread;
        if (c->linger_bytes > LINGER_BYTES)
            conn_close(c);
        return;
    }
    if (!c->tls && c->preface == PREFACE_PENDING && !check_preface(c, buf->base, (size_t)nread))
        return;
    c->last_byte_ns = bsf_clock_mono_ns();
    c->in_recv = true;
    ssize_t rv = c->tls ? tls_read(c, (const uint8_t *)buf->base, (size_t)nread)
                        : conn_recv(c, (const uint8_t *)buf->base, (size_t)nread);
    c->in_recv = false;
    if (c->tls_failed) {
        conn_flush(c); /* the alert, then shutdown */
        return;
    }
    if (rv < 0) {
        conn_fail(c, (int)rv);
        return;
    }
    /* One connection gets at most READ_QUANTUM per loop iteration, then the others. */
    iter_sync(c);
    c->iter_bytes += (size_t)nread;
    if (c->iter_bytes >= READ_QUANTUM) {
        note_push(c, c->last_byte_ns);
        c->yielded = true;
    }
    conn_flush(c);
    if (!c->urgent)
        poll_urgent(c->w, c->last_byte_ns);
}

/* Over budget, at max_connections or refused by the handler (admission control): accept and
 * close at once, so that the backlog does not fill and one client cannot exhaust the
 * worker. Sets the connection's stream limit. */
static bool conn_admissible(bsf_h2_worker_t *w, conn_t *c)
{
    const bsf_h2_config_t *cfg = &w->srv->cfg;
    const bsf_h2_handler_t *h = &w->srv->handler;
    c->max_streams = cfg->max_concurrent_streams;
    if ((cfg->max_connections && w->n_conns >= cfg->max_connections) ||
        bsf_h2_budget_over(&w->budget, 1, 1) ||
        (h->admit_connection && !h->admit_connection(h->ctx, &c->max_streams))) {
        count(&w->refused_connections);
        return false;
    }
    return true;
}

static int conn_session_new(conn_t *c)
{
    bsf_h2_worker_t *w = c->w;
    nghttp2_session_callbacks *cbs = make_callbacks();
    nghttp2_option *opt = NULL;
    nghttp2_mem mem;
    bsf_h2_budget_nghttp2_mem(&w->budget, &mem);
    int rc = -1;
    if (cbs && nghttp2_option_new(&opt) == 0) {
        nghttp2_option_set_max_deflate_dynamic_table_size(opt, 4096);
        nghttp2_option_set_max_settings(opt, 32);
        nghttp2_option_set_max_outbound_ack(opt, 100);
        nghttp2_option_set_max_reserved_remote_streams(opt, 0);
        rc = nghttp2_session_server_new3(&c->session, cbs, c, opt, &mem) ? -1 : 0;
    }
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cbs);
    if (rc)
        return -1;
    uint32_t window = w->srv->cfg.max_body_bytes < 65535 ? (uint32_t)w->srv->cfg.max_body_bytes
                                                         : 65535;
    nghttp2_settings_entry iv[] = {
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, c->max_streams},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, (uint32_t)header_list_max(w->srv)},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, window},
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
    };
    return nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, iv, sizeof iv / sizeof iv[0]);
}

static int bind_socket(const char *host, bool v6only, uint16_t port, int *fd_out,
                       uint16_t *bound, char *err, size_t cap);
static void on_connection(uv_stream_t *listener, int status);

static void on_listener_closed(uv_handle_t *h)
{
    listener_t *l = h->data;
    l->closed = true;
}

static const char *listener_host(const listener_t *l)
{
    return l->tls ? l->w->srv->cfg.tls_host : l->w->srv->cfg.host;
}

/* IPV6_V6ONLY for the cleartext listener when the service has listeners of the other family
 * (sbi.listen_also); the TLS listener has its port to itself and stays dual stack. */
static bool listener_v6only(const listener_t *l)
{
    return !l->tls && l->w->srv->cfg.v6only;
}

static uint16_t listener_port(const listener_t *l)
{
    return l->tls ? l->w->srv->tls_port : l->w->srv->port;
}

/* Listens again on the shared port (SO_REUSEPORT) once descriptors may be free again. */
static void relisten(uv_timer_t *t)
{
    listener_t *l = t->data;
    bsf_h2_worker_t *w = l->w;
    if (w->draining || w->stopping)
        return;
    int fd;
    uint16_t port = listener_port(l);
    char err[160];
    if (!l->closed ||
        bind_socket(listener_host(l), listener_v6only(l), port, &fd, &port, err, sizeof err)) {
        uv_timer_start(&l->relisten_timer, relisten, 1000, 0);
        return;
    }
    l->closed = false;
    uv_tcp_init(&w->loop, &l->tcp);
    l->tcp.data = l;
    if (uv_tcp_open(&l->tcp, fd)) {
        close(fd);
        uv_close((uv_handle_t *)&l->tcp, on_listener_closed);
        uv_timer_start(&l->relisten_timer, relisten, 1000, 0);
    } else if (uv_listen((uv_stream_t *)&l->tcp, 1024, on_connection)) {
        uv_close((uv_handle_t *)&l->tcp, on_listener_closed);
        uv_timer_start(&l->relisten_timer, relisten, 1000, 0);
    }
}

/* Out of descriptors. When libuv cannot shed the pending connection with its reserve
 * descriptor it calls back again at once, without end: the worker would spin and never see
 * a stop request. The listener is closed instead (the other workers' sockets on the port go
 * on accepting) and opened again a second later. */
static void pause_listening(listener_t *l)
{
    bsf_h2_worker_t *w = l->w;
    if (uv_is_closing((uv_handle_t *)&l->tcp))
        return;
    uv_close((uv_handle_t *)&l->tcp, on_listener_closed);
    uv_timer_start(&l->relisten_timer, relisten, 1000, 0);
    uint64_t now = bsf_clock_mono_ns();
    if (!l->last_emfile_warn_ns || now - l->last_emfile_warn_ns >= WARN_INTERVAL_NS) {
        l->last_emfile_warn_ns = now;
        BSF_WARN("sbi", "worker %u: out of descriptors (%u connections): not accepting for 1 s",
                 w->index, (unsigned)w->n_conns);
    }
}

static void close_listeners(bsf_h2_worker_t *w)
{
    for (int i = 0; i < LSN_COUNT; i++)
        if (w->lsn[i].used && !uv_is_closing((uv_handle_t *)&w->lsn[i].tcp))
            uv_close((uv_handle_t *)&w->lsn[i].tcp, on_listener_closed);
}

/* A TLS session for a connection of the TLS listener, with the context current now (a
 * reload changes only what later connections get). */
static int conn_tls_new(conn_t *c)
{
    SSL_CTX *ctx = bsf_sbi_tls_acquire(c->w->srv->cfg.tls);
    c->tls = bsf_h2_tls_new_server(ctx);
    SSL_CTX_free(ctx); /* the SSL holds its own reference */
    if (!c->tls)
        return -1;
    bsf_h2_budget_charge(&c->w->budget, TLS_CONN_BYTES);
    /* ALPN h2 is the only protocol offered: no HTTP/1.1 answer inside TLS, and the server's
     * SETTINGS follow the handshake */
    c->preface = PREFACE_H2;
    return 0;
}

static void on_connection(uv_stream_t *listener, int status)
{
    listener_t *l = listener->data;
    bsf_h2_worker_t *w = l->w;
    if (status < 0) {
        count(&w->accept_errors);
        if (status == UV_EMFILE || status == UV_ENFILE)
            pause_listening(l);
        return;
    }
    if (w->draining)
        return;
    conn_t *c = bsf_h2_budget_calloc(&w->budget, 1, sizeof *c);
    if (!c)
        return;
    c->accepted_ns = c->last_active_ns = c->last_progress_ns = bsf_clock_mono_ns();
    c->w = w;
    uv_tcp_init(&w->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(listener, (uv_stream_t *)&c->tcp) != 0) {
        count(&w->accept_errors);
        uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
        return;
    }
    if (!conn_admissible(w, c)) {
        uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    w->n_conns++;
    atomic_fetch_add_explicit(&w->open_conns, 1, memory_order_relaxed);
    BSF_DLIST_PUSH(w->conns, c);
    if (conn_session_new(c) || (l->tls && conn_tls_new(c))) {
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
    /* The engine answers a whole transaction's commands at once: each connection then
     * writes its answers in one go rather than one write per answer. */
    w->in_posts = true;
    while (items) {
        post_item_t *next = items->next;
        items->fn(items->arg);
        free(items);
        items = next;
    }
    w->in_posts = false;
    while (w->flush_deferred) { /* closed ones are still allocated: uv_close is pending */
        conn_t *c = w->flush_deferred;
        w->flush_deferred = c->flush_next;
        c->flush_queued = false;
        conn_flush(c);
    }
}

static bool has_pending_output(bsf_h2_worker_t *w)
{
    for (conn_t *c = w->conns; c; c = c->next)
        if (!c->lingering && c->preface != PREFACE_PENDING &&
            (c->write_in_flight || c->out.len ||
             (c->session && h2_up(c) && nghttp2_session_want_write(c->session))))
            return true;
    return false;
}

static bool expired(uint64_t now, uint64_t since, unsigned ms)
{
    return ms && now > since && now - since > (uint64_t)ms * 1000000u;
}

static void timeout_conn(conn_t *c, bsf_h2_timeout_t why, bool goaway)
{
    count(&c->w->timeouts[why]);
    if (!goaway || !h2_up(c)) {
        conn_close(c); /* the peer does not read: a GOAWAY would not get through */
        return;
    }
    nghttp2_submit_goaway(c->session, NGHTTP2_FLAG_NONE,
                          nghttp2_session_get_last_proc_stream_id(c->session),
                          why == BSF_H2_TIMEOUT_IDLE ? NGHTTP2_NO_ERROR : NGHTTP2_CANCEL, NULL, 0);
    c->finishing = true;
    conn_flush(c);
}

/* The deadlines of one connection's streams. Returns true when the connection was ended;
 * sets *busy when a stream waits for its answer (the idle timeout does not apply then), *reset
 * when a stream was reset (the caller flushes). */
static bool check_streams(conn_t *c, uint64_t now, bool *busy, bool *reset)
{
    const bsf_h2_config_t *cfg = &c->w->srv->cfg;
    bsf_h2_stream_t *s = c->streams;
    while (s) {
        bsf_h2_stream_t *next = s->next;
        if (s->responded && expired(now, s->responded_ns, cfg->send_timeout_ms)) {
            timeout_conn(c, BSF_H2_TIMEOUT_SEND, false);
            return true;
        }
        if (!s->headers_done && expired(now, s->begin_ns, cfg->header_timeout_ms)) {
            timeout_conn(c, BSF_H2_TIMEOUT_HEADER, true);
            return true;
        }
        if (s->headers_done && !s->dispatched && !s->refused &&
            expired(now, s->headers_ns, cfg->body_timeout_ms)) {
            count(&c->w->timeouts[BSF_H2_TIMEOUT_BODY]);
            s->refused = true;
            nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, s->id, NGHTTP2_CANCEL);
            *reset = true;
        }
        if (s->dispatched)
            *busy = true;
        s = next;
    }
    return false;
}

/* One connection's phase deadlines: preface, a frame that arrives too slowly (slowloris),
 * streams, writes the peer does not take, idle. */
static void check_conn(conn_t *c, uint64_t now)
{
    const bsf_h2_config_t *cfg = &c->w->srv->cfg;
    if (c->lingering) {
        if (now > c->linger_deadline_ns)
            conn_close(c);
        return;
    }
    if (c->write_in_flight && expired(now, c->write_start_ns, cfg->send_timeout_ms)) {
        timeout_conn(c, BSF_H2_TIMEOUT_SEND, false);
        return;
    }
    if (c->finishing)
        return;
    if (!c->got_settings && expired(now, c->accepted_ns, cfg->preface_timeout_ms)) {
        timeout_conn(c, BSF_H2_TIMEOUT_PREFACE, false);
        return;
    }
    if (c->last_byte_ns > c->last_progress_ns &&
        expired(now, c->last_progress_ns, cfg->header_timeout_ms)) {
        timeout_conn(c, BSF_H2_TIMEOUT_HEADER, true);
        return;
    }
    bool busy = false, reset = false;
    if (check_streams(c, now, &busy, &reset))
        return;
    if (reset)
        conn_flush(c);
    if (c->closing)
        return;
    if (!busy && expired(now, c->last_active_ns, cfg->idle_timeout_ms)) {
        timeout_conn(c, BSF_H2_TIMEOUT_IDLE, true);
        return;
    }
    if (!c->write_in_flight && c->out.len == 0) {
        outbuf_trim(&c->w->budget, &c->out);
        outbuf_trim(&c->w->budget, &c->writing);
    }
}

static void on_tick(uv_timer_t *t)
{
    bsf_h2_worker_t *w = t->data;
    uint64_t now = bsf_clock_mono_ns();
    conn_t *c = w->conns;
    while (c) {
        conn_t *next = c->next;
        check_conn(c, now);
        c = next;
    }
}

/* The input a connection held back goes to nghttp2 now (with a new quantum); what it
 * still leaves stays held. */
static void resume_held(conn_t *c)
{
    c->in_recv = true;
    ssize_t rv = nghttp2_session_mem_recv(c->session, (const uint8_t *)c->held.data + c->held_off,
                                          held_left(c));
    c->in_recv = false;
    if (rv < 0) {
        c->held.len = c->held_off = 0;
        conn_fail(c, (int)rv);
        return;
    }
    c->held_off += (size_t)rv; /* no memmove per round: the offset moves */
    if (!held_left(c)) {
        c->held.len = c->held_off = 0;
        outbuf_trim(&c->w->budget, &c->held);
    }
    uint64_t now = bsf_clock_mono_ns();
    if (held_left(c))
        note_push(c, now);
    c->batching = held_left(c) && !c->urgent && shedding(c->w, now);
    conn_flush(c);
    c->batching = false;
}

/* Before the loop polls again: connections that used their quantum go on, each with a new
 * one (round robin: every connection's next requests before any connection's later ones). */
static void worker_resume(bsf_h2_worker_t *w)
{
    w->iteration++;
    bool holding = false;
    conn_t *c = w->conns;
    while (c) {
        conn_t *next = c->next; /* c may close (it stays allocated until the loop's close) */
        if (c->yielded && held_left(c) && !c->lingering && !c->closing) {
            resume_held(c);
            if (!c->urgent)
                poll_urgent(w, bsf_clock_mono_ns());
        }
        if (!c->closing && held_left(c) && !c->lingering)
            holding = true;
        else if (!c->closing && c->yielded) {
            c->yielded = false;
            update_reading(c);
        }
        c = next;
    }
    if (!holding)
        uv_idle_stop(&w->idle);
}

static void on_prepare(uv_prepare_t *p)
{
    worker_resume(p->data);
}

/* A tick fine enough for the shortest deadline (a quarter of it, 50 ms to 1 s). */
static unsigned tick_ms(const bsf_h2_config_t *cfg)
{
    unsigned t[] = {cfg->idle_timeout_ms, cfg->preface_timeout_ms, cfg->header_timeout_ms,
                    cfg->body_timeout_ms, cfg->send_timeout_ms};
    unsigned best = 4000;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i] && t[i] < best)
            best = t[i];
    best /= 4;
    return best < 50 ? 50 : best > 1000 ? 1000 : best;
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
    for (int i = 0; i < LSN_COUNT; i++)
        if (w->lsn[i].used)
            uv_close((uv_handle_t *)&w->lsn[i].relisten_timer, NULL);
    uv_close((uv_handle_t *)&w->tick_timer, NULL);
    uv_close((uv_handle_t *)&w->prepare, NULL);
    uv_close((uv_handle_t *)&w->idle, NULL);
    close_listeners(w);
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
    close_listeners(w);
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
    pthread_setname_np(pthread_self(), "bsf-sbi-worker"); /* per-thread CPU (benches) */
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
    BSF_FIFO_APPEND(w->posts_head, w->posts_tail, item, next);
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

static int bind_socket(const char *host, bool v6only, uint16_t port, int *fd_out,
                       uint16_t *bound, char *err, size_t cap)
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
    if (fd >= 0 && ss.ss_family == AF_INET6 && v6only &&
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one)) {
        close(fd);
        fd = -1;
    }
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) ||
        bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, 1024)) {
        snprintf(err, cap, "cannot listen on %s:%u: %s", host, port, bsf_strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        *bound = ntohs(ss.ss_family == AF_INET ? s4->sin_port : s6->sin6_port);
    *fd_out = fd;
    return 0;
}

/* Binds listener `which` of every worker (the first socket fixes the port when it is 0; the
 * others share it). Returns 0 or -1 with the sockets bound so far closed. */
static int bind_all(bsf_h2_server_t *srv, int which, const char *host, uint16_t *port,
                    char *err, size_t err_cap)
{
    for (unsigned i = 0; i < srv->n_workers; i++) {
        listener_t *l = &srv->workers[i].lsn[which];
        if (bind_socket(host, which == LSN_PLAIN && srv->cfg.v6only, *port, &l->fd, port, err,
                        err_cap)) {
            for (unsigned k = 0; k < i; k++)
                close(srv->workers[k].lsn[which].fd);
            return -1;
        }
        l->used = true;
        l->tls = which == LSN_TLS;
        l->w = &srv->workers[i];
    }
    return 0;
}

static int bind_listeners(bsf_h2_server_t *srv, char *err, size_t err_cap)
{
    const bsf_h2_config_t *cfg = &srv->cfg;
    bool plain = cfg->host && cfg->host[0], tls = cfg->tls_host && cfg->tls_host[0];
    if (tls && !cfg->tls) {
        snprintf(err, err_cap, "sbi.tls.listen: no TLS context");
        return -1;
    }
    if (!plain && !tls) {
        snprintf(err, err_cap, "neither sbi.listen nor sbi.tls.listen is set");
        return -1;
    }
    srv->port = plain ? cfg->port : 0;
    srv->tls_port = tls ? cfg->tls_port : 0;
    if (plain && bind_all(srv, LSN_PLAIN, cfg->host, &srv->port, err, err_cap))
        return -1;
    if (tls && bind_all(srv, LSN_TLS, cfg->tls_host, &srv->tls_port, err, err_cap)) {
        for (unsigned k = 0; plain && k < srv->n_workers; k++)
            close(srv->workers[k].lsn[LSN_PLAIN].fd);
        return -1;
    }
    return 0;
}

static int worker_listen(bsf_h2_worker_t *w)
{
    for (int i = 0; i < LSN_COUNT; i++) {
        listener_t *l = &w->lsn[i];
        if (!l->used)
            continue;
        uv_tcp_init(&w->loop, &l->tcp);
        l->tcp.data = l;
        uv_timer_init(&w->loop, &l->relisten_timer);
        l->relisten_timer.data = l;
        if (uv_tcp_open(&l->tcp, l->fd) ||
            uv_listen((uv_stream_t *)&l->tcp, 1024, on_connection))
            return -1;
    }
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
    if (!srv->workers || bind_listeners(srv, err, err_cap)) {
        if (!srv->workers)
            snprintf(err, err_cap, "out of memory");
        free(srv->workers);
        free(srv);
        return -1;
    }
    for (unsigned i = 0; i < srv->n_workers; i++) {
        bsf_h2_worker_t *w = &srv->workers[i];
        w->srv = srv;
        w->index = cfg->worker_index_base + i;
        pthread_mutex_init(&w->mu, NULL);
        uv_loop_init(&w->loop);
        uv_async_init(&w->loop, &w->async, on_async);
        w->async.data = w;
        uv_timer_init(&w->loop, &w->stop_timer);
        w->stop_timer.data = w;
        w->budget.limit = cfg->worker_memory_bytes;
        uv_timer_init(&w->loop, &w->tick_timer);
        w->tick_timer.data = w;
        uv_timer_start(&w->tick_timer, on_tick, tick_ms(cfg), tick_ms(cfg));
        uv_prepare_init(&w->loop, &w->prepare);
        w->prepare.data = w;
        uv_prepare_start(&w->prepare, on_prepare);
        uv_idle_init(&w->loop, &w->idle);
        w->idle.data = w;
        if (worker_listen(w) || pthread_create(&w->thread, NULL, worker_main, w)) {
            snprintf(err, err_cap, "cannot start SBI worker %u", i);
            return -1; /* start-up failure: the process exits */
        }
    }
    *out = srv;
    return 0;
}

uint16_t bsf_h2_server_tls_port(const bsf_h2_server_t *srv)
{
    return srv->tls_port;
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
    for (unsigned i = 0; i < srv->n_workers; i++) {
        pthread_mutex_destroy(&srv->workers[i].mu);
        free(srv->workers[i].scratch);
    }
    free(srv->workers);
    free(srv);
}

const char *bsf_h2_timeout_name(bsf_h2_timeout_t t)
{
    static const char *const names[BSF_H2_TIMEOUT_COUNT] = {"preface", "header", "body", "send",
                                                            "idle"};
    return (unsigned)t < BSF_H2_TIMEOUT_COUNT ? names[t] : "other";
}

static uint64_t load(const atomic_uint_fast64_t *a)
{
    return atomic_load_explicit(a, memory_order_relaxed);
}

void bsf_h2_server_stats(const bsf_h2_server_t *srv, bsf_h2_stats_t *out)
{
    *out = (bsf_h2_stats_t){0};
    for (unsigned i = 0; i < srv->n_workers; i++) {
        const bsf_h2_worker_t *w = &srv->workers[i];
        for (unsigned t = 0; t < BSF_H2_TIMEOUT_COUNT; t++)
            out->timeouts[t] += load(&w->timeouts[t]);
        out->refused_streams += load(&w->refused_streams);
        out->refused_connections += load(&w->refused_connections);
        out->headers_too_large += load(&w->headers_too_large);
        out->protocol_errors += load(&w->protocol_errors);
        out->accept_errors += load(&w->accept_errors);
        out->connections += load(&w->open_conns);
        out->in_flight += load(&w->in_flight);
        out->receiving += load(&w->receiving);
        out->tls_handshakes += load(&w->tls_handshakes);
        out->tls_failures += load(&w->tls_failures);
        out->priority_reads += load(&w->priority_reads);
        out->memory_bytes += bsf_h2_budget_used(&w->budget);
    }
}

uint64_t bsf_h2_server_in_flight(const bsf_h2_server_t *srv, bool receiving)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < srv->n_workers; i++)
        n += load(receiving ? &srv->workers[i].receiving : &srv->workers[i].in_flight);
    return n;
}

/* ---- testing ----------------------------------------------------------------------- */

static void drain_fd(int fd)
{
    char buf[16384];
    while (read(fd, buf, sizeof buf) > 0)
        ;
}

/* One connection on a socketpair in a private loop: the real callbacks, without a thread. */
int bsf_h2_server_feed_for_testing(const bsf_h2_config_t *cfg, const bsf_h2_handler_t *handler,
                                   const uint8_t *data, size_t len, size_t chunk)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv))
        return -1;
    bsf_h2_server_t srv = {.cfg = *cfg, .handler = *handler, .n_workers = 1};
    bsf_h2_worker_t *w = calloc(1, sizeof *w);
    if (!w) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    srv.workers = w;
    w->srv = &srv;
    w->budget.limit = cfg->worker_memory_bytes;
    uv_loop_init(&w->loop);
    uv_idle_init(&w->loop, &w->idle);
    if (handler->worker_init)
        w->state = handler->worker_init(handler->ctx, w);
    conn_t *c = bsf_h2_budget_calloc(&w->budget, 1, sizeof *c);
    int rc = -1;
    if (c) {
        c->w = w;
        c->accepted_ns = c->last_active_ns = bsf_clock_mono_ns();
        uv_tcp_init(&w->loop, &c->tcp);
        c->tcp.data = c;
        if (uv_tcp_open(&c->tcp, sv[0]) == 0) {
            sv[0] = -1; /* owned by the handle now */
            w->conns = c;
            w->n_conns = 1;
            c->max_streams = cfg->max_concurrent_streams;
            rc = conn_session_new(c) ? -1 : 0;
            conn_flush(c);
            for (size_t off = 0; rc == 0 && off < len && !c->closing && !c->lingering;) {
                size_t n = chunk && len - off > chunk ? chunk : len - off;
                uv_buf_t b = uv_buf_init((char *)data + off, (unsigned)n);
                on_read((uv_stream_t *)&c->tcp, (ssize_t)n, &b);
                for (size_t held = 0; !c->closing && !c->lingering && held_left(c) &&
                                      held_left(c) != held;) { /* the loop's prepare rounds */
                    held = held_left(c);
                    worker_resume(w);
                }
                off += n;
                uv_run(&w->loop, UV_RUN_NOWAIT);
                drain_fd(sv[1]);
            }
            if (!c->closing)
                conn_close(c);
        } else {
            uv_close((uv_handle_t *)&c->tcp, on_conn_closed);
        }
    }
    uv_close((uv_handle_t *)&w->idle, NULL);
    uv_run(&w->loop, UV_RUN_DEFAULT); /* closes the handle, frees the connection */
    if (handler->worker_fini)
        handler->worker_fini(handler->ctx, w->state);
    uv_loop_close(&w->loop);
    if (sv[0] >= 0)
        close(sv[0]);
    close(sv[1]);
    free(w->scratch);
    /* Everything a connection held is given back: the accounting must come out at zero. */
    if (rc == 0 && bsf_h2_budget_used(&w->budget) != 0)
        rc = 1;
    free(w);
    return rc;
}
