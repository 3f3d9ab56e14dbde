/* The Prometheus exposition writer (common/metrics_text.h): the exact text of each shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/metrics_text.h"

/* Compares and frees the buffer. */
static void assert_text(bsf_text_t *t, const char *want)
{
    assert_false(t->failed);
    assert_non_null(t->data);
    assert_string_equal(t->data, want);
    bsf_text_free(t);
}

static void family_lines(void **state)
{
    (void)state;
    bsf_text_t t = {0};
    bsf_metrics_family(&t, "bsf_x_total", "counter", "Things done (by kind).");
    assert_text(&t, "# HELP bsf_x_total Things done (by kind).\n# TYPE bsf_x_total counter\n");
}

static void unsigned_samples(void **state)
{
    (void)state;
    bsf_text_t t = {0};
    bsf_metrics_u64(&t, "bsf_a", NULL, 0);
    bsf_metrics_u64(&t, "bsf_b", "", UINT64_MAX);
    bsf_metrics_u64(&t, "bsf_c", "k=\"v\",l=\"w\"", 42);
    bsf_metrics_u64_label(&t, "bsf_d", "topic", "site.1", 7);
    bsf_metrics_u64_label2(&t, "bsf_e", "peer", "a.example", "tls", "true", 1);
    assert_text(&t, "bsf_a 0\nbsf_b 18446744073709551615\nbsf_c{k=\"v\",l=\"w\"} 42\n"
                    "bsf_d{topic=\"site.1\"} 7\nbsf_e{peer=\"a.example\",tls=\"true\"} 1\n");
}

static void signed_samples(void **state)
{
    (void)state;
    bsf_text_t t = {0};
    bsf_metrics_i64(&t, "bsf_exp_seconds", "cert=\"sbi\"", -86400);
    bsf_metrics_i64(&t, "bsf_exp_seconds", NULL, INT64_MAX);
    assert_text(&t, "bsf_exp_seconds{cert=\"sbi\"} -86400\nbsf_exp_seconds 9223372036854775807\n");
}

static void double_samples(void **state)
{
    (void)state;
    bsf_text_t t = {0};
    bsf_metrics_double(&t, "bsf_s", NULL, 3, 1.5);
    bsf_metrics_double(&t, "bsf_s", "site=\"2\"", 6, 0.0000015);
    bsf_metrics_double(&t, "bsf_s", "", 9, 12.0);
    assert_text(&t, "bsf_s 1.500\nbsf_s{site=\"2\"} 0.000002\nbsf_s 12.000000000\n");
}

static void rows_of_families(void **state)
{
    (void)state;
    bsf_text_t t = {0};
    const bsf_metric_row_t rows[] = {{"bsf_g", "gauge", "A gauge.", 3},
                                     {"bsf_c_total", "counter", "A counter.", 9}};
    bsf_metrics_rows(&t, rows, 2);
    bsf_metrics_u64_family(&t, "bsf_one", "gauge", "One.", 1);
    bsf_metrics_double_family(&t, "bsf_seconds_total", "counter", "Time.", 9, 0.25);
    assert_text(&t, "# HELP bsf_g A gauge.\n# TYPE bsf_g gauge\nbsf_g 3\n"
                    "# HELP bsf_c_total A counter.\n# TYPE bsf_c_total counter\nbsf_c_total 9\n"
                    "# HELP bsf_one One.\n# TYPE bsf_one gauge\nbsf_one 1\n"
                    "# HELP bsf_seconds_total Time.\n# TYPE bsf_seconds_total counter\n"
                    "bsf_seconds_total 0.250000000\n");
}

static void labelled_families(void **state)
{
    (void)state;
    static const char *const results[] = {"found", "not_found"};
    const uint64_t values[] = {5, 0};
    bsf_text_t t = {0};
    bsf_metrics_labelled_family(&t, "bsf_l_total", "counter", "Lookups.", "result", results,
                                values, 2);
    assert_text(&t, "# HELP bsf_l_total Lookups.\n# TYPE bsf_l_total counter\n"
                    "bsf_l_total{result=\"found\"} 5\nbsf_l_total{result=\"not_found\"} 0\n");
}

static void histograms(void **state)
{
    (void)state;
    static const double bounds[] = {0.001, 0.25, 5};
    static const uint64_t counts[] = {1, 0, 2, 4};
    bsf_text_t t = {0};
    bsf_metrics_histogram(&t, &(bsf_metrics_histogram_t){.name = "bsf_h_seconds",
                                                         .bounds = bounds, .n_bounds = 3,
                                                         .counts = counts, .sum = 1.25,
                                                         .sum_decimals = 3, .count = 7});
    bsf_metrics_histogram(&t, &(bsf_metrics_histogram_t){.name = "bsf_h_seconds",
                                                         .labels = "op=\"get\"",
                                                         .bounds = bounds, .n_bounds = 1,
                                                         .counts = counts, .sum = 0.5,
                                                         .sum_decimals = 9, .count = 1});
    assert_text(&t, "bsf_h_seconds_bucket{le=\"0.001\"} 1\n"
                    "bsf_h_seconds_bucket{le=\"0.25\"} 1\n"
                    "bsf_h_seconds_bucket{le=\"5\"} 3\n"
                    "bsf_h_seconds_bucket{le=\"+Inf\"} 7\n"
                    "bsf_h_seconds_sum 1.250\n"
                    "bsf_h_seconds_count 7\n"
                    "bsf_h_seconds_bucket{op=\"get\",le=\"0.001\"} 1\n"
                    "bsf_h_seconds_bucket{op=\"get\",le=\"+Inf\"} 1\n"
                    "bsf_h_seconds_sum{op=\"get\"} 0.500000000\n"
                    "bsf_h_seconds_count{op=\"get\"} 1\n");
}

static void a_failed_buffer_takes_nothing(void **state)
{
    (void)state;
    bsf_text_t t = {.failed = true};
    bsf_metrics_family(&t, "bsf_a", "gauge", "A.");
    bsf_metrics_u64(&t, "bsf_a", NULL, 1);
    assert_int_equal(t.len, 0);
    assert_null(t.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(family_lines),     cmocka_unit_test(unsigned_samples),
        cmocka_unit_test(signed_samples), cmocka_unit_test(double_samples),   cmocka_unit_test(rows_of_families),
        cmocka_unit_test(labelled_families), cmocka_unit_test(histograms),       cmocka_unit_test(a_failed_buffer_takes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
