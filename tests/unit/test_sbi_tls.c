/* The SBI server's TLS context (gateways/sbi/sbi_tls.c) and file stamps (common/file_stamp.c):
 * start-up refusals name the key, reload swaps the context only for good files. Certificates
 * are made here with OpenSSL (self-signed EC P-256). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "common/file_stamp.h"
#include "gateways/sbi/sbi_tls.h"
#include "tests/unit/test_util.h"

static char dir[] = "/tmp/bsf-test-sbi-tls.XXXXXX";
static char err[512];

static void path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

/* A self-signed certificate valid `days` from now, and its key, as PEM files. */
static void make_cert(const char *cert_name, const char *key_name, long days)
{
    EVP_PKEY *pk = EVP_EC_gen("P-256");
    X509 *x = X509_new();
    assert_non_null(pk);
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), (long)time(NULL) ^ days);
    X509_gmtime_adj(X509_getm_notBefore(x), -3600);
    X509_gmtime_adj(X509_getm_notAfter(x), days * 86400);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                               (const unsigned char *)"bsf.test", -1, -1, 0);
    X509_set_issuer_name(x, X509_get_subject_name(x));
    X509_set_pubkey(x, pk);
    assert_true(X509_sign(x, pk, EVP_sha256()) > 0);
    char p[600];
    path(p, sizeof p, cert_name);
    FILE *f = fopen(p, "w");
    PEM_write_X509(f, x);
    fclose(f);
    path(p, sizeof p, key_name);
    f = fopen(p, "w");
    PEM_write_PrivateKey(f, pk, NULL, NULL, 0, NULL, NULL);
    fclose(f);
    X509_free(x);
    EVP_PKEY_free(pk);
}

static void write_file(const char *name, const char *text)
{
    char p[600], tmp[620];
    path(p, sizeof p, name);
    snprintf(tmp, sizeof tmp, "%s.new", p);
    FILE *f = fopen(tmp, "w");
    fputs(text, f);
    fclose(f);
    assert_int_equal(rename(tmp, p), 0);
}

static void copy_file(const char *from, const char *to)
{
    char p[600], buf[8192];
    path(p, sizeof p, from);
    FILE *f = fopen(p, "r");
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    write_file(to, buf);
}

static int create(const char *cert, const char *key, bsf_sbi_tls_client_cert_t mode,
                  const char *ca, bsf_sbi_tls_t **out)
{
    char c[600], k[600], a[600];
    path(c, sizeof c, cert);
    path(k, sizeof k, key);
    path(a, sizeof a, ca);
    bsf_sbi_tls_settings_t s = {.cert = c, .key = k, .ca = a, .client_cert = mode,
                                .groups = "X25519:P-256"};
    return bsf_sbi_tls_create(&s, out, err, sizeof err);
}

static void test_refusals_name_the_key(void **state)
{
    (void)state;
    bsf_sbi_tls_t *t = NULL;
    assert_int_equal(create("none.pem", "a.key", BSF_SBI_TLS_CLIENT_CERT_NONE, "", &t), -1);
    assert_non_null(strstr(err, "sbi.tls.cert: cannot read"));
    assert_int_equal(create("a.pem", "none.key", BSF_SBI_TLS_CLIENT_CERT_NONE, "", &t), -1);
    assert_non_null(strstr(err, "sbi.tls.key: cannot read"));
    assert_int_equal(create("a.pem", "b.key", BSF_SBI_TLS_CLIENT_CERT_NONE, "", &t), -1);
    assert_non_null(strstr(err, "sbi.tls.key"));
    assert_int_equal(create("a.pem", "a.key", BSF_SBI_TLS_CLIENT_CERT_REQUIRED, "none", &t), -1);
    assert_non_null(strstr(err, "sbi.tls.ca: cannot read"));
    assert_int_equal(create("a.pem", "a.key", BSF_SBI_TLS_CLIENT_CERT_OPTIONAL, "a.key", &t), -1);
    assert_non_null(strstr(err, "sbi.tls.ca"));
    assert_null(t);
}

static void test_reload_swaps_only_for_good_files(void **state)
{
    (void)state;
    copy_file("a.pem", "live.pem");
    copy_file("a.key", "live.key");
    bsf_sbi_tls_t *t = NULL;
    assert_int_equal(create("live.pem", "live.key", BSF_SBI_TLS_CLIENT_CERT_OPTIONAL, "a.pem", &t),
                     0);
    int64_t first = bsf_sbi_tls_not_after(t);
    assert_true(first > time(NULL) + 9 * 86400 && first <= time(NULL) + 10 * 86400);
    SSL_CTX *old = bsf_sbi_tls_acquire(t);
    assert_int_equal(bsf_sbi_tls_reload(t, err, sizeof err), 0); /* nothing changed */
    write_file("live.pem", "-----BEGIN CERTIFICATE-----\nno\n-----END CERTIFICATE-----\n");
    assert_int_equal(bsf_sbi_tls_reload(t, err, sizeof err), -1);
    assert_non_null(strstr(err, "sbi.tls.cert"));
    assert_int_equal(bsf_sbi_tls_reload(t, err, sizeof err), 0); /* the same bad file */
    assert_int_equal(bsf_sbi_tls_not_after(t), first);
    SSL_CTX *same = bsf_sbi_tls_acquire(t);
    assert_ptr_equal(same, old);
    SSL_CTX_free(same);
    copy_file("b.pem", "live.pem"); /* the certificate first: its key is not there yet */
    assert_int_equal(bsf_sbi_tls_reload(t, err, sizeof err), -1);
    copy_file("b.key", "live.key");
    assert_int_equal(bsf_sbi_tls_reload(t, err, sizeof err), 1);
    assert_true(bsf_sbi_tls_not_after(t) > first + 50 * 86400);
    SSL_CTX *fresh = bsf_sbi_tls_acquire(t);
    assert_ptr_not_equal(fresh, old);
    /* the old context lives on for whoever holds it (an established connection's SSL) */
    assert_non_null(SSL_CTX_get0_certificate(old));
    SSL_CTX_free(fresh);
    SSL_CTX_free(old);
    bsf_sbi_tls_free(t);
}

static void test_file_stamps(void **state)
{
    (void)state;
    char p[600];
    path(p, sizeof p, "stamp");
    bsf_file_stamp_t a, b, none;
    bsf_file_stamp_take(p, &none);
    assert_false(none.exists);
    write_file("stamp", "one");
    bsf_file_stamp_take(p, &a);
    assert_true(a.exists);
    assert_true(bsf_file_stamp_differs(&a, &none));
    bsf_file_stamp_take(p, &b);
    assert_false(bsf_file_stamp_differs(&a, &b));
    write_file("stamp", "one"); /* same content, new inode (a rename over it) */
    bsf_file_stamp_take(p, &b);
    assert_true(bsf_file_stamp_differs(&a, &b));
    bsf_file_stamp_take("", &b);
    assert_false(b.exists);
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    make_cert("a.pem", "a.key", 10);
    make_cert("b.pem", "b.key", 90);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return tu_dir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals_name_the_key),
        cmocka_unit_test(test_reload_swaps_only_for_good_files),
        cmocka_unit_test(test_file_stamps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
