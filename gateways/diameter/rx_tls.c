/* The gateway's certificate validity; see rx_tls.h. */
#include "gateways/diameter/rx_tls.h"
#include "common/error.h"

#include <errno.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int bsf_rx_tls_cert_not_after(const char *path, int64_t *out, char *err, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, cap, "cannot read %s: %s", path, bsf_strerror(errno));
        return -1;
    }
    X509 *cert = PEM_read_X509(f, NULL, NULL, NULL);
    fclose(f);
    struct tm tm;
    int ok = cert && ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) == 1;
    X509_free(cert);
    if (!ok) {
        snprintf(err, cap, "%s holds no PEM certificate with a readable validity", path);
        return -1;
    }
    *out = (int64_t)timegm(&tm);
    return 0;
}

/* The certificates of a PEM file: the first one in *leaf, the others in *chain. */
static int read_pem(const char *path, X509 **leaf, STACK_OF(X509) **chain, char *err, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, cap, "cannot read %s: %s", path, bsf_strerror(errno));
        return -1;
    }
    *leaf = PEM_read_X509(f, NULL, NULL, NULL);
    *chain = sk_X509_new_null();
    X509 *more;
    while (*leaf && *chain && (more = PEM_read_X509(f, NULL, NULL, NULL)) != NULL)
        if (!sk_X509_push(*chain, more))
            X509_free(more);
    fclose(f);
    if (!*leaf || !*chain) {
        snprintf(err, cap, "%s holds no PEM certificate", path);
        return -1;
    }
    return 0;
}

int bsf_rx_tls_check_own(const char *cert_path, const char *ca_path, const char *identity,
                         char *err, size_t cap)
{
    X509 *leaf = NULL;
    STACK_OF(X509) *chain = NULL;
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    int rc = -1;
    if (!store || !ctx) {
        snprintf(err, cap, "out of memory");
    } else if (read_pem(cert_path, &leaf, &chain, err, cap) == 0) {
        if (X509_check_host(leaf, identity, strlen(identity), X509_CHECK_FLAG_NO_WILDCARDS,
                            NULL) != 1) {
            snprintf(err, cap, "%s does not name %s (subject alternative name or common name)",
                     cert_path, identity);
        } else if (X509_STORE_load_file(store, ca_path) != 1) {
            snprintf(err, cap, "%s holds no PEM CA certificate", ca_path);
        } else if (X509_STORE_CTX_init(ctx, store, leaf, chain) != 1 ||
                   X509_verify_cert(ctx) != 1) {
            snprintf(err, cap, "%s does not verify against %s: %s", cert_path, ca_path,
                     X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
        } else {
            rc = 0;
        }
    }
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    X509_free(leaf);
    sk_X509_pop_free(chain, X509_free);
    return rc;
}

bool bsf_rx_tls_cert_names(const void *der, size_t len, const char *id)
{
    const unsigned char *p = der;
    X509 *cert = len <= 1u << 20 ? d2i_X509(NULL, &p, (long)len) : NULL;
    bool ok = cert && X509_check_host(cert, id, strlen(id), X509_CHECK_FLAG_NO_WILDCARDS, NULL) == 1;
    X509_free(cert);
    return ok;
}
