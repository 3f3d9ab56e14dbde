/* gateways/nrf/nrf_settings.c: the NRF client's settings checked, instance ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/nrf/nrf_settings.h"
#include "tests/unit/nrf_fixtures.h"

/* An NF instance id is a UUID (TS 29.571 NfInstanceId). */
static void uuid_checked(void **state)
{
    (void)state;
    assert_true(bsf_nrf_uuid_valid("54804518-4191-46b3-955c-ac631f953ed8"));
    assert_false(bsf_nrf_uuid_valid("54804518-4191-46b3-955c-ac631f953ed"));
    assert_false(bsf_nrf_uuid_valid("54804518x4191-46b3-955c-ac631f953ed8"));
}

static void settings_checked(void **state)
{
    (void)state;
    bsf_nrf_settings_t s;
    char err[200];
    settings_defaults(&s);
    strcpy(s.uri, "http://nrf1:8080\nhttps://nrf2");
    strcpy(s.plmn, "001-01");
    assert_int_equal(bsf_nrf_settings_check(&s, err, sizeof err), 0);
    strcpy(s.allowed_nf_types, "PCF\nXYZ");
    assert_int_equal(bsf_nrf_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "nf.allowed_nf_types"));
    s.allowed_nf_types[0] = '\0';
    strcpy(s.instance_id, "x");
    assert_int_equal(bsf_nrf_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "nf.instance_id"));
    s.instance_id[0] = '\0';
    strcpy(s.scp_uris, "http://scp1:80\nscp2");
    assert_int_equal(bsf_nrf_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "scp.uris"));
    s.scp_uris[0] = '\0';
    s.retry_min_ms = 5000;
    assert_int_equal(bsf_nrf_settings_check(&s, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uuid_checked),
        cmocka_unit_test(settings_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
