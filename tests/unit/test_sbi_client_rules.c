/* Pure parts of the SBI client: URIs and redirects, header values, retry decisions,
 * Retry-After, ProblemDetails decoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/sbi_time.h"
#include "gateways/sbi/problem_decode.h"
#include "gateways/sbi/sbi_headers.h"
#include "gateways/sbi/sbi_retry.h"
#include "gateways/sbi/sbi_uri.h"
#include "gateways/sbi/scp_rules.h"
#include "gateways/sbi/sbi_client_scp.h"

static int parse(const char *s, bsf_sbi_uri_t *u)
{
    char err[128];
    return bsf_sbi_uri_parse(s, strlen(s), u, err, sizeof err);
}

static void uri_forms(void **state)
{
    (void)state;
    bsf_sbi_uri_t u;
    assert_int_equal(parse("http://nrf.example.com:8080/nnrf-nfm/v1/nf-instances/x?a=b", &u), 0);
    assert_false(u.tls);
    assert_string_equal(u.host, "nrf.example.com");
    assert_int_equal(u.port, 8080);
    assert_string_equal(u.authority, "nrf.example.com:8080");
    assert_string_equal(u.path, "/nnrf-nfm/v1/nf-instances/x?a=b");
    assert_int_equal(parse("https://[2001:db8::1]/", &u), 0);
    assert_true(u.tls);
    assert_string_equal(u.host, "2001:db8::1");
    assert_int_equal(u.port, 443);
    assert_string_equal(u.authority, "[2001:db8::1]");
    assert_int_equal(parse("http://10.0.0.1", &u), 0);
    assert_string_equal(u.path, "/");
    assert_int_equal(u.port, 80);
    assert_int_equal(parse("http://h?x=1#frag", &u), 0);
    assert_string_equal(u.path, "/?x=1");
    char root[300];
    assert_int_equal(parse("https://scp.example:443/prefix", &u), 0);
    assert_true(bsf_sbi_uri_api_root(&u, root, sizeof root) > 0);
    assert_string_equal(root, "https://scp.example:443");
}

static void uri_rejects(void **state)
{
    (void)state;
    bsf_sbi_uri_t u;
    const char *bad[] = {"ftp://h/", "http://", "http:///x", "http://h:0/", "http://h:65536/",
                         "http://h:8x/", "http://[::1/", "http://[::1]x/", "http://u@h/",
                         "http://h/ space", "nrf.example/x", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(parse(bad[i], &u), -1);
}

static void redirects_resolve(void **state)
{
    (void)state;
    bsf_sbi_uri_t base, out;
    char err[128];
    assert_int_equal(parse("https://nrf1:8443/nnrf-nfm/v1/nf-instances/1", &base), 0);
    assert_int_equal(bsf_sbi_uri_resolve(&base, "/other/path", 11, &out, err, sizeof err), 0);
    assert_true(out.tls);
    assert_string_equal(out.authority, "nrf1:8443");
    assert_string_equal(out.path, "/other/path");
    const char *abs = "http://nrf2:80/x";
    assert_int_equal(bsf_sbi_uri_resolve(&base, abs, strlen(abs), &out, err, sizeof err), 0);
    assert_false(out.tls);
    assert_string_equal(out.host, "nrf2");
    assert_int_equal(bsf_sbi_uri_resolve(&base, "relative", 8, &out, err, sizeof err), -1);
}

static void header_values(void **state)
{
    (void)state;
    char ts[BSF_SBI_TIME_HEADER_MAX];
    /* 2019-08-04T08:49:37.845Z, the TS 29.500 example */
    size_t n = bsf_sbi_time_format_header(1564908577845, ts);
    assert_int_equal(n, strlen("Sun, 04 Aug 2019 08:49:37.845 GMT"));
    assert_string_equal(ts, "Sun, 04 Aug 2019 08:49:37.845 GMT");
    assert_int_equal(bsf_sbi_time_parse(ts, n), 1564908577845);
    assert_int_equal(bsf_sbi_time_format_header(-1, ts), 0);
    char ua[64];
    assert_true(bsf_sbi_user_agent("54804518-4191-46b3-955c-ac631f953ed8", NULL, ua, sizeof ua));
    assert_string_equal(ua, "BSF-54804518-4191-46b3-955c-ac631f953ed8");
    assert_true(bsf_sbi_user_agent("id", "bsf1.example", ua, sizeof ua));
    assert_string_equal(ua, "BSF-id bsf1.example");
    assert_int_equal(bsf_sbi_user_agent("id", "bsf1.example", ua, 8), 0);
    assert_true(bsf_sbi_priority_valid(0) && bsf_sbi_priority_valid(31));
    assert_false(bsf_sbi_priority_valid(32) || bsf_sbi_priority_valid(-1));
    assert_true(bsf_sbi_header_value_valid("imsi-345012123123123; msisdn-1", 100));
    assert_false(bsf_sbi_header_value_valid("a\r\nx-injected: 1", 100));
    assert_false(bsf_sbi_header_value_valid("abcdef", 3));
}

static void retry_decisions(void **state)
{
    (void)state;
    const bsf_sbi_retry_profile_t *p = &bsf_sbi_retry_default;
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_ANSWER, 503, -1, 5000), 50);
    assert_int_equal(bsf_sbi_retry_decide(p, 2, BSF_SBI_ATTEMPT_ANSWER, 503, -1, 5000), 100);
    assert_int_equal(bsf_sbi_retry_decide(p, 3, BSF_SBI_ATTEMPT_ANSWER, 503, -1, 5000), -1);
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_ANSWER, 404, -1, 5000), -1);
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_ANSWER, 200, -1, 5000), -1);
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_TIMEOUT, 0, -1, 5000), 50);
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_CONNECT_ERROR, 0, -1, 5000), 50);
    /* Retry-After longer than the back-off wins; beyond the deadline: no retry */
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_ANSWER, 503, 2000, 5000), 2000);
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_ANSWER, 503, 6000, 5000), -1);
    assert_int_equal(bsf_sbi_retry_decide(p, 1, BSF_SBI_ATTEMPT_ANSWER, 503, -1, 30), -1);
    bsf_sbi_retry_profile_t q = {.max_retries = 10, .n_statuses = 1, .statuses = {500},
                                 .backoff_initial_ms = 100, .backoff_max_ms = 350};
    assert_int_equal(bsf_sbi_retry_decide(&q, 3, BSF_SBI_ATTEMPT_ANSWER, 500, -1, 9000), 350);
    assert_int_equal(bsf_sbi_retry_decide(&q, 1, BSF_SBI_ATTEMPT_TIMEOUT, 0, -1, 9000), -1);
    assert_int_equal(bsf_sbi_retry_decide(&q, 1, BSF_SBI_ATTEMPT_ANSWER, 500, 1000, 9000), 100);
    q.stop_on_retry_after = true;
    assert_int_equal(bsf_sbi_retry_decide(&q, 1, BSF_SBI_ATTEMPT_ANSWER, 500, 0, 9000), -1);
    assert_int_equal(bsf_sbi_retry_decide(&q, 1, BSF_SBI_ATTEMPT_ANSWER, 500, -1, 9000), 100);
    assert_int_equal(bsf_sbi_retry_decide(NULL, 1, BSF_SBI_ATTEMPT_ANSWER, 500, -1, 9000), -1);
}

static void retry_after(void **state)
{
    (void)state;
    assert_int_equal(bsf_sbi_retry_after_ms("120", 0), 120000);
    assert_int_equal(bsf_sbi_retry_after_ms("0", 0), 0);
    assert_int_equal(bsf_sbi_retry_after_ms("Sun, 04 Aug 2019 08:49:39 GMT", 1564908577000),
                     2000);
    assert_int_equal(bsf_sbi_retry_after_ms("Sun, 04 Aug 2019 08:49:39 GMT", 1564908590000), 0);
    assert_int_equal(bsf_sbi_retry_after_ms("soon", 0), -1);
    assert_int_equal(bsf_sbi_retry_after_ms("-5", 0), -1);
    assert_int_equal(bsf_sbi_retry_after_ms("99999999999", 0), -1);
    assert_int_equal(bsf_sbi_retry_after_ms(NULL, 0), -1);
}

static void problem_details(void **state)
{
    (void)state;
    bsf_sbi_problem_t p;
    const char *ok = "{\"status\":400,\"cause\":\"MANDATORY_IE_MISSING\",\"title\":\"Bad\","
                     "\"detail\":\"nfType\",\"invalidParams\":[{\"param\":\"/nfType\"},"
                     "{\"param\":\"/x\"}]}";
    assert_int_equal(bsf_sbi_problem_decode(ok, strlen(ok), &p), 0);
    assert_int_equal(p.status, 400);
    assert_string_equal(p.cause, "MANDATORY_IE_MISSING");
    assert_string_equal(p.detail, "nfType");
    assert_int_equal(p.n_invalid_params, 2);
    assert_string_equal(p.first_invalid_param, "/nfType");
    const char *bad[] = {"[]", "{\"status\":\"400\"}", "{\"cause\":5}", "{\"status\":9999}",
                         "{\"invalidParams\":{}}", "{\"invalidParams\":[1]}", "{", "",
                         "{\"a\":1,\"a\":2}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bsf_sbi_problem_decode(bad[i], strlen(bad[i]), &p), -1);
    assert_true(bsf_sbi_is_problem_json("application/problem+json"));
    assert_true(bsf_sbi_is_problem_json("Application/Problem+JSON; charset=utf-8"));
    assert_false(bsf_sbi_is_problem_json("application/json"));
    assert_false(bsf_sbi_is_problem_json("application/problem+jsonx"));
    assert_false(bsf_sbi_is_problem_json(NULL));
}

static void scp_verdicts(void **state)
{
    (void)state;
    assert_true(bsf_scp_server_names_scp("scp1.example.org", "scp1.example.org"));
    assert_true(bsf_scp_server_names_scp("SCP-1234 scp1.example.org", "other"));
    assert_true(bsf_scp_server_names_scp("x SCP1.EXAMPLE.ORG", "scp1.example.org"));
    assert_false(bsf_scp_server_names_scp("PCF-1234 pcf1.example.org", "scp1.example.org"));
    assert_false(bsf_scp_server_names_scp("scp1.example.org.evil", "scp1.example.org"));
    assert_false(bsf_scp_server_names_scp(NULL, "scp1"));
    assert_false(bsf_scp_server_names_scp("", "scp1"));
    assert_int_equal(bsf_scp_verdict(503, NULL, true), BSF_SCP_MARK_RESELECT);
    assert_int_equal(bsf_scp_verdict(429, NULL, true), BSF_SCP_MARK_RESELECT);
    assert_int_equal(bsf_scp_verdict(500, "SYSTEM_FAILURE", true), BSF_SCP_MARK_RESELECT);
    assert_int_equal(bsf_scp_verdict(504, NULL, true), BSF_SCP_MARK_RESELECT);
    assert_int_equal(bsf_scp_verdict(504, "TARGET_NF_NOT_REACHABLE", true), BSF_SCP_FINE);
    assert_int_equal(bsf_scp_verdict(500, "NF_FAILOVER", true), BSF_SCP_FINE);
    assert_int_equal(bsf_scp_verdict(500, "NF_SERVICE_FAILOVER", true), BSF_SCP_FINE);
    assert_int_equal(bsf_scp_verdict(400, NULL, true), BSF_SCP_RESELECT);
    assert_int_equal(bsf_scp_verdict(503, NULL, false), BSF_SCP_FINE); /* the target's */
    assert_int_equal(bsf_scp_verdict(200, NULL, true), BSF_SCP_FINE);
}

static void scp_table(void **state)
{
    (void)state;
    bsf_scp_table_t t;
    char err[128];
    assert_int_equal(bsf_scp_table_init(&t, "http://scp1:80\nhttp://scp2:80/prefix", 1000, 2, 1,
                                        err, sizeof err), 0);
    assert_int_equal(t.n, 2);
    assert_string_equal(t.scps[1].parsed.path, "/prefix");
    assert_int_equal(bsf_scp_table_pick(&t, 0, 0), 0);
    bsf_scp_table_mark(&t, 0, 0);
    assert_int_equal(bsf_scp_table_pick(&t, 10, 0), 1);     /* available ones first */
    assert_int_equal(bsf_scp_table_pick(&t, 10, 2u), 0);    /* else one not tried */
    assert_int_equal(bsf_scp_table_pick(&t, 10, 3u), -1);
    assert_int_equal(bsf_scp_table_pick(&t, 1000, 0), 0);   /* the time is over */
    bsf_scp_table_mark(&t, 0, 0);
    bsf_scp_table_fine(&t, 0);                              /* a success ends it early */
    assert_true(bsf_scp_table_available(&t, 0, 10));
    bsf_scp_table_probe(&t, 1, false);
    assert_true(bsf_scp_table_available(&t, 1, 10));
    bsf_scp_table_probe(&t, 1, false);                      /* 2 failures in a row */
    assert_false(bsf_scp_table_available(&t, 1, 10));
    bsf_scp_table_probe(&t, 1, true);
    assert_true(bsf_scp_table_available(&t, 1, 10));
    bsf_scp_table_destroy(&t);
    assert_int_equal(bsf_scp_table_init(&t, "scp1:80", 1000, 2, 1, err, sizeof err), -1);
    bsf_scp_table_destroy(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uri_forms),       cmocka_unit_test(uri_rejects),
        cmocka_unit_test(redirects_resolve), cmocka_unit_test(header_values),
        cmocka_unit_test(retry_decisions), cmocka_unit_test(retry_after),
        cmocka_unit_test(problem_details), cmocka_unit_test(scp_verdicts),
        cmocka_unit_test(scp_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
