/* TLS for HTTP/2 connections, client (the SBI client) and server (the SBI server, issue 13
 * §1) alike, on OpenSSL memory BIOs so that libuv keeps the socket: ciphertext read from the
 * socket goes in with bsf_h2_tls_recv, plaintext to send goes in with bsf_h2_tls_send, and
 * ciphertext to write comes out through a sink. Both roles require ALPN "h2".
 * One bsf_h2_tls_t per connection, used only on the thread of its connection. */
#ifndef BSF_GATEWAYS_SBI_H2_TLS_H
#define BSF_GATEWAYS_SBI_H2_TLS_H

#include <openssl/ssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bsf_h2_tls bsf_h2_tls_t;

/* Receives bytes (plaintext or ciphertext); returns 0 or -1 to stop. */
typedef int (*bsf_h2_tls_sink_fn)(void *arg, const uint8_t *data, size_t len);

/* A client context offering ALPN "h2", TLS 1.2 or later. ca_file NULL: the system's trust
 * store. verify false: no peer verification (tests only). cert_file/key_file (both or
 * neither) present a client certificate. Returns NULL with a message. Caller frees with
 * SSL_CTX_free. Any thread. */
SSL_CTX *bsf_h2_tls_ctx_new(const char *ca_file, bool verify, const char *cert_file,
                            const char *key_file, char *err, size_t err_cap);

/* Protocol settings every SBI context shares, client and server: TLS 1.2 and 1.3 only,
 * the cipher list (TLS 1.2), the suites (TLS 1.3) and the groups; NULL or "" leaves one to
 * OpenSSL. Returns 0, or -1 with a message naming the sbi.tls.* key refused. */
int bsf_h2_tls_ctx_protocol(SSL_CTX *ctx, const char *ciphers, const char *ciphersuites,
                            const char *groups, char *err, size_t err_cap);

/* A session for one connection to `host` (SNI when it is a name; the certificate must name
 * the host or the address). Returns NULL when out of memory. */
bsf_h2_tls_t *bsf_h2_tls_new(SSL_CTX *ctx, const char *host);
/* A session for one accepted connection (the server side; ctx from sbi_tls.h, whose ALPN
 * callback refuses a client that does not offer h2). Takes its own reference to ctx.
 * Returns NULL when out of memory. */
bsf_h2_tls_t *bsf_h2_tls_new_server(SSL_CTX *ctx);
void bsf_h2_tls_free(bsf_h2_tls_t *t);

/* Starts or continues the handshake. Returns 1 when done, 0 when more bytes must come,
 * -1 when it failed (err says why, e.g. verification, no ALPN h2). Ciphertext to write
 * goes to `out`. */
int bsf_h2_tls_handshake(bsf_h2_tls_t *t, bsf_h2_tls_sink_fn out, void *arg, char *err,
                         size_t err_cap);

/* Feeds ciphertext read from the socket; plaintext goes to `plain`, ciphertext to write
 * (handshake, alerts) to `out`. Returns 0 or -1 (TLS error or a sink said stop). */
int bsf_h2_tls_recv(bsf_h2_tls_t *t, const uint8_t *in, size_t n, bsf_h2_tls_sink_fn plain,
                    bsf_h2_tls_sink_fn out, void *arg);

/* Encrypts plaintext; ciphertext goes to `out`. Returns 0 or -1. */
int bsf_h2_tls_send(bsf_h2_tls_t *t, const uint8_t *data, size_t n, bsf_h2_tls_sink_fn out,
                    void *arg);

/* Queues a close_notify alert (once the handshake is done; else nothing); ciphertext goes
 * to `out`. Returns 0 or -1. */
int bsf_h2_tls_close_notify(bsf_h2_tls_t *t, bsf_h2_tls_sink_fn out, void *arg);

bool bsf_h2_tls_done(const bsf_h2_tls_t *t);

#endif
