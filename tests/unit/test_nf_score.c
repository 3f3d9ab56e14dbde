/* gateways/ops/nf_score.c against the acceptance tests of seed §3.41. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "gateways/ops/nf_score.h"

static const bsf_nf_score_weights_t defaults = {
    .max_tps = 1000,
    .tps_score = 20,
    .service_score = 30,
    .connection_score = 20,
    .expected_connections = 10,
    .replication_score = 30,
    .locality_preference = 5,
    .critical_alert_score = 2,
    .major_alert_score = 1,
    .minor_alert_score = 0,
};

static void tps_factor_is_capped(void **state)
{
    (void)state;
    bsf_nf_score_t s;
    bsf_nf_score_compute(&defaults, &(bsf_nf_score_inputs_t){.tps = 500}, &s);
    assert_float_equal(s.tps, 10, 1e-9); /* acceptance 1 */
    bsf_nf_score_compute(&defaults, &(bsf_nf_score_inputs_t){.tps = 1500}, &s);
    assert_float_equal(s.tps, 20, 1e-9);
}

static void service_factor_is_a_share(void **state)
{
    (void)state;
    bsf_nf_score_t s;
    bsf_nf_score_compute(
        &defaults,
        &(bsf_nf_score_inputs_t){.services_available = 3, .services_configured = 4}, &s);
    assert_float_equal(s.service, 22.5, 1e-9); /* acceptance 2 */
}

static void everything_at_its_maximum_with_alerts(void **state)
{
    (void)state;
    bsf_nf_score_t s;
    bsf_nf_score_inputs_t in = {
        .tps = 1000,
        .services_available = 4,
        .services_configured = 4,
        .connections = 12,
        .replication_links_healthy = 3,
        .replication_links = 3,
        .critical_alerts = 2,
        .major_alerts = 1,
        .minor_alerts = 7,
    };
    bsf_nf_score_compute(&defaults, &in, &s);
    /* acceptance 3: 20 + 30 + 20 + 30 + 5 - 4 - 1 (minor alerts weigh 0) */
    assert_float_equal(s.connection, 20, 1e-9);
    assert_float_equal(s.alerts, 5, 1e-9);
    assert_float_equal(s.total, 100, 1e-9);
}

static void nothing_expected_misses_nothing(void **state)
{
    (void)state;
    bsf_nf_score_t s;
    bsf_nf_score_weights_t w = defaults;
    w.expected_connections = 0;
    bsf_nf_score_compute(&w, &(bsf_nf_score_inputs_t){0}, &s);
    assert_float_equal(s.service, 30, 1e-9);
    assert_float_equal(s.connection, 20, 1e-9);
    assert_float_equal(s.replication, 30, 1e-9); /* a single site: no link to lose */
    assert_float_equal(s.tps, 0, 1e-9);
    /* a site that lost one of two links loses half the replication score */
    bsf_nf_score_compute(
        &w, &(bsf_nf_score_inputs_t){.replication_links_healthy = 1, .replication_links = 2},
        &s);
    assert_float_equal(s.replication, 15, 1e-9);
}

static void load_is_the_tps_share(void **state)
{
    (void)state;
    assert_int_equal(bsf_nf_score_load(&defaults, 0), 0);
    assert_int_equal(bsf_nf_score_load(&defaults, 254), 25);
    assert_int_equal(bsf_nf_score_load(&defaults, 999.6), 100);
    assert_int_equal(bsf_nf_score_load(&defaults, 5000), 100);
    bsf_nf_score_weights_t w = defaults;
    w.max_tps = 0;
    assert_int_equal(bsf_nf_score_load(&w, 10), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tps_factor_is_capped),
        cmocka_unit_test(service_factor_is_a_share),
        cmocka_unit_test(everything_at_its_maximum_with_alerts),
        cmocka_unit_test(nothing_expected_misses_nothing),
        cmocka_unit_test(load_is_the_tps_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
