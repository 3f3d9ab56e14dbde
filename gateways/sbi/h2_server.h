/* An HTTP/2 server on nghttp2 and libuv: cleartext (prior knowledge) and/or over TLS with
 * ALPN h2 (issue 13 §1; the TLS context is sbi_tls.h, the record layer h2_tls.h).
 *
 * N worker threads, each with its own libuv loop and its own listening socket on the same
 * port (SO_REUSEPORT: the kernel spreads connections). A worker assembles each request
 * (headers and a size-limited body) and calls the handler on its own thread. The handler
 * answers at once with bsf_h2_respond, or later from the same worker thread; work done on
 * other threads comes back through bsf_h2_worker_post.
 *
 * Protocol errors the server can judge alone (body too large, URI too long, header list too
 * large) are answered by the `reject` callback before the handler runs, without reading the
 * rest of the body. A body without content-length is read until END_STREAM.
 *
 * Hostile peers are bounded (docs/architecture.md, Robustness): a per-worker memory budget,
 * a deadline per phase, header limits on receipt, a read quantum per connection and loop
 * iteration; bsf_h2_server_stats counts what they cost. */
#ifndef BSF_GATEWAYS_SBI_H2_SERVER_H
#define BSF_GATEWAYS_SBI_H2_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bsf_h2_server bsf_h2_server_t;
typedef struct bsf_h2_worker bsf_h2_worker_t;
typedef struct bsf_h2_stream bsf_h2_stream_t;

typedef struct {
    const char *name;
    const char *value;
} bsf_h2_header_t;

/* Most response headers bsf_h2_respond sends (requests may carry any number of headers
 * within sbi.max_header_list_bytes). */
#define BSF_H2_MAX_HEADERS 32

typedef struct {
    const char *method;
    const char *path; /* path and query as sent */
    size_t path_len;
    const char *authority;
    const char *content_type;
    int64_t content_length; /* -1 when absent */
    const char *body;
    size_t body_len;
    size_t n_headers;       /* every other request header, names in lowercase */
    const bsf_h2_header_t *headers; /* n_headers entries, valid during the call */
    uint64_t received_ns;   /* monotonic time the request was complete */
} bsf_h2_request_t;

/* Why the server refused a request before the handler (the handler's reject callback
 * renders it). */
typedef enum {
    BSF_H2_REJECT_BODY_TOO_LARGE,
    BSF_H2_REJECT_LENGTH_REQUIRED, /* no longer produced: bodies of unknown length are read */
    BSF_H2_REJECT_URI_TOO_LONG,
    BSF_H2_REJECT_HEADERS_TOO_LARGE, /* header list over max_header_list_bytes: 431 */
} bsf_h2_reject_t;

typedef struct {
    /* Called on the worker thread for each complete request. */
    void (*handle)(void *ctx, bsf_h2_worker_t *w, bsf_h2_stream_t *s, const bsf_h2_request_t *r);
    /* Called for requests the server refuses itself; must respond. */
    void (*reject)(void *ctx, bsf_h2_worker_t *w, bsf_h2_stream_t *s, bsf_h2_reject_t why);
    /* Called when a stream whose answer is pending closes first (client reset, connection
     * lost): `pending` is what the handler attached with bsf_h2_stream_set_pending. */
    void (*abandon)(void *ctx, void *pending);
    /* Per-worker state: created on the worker thread before it serves, destroyed after. */
    void *(*worker_init)(void *ctx, bsf_h2_worker_t *w);
    void (*worker_fini)(void *ctx, void *worker_state);
    void *ctx;
    /* Optional (NULL: everything is admitted). Called on the worker thread once a request's
     * headers are complete, before its body is read (r->body is NULL): false refuses it, and
     * then `admit` has answered with bsf_h2_respond; the body is discarded. Admission control
     * (issue 14) decides here, before the request costs anything. */
    bool (*admit)(void *ctx, bsf_h2_worker_t *w, bsf_h2_stream_t *s, const bsf_h2_request_t *r);
    /* Optional: headers added to every answer (Server, 3gpp-Sbi-Oci, ...). Writes at most
     * `cap` into out (the strings must stay valid until the next call on this thread) and
     * returns how many. Worker thread. */
    size_t (*response_headers)(void *ctx, bsf_h2_header_t *out, size_t cap);
    /* Optional (NULL: every connection within max_connections and the budget is admitted).
     * Called on the worker thread for each accepted connection, before anything is read or
     * sent: false closes it at once (counted in refused_connections); the handler may lower
     * `*max_streams` (max_concurrent_streams on entry), the SETTINGS_MAX_CONCURRENT_STREAMS
     * this connection gets (seed §3.29: connection admission by congestion state). */
    bool (*admit_connection)(void *ctx, uint32_t *max_streams);
    /* Optional: told of every answer as it is queued (seed §3.1's response counts): the
     * request's method (NULL when it had none), the status, the answer's
     * 3gpp-Sbi-Message-Priority (-1: none). Worker thread; must not respond. */
    void (*answered)(void *ctx, const char *method, int status, int answer_priority);
} bsf_h2_handler_t;

typedef struct bsf_sbi_tls bsf_sbi_tls_t;

typedef struct {
    const char *host;  /* numeric IPv4 or IPv6 address; NULL or "": no cleartext listener */
    uint16_t port;
    const char *tls_host; /* the TLS listener; NULL or "": none (one of the two is needed) */
    uint16_t tls_port;
    bsf_sbi_tls_t *tls;   /* the TLS context (needed with tls_host); the caller keeps it
                           * alive until the server is freed */
    unsigned workers;
    size_t max_body_bytes;
    size_t max_uri_bytes;
    uint32_t max_concurrent_streams;
    unsigned idle_timeout_ms; /* close connections idle that long; 0: never */
    unsigned max_connections; /* per worker; 0: no limit */
    /* Deadlines of each phase (0: none): the client preface and SETTINGS after accept; a
     * request's header block; its body after the headers; an answer the peer does not read
     * (no write progress). Expired ones are counted in bsf_h2_stats_t. */
    unsigned preface_timeout_ms, header_timeout_ms, body_timeout_ms, send_timeout_ms;
    size_t worker_memory_bytes;   /* per worker budget for connections and streams; 0: none */
    size_t max_header_list_bytes; /* advertised and enforced (RFC 9113 §6.5.2 size); 0: 16 KiB */
    unsigned worker_index_base; /* bsf_h2_worker_index of the first worker (several servers
                                 * of one service number their workers apart) */
    bool v6only; /* an IPv6 address takes IPv6 only (IPV6_V6ONLY): another server of the
                  * service listens on IPv4 */
} bsf_h2_config_t;

/* Why connections or streams were cut short, and what the workers hold. */
typedef enum {
    BSF_H2_TIMEOUT_PREFACE,
    BSF_H2_TIMEOUT_HEADER,
    BSF_H2_TIMEOUT_BODY,
    BSF_H2_TIMEOUT_SEND,
    BSF_H2_TIMEOUT_IDLE,
    BSF_H2_TIMEOUT_COUNT
} bsf_h2_timeout_t;

typedef struct {
    uint64_t timeouts[BSF_H2_TIMEOUT_COUNT];
    uint64_t refused_streams;     /* RST_STREAM REFUSED_STREAM: worker memory budget */
    uint64_t refused_connections; /* closed at accept: budget or max_connections */
    uint64_t headers_too_large;   /* 431 answered or stream reset (HPACK bomb) */
    uint64_t protocol_errors;     /* connections ended with a GOAWAY error code */
    uint64_t accept_errors;       /* accept() failures (EMFILE, ENFILE, ...) */
    uint64_t connections;         /* open now */
    uint64_t in_flight;           /* complete requests not answered yet */
    uint64_t receiving;           /* admitted requests whose body is still coming */
    uint64_t tls_handshakes;      /* TLS handshakes completed with ALPN h2 */
    uint64_t tls_failures;        /* TLS handshakes refused (version, ALPN, client cert) */
    uint64_t priority_reads;      /* reads of urgent connections between the others' */
    uint64_t memory_bytes;        /* held by connections and streams now */
} bsf_h2_stats_t;

/* The name of a timeout phase for metrics ("preface", "header", ...). */
const char *bsf_h2_timeout_name(bsf_h2_timeout_t t);

/* Binds the sockets (so the port is known to be ours) and starts the workers.
 * Returns 0 or -1 with a message. */
int bsf_h2_server_start(const bsf_h2_config_t *cfg, const bsf_h2_handler_t *handler,
                        bsf_h2_server_t **out, char *err, size_t err_cap);
/* Stops accepting connections and sends GOAWAY; streams in progress continue. */
void bsf_h2_server_drain(bsf_h2_server_t *srv);
/* Waits until pending answers are written (at most `timeout_ms`), closes everything and
 * joins the workers. */
void bsf_h2_server_stop(bsf_h2_server_t *srv, unsigned timeout_ms);
void bsf_h2_server_free(bsf_h2_server_t *srv);

/* Sums the workers' counters. Any thread; the values are approximate (relaxed loads). */
void bsf_h2_server_stats(const bsf_h2_server_t *srv, bsf_h2_stats_t *out);

/* Over all workers: complete requests not answered yet (the pending requests of admission
 * control), or with `receiving` the admitted requests whose body is still coming (kept apart:
 * stalled bodies are bounded by the body deadline and the memory budget, and must not let a
 * peer push the node into shedding others). Any thread; relaxed loads. */
uint64_t bsf_h2_server_in_flight(const bsf_h2_server_t *srv, bool receiving);

/* The bound ports (useful with port 0); 0 for a listener not configured. */
uint16_t bsf_h2_server_port(const bsf_h2_server_t *srv);
uint16_t bsf_h2_server_tls_port(const bsf_h2_server_t *srv);

/* Sends a complete response. `body` (may be NULL) is copied. Headers are lowercase names. */
void bsf_h2_respond(bsf_h2_stream_t *s, int status, const char *content_type,
                    const bsf_h2_header_t *headers, size_t n_headers, const void *body,
                    size_t body_len);
/* The same for an answer prepared once (admission control's discard answer): nothing is
 * copied, neither `content_type`, the headers' names and values nor `body`; they belong to
 * the caller and stay unchanged until the server is freed. */
void bsf_h2_respond_static(bsf_h2_stream_t *s, int status, const char *content_type,
                           const bsf_h2_header_t *headers, size_t n_headers, const void *body,
                           size_t body_len);
/* The request's evaluated message priority (0-31, lower first; admission control, from
 * `admit`). While the worker sheds, a connection whose requests are more important than
 * every request shed lately is read between the other connections (issue 14 §6). */
void bsf_h2_stream_set_priority(bsf_h2_stream_t *s, uint32_t priority);

/* What the server knows of a stream: its request line (NULL when not received, or refused
 * for its length) and the addresses of its connection ("ip:port", "[v6]:port"; empty when
 * unknown). The strings live as long as the stream. Worker thread only. */
typedef struct {
    const char *method;
    const char *path;
    const char *local;
    const char *peer;
} bsf_h2_stream_info_t;
void bsf_h2_stream_info(bsf_h2_stream_t *s, bsf_h2_stream_info_t *out);

/* Marks the stream as waiting for an answer computed elsewhere; see `abandon`. */
void bsf_h2_stream_set_pending(bsf_h2_stream_t *s, void *pending);

/* The 3gpp-Sbi-Message-Priority the stream's answer carries (seed §3.1's profile); -1: none
 * (the default). Worker thread, before bsf_h2_respond. */
void bsf_h2_stream_set_answer_priority(bsf_h2_stream_t *s, int priority);

/* Runs fn(arg) on the worker's thread. Thread-safe. Returns 0, or -1 if the worker is gone
 * (then fn is not called). */
int bsf_h2_worker_post(bsf_h2_worker_t *w, void (*fn)(void *arg), void *arg);

/* The state worker_init returned for this worker. */
void *bsf_h2_worker_state(bsf_h2_worker_t *w);
unsigned bsf_h2_worker_index(const bsf_h2_worker_t *w);

#endif
