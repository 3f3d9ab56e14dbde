/* gateways/ops/nf_scoring.c: the sampler thread, the rate, the on-demand refresh, the load,
 * the metrics and the JSON, with a gather function of the test's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "gateways/ops/nf_scoring.h"

static atomic_uint_fast64_t requests;
static atomic_uint gathers;

static void gather(void *ctx, bsf_nf_scoring_sample_t *out)
{
    (void)ctx;
    atomic_fetch_add(&gathers, 1);
    out->requests = atomic_load(&requests);
    out->inputs.services_available = 2;
    out->inputs.services_configured = 2;
    out->inputs.major_alerts = 1;
}

static bsf_nf_scoring_config_t config(uint64_t interval_ms)
{
    return (bsf_nf_scoring_config_t){
        .enabled = true,
        .interval_ms = interval_ms,
        .weights = {.max_tps = 1000, .tps_score = 20, .service_score = 30,
                    .connection_score = 20, .replication_score = 30, .locality_preference = 5,
                    .critical_alert_score = 2, .major_alert_score = 1},
        .gather = gather,
    };
}

static void disabled_scoring_has_no_thread_and_says_so(void **state)
{
    (void)state;
    bsf_nf_scoring_config_t c = config(10);
    c.enabled = false;
    bsf_nf_scoring_t *s = (void *)1;
    atomic_store(&gathers, 0);
    assert_int_equal(bsf_nf_scoring_start(&c, &s), 0);
    assert_null(s);
    assert_int_equal(bsf_nf_scoring_load(s, 42), 42);
    json_t *j = bsf_nf_scoring_json(s, true);
    assert_false(json_is_true(json_object_get(j, "enabled")));
    json_decref(j);
    bsf_text_t t = {0};
    bsf_nf_scoring_write_metrics(s, &t);
    assert_true(t.len == 0);
    bsf_text_free(&t);
    assert_int_equal(atomic_load(&gathers), 0);
    bsf_nf_scoring_stop(s);
}

static void refresh_measures_the_rate_and_scores(void **state)
{
    (void)state;
    bsf_nf_scoring_config_t c = config(3600 * 1000); /* the thread stays asleep */
    bsf_nf_scoring_t *s;
    atomic_store(&requests, 0);
    assert_int_equal(bsf_nf_scoring_start(&c, &s), 0);
    assert_non_null(s);
    nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
    atomic_store(&requests, 50); /* 50 requests in ~0.1 s: ~500/s, half of max_tps */
    bsf_nf_scoring_refresh(s);
    bsf_nf_score_t sc;
    double tps;
    assert_true(bsf_nf_scoring_last(s, &sc, &tps));
    assert_true(tps > 250 && tps <= 500.0001);
    assert_float_equal(sc.service, 30, 1e-9);
    assert_float_equal(sc.alerts, 1, 1e-9);
    assert_float_equal(sc.total, sc.tps + 30 + 20 + 30 + 5 - 1, 1e-9);
    unsigned load = bsf_nf_scoring_load(s, 0);
    assert_true(load >= 25 && load <= 50);
    json_t *j = bsf_nf_scoring_json(s, false);
    assert_true(json_is_true(json_object_get(j, "enabled")));
    assert_float_equal(json_real_value(json_object_get(j, "score")), sc.total, 1e-9);
    assert_float_equal(json_real_value(json_object_get(json_object_get(j, "factors"), "service")),
                       30, 1e-9);
    json_decref(j);
    bsf_text_t t = {0};
    bsf_nf_scoring_write_metrics(s, &t);
    assert_non_null(strstr(t.data, "# TYPE bsf_nf_score gauge\nbsf_nf_score "));
    assert_non_null(strstr(t.data, "bsf_nf_score_factor{factor=\"replication\"} 30.000\n"));
    bsf_text_free(&t);
    bsf_nf_scoring_stop(s);
}

static void the_thread_samples_every_interval(void **state)
{
    (void)state;
    bsf_nf_scoring_config_t c = config(10);
    bsf_nf_scoring_t *s;
    atomic_store(&gathers, 0);
    assert_int_equal(bsf_nf_scoring_start(&c, &s), 0);
    for (int i = 0; i < 200 && atomic_load(&gathers) < 4; i++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    assert_true(atomic_load(&gathers) >= 4); /* the first at start, then one per interval */
    bsf_nf_scoring_stop(s);                  /* joins the thread at once */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(disabled_scoring_has_no_thread_and_says_so),
        cmocka_unit_test(refresh_measures_the_rate_and_scores),
        cmocka_unit_test(the_thread_samples_every_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
