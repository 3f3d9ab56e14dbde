/* gateways/sbi/sbi_oauth2.c: access-token checks without HTTP. Keys are made per run with
 * OpenSSL (RSA 2048, EC P-256); tokens are signed here, ES256 as RFC 7518's R||S. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gateways/sbi/sbi_oauth2.h"
#include "tests/unit/jws_fixtures.h"

#define NOW 1800000000
#define BSF_ID "5a1b9c3e-0d7f-4b2a-9e61-3c8d2f4a7b10"

static EVP_PKEY *rsa_key, *ec_key, *rsa_small;
static char keys_path[64] = "/tmp/test_sbi_oauth2_XXXXXX";

/* "Bearer h.p.s" for JSON header and claims, signed with `key` (NULL: `sig` as given). */
static char *token(const char *alg, EVP_PKEY *key, const char *claims)
{
    static char out[8192];
    char head[256], body[4096], sig_b64[1024], input[8192];
    char hjson[64];
    snprintf(hjson, sizeof hjson, "{\"alg\":\"%s\",\"typ\":\"JWT\"}", alg);
    tj_b64url((const unsigned char *)hjson, strlen(hjson), head);
    tj_b64url((const unsigned char *)claims, strlen(claims), body);
    snprintf(input, sizeof input, "%s.%s", head, body);
    unsigned char sig[512];
    size_t sig_len = 0;
    if (key) {
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        sig_len = sizeof sig;
        assert_int_equal(EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, key), 1);
        assert_int_equal(EVP_DigestSign(ctx, sig, &sig_len, (unsigned char *)input,
                                        strlen(input)), 1);
        EVP_MD_CTX_free(ctx);
        if (EVP_PKEY_is_a(key, "EC")) { /* DER to R||S */
            const unsigned char *p = sig;
            ECDSA_SIG *es = d2i_ECDSA_SIG(NULL, &p, (long)sig_len);
            assert_non_null(es);
            BN_bn2binpad(ECDSA_SIG_get0_r(es), sig, 32);
            BN_bn2binpad(ECDSA_SIG_get0_s(es), sig + 32, 32);
            ECDSA_SIG_free(es);
            sig_len = 64;
        }
    } else {
        memcpy(sig, "garbage-signature", 17);
        sig_len = 17;
    }
    tj_b64url(sig, sig_len, sig_b64);
    snprintf(out, sizeof out, "Bearer %s.%s", input, sig_b64);
    return out;
}

static const char *claims(const char *extra)
{
    static char out[2048];
    snprintf(out, sizeof out,
             "{\"iss\":\"nrf\",\"sub\":\"pcf\",\"aud\":\"BSF\",\"scope\":\"nbsf-management\","
             "\"exp\":%d%s%s}",
             NOW + 60, extra[0] ? "," : "", extra);
    return out;
}

static bsf_oauth2_t *verifier(bool validate, const char *set, const char *plmn)
{
    bsf_oauth2_settings_t s = {keys_path, validate, BSF_ID, set, plmn};
    bsf_oauth2_t *o = NULL;
    char err[256];
    assert_int_equal(bsf_oauth2_create(&s, &o, err, sizeof err), 0);
    return o;
}

/* cmocka setup and teardown of the tests of the usual verifier (signatures checked, no
 * producer NF set or PLMN): it is the test's state, freed even when the test fails. */
static int verifier_setup(void **state)
{
    *state = verifier(true, "", "");
    return 0;
}

static int verifier_teardown(void **state)
{
    bsf_oauth2_free(*state);
    return 0;
}

static int setup(void **state)
{
    (void)state;
    rsa_key = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
    rsa_small = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)1024);
    ec_key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    int fd = mkstemp(keys_path);
    FILE *f = fdopen(fd, "w");
    if (!rsa_key || !ec_key || !rsa_small || !f)
        return -1;
    fputs("a comment line before the keys\n", f);
    PEM_write_PUBKEY(f, rsa_key);
    PEM_write_PUBKEY(f, ec_key);
    fclose(f);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(keys_path);
    EVP_PKEY_free(rsa_key);
    EVP_PKEY_free(ec_key);
    EVP_PKEY_free(rsa_small);
    return 0;
}

static void scope_words(void **state)
{
    (void)state;
    assert_true(bsf_oauth2_scope_has("nbsf-management", "nbsf-management"));
    assert_true(bsf_oauth2_scope_has("a nbsf-management b", "nbsf-management"));
    assert_true(bsf_oauth2_scope_has("  nbsf-management  ", "nbsf-management"));
    assert_false(bsf_oauth2_scope_has("nbsf-managementx", "nbsf-management"));
    assert_false(bsf_oauth2_scope_has("xnbsf-management", "nbsf-management"));
    assert_false(bsf_oauth2_scope_has("nbsf-manage", "nbsf-management"));
    assert_false(bsf_oauth2_scope_has("", "nbsf-management"));
}

static void base64url(void **state)
{
    (void)state;
    unsigned char out[16];
    assert_int_equal(bsf_oauth2_b64url_decode("", 0, out, sizeof out), 0);
    assert_int_equal(bsf_oauth2_b64url_decode("YQ", 2, out, sizeof out), 1);
    assert_int_equal(out[0], 'a');
    assert_int_equal(bsf_oauth2_b64url_decode("-_8", 3, out, sizeof out), 2);
    assert_int_equal(out[0], 0xfb);
    assert_int_equal(out[1], 0xff);
    assert_int_equal(bsf_oauth2_b64url_decode("YWJj", 4, out, sizeof out), 3);
    assert_int_equal(bsf_oauth2_b64url_decode("Y", 1, out, sizeof out), -1);
    assert_int_equal(bsf_oauth2_b64url_decode("YQ==", 4, out, sizeof out), -1); /* no padding */
    assert_int_equal(bsf_oauth2_b64url_decode("Y+Q", 3, out, sizeof out), -1);
    assert_int_equal(bsf_oauth2_b64url_decode("YWJjYWJjYWJjYWJjYWJjYWJj", 24, out, 16), -1);
}

static bsf_oauth2_verdict_t claims_verdict(bsf_oauth2_t *o, const char *json, int64_t now)
{
    json_t *c = json_loads(json, 0, NULL);
    assert_non_null(c);
    char why[128];
    bsf_oauth2_verdict_t v = bsf_oauth2_check_claims(o, c, now, why, sizeof why);
    json_decref(c);
    return v;
}

static void claims_rules(void **state)
{
    bsf_oauth2_t *o = *state;
    assert_int_equal(claims_verdict(o, claims(""), NOW), BSF_OAUTH2_OK);
    /* exp with the clock skew: NOW + 60 + skew is the last second accepted */
    assert_int_equal(claims_verdict(o, claims(""), NOW + 60 + BSF_OAUTH2_CLOCK_SKEW_S),
                     BSF_OAUTH2_OK);
    assert_int_equal(claims_verdict(o, claims(""), NOW + 61 + BSF_OAUTH2_CLOCK_SKEW_S),
                     BSF_OAUTH2_INVALID_TOKEN);
    char extra[128];
    snprintf(extra, sizeof extra, "\"nbf\":%d", NOW + BSF_OAUTH2_CLOCK_SKEW_S + 1);
    assert_int_equal(claims_verdict(o, claims(extra), NOW), BSF_OAUTH2_INVALID_TOKEN);
    snprintf(extra, sizeof extra, "\"nbf\":%d,\"iat\":%d", NOW + 10, NOW + 10);
    assert_int_equal(claims_verdict(o, claims(extra), NOW), BSF_OAUTH2_OK); /* within skew */
    snprintf(extra, sizeof extra, "\"iat\":%d", NOW + 3600);
    assert_int_equal(claims_verdict(o, claims(extra), NOW), BSF_OAUTH2_INVALID_TOKEN);
    assert_int_equal(claims_verdict(o, claims("\"nbf\":\"soon\""), NOW), BSF_OAUTH2_INVALID_TOKEN);
    assert_int_equal(claims_verdict(o, "{\"iss\":\"n\",\"sub\":\"p\",\"aud\":\"BSF\","
                                       "\"scope\":\"nbsf-management\"}", NOW),
                     BSF_OAUTH2_INVALID_TOKEN); /* no exp */
    assert_int_equal(claims_verdict(o, "[]", NOW), BSF_OAUTH2_INVALID_TOKEN);
    /* extreme NumericDates do not overflow (UBSan) */
    assert_int_equal(claims_verdict(o, "{\"iss\":\"n\",\"sub\":\"p\",\"aud\":\"BSF\","
                                       "\"scope\":\"nbsf-management\","
                                       "\"exp\":9223372036854775807,"
                                       "\"nbf\":-9223372036854775807,"
                                       "\"iat\":-9223372036854775807}", NOW),
                     BSF_OAUTH2_OK);
    assert_int_equal(claims_verdict(o, "{\"iss\":\"n\",\"sub\":\"p\",\"aud\":\"BSF\","
                                       "\"scope\":\"nbsf-management\","
                                       "\"exp\":-9223372036854775807}", NOW),
                     BSF_OAUTH2_INVALID_TOKEN);
}

static void audience_and_scope(void **state)
{
    bsf_oauth2_t *o = *state;
    char json[512];
    /* the NF type or the NF instance id, alone or in an array; anything else is refused */
    static const struct {
        const char *aud;
        bsf_oauth2_verdict_t verdict;
    } auds[] = {
        {"\"BSF\"", BSF_OAUTH2_OK},
        {"\"" BSF_ID "\"", BSF_OAUTH2_OK},
        {"[\"x\",\"" BSF_ID "\"]", BSF_OAUTH2_OK},
        {"[\"BSF\"]", BSF_OAUTH2_OK},
        {"\"SMF\"", BSF_OAUTH2_INVALID_TOKEN},
        {"[]", BSF_OAUTH2_INVALID_TOKEN},
        {"[1]", BSF_OAUTH2_INVALID_TOKEN},
        {"[\"SMF\",\"PCF\"]", BSF_OAUTH2_INVALID_TOKEN},
        {"7", BSF_OAUTH2_INVALID_TOKEN},
        {"\"bsf\"", BSF_OAUTH2_INVALID_TOKEN},
    };
    for (size_t i = 0; i < sizeof auds / sizeof auds[0]; i++) {
        snprintf(json, sizeof json, "{\"iss\":\"n\",\"sub\":\"p\",\"aud\":%s,\"scope\":"
                                    "\"nbsf-management\",\"exp\":%d}", auds[i].aud, NOW + 60);
        assert_int_equal(claims_verdict(o, json, NOW), auds[i].verdict);
    }
    snprintf(json, sizeof json, "{\"iss\":\"n\",\"sub\":\"p\",\"aud\":\"BSF\",\"scope\":"
                                "\"nbsf-managementx npcf\",\"exp\":%d}", NOW + 60);
    assert_int_equal(claims_verdict(o, json, NOW), BSF_OAUTH2_INSUFFICIENT_SCOPE);
    snprintf(json, sizeof json, "{\"iss\":\"n\",\"sub\":\"p\",\"aud\":\"BSF\",\"exp\":%d}",
             NOW + 60);
    assert_int_equal(claims_verdict(o, json, NOW), BSF_OAUTH2_INVALID_TOKEN);
    snprintf(json, sizeof json, "{\"sub\":\"p\",\"aud\":\"BSF\",\"scope\":\"nbsf-management\","
                                "\"exp\":%d}", NOW + 60);
    assert_int_equal(claims_verdict(o, json, NOW), BSF_OAUTH2_INVALID_TOKEN);
}

static void producer_checks(void **state)
{
    (void)state;
    bsf_oauth2_t *o = verifier(true, "set1.bsfset.5gc.mnc001.mcc001", "001-01");
    assert_int_equal(claims_verdict(o, claims(""), NOW), BSF_OAUTH2_OK); /* absent: accepted */
    assert_int_equal(claims_verdict(o, claims("\"producerNfSetId\":"
                                              "\"set1.bsfset.5gc.mnc001.mcc001\","
                                              "\"producerPlmnId\":{\"mcc\":\"001\",\"mnc\":\"01\"}"),
                                    NOW),
                     BSF_OAUTH2_OK);
    assert_int_equal(claims_verdict(o, claims("\"producerNfSetId\":\"set2\""), NOW),
                     BSF_OAUTH2_INVALID_TOKEN);
    assert_int_equal(claims_verdict(o, claims("\"producerPlmnId\":{\"mcc\":\"001\",\"mnc\":\"001\"}"),
                                    NOW),
                     BSF_OAUTH2_INVALID_TOKEN);
    bsf_oauth2_free(o);
}

static void signatures(void **state)
{
    bsf_oauth2_t *o = *state;
    assert_int_equal(bsf_oauth2_key_count(o), 2);
    char why[128];
    time_t now = NOW;
    assert_int_equal(bsf_oauth2_check(o, token("RS256", rsa_key, claims("")), now, why, 128),
                     BSF_OAUTH2_OK);
    assert_int_equal(bsf_oauth2_check(o, token("ES256", ec_key, claims("")), now, why, 128),
                     BSF_OAUTH2_OK);
    /* a key of the other kind, a key not in the file, a garbage signature */
    assert_int_equal(bsf_oauth2_check(o, token("ES256", rsa_key, claims("")), now, why, 128),
                     BSF_OAUTH2_INVALID_TOKEN);
    assert_int_equal(bsf_oauth2_check(o, token("RS256", rsa_small, claims("")), now, why, 128),
                     BSF_OAUTH2_INVALID_TOKEN);
    assert_int_equal(bsf_oauth2_check(o, token("RS256", NULL, claims("")), now, why, 128),
                     BSF_OAUTH2_INVALID_TOKEN);
    assert_string_equal(why, "the signature does not verify");
    for (const char *const *alg = (const char *const[]){"none", "HS256", "RS512", "PS256", NULL};
         *alg; alg++)
        assert_int_equal(bsf_oauth2_check(o, token(*alg, NULL, claims("")), now, why, 128),
                         BSF_OAUTH2_INVALID_TOKEN);
    /* a bad claim behind a good signature is still refused; the scope is 403 */
    assert_int_equal(bsf_oauth2_check(o, token("ES256", ec_key, claims("")), NOW + 3600, why, 128),
                     BSF_OAUTH2_INVALID_TOKEN);
}

static void headers_and_shapes(void **state)
{
    bsf_oauth2_t *o = *state;
    char why[128];
    assert_int_equal(bsf_oauth2_check(o, NULL, NOW, why, 128), BSF_OAUTH2_NO_TOKEN);
    assert_int_equal(bsf_oauth2_check(o, "Basic abc", NOW, why, 128), BSF_OAUTH2_NO_TOKEN);
    assert_int_equal(bsf_oauth2_check(o, "Bearerx a.b.c", NOW, why, 128), BSF_OAUTH2_NO_TOKEN);
    assert_int_equal(bsf_oauth2_check(o, "Bearer", NOW, why, 128), BSF_OAUTH2_INVALID_TOKEN);
    const char *bad[] = {"Bearer a", "Bearer a.b", "Bearer a.b.c.d", "Bearer ..", "Bearer e30.e30.",
                         "Bearer e30.e30.AAAA", "Bearer !.!.!"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bsf_oauth2_check(o, bad[i], NOW, why, 128), BSF_OAUTH2_INVALID_TOKEN);
    char *t = strdup(token("ES256", ec_key, claims("")));
    char *lower = malloc(strlen(t) + 8);
    sprintf(lower, "  bearer   %s  ", t + 7);
    assert_int_equal(bsf_oauth2_check(o, lower, NOW, why, 128), BSF_OAUTH2_OK);
    free(lower);
    free(t);
}

static void without_signature_validation(void **state)
{
    (void)state;
    bsf_oauth2_settings_t s = {NULL, false, BSF_ID, "", ""};
    bsf_oauth2_t *o = NULL;
    char err[256], why[128];
    assert_int_equal(bsf_oauth2_create(&s, &o, err, sizeof err), 0);
    assert_int_equal(bsf_oauth2_check(o, token("RS256", NULL, claims("")), NOW, why, 128),
                     BSF_OAUTH2_OK);
    assert_int_equal(bsf_oauth2_check(o, token("RS256", NULL, claims("")), NOW + 3600, why, 128),
                     BSF_OAUTH2_INVALID_TOKEN);
    assert_int_equal(bsf_oauth2_check(o, token("none", NULL, claims("")), NOW, why, 128),
                     BSF_OAUTH2_INVALID_TOKEN);
    /* extreme times through the cache (UBSan: no overflow in its window) */
    const char *wide = "{\"iss\":\"n\",\"sub\":\"p\",\"aud\":\"BSF\",\"scope\":"
                       "\"nbsf-management\",\"exp\":9223372036854775807,"
                       "\"nbf\":-9223372036854775807}";
    char *t = strdup(token("RS256", NULL, wide));
    assert_int_equal(bsf_oauth2_check(o, t, NOW, why, 128), BSF_OAUTH2_OK);
    assert_int_equal(bsf_oauth2_check(o, t, NOW, why, 128), BSF_OAUTH2_OK);
    free(t);
    bsf_oauth2_free(o);
}

/* The per-thread cache of accepted tokens: it never outlives exp, never serves a token to a
 * verifier that did not accept it, and never remembers refusals. */
static void accepted_tokens_cache(void **state)
{
    (void)state;
    bsf_oauth2_t *a = verifier(true, "", "");
    bsf_oauth2_settings_t s = {keys_path, true, "", "", ""}; /* no instance id: only "BSF" */
    bsf_oauth2_t *b = NULL;
    char err[256], why[128];
    assert_int_equal(bsf_oauth2_create(&s, &b, err, sizeof err), 0);
    char extra[96];
    snprintf(extra, sizeof extra, "\"nbf\":%d", NOW);
    char *t = strdup(token("ES256", ec_key, claims(extra)));
    for (int i = 0; i < 3; i++)
        assert_int_equal(bsf_oauth2_check(a, t, NOW, why, 128), BSF_OAUTH2_OK);
    /* the cached entry still ends at exp + skew and starts at nbf - skew */
    assert_int_equal(bsf_oauth2_check(a, t, NOW + 61 + BSF_OAUTH2_CLOCK_SKEW_S, why, 128),
                     BSF_OAUTH2_INVALID_TOKEN);
    assert_int_equal(bsf_oauth2_check(a, t, NOW - BSF_OAUTH2_CLOCK_SKEW_S - 1, why, 128),
                     BSF_OAUTH2_INVALID_TOKEN);
    assert_int_equal(bsf_oauth2_check(a, t, NOW, why, 128), BSF_OAUTH2_OK);
    free(t);
    /* a token for this instance's id, accepted by a: b (no instance id) refuses it */
    char aud[128];
    snprintf(aud, sizeof aud,
             "{\"iss\":\"n\",\"sub\":\"p\",\"aud\":\"%s\",\"scope\":\"nbsf-management\","
             "\"exp\":%d}", BSF_ID, NOW + 60);
    t = strdup(token("RS256", rsa_key, aud));
    assert_int_equal(bsf_oauth2_check(a, t, NOW, why, 128), BSF_OAUTH2_OK);
    assert_int_equal(bsf_oauth2_check(b, t, NOW, why, 128), BSF_OAUTH2_INVALID_TOKEN);
    /* a refusal is not remembered: the same bad token is refused with its reason again */
    t[strlen(t) - 2] ^= 1;
    assert_int_equal(bsf_oauth2_check(a, t, NOW, why, 128), BSF_OAUTH2_INVALID_TOKEN);
    assert_int_equal(bsf_oauth2_check(a, t, NOW, why, 128), BSF_OAUTH2_INVALID_TOKEN);
    free(t);
    bsf_oauth2_free(a);
    bsf_oauth2_free(b);
}

static void creation_errors(void **state)
{
    (void)state;
    char err[256], small[64] = "/tmp/test_sbi_oauth2_small_XXXXXX";
    bsf_oauth2_t *o = NULL;
    bsf_oauth2_settings_t s = {"", true, BSF_ID, "", ""};
    assert_int_equal(bsf_oauth2_create(&s, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "sbi.oauth2.keys"));
    s.keys_path = "/nonexistent/keys.pem";
    assert_int_equal(bsf_oauth2_create(&s, &o, err, sizeof err), -1);
    int fd = mkstemp(small);
    FILE *f = fdopen(fd, "w");
    PEM_write_PUBKEY(f, rsa_small);
    fclose(f);
    s.keys_path = small;
    assert_int_equal(bsf_oauth2_create(&s, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "2048"));
    unlink(small);
    s.keys_path = keys_path;
    s.producer_plmn_id = "1-1";
    assert_int_equal(bsf_oauth2_create(&s, &o, err, sizeof err), -1);
    assert_non_null(strstr(err, "sbi.oauth2.producer_plmn_id"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(scope_words),
        cmocka_unit_test(base64url),
        cmocka_unit_test_setup_teardown(claims_rules, verifier_setup, verifier_teardown),
        cmocka_unit_test_setup_teardown(audience_and_scope, verifier_setup, verifier_teardown),
        cmocka_unit_test(producer_checks),
        cmocka_unit_test_setup_teardown(signatures, verifier_setup, verifier_teardown),
        cmocka_unit_test_setup_teardown(headers_and_shapes, verifier_setup, verifier_teardown),
        cmocka_unit_test(without_signature_validation),
        cmocka_unit_test(accepted_tokens_cache),
        cmocka_unit_test(creation_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
