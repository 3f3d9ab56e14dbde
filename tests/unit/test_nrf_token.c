/* OAuth2 access tokens (Nnrf_AccessToken) for the SBI client's requests, against the test
 * NRF (tests/peers/nrf_sim.py, standalone) on loopback: a token is fetched once and shared,
 * renewed when it expires, replaced after a 401, and a refused scope fails the request. The
 * primary NRF answers 503 with Retry-After: the token requests fail over to the second NRF,
 * and the primary is unhealthy in the shared view (nrf_health.h) for the others too. */
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "gateways/nrf/nrf_token.h"
#include "tests/unit/sbi_call_fixtures.h"
#include "tests/unit/test_util.h"

static char dir[64], root[64], primary[64];
static pid_t sim, failing;

static int setup(void **state)
{
    (void)state;
    tu_temp_dir(dir, sizeof dir, "test_nrf_token");
    const char *const expiring[] = {"--token-expires", "2", NULL};
    int port;
    sim = tu_peer_start(BSF_NRF_SIM, dir, "port", expiring, 400, &port);
    if (sim < 0)
        return -1;
    snprintf(root, sizeof root, "http://127.0.0.1:%d", port);
    const char *const unavailable[] = {"--fail-status", "503", "--retry-after", "30", NULL};
    failing = tu_peer_start(BSF_NRF_SIM, dir, "port503", unavailable, 400, &port);
    if (failing < 0)
        return -1;
    snprintf(primary, sizeof primary, "http://127.0.0.1:%d", port);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    pid_t peers[] = {sim, failing};
    return tu_peers_stop(peers, 2, dir);
}

static sc_call_t run(bsf_sbi_client_t *cl, const char *method, const char *path,
                     const char *scope)
{
    char uri[160];
    snprintf(uri, sizeof uri, "%s%s", root, path);
    bsf_sbi_request_t q = {.method = method, .uri = uri, .timeout_ms = 3000, .priority = -1,
                           .oauth_scope = scope, .target_nf_type = scope ? "PCF" : NULL};
    sc_call_t c;
    sc_call_run(cl, &q, &c);
    return c;
}

/* Makes the NRF forget every token it issued (producers then answer 401). */
static void revoke_all(bsf_sbi_client_t *cl)
{
    assert_int_equal(run(cl, "POST", "/nbsf-test/v1/token-requests", NULL).status, 200);
}

/* The count of token requests the NRF saw, read through a plain request. */
static int count(bsf_sbi_client_t *cl)
{
    sc_call_t c = run(cl, "GET", "/nbsf-test/v1/token-requests", NULL);
    json_t *j = json_loads(c.body, 0, NULL);
    int n = (int)json_integer_value(json_object_get(j, "count"));
    json_decref(j);
    return n;
}

static void tokens(void **state)
{
    (void)state;
    bsf_sbi_client_config_t cfg = {.nf_instance_id = "54804518-4191-46b3-955c-ac631f953ed8"};
    bsf_sbi_client_t *cl;
    char err[200];
    assert_int_equal(bsf_sbi_client_start(&cfg, &cl, err, sizeof err), 0);
    /* without a provider a request with a scope is refused at submit */
    char uri[160];
    snprintf(uri, sizeof uri, "%s/nbsf-test/v1/protected", root);
    bsf_sbi_request_t q = {.method = "GET", .uri = uri, .priority = -1, .oauth_scope = "x"};
    assert_int_equal(bsf_sbi_client_submit(cl, &q, sc_call_done, NULL, err, sizeof err), -1);
    char uris[160];
    snprintf(uris, sizeof uris, "%s\n%s", primary, root);
    bsf_nrf_health_config_t hc = {.uris = uris, .unhealthy_ms = 60000, .primary_retries = 2,
                                  .alternate_retries = 1};
    bsf_nrf_health_t *h = bsf_nrf_health_create(&hc, err, sizeof err);
    assert_non_null(h);
    bsf_nrf_tokens_t *t = bsf_nrf_tokens_new(cl, cfg.nf_instance_id, h, 2000);
    bsf_nrf_tokens_install(t);
    int base = count(cl);
    assert_true(bsf_nrf_health_healthy(h, 0));
    /* no token: the producer refuses */
    assert_int_equal(run(cl, "GET", "/nbsf-test/v1/protected", NULL).status, 401);
    /* one token, fetched once, used twice */
    assert_int_equal(run(cl, "GET", "/nbsf-test/v1/protected", "nbsf-test").status, 200);
    /* the primary answered 503 + Retry-After: unhealthy for every NRF user, the second
     * NRF issued the token */
    assert_false(bsf_nrf_health_healthy(h, 0));
    assert_int_equal(bsf_nrf_health_pick(h, 0), 1);
    assert_int_equal(run(cl, "GET", "/nbsf-test/v1/protected", "nbsf-test").status, 200);
    assert_int_equal(count(cl), base + 1);
    /* revoked at the NRF: 401, then one retry with a new token */
    revoke_all(cl);
    assert_int_equal(run(cl, "GET", "/nbsf-test/v1/protected", "nbsf-test").status, 200);
    assert_int_equal(count(cl), base + 2);
    /* expires after 2 s (renewed before): a new one */
    sleep(2);
    assert_int_equal(run(cl, "GET", "/nbsf-test/v1/protected", "nbsf-test").status, 200);
    assert_int_equal(count(cl), base + 3);
    /* a scope the NRF refuses */
    sc_call_t c = run(cl, "GET", "/nbsf-test/v1/protected", "forbidden");
    assert_int_equal(c.result, BSF_SBI_ERR_TOKEN);
    assert_non_null(strstr(c.error, "invalid_scope"));
    /* every NRF unhealthy: still asked, the least recently failed first (the primary, 503
     * again), then the second, which issues it */
    bsf_nrf_health_failed(h, 1, 60000);
    int before = count(cl);
    assert_int_equal(run(cl, "GET", "/nbsf-test/v1/protected", "nbsf-test other").status, 200);
    assert_int_equal(count(cl), before + 1);
    assert_true(bsf_nrf_health_healthy(h, 1)); /* it answered: healthy again */
    assert_false(bsf_nrf_health_healthy(h, 0));
    bsf_sbi_client_stop(cl);
    bsf_nrf_tokens_free(t);
    bsf_nrf_health_free(h);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {cmocka_unit_test(tokens)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
