/* gateways/sbi/user_agent_check.c: the consumer's NF type in User-Agent (seed §3.37). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/sbi/user_agent_check.h"

static bsf_user_agent_settings_t settings(const char *mode)
{
    bsf_user_agent_settings_t s = {.enabled = true, .error_status = 400};
    snprintf(s.validation, sizeof s.validation, "%s", mode);
    snprintf(s.consumer_nf_types, sizeof s.consumer_nf_types, "PCF\nNEF\nAF");
    snprintf(s.error_cause, sizeof s.error_cause, "INVALID_MSG_FORMAT");
    return s;
}

static bsf_ua_verdict_t check(const bsf_user_agent_settings_t *s, const char *v)
{
    char why[192];
    const char *values[] = {v};
    return bsf_user_agent_check(s, values, v ? 1 : 0, why, sizeof why);
}

/* The seed's acceptance tests 1-4. */
static void nf_types_and_modes(void **state)
{
    (void)state;
    bsf_user_agent_settings_t strict = settings("strict"), relaxed = settings("relaxed");
    assert_int_equal(check(&strict, "PCF-54804518-4191-46b3-955c-ac631f953ed8 pcf1.example.org"),
                     BSF_UA_OK);
    assert_int_equal(check(&strict, "AF-1"), BSF_UA_OK);
    assert_int_equal(check(&strict, "SMF-54804518-4191-46b3-955c-ac631f953ed8"),
                     BSF_UA_NOT_ALLOWED);
    assert_int_equal(check(&strict, "pcf-1"), BSF_UA_NOT_ALLOWED); /* case-sensitive */
    assert_int_equal(check(&strict, "PCFX-1"), BSF_UA_NOT_ALLOWED); /* a whole type */
    assert_int_equal(check(&strict, "PC-1"), BSF_UA_NOT_ALLOWED);
    assert_int_equal(check(&strict, NULL), BSF_UA_MISSING);
    assert_int_equal(check(&strict, " "), BSF_UA_MISSING);
    assert_int_equal(check(&relaxed, NULL), BSF_UA_OK);
    assert_int_equal(check(&relaxed, ""), BSF_UA_OK);
    assert_int_equal(check(&relaxed, "SMF-1"), BSF_UA_NOT_ALLOWED);
    /* not <NFType>-<instance> */
    assert_int_equal(check(&relaxed, "PCF"), BSF_UA_MALFORMED);
    assert_int_equal(check(&relaxed, "PCF- pcf1"), BSF_UA_MALFORMED);
    assert_int_equal(check(&relaxed, "-1"), BSF_UA_MALFORMED);
    assert_int_equal(check(&relaxed, "curl/8.0"), BSF_UA_MALFORMED);
    /* several values */
    assert_int_equal(check(&relaxed, "PCF-1, NEF-2"), BSF_UA_MULTIPLE);
    char why[192];
    const char *two[] = {"PCF-1", "PCF-2"};
    assert_int_equal(bsf_user_agent_check(&relaxed, two, 2, why, sizeof why), BSF_UA_MULTIPLE);
    assert_non_null(strstr(why, "more than one"));
}

static void settings_are_checked(void **state)
{
    (void)state;
    char err[160];
    bsf_user_agent_settings_t s = settings("strict");
    assert_int_equal(bsf_user_agent_settings_check(&s, err, sizeof err), 0);
    s.consumer_nf_types[0] = '\0';
    assert_int_equal(bsf_user_agent_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "consumer_nf_types"));
    s = settings("strict");
    s.error_cause[0] = '\0';
    assert_int_equal(bsf_user_agent_settings_check(&s, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nf_types_and_modes),
        cmocka_unit_test(settings_are_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
