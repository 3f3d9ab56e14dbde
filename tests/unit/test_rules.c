/* Features, timestamps, the HLC, the event codec, the decide step and discovery matching. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/decide.h"
#include "core/discovery.h"
#include "core/event.h"
#include "core/features.h"
#include "core/hlc.h"
#include "core/sbi_time.h"
#include "common/time_text.h"
#include "tests/unit/test_util.h"

static msgpack_sbuffer g_buf;
static msgpack_zone g_zone;

static int setup(void **state)
{
    (void)state;
    msgpack_sbuffer_init(&g_buf);
    msgpack_zone_init(&g_zone, 4096);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    msgpack_sbuffer_destroy(&g_buf);
    msgpack_zone_destroy(&g_zone);
    return 0;
}

static bsf_pcf_binding_t *binding(const char *json)
{
    return tu_binding(json, &g_buf, &g_zone);
}

static void features(void **state)
{
    (void)state;
    char out[16];
    bsf_features_intersect("f", BSF_SUPPORTED_FEATURES, out, sizeof out);
    assert_string_equal(out, "7");
    bsf_features_intersect("13", BSF_SUPPORTED_FEATURES, out, sizeof out);
    assert_string_equal(out, "3");
    bsf_features_intersect("10", BSF_SUPPORTED_FEATURES, out, sizeof out);
    assert_string_equal(out, "0");
    bsf_features_intersect("", BSF_SUPPORTED_FEATURES, out, sizeof out);
    assert_string_equal(out, "0");
    assert_true(bsf_features_has("1", BSF_FEATURE_MULTI_UE_ADDR));
    assert_false(bsf_features_has("6", BSF_FEATURE_MULTI_UE_ADDR));
    assert_true(bsf_features_has("10", 5));
    assert_false(bsf_features_has(NULL, 1));
}

static void sbi_timestamps(void **state)
{
    (void)state;
    const char *t = "Sun, 04 Aug 2019 08:49:37.845 GMT";
    assert_int_equal(bsf_sbi_time_parse(t, strlen(t)), 1564908577845LL);
    t = "Sun, 04 Aug 2019 08:49:37 GMT";
    assert_int_equal(bsf_sbi_time_parse(t, strlen(t)), 1564908577000LL);
    t = "Sun, 04 Aug 2019 14:19:37.845 IST";
    assert_int_equal(bsf_sbi_time_parse(t, strlen(t)), 1564908577845LL);
    const char *bad[] = {"2019-08-04T08:49:37Z", "Sun, 04 Aug 2019 08:49:37.845 CET",
                         "Sun, 04 Xyz 2019 08:49:37.845 GMT", "Sun, 04 Aug 2019 25:49:37.845 GMT",
                         "Sun, 04 Aug 2019 08:49:37.8 GMT", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bsf_sbi_time_parse(bad[i], strlen(bad[i])), -1);
    char out[32];
    bsf_time_format_rfc3339(1564908577845LL, out);
    assert_string_equal(out, "2019-08-04T08:49:37.845Z");
}

static void hlc_is_monotonic(void **state)
{
    (void)state;
    bsf_hlc_t c = {0};
    uint64_t a = bsf_hlc_tick(&c, 1000);
    uint64_t b = bsf_hlc_tick(&c, 1000); /* same millisecond */
    uint64_t d = bsf_hlc_tick(&c, 999);  /* clock went back */
    assert_true(b > a && d > b);
    assert_int_equal(BSF_HLC_MS(a), 1000);
    bsf_hlc_observe(&c, BSF_HLC_FROM_MS(5000));
    assert_true(bsf_hlc_tick(&c, 1001) > BSF_HLC_FROM_MS(5000));
}

static void event_round_trip(void **state)
{
    (void)state;
    bsf_pcf_binding_t *b = binding("{\"supi\":\"imsi-001010000000009\",\"ipv4Addr\":\"10.0.0.9\","
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
    assert_int_equal(bsf_event_decode(enc.data, enc.size, &g_zone, &back, &storage, err,
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
    assert_int_equal(bsf_event_decode(enc.data, enc.size, &g_zone, &back, &storage, err,
                                      sizeof err),
                     0);
    assert_int_equal(back.reason, BSF_REASON_REPLACED_BY_COLLISION);
    assert_true(back.has_replaced_by);
    assert_null(back.binding);
    /* Truncated and garbage input are refused, never crash. */
    assert_int_equal(bsf_event_decode(enc.data, enc.size - 1, &g_zone, &back, &storage, err,
                                      sizeof err),
                     -1);
    assert_int_equal(bsf_event_decode("\x81\xa1v\x09", 4, &g_zone, &back, &storage, err,
                                      sizeof err),
                     -1);
    msgpack_sbuffer_destroy(&enc);
}

#define SESSION "\"supi\":\"imsi-001010000000001\",\"dnn\":\"internet\",\"snssai\":{\"sst\":1}"

static bsf_binding_view_t view(const bsf_pcf_binding_t *b, uint8_t id, int64_t origin,
                               int64_t sender)
{
    bsf_binding_view_t v = {.binding = b, .created_hlc = id, .origin_ts_ms = origin,
                            .sender_ts_ms = sender};
    memset(v.id.b, id, 16);
    return v;
}

static void collision_precedence(void **state)
{
    (void)state;
    bsf_pcf_binding_t *old = binding("{" SESSION ",\"ipv4Addr\":\"10.0.0.1\","
                                     "\"pcfFqdn\":\"pcf-a.example.com\"}");
    bsf_pcf_binding_t *req = binding("{" SESSION ",\"ipv4Addr\":\"10.0.0.1\","
                                     "\"pcfFqdn\":\"pcf-b.example.com\"}");
    bsf_decide_config_t on = {true}, off = {false};
    bsf_register_decision_t d;

    /* Newer by origination timestamp: replaces. */
    bsf_binding_view_t v = view(old, 1, 1000, -1);
    bsf_register_request_t r = {req, 2000, -1};
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
    assert_int_equal(d.n_replaced, 1);
    assert_int_equal(d.replaced_reason[0], BSF_REASON_REPLACED_BY_COLLISION);
    /* Older by origination timestamp: refused. */
    r.origin_ts_ms = 500;
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_REJECT_COLLISION);
    assert_int_equal(d.problem.cause, BSF_CAUSE_EXISTING_BINDING_INFO_FOUND);
    assert_string_equal(d.problem.detail, "Existing binding information found in DB");
    /* Equal origination: the sender timestamps decide. */
    r.origin_ts_ms = 1000;
    v.sender_ts_ms = 3000;
    r.sender_ts_ms = 2000;
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_REJECT_COLLISION);
    r.sender_ts_ms = 4000;
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
    /* No timestamps: arrival order, the request wins. */
    r.origin_ts_ms = r.sender_ts_ms = -1;
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
    assert_int_equal(d.n_replaced, 1);
    /* Detection off: both are kept. */
    r.origin_ts_ms = 500;
    v.origin_ts_ms = 1000;
    bsf_decide_register(&r, &v, 1, &off, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
    assert_int_equal(d.n_replaced, 0);
    /* Same PCF re-registering: replaces even when its timestamp is older. */
    bsf_pcf_binding_t *again = binding("{" SESSION ",\"ipv4Addr\":\"10.0.0.1\","
                                       "\"pcfFqdn\":\"pcf-a.example.com\"}");
    bsf_register_request_t r2 = {again, 1, -1};
    bsf_decide_register(&r2, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
    assert_int_equal(d.replaced_reason[0], BSF_REASON_REREGISTERED);
    /* Another SUPI on the same address is no collision. */
    bsf_pcf_binding_t *other = binding("{\"supi\":\"imsi-001010000000002\",\"dnn\":\"internet\","
                                       "\"snssai\":{\"sst\":1},\"ipv4Addr\":\"10.0.0.1\","
                                       "\"pcfFqdn\":\"pcf-b.example.com\"}");
    bsf_register_request_t r3 = {other, 1, -1};
    bsf_decide_register(&r3, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
    assert_int_equal(d.n_replaced, 0);
}

static void same_pcf_feature(void **state)
{
    (void)state;
    bsf_pcf_binding_t *bound = binding("{" SESSION ",\"ipv4Addr\":\"10.0.0.1\","
                                       "\"pcfFqdn\":\"pcf-a.example.com\","
                                       "\"pcfSmFqdn\":\"pcf-a-sm.example.com\"}");
    bsf_pcf_binding_t *req = binding("{" SESSION ",\"ipv4Addr\":\"10.0.0.2\","
                                     "\"pcfFqdn\":\"pcf-b.example.com\",\"paraCom\":{"
                                     "\"supi\":\"imsi-001010000000001\",\"dnn\":\"INTERNET\"}}");
    bsf_binding_view_t v = view(bound, 1, -1, -1);
    bsf_register_request_t r = {req, -1, -1};
    bsf_decide_config_t on = {true};
    bsf_register_decision_t d;
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_REJECT_SAME_PCF);
    assert_ptr_equal(d.existing, &v);
    assert_int_equal(d.problem.cause, BSF_CAUSE_EXISTING_BINDING_INFO_FOUND);
    /* A paraCom for another DNN is free. */
    bsf_pcf_binding_t *free_req = binding("{" SESSION ",\"ipv4Addr\":\"10.0.0.2\","
                                          "\"pcfFqdn\":\"pcf-b.example.com\",\"paraCom\":{"
                                          "\"supi\":\"imsi-001010000000001\",\"dnn\":\"ims\"}}");
    r.binding = free_req;
    bsf_decide_register(&r, &v, 1, &on, &d);
    assert_int_equal(d.outcome, BSF_REGISTER_ACCEPT);
}

static void discovery_matching(void **state)
{
    (void)state;
    bsf_pcf_binding_t *b = binding("{\"supi\":\"imsi-001010000000001\",\"dnn\":\"internet\","
                                   "\"gpsi\":\"msisdn-4917000001\","
                                   "\"ipv4Addr\":\"10.0.0.1\",\"ipDomain\":\"corp\","
                                   "\"ipv4FrameRouteList\":[\"172.16.0.0/12\"],"
                                   "\"snssai\":{\"sst\":1,\"sd\":\"00000a\"},"
                                   "\"pcfFqdn\":\"pcf.example.com\"}");
    bsf_discovery_query_t q = {.kind = BSF_UE_ADDR_IPV4};
    assert_true(bsf_ipv4_parse("10.0.0.1", 8, &q.ipv4));
    assert_true(bsf_discovery_matches(&q, b));
    q.ip_domain = "corp";
    q.dnn = "Internet";
    q.supi = "imsi-001010000000001";
    q.gpsi = "msisdn-4917000001";
    q.has_snssai = true;
    q.snssai = (bsf_snssai_t){1, true, 10};
    assert_true(bsf_discovery_matches(&q, b));
    q.snssai.sd = 11;
    assert_false(bsf_discovery_matches(&q, b));
    q.has_snssai = false;
    q.ip_domain = "other";
    assert_false(bsf_discovery_matches(&q, b));
    q.ip_domain = NULL;
    q.supi = "imsi-001010000000002";
    assert_false(bsf_discovery_matches(&q, b));
    q.supi = NULL;
    /* An address inside a framed route. */
    assert_true(bsf_ipv4_parse("172.20.1.1", 10, &q.ipv4));
    assert_true(bsf_discovery_matches(&q, b));
    assert_true(bsf_ipv4_parse("172.40.1.1", 10, &q.ipv4));
    assert_false(bsf_discovery_matches(&q, b));

    bsf_binding_id_t x, y;
    memset(x.b, 1, 16);
    memset(y.b, 2, 16);
    assert_true(bsf_discovery_recency_cmp(10, &x, 9, &y) > 0);
    assert_true(bsf_discovery_recency_cmp(9, &x, 9, &y) < 0); /* tie: higher id wins */
}

static void binding_ids(void **state)
{
    (void)state;
    bsf_binding_id_t id, back;
    uint8_t rnd[8] = {0xde, 0xad, 0xbe, 0xef, 0, 1, 2, 3};
    bsf_binding_id_make(258, 0x0102030405ULL, rnd, &id);
    char t[BSF_BINDING_ID_TEXT_LEN + 1];
    bsf_binding_id_format(&id, t);
    assert_string_equal(t, "0102000102030405deadbeef00010203");
    assert_true(bsf_binding_id_parse(t, strlen(t), &back));
    assert_memory_equal(id.b, back.b, 16);
    assert_int_equal(bsf_binding_id_site(&id), 258);
    assert_false(bsf_binding_id_parse("0102", 4, &back));
    assert_false(bsf_binding_id_parse("0102000102030405DEADBEEF00010203", 32, &back));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(features),
        cmocka_unit_test(sbi_timestamps),
        cmocka_unit_test(hlc_is_monotonic),
        cmocka_unit_test_setup_teardown(event_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(collision_precedence, setup, teardown),
        cmocka_unit_test_setup_teardown(same_pcf_feature, setup, teardown),
        cmocka_unit_test_setup_teardown(discovery_matching, setup, teardown),
        cmocka_unit_test(binding_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
