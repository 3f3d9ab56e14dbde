/* gateways/sbi/json_codec: the JSON layer refuses what the rules must never see. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/sbi/json_codec.h"
#include "tests/unit/test_util.h"

/* The JSON layer refuses what the rules must never see. */
static void json_codec_limits(void **state)
{
    tu_doc_t *f = *state;
    const char *bad[] = {"\"text\"", "{\"a\":1,\"a\":2}", "{\"a\":\"\\u0000\"}", "{\"a\":",
                         "{\"a\":\"\xc3\x28\"}", "{} trailing",
                         "{\"a\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msgpack_object o;
        bsf_problem_t p;
        assert_int_equal(bsf_json_to_msgpack(bad[i], strlen(bad[i]), &f->buf, &f->zone, &o, &p),
                         -1);
        assert_int_equal(p.cause, BSF_CAUSE_INVALID_MSG_FORMAT);
    }
    /* Output escaping: quotes, backslashes and control characters. */
    msgpack_object o = tu_json("{\"k\":\"a\\\"b\\\\c\\n\\u0001\u00e9\"}", &f->buf, &f->zone);
    msgpack_sbuffer_clear(&f->out);
    assert_int_equal(bsf_json_write(&o, &f->out, NULL, "3"), 0);
    msgpack_sbuffer_write(&f->out, "", 1);
    assert_string_equal(f->out.data, "{\"k\":\"a\\\"b\\\\c\\u000a\\u0001\u00e9\",\"suppFeat\":\"3\"}");
    /* Integers at their limits, written without printf. */
    msgpack_sbuffer_clear(&f->buf);
    o = tu_json("[0,7,-1,-9223372036854775808,9223372036854775807,1.5]", &f->buf, &f->zone);
    msgpack_sbuffer_clear(&f->out);
    assert_int_equal(bsf_json_write(&o, &f->out, NULL, NULL), 0);
    msgpack_sbuffer_write(&f->out, "", 1);
    assert_string_equal(f->out.data,
                        "[0,7,-1,-9223372036854775808,9223372036854775807,1.5]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(json_codec_limits, tu_doc_setup, tu_doc_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
