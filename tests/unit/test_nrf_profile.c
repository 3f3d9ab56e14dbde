/* gateways/nrf/nrf_profile.c: the NF profile and the heartbeat patch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "gateways/nrf/nrf_profile.h"
#include "tests/unit/nrf_fixtures.h"

static void profile(void **state)
{
    (void)state;
    bsf_nrf_settings_t s;
    settings_defaults(&s);
    strcpy(s.snssai, "1-000001");
    strcpy(s.bsf_dnn_list, "internet");
    bsf_nrf_profile_input_t in = {.settings = &s,
                                  .instance_id = "54804518-4191-46b3-955c-ac631f953ed8",
                                  .nf_status = "REGISTERED", .listen_host = "10.1.2.3",
                                  .listen_port = 8080, .api_root = "https://bsf:443/pre/fix",
                                  .rx_host = "bsf.rx.example", .rx_realm = "rx.example",
                                  .load = 7};
    char err[200];
    json_t *p = bsf_nrf_profile_build(&in, err, sizeof err);
    assert_non_null(p);
    assert_string_equal(json_string_value(json_object_get(p, "nfType")), "BSF");
    assert_int_equal(json_integer_value(json_object_get(p, "load")), 7);
    json_t *svc = json_array_get(json_object_get(p, "nfServices"), 0);
    assert_string_equal(json_string_value(json_object_get(svc, "scheme")), "https");
    assert_string_equal(json_string_value(json_object_get(svc, "apiPrefix")), "/pre/fix");
    json_t *ep = json_array_get(json_object_get(svc, "ipEndPoints"), 0);
    assert_string_equal(json_string_value(json_object_get(ep, "ipv4Address")), "10.1.2.3");
    assert_int_equal(json_integer_value(json_object_get(ep, "port")), 8080);
    json_t *info = json_object_get(p, "bsfInfo");
    assert_string_equal(json_string_value(json_object_get(info, "rxDiamHost")), "bsf.rx.example");
    assert_null(json_object_get(p, "plmnList")); /* none configured: absent, not [] */
    json_decref(p);
    /* neither an FQDN nor an address to publish */
    in.listen_host = "0.0.0.0";
    assert_null(bsf_nrf_profile_build(&in, err, sizeof err));
    assert_non_null(strstr(err, "nf.fqdn"));
    strcpy(s.fqdn, "bsf.example");
    s.bsf_rx_identity = false;
    p = bsf_nrf_profile_build(&in, err, sizeof err);
    assert_non_null(p);
    assert_null(json_object_get(json_object_get(p, "bsfInfo"), "rxDiamHost"));
    assert_null(json_object_get(p, "ipv4Addresses"));
    json_decref(p);
    json_t *patch = bsf_nrf_heartbeat_patch("REGISTERED", 42);
    char *text = json_dumps(patch, JSON_COMPACT);
    assert_string_equal(text, "[{\"op\":\"replace\",\"path\":\"/nfStatus\",\"value\":"
                              "\"REGISTERED\"},{\"op\":\"replace\",\"path\":\"/load\","
                              "\"value\":42}]");
    free(text);
    json_decref(patch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
