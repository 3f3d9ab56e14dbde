/* gateways/sbi/json_codec: the JSON layer refuses what the rules must never see. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/sbi/json_codec.h"
#include "tests/unit/test_util.h"

/* The JSON layer refuses what the rules must never see. */
static void json_codec_limits(void **state)
{
    tu_doc_t *f = *state;
    const char *bad[] = {"\"text\"", "5", "null", "", "  ", "{\"a\":1,\"a\":2}",
                         "{\"a\":{\"b\":1,\"b\":2}}", "[{\"x\":[{\"c\":1,\"c\":1}]}]",
                         "{\"a\":\"\\u0000\"}", "{\"a\\u0000\":1}", "{\"a\":",
                         "{\"a\":\"\xc3\x28\"}", "{} trailing", "[1]/*comment*/", "[01]",
                         "{\"a\":\"\xc0\x80\"}",          /* overlong NUL */
                         "{\"a\":\"\xe0\x80\xaf\"}",      /* overlong '/' */
                         "{\"a\":\"\xed\xa0\x80\"}",      /* a surrogate in UTF-8 */
                         "{\"a\":\"\xf4\x90\x80\x80\"}",  /* above U+10FFFF */
                         "{\"a\":\"\\ud800\"}", "{\"a\":\"\\ud800x\"}", /* lone high */
                         "{\"a\":\"\\udc00\"}",          /* lone low */
                         "{\"a\":\"\\ud800\\u0041\"}",  /* high, then no low */
                         "[1]\v", "{\f}", "[1,\x01 2]",         /* not JSON's blanks */
                         "[]\",-1]", "{} \"open",               /* an unfinished token after */
                         "[9223372036854775808]", "[-9223372036854775809]", "[1e400]",
                         "{\"a\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msgpack_object o;
        bsf_problem_t p;
        assert_int_equal(bsf_json_to_msgpack(bad[i], strlen(bad[i]), &f->buf, &f->zone, &o, &p),
                         -1);
        assert_int_equal(p.cause, BSF_CAUSE_INVALID_MSG_FORMAT);
    }
    /* The limits themselves pass: 16 levels below the top, escaped pairs, the largest integer,
     * an underflowing real (0), an escaped backslash before "u". */
    msgpack_object o = tu_json("[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]", &f->buf, &f->zone);
    assert_int_equal(o.type, MSGPACK_OBJECT_ARRAY);
    msgpack_sbuffer_clear(&f->buf);
    o = tu_json("{\"k\":\"\\ud83d\\ude00\\\\ud800\",\"n\":[9223372036854775807,1e-400]}",
                &f->buf, &f->zone);
    assert_int_equal(o.type, MSGPACK_OBJECT_MAP);
    assert_int_equal(o.via.map.size, 2);
    assert_int_equal(o.via.map.ptr[0].val.via.str.size, 10);
    assert_memory_equal(o.via.map.ptr[0].val.via.str.ptr, "\xf0\x9f\x98\x80\\ud800", 10);
    /* A large object: its names are sorted to find the one given twice. */
    char big[8192];
    size_t n = 0;
    big[n++] = '{';
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "%s\"m%d\":%d", i ? "," : "", i, i);
    size_t open_end = n;
    snprintf(big + n, sizeof big - n, "}");
    msgpack_object b;
    bsf_problem_t bp;
    assert_int_equal(bsf_json_to_msgpack(big, strlen(big), &f->buf, &f->zone, &b, &bp), 0);
    assert_int_equal(b.via.map.size, 300);
    snprintf(big + open_end, sizeof big - open_end, ",\"m150\":1}");
    assert_int_equal(bsf_json_to_msgpack(big, strlen(big), &f->buf, &f->zone, &b, &bp), -1);
    assert_int_equal(bp.cause, BSF_CAUSE_INVALID_MSG_FORMAT);
    assert_non_null(strstr(bp.detail, "m150"));
    /* Output escaping: quotes, backslashes and control characters. */
    msgpack_sbuffer_clear(&f->buf);
    o = tu_json("{\"k\":\"a\\\"b\\\\c\\n\\u0001\u00e9\"}", &f->buf, &f->zone);
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
