/* core/features: supportedFeatures intersection and tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include <cmocka.h>

#include "core/features.h"

static void features(void **state)
{
    (void)state;
    char out[16];
    bsf_features_intersect("f", BSF_SUPPORTED_FEATURES, out, sizeof out);
    assert_string_equal(out, "7");
    bsf_features_intersect("13", BSF_SUPPORTED_FEATURES, out, sizeof out);
    assert_string_equal(out, "3");
    bsf_features_intersect("10", BSF_SUPPORTED_FEATURES, out, sizeof out);
    assert_string_equal(out, "0");
    bsf_features_intersect("", BSF_SUPPORTED_FEATURES, out, sizeof out);
    assert_string_equal(out, "0");
    assert_true(bsf_features_has("1", BSF_FEATURE_MULTI_UE_ADDR));
    assert_false(bsf_features_has("6", BSF_FEATURE_MULTI_UE_ADDR));
    assert_true(bsf_features_has("10", 5));
    assert_false(bsf_features_has(NULL, 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(features),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
