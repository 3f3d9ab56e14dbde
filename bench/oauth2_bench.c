/* CPU time of one access-token check (gateways/sbi/sbi_oauth2.h): RS256 (RSA 2048) and ES256
 * (P-256) tokens verified N times each with keys made at start (1000 distinct tokens, so that
 * each check is a first one), the claims alone (sbi.oauth2.validate_signature = false), and a
 * token sent again (the per-thread cache of accepted tokens). One thread;
 * CLOCK_PROCESS_CPUTIME_ID. */
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gateways/sbi/sbi_oauth2.h"
#include "tests/unit/jws_fixtures.h"

/* "Bearer <JWS>" signed with key (alg RS256 or ES256); `jti` makes each token distinct. */
static void make_token(EVP_PKEY *key, const char *alg, long now, long jti, char *out,
                       size_t cap)
{
    char hjson[64], claims[512], head[128], body[1024], input[2048], sig_b64[1024];
    snprintf(hjson, sizeof hjson, "{\"alg\":\"%s\",\"typ\":\"JWT\"}", alg);
    snprintf(claims, sizeof claims,
             "{\"iss\":\"0b1f2a3c-4d5e-4f60-8a7b-9c0d1e2f3a4b\",\"sub\":"
             "\"1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f\",\"aud\":[\"BSF\"],\"scope\":"
             "\"nbsf-management\",\"exp\":%ld,\"iat\":%ld,\"jti\":\"%ld\"}",
             now + 3600, now, jti);
    tj_b64url((unsigned char *)hjson, strlen(hjson), head);
    tj_b64url((unsigned char *)claims, strlen(claims), body);
    snprintf(input, sizeof input, "%s.%s", head, body);
    unsigned char sig[512];
    size_t sig_len = sizeof sig;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, key) != 1 ||
        EVP_DigestSign(ctx, sig, &sig_len, (unsigned char *)input, strlen(input)) != 1)
        abort();
    EVP_MD_CTX_free(ctx);
    if (EVP_PKEY_is_a(key, "EC")) {
        const unsigned char *p = sig;
        ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)sig_len);
        BN_bn2binpad(ECDSA_SIG_get0_r(es), sig, 32);
        BN_bn2binpad(ECDSA_SIG_get0_s(es), sig + 32, 32);
        ECDSA_SIG_free(es);
        sig_len = 64;
    }
    tj_b64url(sig, sig_len, sig_b64);
    snprintf(out, cap, "Bearer %s.%s", input, sig_b64);
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* n checks of `tokens` (k distinct ones, in turn; k above the cache's 64 slots per thread
 * makes every check a first one). */
static void run(const char *name, const bsf_oauth2_t *o, char **tokens, long k, long now, long n)
{
    double t0 = cpu_s();
    for (long i = 0; i < n; i++)
        if (bsf_oauth2_check(o, tokens[i % k], now, NULL, 0) != BSF_OAUTH2_OK)
            abort();
    double us = (cpu_s() - t0) / (double)n * 1e6;
    printf("%-32s %8ld checks  %7.2f us CPU each  (%.0f/s on one core)\n", name, n, us, 1e6 / us);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000;
    EVP_PKEY *rsa = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
    EVP_PKEY *ec = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    char path[] = "/tmp/oauth2_bench_XXXXXX";
    FILE *f = fdopen(mkstemp(path), "w");
    PEM_write_PUBKEY(f, rsa);
    PEM_write_PUBKEY(f, ec);
    fclose(f);
    long now = (long)time(NULL);
    enum { DISTINCT = 1000 };
    static char rs_buf[DISTINCT][1024], es_buf[DISTINCT][1024];
    char *rs[DISTINCT], *es[DISTINCT], err[256];
    for (long i = 0; i < DISTINCT; i++) {
        make_token(rsa, "RS256", now, i, rs_buf[i], sizeof rs_buf[i]);
        make_token(ec, "ES256", now, i, es_buf[i], sizeof es_buf[i]);
        rs[i] = rs_buf[i];
        es[i] = es_buf[i];
    }
    bsf_oauth2_t *o, *unsigned_o;
    bsf_oauth2_settings_t s = {path, true, "", "", ""};
    if (bsf_oauth2_create(&s, &o, err, sizeof err))
        return fprintf(stderr, "%s\n", err), 1;
    s.validate_signature = false;
    if (bsf_oauth2_create(&s, &unsigned_o, err, sizeof err))
        return fprintf(stderr, "%s\n", err), 1;
    unlink(path);
    printf("token sizes: RS256 %zu bytes, ES256 %zu bytes\n", strlen(rs[0]), strlen(es[0]));
    run("RS256 (RSA 2048), first check", o, rs, DISTINCT, now, n);
    run("ES256 (P-256), first check", o, es, DISTINCT, now, n);
    run("claims only (no signature)", unsigned_o, es, DISTINCT, now, n * 5);
    run("RS256, token sent again (cache)", o, rs, 1, now, n * 50);
    run("ES256, token sent again (cache)", o, es, 1, now, n * 50);
    bsf_oauth2_free(o);
    bsf_oauth2_free(unsigned_o);
    EVP_PKEY_free(rsa);
    EVP_PKEY_free(ec);
    return 0;
}
