/* Admin listener credentials; see ops_admin_auth.h. */
#include "gateways/ops/ops_admin_auth.h"
#include "common/error.h"

#include <errno.h>
#include <gnutls/gnutls.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct bsf_ops_admin_auth {
    bool token;
    unsigned char token_sha256[SHA256_DIGEST_LENGTH];
    bool client_cert;
};

char *bsf_ops_read_file(const char *path, size_t max, const char *key, char *err,
                        size_t err_cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_cap, "%s: cannot read %s: %s", key, path, bsf_strerror(errno));
        return NULL;
    }
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    bool failed = !buf || ferror(f) || n > max;
    fclose(f);
    if (failed) {
        snprintf(err, err_cap, "%s: cannot read %s (larger than %zu bytes?)", key, path, max);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* The token: the file's text without surrounding whitespace, visible ASCII only. */
static int load_token(bsf_ops_admin_auth_t *a, const char *path, char *err, size_t err_cap)
{
    char *text = bsf_ops_read_file(path, 4096, "ops.admin_token_file", err, err_cap);
    if (!text)
        return -1;
    char *p = text;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    size_t n = strlen(p);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r' || p[n - 1] == '\n'))
        n--;
    bool visible = true;
    for (size_t i = 0; i < n; i++)
        visible = visible && p[i] > 0x20 && p[i] < 0x7f;
    int rc = 0;
    if (n < BSF_OPS_ADMIN_TOKEN_MIN || !visible) {
        snprintf(err, err_cap, "ops.admin_token_file: %s must hold one token of %d visible "
                               "characters or more",
                 path, BSF_OPS_ADMIN_TOKEN_MIN);
        rc = -1;
    } else {
        SHA256((const unsigned char *)p, n, a->token_sha256);
        a->token = true;
    }
    OPENSSL_cleanse(text, strlen(text));
    free(text);
    return rc;
}

int bsf_ops_admin_auth_create(const char *token_file, bool client_cert,
                              bsf_ops_admin_auth_t **out, char *err, size_t err_cap)
{
    bsf_ops_admin_auth_t *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    a->client_cert = client_cert;
    if (token_file && token_file[0] && load_token(a, token_file, err, err_cap)) {
        free(a);
        return -1;
    }
    *out = a;
    return 0;
}

void bsf_ops_admin_auth_free(bsf_ops_admin_auth_t *a)
{
    if (a)
        OPENSSL_cleanse(a, sizeof *a);
    free(a);
}

bool bsf_ops_admin_auth_any(const bsf_ops_admin_auth_t *a)
{
    return a->token || a->client_cert;
}

bsf_ops_admin_verdict_t bsf_ops_admin_auth_token(const bsf_ops_admin_auth_t *a,
                                                 const char *authorization)
{
    if (!a->token)
        return BSF_OPS_ADMIN_OK;
    if (!authorization || strncasecmp(authorization, "Bearer ", 7) != 0)
        return BSF_OPS_ADMIN_NO_TOKEN;
    const char *p = authorization + 7;
    while (*p == ' ')
        p++;
    size_t n = strlen(p);
    while (n && p[n - 1] == ' ')
        n--;
    /* Digests of equal length: the comparison time says nothing about the token. */
    unsigned char got[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)p, n, got);
    return CRYPTO_memcmp(got, a->token_sha256, sizeof got) == 0 ? BSF_OPS_ADMIN_OK
                                                                 : BSF_OPS_ADMIN_BAD_TOKEN;
}

/* The peer's certificate verified against the trust list libmicrohttpd loaded from
 * ops.admin_tls.ca (MHD_OPTION_HTTPS_MEM_TRUST asks for it, but leaves the check to us). */
static bool client_cert_ok(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    if (!ci || !ci->tls_session)
        return false;
    gnutls_session_t session = (gnutls_session_t)ci->tls_session;
    unsigned status = 0;
    return gnutls_certificate_type_get(session) == GNUTLS_CRT_X509 &&
           gnutls_certificate_verify_peers2(session, &status) == GNUTLS_E_SUCCESS && status == 0;
}

bsf_ops_admin_verdict_t bsf_ops_admin_auth_check(const bsf_ops_admin_auth_t *a,
                                                 struct MHD_Connection *conn)
{
    if (a->client_cert && !client_cert_ok(conn))
        return BSF_OPS_ADMIN_BAD_CERT;
    return bsf_ops_admin_auth_token(
        a, MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION));
}
