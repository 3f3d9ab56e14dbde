/* gateways/sbi/problem_decode.c: ProblemDetails decoding and its media type. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/sbi/problem_decode.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(problem_details),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
