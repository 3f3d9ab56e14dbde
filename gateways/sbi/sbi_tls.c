/* The SBI server's TLS context and its reload; see sbi_tls.h. */
#include "gateways/sbi/sbi_tls.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/file_stamp.h"
#include "gateways/sbi/h2_tls.h"
#include "common/error.h"

enum { F_CERT, F_KEY, F_CA, F_COUNT };

struct bsf_sbi_tls {
    char *files[F_COUNT];
    const char *keys[F_COUNT]; /* the configuration keys, for messages */
    bsf_sbi_tls_client_cert_t client_cert;
    char *ciphers, *ciphersuites, *groups;
    pthread_mutex_t mu;
    SSL_CTX *ctx;               /* current; guarded by mu */
    int64_t not_after;          /* of ctx's certificate; guarded by mu */
    bsf_file_stamp_t seen[F_COUNT]; /* the files as last tried (reload thread only) */
};

static const unsigned char alpn_h2[] = {2, 'h', '2'};
static const unsigned char sid_ctx[] = "bsf-sbi";

static void ssl_error(char *err, size_t cap, const char *what, const char *path)
{
    unsigned long e = ERR_peek_last_error();
    char buf[200] = "";
    if (e)
        ERR_error_string_n(e, buf, sizeof buf);
    snprintf(err, cap, "%s %s%s%s", what, path, e ? ": " : "", buf);
    ERR_clear_error();
}

/* Only h2: a client that offers no h2 gets a no_application_protocol alert (RFC 7301 §3.2);
 * one that sends no ALPN at all is refused after the handshake (h2_tls.c). */
static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                       const unsigned char *in, unsigned inlen, void *arg)
{
    (void)ssl;
    (void)arg;
    unsigned char *sel = NULL;
    if (SSL_select_next_proto(&sel, outlen, alpn_h2, sizeof alpn_h2, in, inlen) !=
        OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    *out = sel;
    return SSL_TLSEXT_ERR_OK;
}

static int64_t asn1_unix(const ASN1_TIME *t)
{
    struct tm tm;
    if (!t || ASN1_TIME_to_tm(t, &tm) != 1)
        return 0;
    return (int64_t)timegm(&tm);
}

int bsf_tls_cert_file_not_after(const char *path, int64_t *out)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    X509 *x = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    ERR_clear_error();
    if (!x)
        return -1;
    *out = asn1_unix(X509_get0_notAfter(x));
    X509_free(x);
    return 0;
}

/* A readable file, or a message naming the key (OpenSSL's own says less). */
static int readable(const bsf_sbi_tls_t *t, int i, char *err, size_t cap)
{
    FILE *f = fopen(t->files[i], "r");
    if (!f) {
        snprintf(err, cap, "%s: cannot read %s: %s", t->keys[i], t->files[i], bsf_strerror(errno));
        return -1;
    }
    fclose(f);
    return 0;
}

static int load_identity(const bsf_sbi_tls_t *t, SSL_CTX *ctx, char *err, size_t cap)
{
    char what[64];
    if (readable(t, F_CERT, err, cap) || readable(t, F_KEY, err, cap))
        return -1;
    snprintf(what, sizeof what, "%s: cannot load", t->keys[F_CERT]);
    if (SSL_CTX_use_certificate_chain_file(ctx, t->files[F_CERT]) != 1) {
        ssl_error(err, cap, what, t->files[F_CERT]);
        return -1;
    }
    snprintf(what, sizeof what, "%s: cannot load", t->keys[F_KEY]);
    if (SSL_CTX_use_PrivateKey_file(ctx, t->files[F_KEY], SSL_FILETYPE_PEM) != 1) {
        ssl_error(err, cap, what, t->files[F_KEY]);
        return -1;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        ERR_clear_error();
        snprintf(err, cap, "%s: %s is not the key of %s", t->keys[F_KEY], t->files[F_KEY],
                 t->files[F_CERT]);
        return -1;
    }
    return 0;
}

/* The client CA bundle and the verification policy. */
static int load_clients(const bsf_sbi_tls_t *t, SSL_CTX *ctx, char *err, size_t cap)
{
    if (t->client_cert == BSF_SBI_TLS_CLIENT_CERT_NONE) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
        return 0;
    }
    if (readable(t, F_CA, err, cap))
        return -1;
    STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(t->files[F_CA]);
    if (SSL_CTX_load_verify_locations(ctx, t->files[F_CA], NULL) != 1 || !names) {
        sk_X509_NAME_pop_free(names, X509_NAME_free);
        ssl_error(err, cap, "sbi.tls.ca: no CA certificate in", t->files[F_CA]);
        return -1;
    }
    SSL_CTX_set_client_CA_list(ctx, names); /* takes names */
    int mode = SSL_VERIFY_PEER;
    if (t->client_cert == BSF_SBI_TLS_CLIENT_CERT_REQUIRED)
        mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
    SSL_CTX_set_verify(ctx, mode, NULL);
    return 0;
}

/* A new context from the files as they are now. NULL with a message. */
static SSL_CTX *build(const bsf_sbi_tls_t *t, int64_t *not_after, char *err, size_t cap)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        ssl_error(err, cap, "SSL_CTX_new", "");
        return NULL;
    }
    if (bsf_h2_tls_ctx_protocol(ctx, t->ciphers, t->ciphersuites, t->groups, err, cap) ||
        load_identity(t, ctx, err, cap) || load_clients(t, ctx, err, cap)) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_session_id_context(ctx, sid_ctx, sizeof sid_ctx - 1);
    SSL_CTX_set_alpn_select_cb(ctx, select_alpn, NULL);
    SSL_CTX_set_num_tickets(ctx, 1); /* TLS 1.3: one resumption ticket, not two */
    /* Resumption by stateless tickets only: no server-side cache to fill, lock and sweep. */
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    *not_after = asn1_unix(X509_get0_notAfter(SSL_CTX_get0_certificate(ctx)));
    return ctx;
}

static void take_stamps(bsf_sbi_tls_t *t, bsf_file_stamp_t out[F_COUNT])
{
    for (int i = 0; i < F_COUNT; i++)
        bsf_file_stamp_take(t->files[i], &out[i]);
}

int bsf_sbi_tls_create(const bsf_sbi_tls_settings_t *s, bsf_sbi_tls_t **out, char *err,
                       size_t err_cap)
{
    bsf_sbi_tls_t *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    t->files[F_CERT] = strdup(s->cert ? s->cert : "");
    t->files[F_KEY] = strdup(s->key ? s->key : "");
    t->files[F_CA] = strdup(s->ca ? s->ca : "");
    t->keys[F_CERT] = "sbi.tls.cert";
    t->keys[F_KEY] = "sbi.tls.key";
    t->keys[F_CA] = "sbi.tls.ca";
    t->client_cert = s->client_cert;
    t->ciphers = strdup(s->ciphers ? s->ciphers : "");
    t->ciphersuites = strdup(s->ciphersuites ? s->ciphersuites : "");
    t->groups = strdup(s->groups ? s->groups : "");
    pthread_mutex_init(&t->mu, NULL);
    if (!t->files[F_CERT] || !t->files[F_KEY] || !t->files[F_CA] || !t->ciphers ||
        !t->ciphersuites || !t->groups) {
        snprintf(err, err_cap, "out of memory");
        bsf_sbi_tls_free(t);
        return -1;
    }
    take_stamps(t, t->seen);
    t->ctx = build(t, &t->not_after, err, err_cap);
    if (!t->ctx) {
        bsf_sbi_tls_free(t);
        return -1;
    }
    *out = t;
    return 0;
}

void bsf_sbi_tls_free(bsf_sbi_tls_t *t)
{
    if (!t)
        return;
    SSL_CTX_free(t->ctx);
    for (int i = 0; i < F_COUNT; i++)
        free(t->files[i]);
    free(t->ciphers);
    free(t->ciphersuites);
    free(t->groups);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

SSL_CTX *bsf_sbi_tls_acquire(bsf_sbi_tls_t *t)
{
    pthread_mutex_lock(&t->mu);
    SSL_CTX *ctx = t->ctx;
    SSL_CTX_up_ref(ctx);
    pthread_mutex_unlock(&t->mu);
    return ctx;
}

int64_t bsf_sbi_tls_not_after(bsf_sbi_tls_t *t)
{
    pthread_mutex_lock(&t->mu);
    int64_t v = t->not_after;
    pthread_mutex_unlock(&t->mu);
    return v;
}

int bsf_sbi_tls_reload(bsf_sbi_tls_t *t, char *err, size_t err_cap)
{
    bsf_file_stamp_t now[F_COUNT];
    take_stamps(t, now);
    bool changed = false;
    for (int i = 0; i < F_COUNT; i++)
        changed |= bsf_file_stamp_differs(&now[i], &t->seen[i]);
    if (!changed)
        return 0;
    memcpy(t->seen, now, sizeof now); /* a bad file is tried again only once it changes */
    int64_t not_after = 0;
    SSL_CTX *ctx = build(t, &not_after, err, err_cap);
    if (!ctx)
        return -1;
    pthread_mutex_lock(&t->mu);
    SSL_CTX *old = t->ctx;
    t->ctx = ctx;
    t->not_after = not_after;
    pthread_mutex_unlock(&t->mu);
    SSL_CTX_free(old); /* connections made with it hold their own references */
    return 1;
}
