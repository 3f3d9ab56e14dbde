/* core/event_envelope: reading an event's envelope without its payload. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include <cmocka.h>

#include "core/decide.h"
#include "core/event.h"
#include "core/hlc.h"
#include "core/msgpack_guard.h"
#include "tests/unit/test_util.h"

static size_t encode_event(const bsf_event_t *ev, msgpack_sbuffer *out)
{
    msgpack_packer pk;
    msgpack_sbuffer_clear(out);
    msgpack_packer_init(&pk, out, msgpack_sbuffer_write);
    assert_int_equal(bsf_event_encode(ev, &pk), 0);
    return out->size;
}

static void test_envelope_matches_full_decode(void **state)
{
    tu_doc_t *c = *state;
    msgpack_sbuffer enc;
    msgpack_sbuffer_init(&enc);
    bsf_binding_view_t v = tu_site_view(NULL, 513, 70000, 1700000000000ULL, -1, -1);
    bsf_event_t evs[3] = {
        {.type = BSF_EVENT_BINDING_REGISTERED, .site = 513, .seq = 70000, .hlc = 1ULL << 40,
         .binding_id = v.id, .binding = tu_site_binding(c, "pcf1.example.com"), .created_hlc = 5,
         .origin_ts_ms = 17, .sender_ts_ms = -1, .cookie = "abc", .cookie_len = 3},
        {.type = BSF_EVENT_BINDING_UPDATED, .site = 2, .seq = 1, .hlc = 99, .binding_id = v.id,
         .binding = tu_site_binding(c, "pcf2.example.com"), .origin_ts_ms = -1, .sender_ts_ms = -1},
        {.type = BSF_EVENT_BINDING_DEREGISTERED, .site = 65535, .seq = UINT64_MAX,
         .hlc = UINT64_MAX, .binding_id = v.id, .reason = BSF_REASON_REPLACED_BY_COLLISION,
         .has_replaced_by = true, .replaced_by = v.id},
    };
    for (int i = 0; i < 3; i++) {
        size_t n = encode_event(&evs[i], &enc);
        bsf_event_t env, full;
        bsf_pcf_binding_t storage;
        char err[128];
        assert_int_equal(bsf_event_decode_envelope(enc.data, n, &env), 0);
        assert_int_equal(bsf_event_decode(enc.data, n, &c->zone, &full, &storage, err,
                                          sizeof err),
                         0);
        tu_assert_same_envelope(&env, &full);
        tu_assert_same_envelope(&env, &evs[i]);
        assert_null(env.binding);
        /* every truncation is refused, never read past */
        for (size_t cut = 0; cut < n; cut++)
            assert_int_equal(bsf_event_decode_envelope(enc.data, cut, &env), -1);
        assert_int_equal(bsf_msgpack_object_len(enc.data, n, 16), n);
    }
    msgpack_sbuffer_destroy(&enc);
}

static void test_envelope_other_orders_and_refusals(void **state)
{
    tu_doc_t *c = *state;
    msgpack_object o;
    /* members in another order, unknown ones skipped (nested ones too) */
    o = tu_json("{\"x\":[1,{\"y\":\"z\"}],\"bindingId\":\"0002000000000001aaaaaaaaaaaaaaaa\","
                "\"hlc\":7,\"seq\":3,\"site\":2,\"type\":\"BindingDeregistered\",\"v\":1,"
                "\"reason\":\"operator\"}",
                &c->buf, &c->zone);
    (void)o;
    bsf_event_t env;
    assert_int_equal(bsf_event_decode_envelope(c->buf.data, c->buf.size, &env), 0);
    assert_int_equal(env.site, 2);
    assert_int_equal(env.seq, 3);
    assert_int_equal(env.type, BSF_EVENT_BINDING_DEREGISTERED);
    static const char *const bad[] = {
        "{\"v\":3,\"type\":\"BindingDeregistered\",\"site\":2,\"seq\":3,\"hlc\":7,"
        "\"bindingId\":\"0002000000000001aaaaaaaaaaaaaaaa\"}",                /* version 3 */
        "{\"v\":1,\"type\":\"Nope\",\"site\":2,\"seq\":3,\"hlc\":7,"
        "\"bindingId\":\"0002000000000001aaaaaaaaaaaaaaaa\"}",                /* type */
        "{\"v\":1,\"type\":\"BindingDeregistered\",\"site\":70000,\"seq\":3,\"hlc\":7,"
        "\"bindingId\":\"0002000000000001aaaaaaaaaaaaaaaa\"}",                /* site range */
        "{\"v\":1,\"type\":\"BindingDeregistered\",\"site\":2,\"seq\":-3,\"hlc\":7,"
        "\"bindingId\":\"0002000000000001aaaaaaaaaaaaaaaa\"}",                /* negative */
        "{\"v\":1,\"type\":\"BindingDeregistered\",\"site\":2,\"seq\":3,\"hlc\":7,"
        "\"bindingId\":\"xyz\"}",                                             /* id */
        "{\"v\":1,\"type\":\"BindingDeregistered\",\"site\":2,\"hlc\":7,"
        "\"bindingId\":\"0002000000000001aaaaaaaaaaaaaaaa\"}",                /* no seq */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_json(bad[i], &c->buf, &c->zone);
        assert_int_equal(bsf_event_decode_envelope(c->buf.data, c->buf.size, &env), -1);
    }
    /* an envelope member twice (JSON cannot say it: packed by hand) */
    msgpack_packer pk;
    msgpack_sbuffer_clear(&c->buf);
    msgpack_packer_init(&pk, &c->buf, msgpack_sbuffer_write);
    static const char *const keys[] = {"v", "type", "site", "seq", "hlc", "site", "bindingId"};
    msgpack_pack_map(&pk, 7);
    for (int i = 0; i < 7; i++) {
        msgpack_pack_str_with_body(&pk, keys[i], strlen(keys[i]));
        if (i == 1)
            msgpack_pack_str_with_body(&pk, "BindingDeregistered", 19);
        else if (i == 6)
            msgpack_pack_str_with_body(&pk, "0002000000000001aaaaaaaaaaaaaaaa", 32);
        else
            msgpack_pack_uint8(&pk, (uint8_t)(i == 0 ? 1 : i));
    }
    assert_int_equal(bsf_event_decode_envelope(c->buf.data, c->buf.size, &env), -1);
    assert_int_equal(bsf_event_decode_envelope("", 0, &env), -1);
    assert_int_equal(bsf_event_decode_envelope("\x93\x01\x02\x03", 4, &env), -1);
    assert_int_equal(bsf_event_decode_envelope("\xdf\xff\xff\xff\xff", 5, &env), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_envelope_matches_full_decode, tu_doc_setup, tu_doc_teardown),
        cmocka_unit_test_setup_teardown(test_envelope_other_orders_and_refusals, tu_doc_setup,
                                        tu_doc_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
