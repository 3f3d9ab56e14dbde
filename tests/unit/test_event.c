/* core/event: the event codec (round trip of every member). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include <cmocka.h>

#include "core/event.h"
#include "core/hlc.h"
#include "tests/unit/test_util.h"

static void event_round_trip(void **state)
{
    (void)state;
    bsf_pcf_binding_t *b = tu_bind("{\"supi\":\"imsi-001010000000009\",\"ipv4Addr\":\"10.0.0.9\","
                                   "\"dnn\":\"ims\",\"snssai\":{\"sst\":1},"
                                   "\"pcfFqdn\":\"pcf.example.com\"}");
    uint8_t rnd[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    bsf_event_t ev = {.type = BSF_EVENT_BINDING_REGISTERED, .site = 3, .seq = 42,
                      .hlc = BSF_HLC_FROM_MS(1700000000000ULL) + 7, .binding = b,
                      .origin_ts_ms = 1700000000000LL, .sender_ts_ms = -1,
                      .cookie = "{\"cookieOwner\":\"PCF-SM\"}", .cookie_len = 24};
    bsf_binding_id_make(3, 42, rnd, &ev.binding_id);
    ev.created_hlc = ev.hlc;
    msgpack_sbuffer enc;
    msgpack_sbuffer_init(&enc);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &enc, msgpack_sbuffer_write);
    assert_int_equal(bsf_event_encode(&ev, &pk), 0);
    bsf_event_t back;
    bsf_pcf_binding_t storage;
    char err[128];
    assert_int_equal(bsf_event_decode(enc.data, enc.size, tu_scratch_zone(), &back, &storage, err,
                                      sizeof err),
                     0);
    assert_int_equal(back.type, BSF_EVENT_BINDING_REGISTERED);
    assert_int_equal(back.site, 3);
    assert_int_equal(back.seq, 42);
    assert_int_equal(back.hlc, ev.hlc);
    assert_int_equal(back.created_hlc, ev.hlc);
    assert_int_equal(back.origin_ts_ms, 1700000000000LL);
    assert_int_equal(back.sender_ts_ms, -1);
    assert_memory_equal(back.binding_id.b, ev.binding_id.b, 16);
    assert_string_equal(back.binding->supi, "imsi-001010000000009");
    assert_int_equal(back.cookie_len, 24);
    assert_memory_equal(back.cookie, "{\"cookieOwner\":\"PCF-SM\"}", 24);
    assert_int_equal(bsf_binding_id_site(&back.binding_id), 3);

    /* A deregistration with its reason. */
    bsf_event_t dereg = {.type = BSF_EVENT_BINDING_DEREGISTERED, .site = 3, .seq = 43,
                         .hlc = ev.hlc + 1, .binding_id = ev.binding_id,
                         .reason = BSF_REASON_REPLACED_BY_COLLISION, .has_replaced_by = true};
    bsf_binding_id_make(3, 44, rnd, &dereg.replaced_by);
    msgpack_sbuffer_clear(&enc);
    assert_int_equal(bsf_event_encode(&dereg, &pk), 0);
    assert_int_equal(bsf_event_decode(enc.data, enc.size, tu_scratch_zone(), &back, &storage, err,
                                      sizeof err),
                     0);
    assert_int_equal(back.reason, BSF_REASON_REPLACED_BY_COLLISION);
    assert_true(back.has_replaced_by);
    assert_null(back.binding);
    /* Truncated and garbage input are refused, never crash. */
    assert_int_equal(bsf_event_decode(enc.data, enc.size - 1, tu_scratch_zone(), &back, &storage,
                                      err, sizeof err),
                     -1);
    assert_int_equal(bsf_event_decode("\x81\xa1v\x09", 4, tu_scratch_zone(), &back, &storage, err,
                                      sizeof err),
                     -1);
    msgpack_sbuffer_destroy(&enc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(event_round_trip, tu_scratch_setup, tu_scratch_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
