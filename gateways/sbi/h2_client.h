/* One HTTP/2 client connection of the SBI client, on nghttp2 and libuv: h2c with prior
 * knowledge, or TLS with ALPN h2. It resolves the host, connects, then carries streams:
 * each submitted request gets exactly one reply callback (answer or error), unless the
 * submit failed or the stream was cancelled. All functions run on the thread of `loop`. */
#ifndef BSF_GATEWAYS_SBI_H2_CLIENT_H
#define BSF_GATEWAYS_SBI_H2_CLIENT_H

#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "gateways/sbi/addr_select.h"
#include "gateways/sbi/sbi_headers.h"

typedef struct bsf_h2c bsf_h2c_t;

#define BSF_H2C_MAX_HEADERS 32

typedef struct {
    int status;
    size_t n_headers;
    bsf_sbi_header_t headers[BSF_H2C_MAX_HEADERS]; /* beyond the limit: dropped */
    const char *body; /* NUL-terminated; empty when none */
    size_t body_len;
} bsf_h2c_reply_t;

/* A stream's end. error 0: `r` is the answer. Otherwise r is NULL and error says what:
 * BSF_H2C_ERR_CONNECT (no connection, connection lost, stream refused before it was
 * processed) or BSF_H2C_ERR_PROTOCOL (stream reset, answer too large, bad answer).
 * `why` is a short text. Everything lives until the callback returns. */
enum { BSF_H2C_ERR_CONNECT = -1, BSF_H2C_ERR_PROTOCOL = -2 };
typedef void (*bsf_h2c_reply_fn)(void *arg, int error, const char *why,
                                 const bsf_h2c_reply_t *r);

typedef struct {
    /* The connection can take streams (TCP up, TLS done with h2). */
    void (*ready)(void *owner, bsf_h2c_t *c);
    /* A stream ended: there may be room for another. */
    void (*slot_free)(void *owner, bsf_h2c_t *c);
    /* The connection is gone; its streams have had their reply callback. `c` must not be
     * used after this returns. */
    void (*closed)(void *owner, bsf_h2c_t *c, const char *why);
} bsf_h2c_events_t;

typedef struct {
    uv_loop_t *loop;
    const char *host;            /* name or address, resolved here */
    uint16_t port;
    SSL_CTX *tls;                /* NULL: h2c with prior knowledge */
    unsigned connect_timeout_ms; /* TCP connect and TLS handshake */
    bsf_family_pref_t family;    /* which resolved address (addr_select.h) */
    uint32_t max_streams;        /* our bound; the server's SETTINGS may lower it */
    size_t max_body_bytes;       /* larger answers end in BSF_H2C_ERR_PROTOCOL */
    const bsf_h2c_events_t *events;
    void *owner;
} bsf_h2c_params_t;

/* Starts resolving and connecting. Returns 0 (then exactly one `closed` event comes, maybe
 * after `ready`), or -1 with a message (no event). */
int bsf_h2c_open(const bsf_h2c_params_t *p, bsf_h2c_t **out, char *err, size_t err_cap);

/* Sends a request: `nva` are the pseudo-headers and headers (copied), `body` (may be NULL)
 * is copied. Returns the stream id, or -1 (then fn is never called): not ready, going
 * away, no free stream, or nghttp2 refused. */
int32_t bsf_h2c_submit(bsf_h2c_t *c, const nghttp2_nv *nva, size_t nvlen, const void *body,
                       size_t body_len, bsf_h2c_reply_fn fn, void *arg);

/* Resets a stream (CANCEL); its reply callback will not be called. */
void bsf_h2c_cancel(bsf_h2c_t *c, int32_t stream_id);

/* Ready, not going away, and fewer streams open than allowed. */
bool bsf_h2c_can_submit(const bsf_h2c_t *c);
/* Ready or still connecting: worth waiting for. */
bool bsf_h2c_usable(const bsf_h2c_t *c);
size_t bsf_h2c_active(const bsf_h2c_t *c);
/* Monotonic ns of the last stream end or submit (idle detection). */
uint64_t bsf_h2c_last_used_ns(const bsf_h2c_t *c);

/* Closes now: open streams get BSF_H2C_ERR_CONNECT, then `closed` comes. */
void bsf_h2c_close(bsf_h2c_t *c, const char *why);
/* Sends GOAWAY and closes once the open streams ended. */
void bsf_h2c_shutdown(bsf_h2c_t *c);

#endif
