/* core/mbs_session_id.c and core/pcf_mbs_binding.c, and the MBS events of core/event.c:
 * formats and causes, canonical forms (uppercase hex, RFC 5952), the match rule, index keys,
 * merge patch, event round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/event.h"
#include "core/pcf_mbs_binding.h"
#include "tests/unit/binding_fixtures.h"
#include "tests/unit/test_util.h"

/* the file's fixture: buffers, a zone and a problem (tests/unit/test_util.h) */
#define FX tu_scratch()

static bsf_cause_t check(const char *json, bsf_pcf_mbs_binding_t *b)
{
    return tu_mbs_check(json, &FX->buf, &FX->zone, b, &FX->problem);
}

#define TMGI "{\"tmgi\":{\"mbsServiceId\":\"abc123\",\"plmnId\":{\"mcc\":\"001\",\"mnc\":\"01\"}}"

static void formats_and_causes(void **state)
{
    (void)state;
    bsf_pcf_mbs_binding_t b;
    assert_int_equal(check("{\"mbsSessionId\":" TMGI ",\"nid\":\"0a0b0c0d0e0\"},"
                           "\"pcfFqdn\":\"pcf.example.com\"}", &b), BSF_CAUSE_NONE);
    assert_string_equal(b.mbs_session_id.mbs_service_id, "ABC123");
    assert_string_equal(b.mbs_session_id.nid, "0A0B0C0D0E0");
    static const struct {
        const char *json;
        bsf_cause_t cause;
        const char *param;
    } bad[] = {
        {"{\"pcfFqdn\":\"pcf.example.com\"}", BSF_CAUSE_MANDATORY_IE_MISSING, "/mbsSessionId"},
        {"{\"mbsSessionId\":{\"nid\":\"0a0b0c0d0e0\"},\"pcfFqdn\":\"p.example.com\"}",
         BSF_CAUSE_MANDATORY_IE_INCORRECT, "/mbsSessionId"},
        {"{\"mbsSessionId\":{\"tmgi\":{\"mbsServiceId\":\"abc12\",\"plmnId\":{\"mcc\":\"001\","
         "\"mnc\":\"01\"}}},\"pcfFqdn\":\"p.example.com\"}",
         BSF_CAUSE_MANDATORY_IE_INCORRECT, "/mbsSessionId/tmgi/mbsServiceId"},
        {"{\"mbsSessionId\":{\"tmgi\":{\"mbsServiceId\":\"abc123\",\"plmnId\":{\"mcc\":\"001\","
         "\"mnc\":\"1\"}}},\"pcfFqdn\":\"p.example.com\"}",
         BSF_CAUSE_MANDATORY_IE_INCORRECT, "/mbsSessionId/tmgi/plmnId/mnc"},
        {"{\"mbsSessionId\":{\"ssm\":{\"sourceIpAddr\":{},\"destIpAddr\":{\"ipv4Addr\":"
         "\"232.1.1.1\"}}},\"pcfFqdn\":\"p.example.com\"}",
         BSF_CAUSE_MANDATORY_IE_INCORRECT, "/mbsSessionId/ssm/sourceIpAddr"},
        {"{\"mbsSessionId\":{\"ssm\":{\"sourceIpAddr\":{\"ipv4Addr\":\"1.2.3.4\"},"
         "\"destIpAddr\":{\"ipv6Prefix\":\"ff3e::/129\"}}},\"pcfFqdn\":\"p.example.com\"}",
         BSF_CAUSE_MANDATORY_IE_INCORRECT, "/mbsSessionId/ssm/destIpAddr"},
        {"{\"mbsSessionId\":" TMGI "},\"pcfIpEndPoints\":[]}", BSF_CAUSE_OPTIONAL_IE_INCORRECT,
         "/pcfIpEndPoints"},
        {"{\"mbsSessionId\":" TMGI "}}", BSF_CAUSE_MANDATORY_IE_MISSING, "/pcfFqdn"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(check(bad[i].json, &b), bad[i].cause);
        assert_true(FX->problem.n_params > 0);
        assert_string_equal(FX->problem.params[0].param, bad[i].param);
    }
}

static void matches_and_keys(void **state)
{
    (void)state;
    bsf_pcf_mbs_binding_t both, by_tmgi, by_ssm, other;
    assert_int_equal(check("{\"mbsSessionId\":{\"tmgi\":{\"mbsServiceId\":\"ABC123\",\"plmnId\":"
                           "{\"mcc\":\"001\",\"mnc\":\"01\"}},\"ssm\":{\"sourceIpAddr\":"
                           "{\"ipv6Addr\":\"2001:db8:0:0:0:0:0:1\"},\"destIpAddr\":{\"ipv6Prefix\":"
                           "\"ff3e::1/96\"}}},\"pcfFqdn\":\"p.example.com\"}", &both),
                     BSF_CAUSE_NONE);
    assert_int_equal(check("{\"mbsSessionId\":" TMGI "},\"pcfFqdn\":\"p.example.com\"}", &by_tmgi),
                     BSF_CAUSE_NONE);
    assert_int_equal(check("{\"mbsSessionId\":{\"ssm\":{\"sourceIpAddr\":{\"ipv6Addr\":"
                           "\"2001:db8::1\"},\"destIpAddr\":{\"ipv6Prefix\":\"ff3e::/96\"}}},"
                           "\"pcfFqdn\":\"p.example.com\"}", &by_ssm), BSF_CAUSE_NONE);
    assert_int_equal(check("{\"mbsSessionId\":{\"ssm\":{\"sourceIpAddr\":{\"ipv6Prefix\":"
                           "\"2001:db8::1/128\"},\"destIpAddr\":{\"ipv6Prefix\":\"ff3e::/96\"}}},"
                           "\"pcfFqdn\":\"p.example.com\"}", &other), BSF_CAUSE_NONE);
    const bsf_mbs_session_id_t *s = &both.mbs_session_id;
    assert_true(bsf_mbs_session_id_matches(&by_tmgi.mbs_session_id, s));
    assert_true(bsf_mbs_session_id_matches(&by_ssm.mbs_session_id, s));
    assert_false(bsf_mbs_session_id_matches(s, &by_tmgi.mbs_session_id));
    /* an ipv6Addr and a /128 ipv6Prefix are different IpAddr values */
    assert_false(bsf_mbs_session_id_matches(&other.mbs_session_id, s));
    char keys[2][BSF_MBS_KEY_MAX];
    assert_int_equal(bsf_mbs_session_id_keys(s, keys), 2);
    assert_string_equal(keys[0], "tmgi:ABC123-001-01");
    assert_string_equal(keys[1], "ssm:2001:db8::1,ff3e::/96");
}

static void patch_and_events(void **state)
{
    (void)state;
    bsf_pcf_mbs_binding_t base, result;
    bsf_pcf_mbs_binding_patch_t p;
    assert_int_equal(check("{\"mbsSessionId\":" TMGI "},\"pcfFqdn\":\"a.example.com\"}", &base),
                     BSF_CAUSE_NONE);
    msgpack_object o = tu_json("{\"pcfFqdn\":\"b.example.com\"}", &FX->buf, &FX->zone);
    assert_int_equal(bsf_pcf_mbs_binding_patch_decode(&o, &FX->zone, &p, &FX->problem), 0);
    bsf_pcf_mbs_binding_patch_apply(&base, &p, &result);
    assert_string_equal(result.pcf_fqdn, "b.example.com");
    assert_false(bsf_pcf_mbs_binding_patch_is_empty(&p));
    assert_true(result.has_mbs_session_id); /* what the patch does not set is base's */
    assert_string_equal(result.mbs_session_id.mbs_service_id, "ABC123");
    assert_null(result.pcf_id);
    o = tu_json("{}", &FX->buf, &FX->zone);
    assert_int_equal(bsf_pcf_mbs_binding_patch_decode(&o, &FX->zone, &p, &FX->problem), 0);
    assert_true(bsf_pcf_mbs_binding_patch_is_empty(&p));
    const char *bad[] = {"{\"mbsSessionId\":{}}", "{\"pcfSetId\":\"x\"}", "{\"pcfId\":null}"};
    bsf_cause_t causes[] = {BSF_CAUSE_MODIFICATION_NOT_ALLOWED,
                            BSF_CAUSE_MODIFICATION_NOT_ALLOWED, BSF_CAUSE_OPTIONAL_IE_INCORRECT};
    for (int i = 0; i < 3; i++) {
        o = tu_json(bad[i], &FX->buf, &FX->zone);
        assert_int_equal(bsf_pcf_mbs_binding_patch_decode(&o, &FX->zone, &p, &FX->problem), -1);
        assert_int_equal(FX->problem.cause, causes[i]);
    }
    bsf_binding_id_t id;
    uint8_t rnd[8] = {1};
    bsf_binding_id_make(3, 7, rnd, &id);
    bsf_event_t ev = {.type = BSF_EVENT_MBS_BINDING_REGISTERED, .site = 3, .seq = 7, .hlc = 9,
                      .binding_id = id, .mbs_binding = &result, .created_hlc = 9};
    bsf_event_t back;
    tu_event_round_trip(&ev, &FX->out, &FX->zone, &back);
    assert_int_equal(back.type, BSF_EVENT_MBS_BINDING_REGISTERED);
    assert_non_null(back.mbs_binding);
    assert_string_equal(back.mbs_binding->mbs_session_id.mbs_service_id, "ABC123");
    assert_string_equal(bsf_event_type_name(back.type), "MbsBindingRegistered");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(formats_and_causes),
        cmocka_unit_test(matches_and_keys),
        cmocka_unit_test(patch_and_events),
    };
    return cmocka_run_group_tests(tests, tu_scratch_setup, tu_scratch_teardown);
}
