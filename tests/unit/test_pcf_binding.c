/* core/pcf_binding: PcfBinding decoding, the prose rules, canonical encoding, SamePcf and
 * shared addresses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/pcf_binding.h"
#include "gateways/sbi/json_codec.h"
#include "tests/unit/test_util.h"

static void every_member_round_trips(void **state)
{
    tu_doc_t *f = *state;
    assert_int_equal(tu_check(f, tu_full_binding), BSF_CAUSE_NONE);
    assert_string_equal(
        tu_doc_to_json(f),
        "{\"supi\":\"imsi-001010000000001\",\"gpsi\":\"msisdn-491700000001\","
        "\"ipv4Addr\":\"10.1.2.3\",\"ipv6Prefix\":\"2001:db8:1::/64\","
        "\"addIpv6Prefixes\":[\"2001:db8:2::/64\"],\"ipDomain\":\"corp\","
        "\"dnn\":\"internet\",\"pcfFqdn\":\"pcf.example.com\","
        "\"pcfIpEndPoints\":[{\"ipv4Address\":\"192.0.2.1\",\"transport\":\"TCP\",\"port\":8080}],"
        "\"pcfDiamHost\":\"pcf.diam.example.com\",\"pcfDiamRealm\":\"example.com\","
        "\"pcfSmFqdn\":\"pcf-sm.example.com\",\"pcfSmIpEndPoints\":[{\"ipv6Address\":\"2001:db8::5\"}],"
        "\"snssai\":{\"sst\":1,\"sd\":\"ABCDEF\"},\"suppFeat\":\"7\","
        "\"pcfId\":\"c1d2e3f4-0000-4000-8000-000000000001\",\"pcfSetId\":\"setxyz.pcfset.5gc.mnc001."
        "mcc001\",\"recoveryTime\":\"2026-11-30T01:02:03.5Z\","
        "\"paraCom\":{\"supi\":\"imsi-001010000000001\",\"dnn\":\"internet\",\"snssai\":{\"sst\":1}},"
        "\"bindLevel\":\"NF_INSTANCE\",\"ipv4FrameRouteList\":[\"198.51.0.0/16\"],"
        "\"ipv6FrameRouteList\":[\"2001:db8:99::/48\"]}");
}

#define MIN_PCF "\"pcfFqdn\":\"pcf.example.com\""

#define MIN_SESSION "\"dnn\":\"internet\",\"snssai\":{\"sst\":1}"

static void prose_rules(void **state)
{
    tu_doc_t *f = *state;
    assert_int_equal(tu_check(f, "{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION "," MIN_PCF "}"),
                     BSF_CAUSE_NONE);
    /* mandatory members */
    assert_int_equal(tu_check(f, "{\"ipv4Addr\":\"10.0.0.1\",\"snssai\":{\"sst\":1}," MIN_PCF "}"),
                     BSF_CAUSE_MANDATORY_IE_MISSING);
    assert_string_equal(f->problem.params[0].param, "/dnn");
    assert_int_equal(tu_check(f, "{\"ipv4Addr\":\"10.0.0.1\",\"dnn\":\"x\"," MIN_PCF "}"),
                     BSF_CAUSE_MANDATORY_IE_MISSING);
    /* at least one UE address */
    assert_int_equal(tu_check(f, "{" MIN_SESSION "," MIN_PCF "}"), BSF_CAUSE_MANDATORY_IE_MISSING);
    assert_int_equal(f->problem.n_params, 3);
    /* ipDomain only with ipv4Addr */
    assert_int_equal(tu_check(f, "{\"ipv6Prefix\":\"2001:db8::/64\",\"ipDomain\":\"d\"," MIN_SESSION
                              "," MIN_PCF "}"),
                     BSF_CAUSE_OPTIONAL_IE_INCORRECT);
    assert_string_equal(f->problem.params[0].param, "/ipDomain");
    /* a PCF address */
    assert_int_equal(tu_check(f, "{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION "}"),
                     BSF_CAUSE_MANDATORY_IE_MISSING);
    assert_int_equal(tu_check(f, "{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION
                              ",\"pcfDiamHost\":\"pcf.example.com\"}"),
                     BSF_CAUSE_OPTIONAL_IE_INCORRECT);
    assert_int_equal(tu_check(f, "{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION
                              ",\"pcfDiamHost\":\"a.example.com\","
                              "\"pcfDiamRealm\":\"example.com\"}"),
                     BSF_CAUSE_NONE);
    assert_int_equal(tu_check(f, "{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION
                              ",\"pcfIpEndPoints\":[{\"ipv4Address\":\"192.0.2.1\"}]}"),
                     BSF_CAUSE_NONE);
    /* additional addresses need the primary one; MAC excludes IP */
    assert_int_equal(tu_check(f, "{\"ipv4Addr\":\"10.0.0.1\","
                                 "\"addIpv6Prefixes\":[\"2001:db8::/64\"],"
                              MIN_SESSION "," MIN_PCF "}"),
                     BSF_CAUSE_OPTIONAL_IE_INCORRECT);
    assert_int_equal(tu_check(f, "{\"macAddr48\":\"00-11-22-33-44-55\",\"ipv4Addr\":\"10.0.0.1\","
                              MIN_SESSION "," MIN_PCF "}"),
                     BSF_CAUSE_OPTIONAL_IE_INCORRECT);
    assert_int_equal(tu_check(f, "{\"macAddr48\":\"00-11-22-33-44-55\",\"addMacAddrs\":"
                              "[\"00-11-22-33-44-56\"]," MIN_SESSION "," MIN_PCF "}"),
                     BSF_CAUSE_NONE);
}

static void member_formats(void **state)
{
    tu_doc_t *f = *state;
    struct {
        const char *json;
        bsf_cause_t cause;
        const char *param;
    } cases[] = {
        {"{\"ipv4Addr\":\"10.0.0.256\"," MIN_SESSION "," MIN_PCF "}",
         BSF_CAUSE_MANDATORY_IE_INCORRECT, "/ipv4Addr"},
        {"{\"ipv4Addr\":17," MIN_SESSION "," MIN_PCF "}", BSF_CAUSE_MANDATORY_IE_INCORRECT,
         "/ipv4Addr"},
        {"{\"ipv6Prefix\":\"2001:db8::1\"," MIN_SESSION "," MIN_PCF "}",
         BSF_CAUSE_MANDATORY_IE_INCORRECT, "/ipv6Prefix"},
        {"{\"ipv4Addr\":\"10.0.0.1\",\"dnn\":\"\",\"snssai\":{\"sst\":1}," MIN_PCF "}",
         BSF_CAUSE_MANDATORY_IE_INCORRECT, "/dnn"},
        {"{\"ipv4Addr\":\"10.0.0.1\",\"dnn\":\"x\",\"snssai\":{\"sst\":256}," MIN_PCF "}",
         BSF_CAUSE_MANDATORY_IE_INCORRECT, "/snssai/sst"},
        {"{\"ipv4Addr\":\"10.0.0.1\",\"dnn\":\"x\",\"snssai\":{\"sst\":1,\"sd\":\"12345\"}," MIN_PCF
         "}",
         BSF_CAUSE_MANDATORY_IE_INCORRECT, "/snssai/sd"},
        {"{\"ipv4Addr\":\"10.0.0.1\",\"dnn\":\"x\",\"snssai\":{\"sd\":\"123456\"}," MIN_PCF "}",
         BSF_CAUSE_MANDATORY_IE_INCORRECT, "/snssai/sst"},
        {"{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION ",\"pcfFqdn\":\"nodots\"}",
         BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/pcfFqdn"},
        {"{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION "," MIN_PCF ",\"pcfId\":\"not-a-uuid\"}",
         BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/pcfId"},
        {"{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION "," MIN_PCF ",\"supi\":\"imsi-12\"}",
         BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/supi"},
        {"{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION "," MIN_PCF ",\"recoveryTime\":\"yesterday\"}",
         BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/recoveryTime"},
        {"{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION "," MIN_PCF ",\"suppFeat\":\"xyz\"}",
         BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/suppFeat"},
        {"{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION "," MIN_PCF ",\"addIpv6Prefixes\":[]}",
         BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/addIpv6Prefixes"},
        {"{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION
         ",\"pcfIpEndPoints\":[{\"ipv4Address\":\"1.2.3.4\",\"ipv6Address\":\"::1\"}]}",
         BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/pcfIpEndPoints/0"},
        {"{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION
         ",\"pcfIpEndPoints\":[{\"ipv4Address\":\"1.2.3.4\",\"port\":70000}]}",
         BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/pcfIpEndPoints/0/port"},
        {"{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION "," MIN_PCF
         ",\"ipv4FrameRouteList\":[\"10.0.0.0\"]}",
         BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/ipv4FrameRouteList/0"},
        {"{\"ipv4Addr\":\"10.0.0.1\"," MIN_SESSION "," MIN_PCF ",\"paraCom\":{\"supi\":5}}",
         BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/paraCom/supi"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bsf_cause_t got = tu_check(f, cases[i].json);
        if (got != cases[i].cause)
            fail_msg("case %zu: cause %d, want %d (%s)", i, got, cases[i].cause,
                     f->problem.detail);
        assert_string_equal(f->problem.params[0].param, cases[i].param);
    }
}

static void not_an_object(void **state)
{
    tu_doc_t *f = *state;
    assert_int_equal(tu_check(f, "[1,2]"), BSF_CAUSE_INVALID_MSG_FORMAT);
}

/* Discovery's decode: the members its filters read, checked; every other member left out,
 * even a malformed one (stored records were checked on the way in). */
static void matchable_members_only(void **state)
{
    tu_doc_t *f = *state;
    msgpack_object doc = tu_json(tu_full_binding, &f->buf, &f->zone);
    assert_int_equal(bsf_pcf_binding_decode_matchable(&doc, &f->zone, &f->b), 0);
    assert_string_equal(f->b.supi, "imsi-001010000000001");
    assert_string_equal(f->b.gpsi, "msisdn-491700000001");
    assert_true(f->b.has_ipv4 && f->b.has_ipv6 && f->b.has_snssai);
    assert_int_equal(f->b.n_add_ipv6, 1);
    assert_string_equal(f->b.ip_domain, "corp");
    assert_string_equal(f->b.dnn, "internet");
    assert_int_equal(f->b.snssai.sd, 0xABCDEF);
    assert_int_equal(f->b.n_ipv4_routes, 1);
    assert_int_equal(f->b.n_ipv6_routes, 1);
    assert_null(f->b.pcf_fqdn);
    assert_null(f->b.pcf_diam_host);
    assert_null(f->b.supp_feat);
    assert_int_equal(f->b.pcf_ip_end_points.n, 0);
    assert_false(f->b.para_com.present);

    msgpack_sbuffer_clear(&f->buf);
    doc = tu_json("{\"ipv4Addr\":\"10.1.2.3\",\"pcfFqdn\":7,\"dnn\":\"internet\"}", &f->buf,
                  &f->zone);
    assert_int_equal(bsf_pcf_binding_decode_matchable(&doc, &f->zone, &f->b), 0);
    assert_string_equal(f->b.dnn, "internet");
    msgpack_sbuffer_clear(&f->buf);
    doc = tu_json("{\"ipv4Addr\":\"10.1.2\",\"dnn\":\"internet\"}", &f->buf, &f->zone);
    assert_int_equal(bsf_pcf_binding_decode_matchable(&doc, &f->zone, &f->b), -1);
    msgpack_sbuffer_clear(&f->buf);
    doc = tu_json("{\"snssai\":{\"sst\":1,\"sd\":\"XYZ\"}}", &f->buf, &f->zone);
    assert_int_equal(bsf_pcf_binding_decode_matchable(&doc, &f->zone, &f->b), -1);
}

static void pcf_identity_agrees(void **state)
{
    (void)state;
    int compared = 0;
    assert_true(bsf_pcf_identity_agrees(NULL, "pcf.example.com", &compared)); /* not in both */
    assert_true(bsf_pcf_identity_agrees("pcf.example.com", NULL, &compared));
    assert_int_equal(compared, 0);
    assert_true(bsf_pcf_identity_agrees("PCF.example.com", "pcf.EXAMPLE.com", &compared));
    assert_int_equal(compared, 1);
    assert_false(bsf_pcf_identity_agrees("a.example.com", "b.example.com", &compared));
}

static void same_pcf_and_shared_addresses(void **state)
{
    tu_doc_t *f = *state;
    assert_int_equal(tu_check(f, tu_full_binding), BSF_CAUSE_NONE);
    bsf_pcf_binding_t a = f->b;
    assert_int_equal(tu_check(f, "{\"ipv6Prefix\":\"2001:db8:2::/64\"," MIN_SESSION
                              ",\"pcfFqdn\":\"PCF.example.com\"}"),
                     BSF_CAUSE_NONE);
    bsf_pcf_binding_t b = f->b;
    assert_true(bsf_pcf_binding_share_ue_address(&a, &b)); /* b's prefix is a's additional one */
    assert_true(bsf_pcf_binding_same_pcf(&a, &b));          /* FQDNs compare case-insensitively */
    assert_int_equal(tu_check(f, "{\"ipv4Addr\":\"10.1.2.3\"," MIN_SESSION
                              ",\"pcfFqdn\":\"other.example.com\"}"),
                     BSF_CAUSE_NONE);
    bsf_pcf_binding_t c = f->b;
    assert_false(bsf_pcf_binding_same_pcf(&a, &c));
    assert_false(bsf_pcf_binding_share_ue_address(&a, &c)); /* same IPv4, other ipDomain */
    char key[64];
    bsf_pcf_binding_pcf_key(&a, key, sizeof key);
    assert_string_equal(key, "c1d2e3f4-0000-4000-8000-000000000001");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(every_member_round_trips, tu_doc_setup, tu_doc_teardown),
        cmocka_unit_test_setup_teardown(prose_rules, tu_doc_setup, tu_doc_teardown),
        cmocka_unit_test_setup_teardown(member_formats, tu_doc_setup, tu_doc_teardown),
        cmocka_unit_test_setup_teardown(not_an_object, tu_doc_setup, tu_doc_teardown),
        cmocka_unit_test_setup_teardown(matchable_members_only, tu_doc_setup, tu_doc_teardown),
        cmocka_unit_test(pcf_identity_agrees),
        cmocka_unit_test_setup_teardown(same_pcf_and_shared_addresses, tu_doc_setup,
                                        tu_doc_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
