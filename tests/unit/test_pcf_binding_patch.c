/* core/pcf_binding_patch: RFC 7396 merge-patch of a binding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/pcf_binding_patch.h"
#include "tests/unit/test_util.h"

static void patch_merge_semantics(void **state)
{
    tu_doc_t *f = *state;
    assert_int_equal(tu_check(f, tu_full_binding), BSF_CAUSE_NONE);
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
        cmocka_unit_test_setup_teardown(patch_merge_semantics, tu_doc_setup, tu_doc_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
