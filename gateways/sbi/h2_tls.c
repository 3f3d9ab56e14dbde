/* TLS for HTTP/2 connections, both roles; see h2_tls.h. */
#include "gateways/sbi/h2_tls.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bsf_h2_tls {
    SSL *ssl;
    BIO *rbio, *wbio; /* owned by ssl */
    bool done;
};

static const unsigned char alpn_h2[] = {2, 'h', '2'};

static void ssl_error(char *err, size_t cap, const char *what)
{
    unsigned long e = ERR_get_error();
    char buf[160] = "";
    if (e)
        ERR_error_string_n(e, buf, sizeof buf);
    snprintf(err, cap, "%s%s%s", what, e ? ": " : "", buf);
    ERR_clear_error();
}

int bsf_h2_tls_ctx_protocol(SSL_CTX *ctx, const char *ciphers, const char *ciphersuites,
                            const char *groups, char *err, size_t err_cap)
{
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS); /* idle connections keep no buffers */
    if (ciphers && *ciphers && SSL_CTX_set_cipher_list(ctx, ciphers) != 1) {
        ssl_error(err, err_cap, "sbi.tls.ciphers: no usable cipher");
        return -1;
    }
    if (ciphersuites && *ciphersuites && SSL_CTX_set_ciphersuites(ctx, ciphersuites) != 1) {
        ssl_error(err, err_cap, "sbi.tls.ciphersuites: no usable TLS 1.3 suite");
        return -1;
    }
    if (groups && *groups && SSL_CTX_set1_groups_list(ctx, groups) != 1) {
        ssl_error(err, err_cap, "sbi.tls.groups: not a list of known groups");
        return -1;
    }
    return 0;
}

SSL_CTX *bsf_h2_tls_ctx_new(const char *ca_file, bool verify, const char *cert_file,
                            const char *key_file, char *err, size_t err_cap)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) {
        ssl_error(err, err_cap, "SSL_CTX_new");
        return NULL;
    }
    if (bsf_h2_tls_ctx_protocol(ctx, NULL, NULL, NULL, err, err_cap)) {
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_alpn_protos(ctx, alpn_h2, sizeof alpn_h2);
    SSL_CTX_set_verify(ctx, verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL);
    int ok = ca_file && *ca_file ? SSL_CTX_load_verify_locations(ctx, ca_file, NULL)
                                 : SSL_CTX_set_default_verify_paths(ctx);
    if (ok != 1) {
        ssl_error(err, err_cap, "cannot load the trusted certificates");
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (cert_file && *cert_file &&
        (SSL_CTX_use_certificate_chain_file(ctx, cert_file) != 1 ||
         SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) != 1 ||
         SSL_CTX_check_private_key(ctx) != 1)) {
        ssl_error(err, err_cap, "cannot load the client certificate");
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

/* The SSL object on two memory BIOs. */
static bsf_h2_tls_t *session_new(SSL_CTX *ctx)
{
    bsf_h2_tls_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ssl = SSL_new(ctx);
    t->rbio = BIO_new(BIO_s_mem());
    t->wbio = BIO_new(BIO_s_mem());
    if (!t->ssl || !t->rbio || !t->wbio) {
        BIO_free(t->rbio);
        BIO_free(t->wbio);
        SSL_free(t->ssl);
        free(t);
        ERR_clear_error();
        return NULL;
    }
    BIO_set_mem_eof_return(t->rbio, -1);
    SSL_set_bio(t->ssl, t->rbio, t->wbio);
    return t;
}

bsf_h2_tls_t *bsf_h2_tls_new_server(SSL_CTX *ctx)
{
    bsf_h2_tls_t *t = session_new(ctx);
    if (t)
        SSL_set_accept_state(t->ssl);
    return t;
}

bsf_h2_tls_t *bsf_h2_tls_new(SSL_CTX *ctx, const char *host)
{
    bsf_h2_tls_t *t = session_new(ctx);
    if (!t)
        return NULL;
    SSL_set_connect_state(t->ssl);
    unsigned char addr[16];
    bool is_ip = inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1;
    if (is_ip) {
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl), host);
    } else {
        SSL_set_tlsext_host_name(t->ssl, host);
        SSL_set1_host(t->ssl, host);
    }
    return t;
}

void bsf_h2_tls_free(bsf_h2_tls_t *t)
{
    if (!t)
        return;
    SSL_free(t->ssl);
    free(t);
}

bool bsf_h2_tls_done(const bsf_h2_tls_t *t)
{
    return t->done;
}

/* Moves the ciphertext OpenSSL produced into the sink. */
static int drain(bsf_h2_tls_t *t, bsf_h2_tls_sink_fn out, void *arg)
{
    uint8_t buf[16384];
    for (;;) {
        int n = BIO_read(t->wbio, buf, sizeof buf);
        if (n <= 0)
            return 0;
        if (out(arg, buf, (size_t)n))
            return -1;
    }
}

int bsf_h2_tls_handshake(bsf_h2_tls_t *t, bsf_h2_tls_sink_fn out, void *arg, char *err,
                         size_t err_cap)
{
    if (t->done)
        return 1;
    int rc = SSL_do_handshake(t->ssl);
    if (drain(t, out, arg))
        return -1;
    if (rc == 1) {
        const unsigned char *proto = NULL;
        unsigned len = 0;
        SSL_get0_alpn_selected(t->ssl, &proto, &len);
        if (len != 2 || memcmp(proto, "h2", 2) != 0) {
            snprintf(err, err_cap, SSL_is_server(t->ssl) ? "the client did not offer ALPN h2"
                                                         : "the server did not select ALPN h2");
            return -1;
        }
        t->done = true;
        return 1;
    }
    int e = SSL_get_error(t->ssl, rc);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
        return 0;
    long v = SSL_get_verify_result(t->ssl);
    if (v != X509_V_OK && (!SSL_is_server(t->ssl) || SSL_get0_peer_certificate(t->ssl))) {
        snprintf(err, err_cap, "certificate verification failed: %s",
                 X509_verify_cert_error_string(v));
        ERR_clear_error();
    } else {
        ssl_error(err, err_cap, "TLS handshake failed");
    }
    return -1;
}

int bsf_h2_tls_recv(bsf_h2_tls_t *t, const uint8_t *in, size_t n, bsf_h2_tls_sink_fn plain,
                    bsf_h2_tls_sink_fn out, void *arg)
{
    if (BIO_write(t->rbio, in, (int)n) != (int)n)
        return -1;
    if (!t->done)
        return 0; /* the caller continues the handshake */
    uint8_t buf[16384];
    for (;;) {
        int r = SSL_read(t->ssl, buf, sizeof buf);
        if (r > 0) {
            if (plain(arg, buf, (size_t)r))
                return -1;
            continue;
        }
        int e = SSL_get_error(t->ssl, r);
        if (drain(t, out, arg))
            return -1;
        if (e == SSL_ERROR_WANT_READ)
            return 0;
        ERR_clear_error();
        return -1; /* close_notify or an error: the connection ends */
    }
}

int bsf_h2_tls_send(bsf_h2_tls_t *t, const uint8_t *data, size_t n, bsf_h2_tls_sink_fn out,
                    void *arg)
{
    while (n > 0) {
        int w = SSL_write(t->ssl, data, n > INT32_MAX ? INT32_MAX : (int)n);
        if (w <= 0) {
            ERR_clear_error();
            return -1;
        }
        data += w;
        n -= (size_t)w;
        if (drain(t, out, arg))
            return -1;
    }
    return 0;
}

int bsf_h2_tls_close_notify(bsf_h2_tls_t *t, bsf_h2_tls_sink_fn out, void *arg)
{
    if (!t->done)
        return 0;
    if (SSL_shutdown(t->ssl) < 0)
        ERR_clear_error();
    return drain(t, out, arg);
}
