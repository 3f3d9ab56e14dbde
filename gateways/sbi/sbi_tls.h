/* The SBI server's TLS context (issue 13 §1, §3): TLS 1.2 and 1.3 only, ALPN h2 only, the
 * configured cipher suites and groups, the certificate chain and key, and the client
 * certificate policy (none, optional: verified when presented, required). A refused client
 * certificate fails the handshake.
 *
 * The context is replaced, not changed, when its files change (bsf_sbi_tls_reload): new
 * connections take the new one, established connections keep the one they started with
 * (every SSL holds a reference to its SSL_CTX). A bad new file keeps the old context.
 *
 * Thread safety: bsf_sbi_tls_acquire, _not_after and _reload may be called from any thread
 * (a mutex guards the current context). */
#ifndef BSF_GATEWAYS_SBI_SBI_TLS_H
#define BSF_GATEWAYS_SBI_SBI_TLS_H

#include <openssl/ssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    BSF_SBI_TLS_CLIENT_CERT_NONE = 0, /* no certificate requested */
    BSF_SBI_TLS_CLIENT_CERT_OPTIONAL, /* requested; one presented must verify */
    BSF_SBI_TLS_CLIENT_CERT_REQUIRED, /* requested; none or a bad one fails the handshake */
} bsf_sbi_tls_client_cert_t;

typedef struct {
    const char *cert;         /* sbi.tls.cert: PEM, the chain after the leaf */
    const char *key;          /* sbi.tls.key: PEM private key */
    const char *ca;           /* sbi.tls.ca: client CA bundle; "" only with CLIENT_CERT_NONE */
    bsf_sbi_tls_client_cert_t client_cert;
    const char *ciphers;      /* TLS 1.2 cipher list (OpenSSL syntax); "" = OpenSSL's */
    const char *ciphersuites; /* TLS 1.3 suites; "" = OpenSSL's */
    const char *groups;       /* key exchange groups; "" = OpenSSL's */
} bsf_sbi_tls_settings_t;

typedef struct bsf_sbi_tls bsf_sbi_tls_t;

/* Builds the context from the files (the settings' strings are copied). Returns 0, or -1
 * with a message naming the configuration key (`sbi.tls.key: cannot read ...`). The caller
 * owns *out. */
int bsf_sbi_tls_create(const bsf_sbi_tls_settings_t *s, bsf_sbi_tls_t **out, char *err,
                       size_t err_cap);
void bsf_sbi_tls_free(bsf_sbi_tls_t *t);

/* The current context with a reference the caller drops with SSL_CTX_free. Never NULL. */
SSL_CTX *bsf_sbi_tls_acquire(bsf_sbi_tls_t *t);

/* Reloads when a file changed since the last attempt (stat: inode, size, times). Returns 1
 * reloaded, 0 nothing changed (or the same bad files as last time), -1 the new files are
 * refused (err says why; the old context stays). */
int bsf_sbi_tls_reload(bsf_sbi_tls_t *t, char *err, size_t err_cap);

/* notAfter of the current certificate, Unix seconds. */
int64_t bsf_sbi_tls_not_after(bsf_sbi_tls_t *t);

/* notAfter of the first certificate of a PEM file, Unix seconds. Returns 0 or -1. */
int bsf_tls_cert_file_not_after(const char *path, int64_t *out);

#endif
