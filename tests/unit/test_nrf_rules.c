/* Pure parts of the NRF client: setting formats, NRF selection by priority and health, the
 * NF profile and the heartbeat patch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "gateways/nrf/nrf_formats.h"
#include "gateways/nrf/nrf_profile.h"
#include "gateways/nrf/nrf_select.h"
#include "gateways/nrf/nrf_settings.h"

static void formats(void **state)
{
    (void)state;
    bsf_nrf_plmn_t p;
    assert_int_equal(bsf_nrf_parse_plmn("001-01", &p), 0);
    assert_string_equal(p.mcc, "001");
    assert_string_equal(p.mnc, "01");
    assert_int_equal(bsf_nrf_parse_plmn("310-410", &p), 0);
    assert_string_equal(p.mnc, "410");
    const char *bad_plmn[] = {"01-01", "001-1", "001-0001", "0a1-01", "00101", ""};
    for (size_t i = 0; i < sizeof bad_plmn / sizeof bad_plmn[0]; i++)
        assert_int_equal(bsf_nrf_parse_plmn(bad_plmn[i], &p), -1);
    bsf_nrf_snssai_t n;
    assert_int_equal(bsf_nrf_parse_snssai("1-00000a", &n), 0);
    assert_int_equal(n.sst, 1);
    assert_string_equal(n.sd, "00000A");
    assert_int_equal(bsf_nrf_parse_snssai("255", &n), 0);
    assert_string_equal(n.sd, "");
    const char *bad_snssai[] = {"256", "-1", "1-0000", "1-00000g", "x", ""};
    for (size_t i = 0; i < sizeof bad_snssai / sizeof bad_snssai[0]; i++)
        assert_int_equal(bsf_nrf_parse_snssai(bad_snssai[i], &n), -1);
    char a[64], b[64];
    assert_int_equal(bsf_nrf_parse_ipv4_range("10.0.0.0-10.0.0.255", a, b), 0);
    assert_string_equal(a, "10.0.0.0");
    assert_string_equal(b, "10.0.0.255");
    assert_int_equal(bsf_nrf_parse_ipv4_range("10.0.0.9-10.0.0.1", a, b), -1);
    assert_int_equal(bsf_nrf_parse_ipv4_range("10.0.0.1", a, b), -1);
    assert_int_equal(bsf_nrf_parse_ipv6_range("2001:db8::/48-2001:db8:ff::/48", a, b), 0);
    assert_int_equal(bsf_nrf_parse_ipv6_range("2001:db8::-2001:db8:ff::", a, b), -1);
    assert_int_equal(bsf_nrf_parse_ipv6_range("2001:db8::/129-2001:db8::/48", a, b), -1);
    assert_true(bsf_nrf_nf_type_valid("PCF") && bsf_nrf_nf_type_valid("5G_EIR"));
    assert_false(bsf_nrf_nf_type_valid("pcf") || bsf_nrf_nf_type_valid(""));
    assert_true(bsf_nrf_uuid_valid("54804518-4191-46b3-955c-ac631f953ed8"));
    assert_false(bsf_nrf_uuid_valid("54804518-4191-46b3-955c-ac631f953ed"));
    assert_false(bsf_nrf_uuid_valid("54804518x4191-46b3-955c-ac631f953ed8"));
}

static void selection(void **state)
{
    (void)state;
    bsf_nrf_select_t s;
    assert_int_equal(bsf_nrf_select_init(&s, "http://a:1/\nhttp://b:2\nhttp://c:3"), 3);
    assert_string_equal(s.peers[0].uri, "http://a:1");
    assert_int_equal(bsf_nrf_select_pick(&s, 1000, 0), 0);
    assert_int_equal(bsf_nrf_select_pick(&s, 1000, 1u), 1);
    bsf_nrf_select_failed(&s, 0, 1000, 5000);
    assert_int_equal(bsf_nrf_select_pick(&s, 1000, 0), 1);
    assert_int_equal(bsf_nrf_select_next_recovery(&s, 2000), 4000);
    assert_int_equal(bsf_nrf_select_pick(&s, 6000, 0), 0); /* healthy again */
    bsf_nrf_select_failed(&s, 1, 1000, 5000);
    bsf_nrf_select_failed(&s, 2, 1000, 3000);
    assert_int_equal(bsf_nrf_select_pick(&s, 2000, 0), -1);
    assert_int_equal(bsf_nrf_select_next_recovery(&s, 2000), 2000);
    assert_int_equal(s.peers[2].successive_failures, 1);
    bsf_nrf_select_succeeded(&s, 2);
    assert_int_equal(bsf_nrf_select_pick(&s, 2000, 0), 2);
    assert_int_equal(s.peers[2].successive_failures, 0);
    assert_int_equal(bsf_nrf_select_init(&s, ""), 0);
    assert_int_equal(bsf_nrf_select_pick(&s, 0, 0), -1);
}

static void settings_defaults(bsf_nrf_settings_t *s)
{
    memset(s, 0, sizeof *s);
    s->heartbeat_s = 30;
    s->priority = 1;
    s->capacity = 100;
    s->retry_min_ms = 100;
    s->retry_max_ms = 1000;
    s->bsf_rx_identity = true;
    strcpy(s->scp_health_path, "/");
    s->client_tls_verify = true;
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
        cmocka_unit_test(formats),
        cmocka_unit_test(selection),
        cmocka_unit_test(settings_checked),
        cmocka_unit_test(profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
