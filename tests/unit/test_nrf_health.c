/* gateways/sbi/nrf_health.c: the NRFs by priority and their shared health. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gateways/sbi/nrf_health.h"

static bsf_nrf_health_t *make(const char *uris, const char *codes)
{
    char err[128];
    bsf_nrf_health_config_t c = {.uris = uris, .unhealthy_ms = 5000, .failure_codes = codes,
                                 .primary_retries = 2, .alternate_retries = 1};
    bsf_nrf_health_t *h = bsf_nrf_health_create(&c, err, sizeof err);
    assert_non_null(h);
    return h;
}

static void selection(void **state)
{
    (void)state;
    bsf_nrf_health_t *h = make("http://a:1/\nhttp://b:2\nhttp://c:3", NULL);
    assert_int_equal(bsf_nrf_health_count(h), 3);
    assert_string_equal(bsf_nrf_health_uri(h, 0), "http://a:1");
    assert_null(bsf_nrf_health_uri(h, 3));
    assert_null(bsf_nrf_health_uri(h, -1));
    assert_int_equal(bsf_nrf_health_pick(h, 0), 0);
    assert_int_equal(bsf_nrf_health_pick(h, 1u), 1);
    bsf_nrf_health_failed(h, 0, 150);
    assert_false(bsf_nrf_health_healthy(h, 0));
    assert_int_equal(bsf_nrf_health_pick(h, 0), 1);
    assert_int_equal(bsf_nrf_health_first_healthy(h), 1);
    usleep(250 * 1000);
    assert_int_equal(bsf_nrf_health_pick(h, 0), 0); /* healthy again */
    /* b healthy but tried, a and c failed: none left for this procedure */
    bsf_nrf_health_failed(h, 0, 0);
    bsf_nrf_health_failed(h, 2, 0);
    assert_int_equal(bsf_nrf_health_pick(h, 2u), -1);
    assert_int_equal(bsf_nrf_health_pick(h, 0), 1);
    bsf_nrf_health_succeeded(h, 2);
    assert_int_equal(bsf_nrf_health_pick(h, 2u), 2);
    /* tried every one */
    assert_int_equal(bsf_nrf_health_pick(h, 7u), -1);
    bsf_nrf_health_free(h);
    h = make("", NULL);
    assert_int_equal(bsf_nrf_health_count(h), 0);
    assert_int_equal(bsf_nrf_health_pick(h, 0), -1);
    assert_int_equal(bsf_nrf_health_first_healthy(h), -1);
    bsf_nrf_health_free(h);
}

static void all_unhealthy_the_least_recently_failed_is_tried(void **state)
{
    (void)state;
    bsf_nrf_health_t *h = make("http://a:1\nhttp://b:2\nhttp://c:3", NULL);
    bsf_nrf_health_failed(h, 1, 0);
    usleep(5 * 1000);
    bsf_nrf_health_failed(h, 0, 0);
    usleep(5 * 1000);
    bsf_nrf_health_failed(h, 2, 0);
    assert_int_equal(bsf_nrf_health_first_healthy(h), -1);
    assert_int_equal(bsf_nrf_health_pick(h, 0), 1);   /* b failed first */
    assert_int_equal(bsf_nrf_health_pick(h, 2u), 0);  /* then a */
    assert_int_equal(bsf_nrf_health_pick(h, 3u), 2);
    assert_int_equal(bsf_nrf_health_pick(h, 7u), -1);
    bsf_nrf_health_free(h);
}

static bsf_sbi_response_t answer(int status, const char *retry_after)
{
    bsf_sbi_response_t r = {.result = BSF_SBI_OK, .status = status, .body = ""};
    if (retry_after) {
        r.headers[0] = (bsf_sbi_header_t){"retry-after", retry_after};
        r.n_headers = 1;
    }
    return r;
}

static void reports(void **state)
{
    (void)state;
    bsf_nrf_health_t *h = make("http://a:1\nhttp://b:2", NULL);
    bsf_sbi_response_t r = answer(404, NULL); /* not a failure: the NRF is alive */
    assert_false(bsf_nrf_health_report(h, 0, &r));
    assert_true(bsf_nrf_health_healthy(h, 0));
    r = answer(503, "1"); /* Retry-After: that long, not the configured 5 s */
    assert_true(bsf_nrf_health_report(h, 0, &r));
    assert_false(bsf_nrf_health_healthy(h, 0));
    json_t *j = bsf_nrf_health_json(h);
    json_int_t left = json_integer_value(json_object_get(json_array_get(j, 0), "unhealthyForMs"));
    assert_true(left > 0 && left <= 1000);
    assert_string_equal(json_string_value(json_object_get(json_array_get(j, 0), "health")),
                        "UNHEALTHY");
    json_decref(j);
    usleep(1100 * 1000);
    assert_true(bsf_nrf_health_healthy(h, 0));
    r = answer(500, NULL); /* a failure code: the configured period */
    assert_true(bsf_nrf_health_report(h, 1, &r));
    j = bsf_nrf_health_json(h);
    left = json_integer_value(json_object_get(json_array_get(j, 1), "unhealthyForMs"));
    assert_true(left > 4000 && left <= 5000);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 1),
                                                        "successiveFailures")), 1);
    json_decref(j);
    r = answer(200, NULL);
    assert_false(bsf_nrf_health_report(h, 1, &r));
    assert_true(bsf_nrf_health_healthy(h, 1));
    /* no answer is a failure; the SCP's own failure says nothing of the NRF */
    r = (bsf_sbi_response_t){.result = BSF_SBI_ERR_TIMEOUT, .body = ""};
    assert_true(bsf_nrf_health_report(h, 1, &r));
    bsf_nrf_health_succeeded(h, 1);
    r = answer(503, NULL);
    r.from_scp = true;
    assert_false(bsf_nrf_health_report(h, 1, &r));
    assert_true(bsf_nrf_health_healthy(h, 1));
    r = (bsf_sbi_response_t){.result = BSF_SBI_ERR_STOPPED, .body = ""};
    assert_false(bsf_nrf_health_report(h, 1, &r));
    bsf_nrf_health_free(h);
}

static void failure_codes_and_retries(void **state)
{
    (void)state;
    bsf_nrf_health_t *h = make("http://a:1\nhttp://b:2", "503;504");
    bsf_sbi_response_t r = answer(500, NULL);
    assert_false(bsf_nrf_health_is_failure(h, &r)); /* not configured */
    r = answer(504, NULL);
    assert_true(bsf_nrf_health_is_failure(h, &r));
    r = answer(429, NULL);
    assert_false(bsf_nrf_health_is_failure(h, &r));
    r = answer(429, "3"); /* a Retry-After always is */
    assert_true(bsf_nrf_health_is_failure(h, &r));
    bsf_sbi_retry_profile_t p;
    bsf_nrf_health_retry_profile(h, 0, 4000, &p);
    assert_int_equal(p.max_retries, 2);
    assert_int_equal(p.attempt_timeout_ms, 1000);
    assert_true(p.stop_on_retry_after);
    bsf_nrf_health_retry_profile(h, 1, 4000, &p);
    assert_int_equal(p.max_retries, 0);
    assert_true(bsf_nrf_health_may_try(h, 0));
    assert_true(bsf_nrf_health_may_try(h, 1));
    assert_false(bsf_nrf_health_may_try(h, 2));
    bsf_nrf_health_free(h);
    char err[128];
    const char *bad[] = {"abc", "200", "600", "503 504", ",503"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        bsf_nrf_health_config_t c = {.uris = "http://a:1", .failure_codes = bad[i]};
        assert_null(bsf_nrf_health_create(&c, err, sizeof err));
        assert_non_null(strstr(err, "nrf.failure_codes"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(selection),
        cmocka_unit_test(all_unhealthy_the_least_recently_failed_is_tried),
        cmocka_unit_test(reports),
        cmocka_unit_test(failure_codes_and_retries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
