/* core/pcf_binding_patch: RFC 7396 merge-patch of a binding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/pcf_binding_patch.h"
#include "tests/unit/test_util.h"

typedef struct {
    msgpack_sbuffer buf, out;
    msgpack_zone zone;
    bsf_problem_t problem;
    bsf_pcf_binding_t b;
} fixture_t;

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    msgpack_sbuffer_init(&f->buf);
    msgpack_sbuffer_init(&f->out);
    msgpack_zone_init(&f->zone, 4096);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    msgpack_sbuffer_destroy(&f->buf);
    msgpack_sbuffer_destroy(&f->out);
    msgpack_zone_destroy(&f->zone);
    free(f);
    return 0;
}

/* Decodes and checks the rules; returns the cause (NONE on success). */
static bsf_cause_t check(fixture_t *f, const char *json)
{
    msgpack_object o = tu_json(json, &f->buf, &f->zone);
    memset(&f->problem, 0, sizeof f->problem);
    if (bsf_pcf_binding_decode(&o, &f->zone, &f->b, &f->problem) ||
        bsf_pcf_binding_check_rules(&f->b, &f->problem))
        return f->problem.cause;
    return BSF_CAUSE_NONE;
}

static const char *const FULL =
    "{\"supi\":\"imsi-001010000000001\",\"gpsi\":\"msisdn-491700000001\","
    "\"ipv4Addr\":\"10.1.2.3\",\"ipv6Prefix\":\"2001:DB8:1::/64\","
    "\"addIpv6Prefixes\":[\"2001:db8:2::/64\"],\"ipDomain\":\"corp\","
    "\"dnn\":\"internet\",\"pcfFqdn\":\"pcf.example.com\","
    "\"pcfIpEndPoints\":[{\"ipv4Address\":\"192.0.2.1\",\"transport\":\"TCP\",\"port\":8080}],"
    "\"pcfDiamHost\":\"pcf.diam.example.com\",\"pcfDiamRealm\":\"example.com\","
    "\"pcfSmFqdn\":\"pcf-sm.example.com\",\"pcfSmIpEndPoints\":[{\"ipv6Address\":\"2001:db8::5\"}],"
    "\"snssai\":{\"sst\":1,\"sd\":\"abcdef\"},\"suppFeat\":\"7\","
    "\"pcfId\":\"c1d2e3f4-0000-4000-8000-000000000001\",\"pcfSetId\":\"setxyz.pcfset.5gc.mnc001."
    "mcc001\",\"recoveryTime\":\"2026-11-30T01:02:03.5Z\","
    "\"paraCom\":{\"supi\":\"imsi-001010000000001\",\"dnn\":\"internet\",\"snssai\":{\"sst\":1}},"
    "\"bindLevel\":\"NF_INSTANCE\",\"ipv4FrameRouteList\":[\"198.51.0.0/16\"],"
    "\"ipv6FrameRouteList\":[\"2001:db8:99::/48\"],\"unknownMember\":{\"x\":[1,2]}}";

static void patch_merge_semantics(void **state)
{
    fixture_t *f = *state;
    assert_int_equal(check(f, FULL), BSF_CAUSE_NONE);
    bsf_pcf_binding_t base = f->b;
    bsf_pcf_binding_patch_t patch;
    msgpack_object o = tu_json("{\"ipv4Addr\":\"10.9.9.9\",\"ipDomain\":null,"
                               "\"addIpv6Prefixes\":null,\"pcfFqdn\":\"new.example.com\"}",
                               &f->buf, &f->zone);
    assert_int_equal(bsf_pcf_binding_patch_decode(&o, &f->zone, &patch, &f->problem), 0);
    assert_false(bsf_pcf_binding_patch_is_empty(&patch));
    bsf_pcf_binding_patch_apply(&base, &patch, &f->b);
    assert_int_equal(bsf_pcf_binding_check_rules(&f->b, &f->problem), 0);
    assert_int_equal(f->b.ipv4.b[3], 9);
    assert_null(f->b.ip_domain);
    assert_int_equal(f->b.n_add_ipv6, 0);
    assert_string_equal(f->b.pcf_fqdn, "new.example.com");
    assert_string_equal(f->b.dnn, "internet"); /* untouched */

    /* Removing every UE address breaks the rules. */
    o = tu_json("{\"ipv4Addr\":null,\"ipv6Prefix\":null,\"ipDomain\":null}", &f->buf, &f->zone);
    assert_int_equal(bsf_pcf_binding_patch_decode(&o, &f->zone, &patch, &f->problem), 0);
    bsf_pcf_binding_patch_apply(&base, &patch, &f->b);
    assert_int_equal(bsf_pcf_binding_check_rules(&f->b, &f->problem), -1);
    assert_int_equal(f->problem.cause, BSF_CAUSE_MANDATORY_IE_MISSING);

    /* Members outside PcfBindingPatch are not modifiable. */
    o = tu_json("{\"dnn\":\"other\"}", &f->buf, &f->zone);
    assert_int_equal(bsf_pcf_binding_patch_decode(&o, &f->zone, &patch, &f->problem), -1);
    assert_int_equal(f->problem.cause, BSF_CAUSE_MODIFICATION_NOT_ALLOWED);
    /* pcfFqdn is not nullable in the schema. */
    o = tu_json("{\"pcfFqdn\":null}", &f->buf, &f->zone);
    assert_int_equal(bsf_pcf_binding_patch_decode(&o, &f->zone, &patch, &f->problem), -1);
    assert_int_equal(f->problem.cause, BSF_CAUSE_OPTIONAL_IE_INCORRECT);
    /* An empty patch changes nothing. */
    o = tu_json("{}", &f->buf, &f->zone);
    assert_int_equal(bsf_pcf_binding_patch_decode(&o, &f->zone, &patch, &f->problem), 0);
    assert_true(bsf_pcf_binding_patch_is_empty(&patch));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(patch_merge_semantics, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
