/* core/subscription.c, core/notification.c and the subscription events of core/event.c:
 * member formats and causes, the required members, the canonical encoding, the expiry's
 * text, the pair filter, which events a binding change causes, the notification body and
 * the event round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/event.h"
#include "core/notification.h"
#include "core/subscription.h"
#include "gateways/sbi/json_codec.h"
#include "tests/unit/binding_fixtures.h"
#include "tests/unit/test_util.h"

static msgpack_sbuffer buf;
static msgpack_zone zone;
static bsf_problem_t problem;

#define BASE "\"notifUri\":\"http://nef.example.com/n\",\"notifCorreId\":\"c1\"," \
             "\"supi\":\"imsi-001010000000001\""

static int setup(void **state)
{
    (void)state;
    msgpack_sbuffer_init(&buf);
    msgpack_zone_init(&zone, 8192);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    msgpack_sbuffer_destroy(&buf);
    msgpack_zone_destroy(&zone);
    return 0;
}

/* The msgpack document as JSON text (the caller frees it). */
static char *to_json(const char *data, size_t len)
{
    msgpack_object o;
    size_t off = 0;
    msgpack_sbuffer json;
    msgpack_sbuffer_init(&json);
    assert_int_equal(msgpack_unpack(data, len, &off, &zone, &o), MSGPACK_UNPACK_SUCCESS);
    assert_int_equal(bsf_json_write(&o, &json, NULL, NULL), 0);
    msgpack_sbuffer_write(&json, "", 1);
    return json.data; /* msgpack_sbuffer's buffer is malloc'ed */
}

static bsf_cause_t check(const char *json, bsf_subscription_t *s)
{
    return tu_sub_check(json, &buf, &zone, s, &problem);
}

static const char *param(void)
{
    return problem.n_params ? problem.params[0].param : "";
}

static void members_and_causes(void **state)
{
    (void)state;
    bsf_subscription_t s;
    assert_int_equal(check("{\"events\":[\"PCF_UE_BINDING_REGISTRATION\",\"LATER\"]," BASE
                           ",\"expiry\":\"2030-01-01T01:00:00.250+01:00\",\"x\":1}", &s),
                     BSF_CAUSE_NONE);
    assert_int_equal(s.events, 1u << BSF_SUB_EVENT_UE_REGISTRATION);
    assert_int_equal(s.expiry_ms, 1893456000250LL);
    assert_int_equal(check("{" BASE "}", &s), BSF_CAUSE_MANDATORY_IE_MISSING);
    assert_string_equal(param(), "/events");
    assert_int_equal(check("{\"events\":[\"LATER\"]," BASE "}", &s),
                     BSF_CAUSE_MANDATORY_IE_INCORRECT);
    assert_string_equal(param(), "/events");
    assert_int_equal(check("{\"events\":[\"PCF_UE_BINDING_REGISTRATION\"]}", &s),
                     BSF_CAUSE_MANDATORY_IE_MISSING);
    assert_int_equal(problem.n_params, 3); /* notifUri, notifCorreId, supi */
    assert_int_equal(check("{\"events\":[\"PCF_UE_BINDING_REGISTRATION\"],"
                           "\"notifUri\":\"mailto:x\",\"notifCorreId\":\"c\",\"supi\":"
                           "\"imsi-001010000000001\"}", &s),
                     BSF_CAUSE_MANDATORY_IE_INCORRECT);
    assert_string_equal(param(), "/notifUri");
    assert_int_equal(check("{\"events\":[\"PCF_UE_BINDING_REGISTRATION\"]," BASE
                           ",\"addSnssaiDnnPairs\":[{\"snssai\":{\"sst\":1}}]}", &s),
                     BSF_CAUSE_OPTIONAL_IE_INCORRECT);
    assert_string_equal(param(), "/addSnssaiDnnPairs/0");
    assert_int_equal(check("{\"events\":[\"PCF_UE_BINDING_REGISTRATION\"]," BASE
                           ",\"expiry\":\"2030-13-01T00:00:00Z\"}", &s),
                     BSF_CAUSE_OPTIONAL_IE_INCORRECT);
    assert_int_equal(bsf_rfc3339_parse_ms("1970-01-01T00:00:01Z", 20), 1000);
    assert_int_equal(bsf_rfc3339_parse_ms("1970-01-01T00:00:01", 19), -1);
}

static void canonical_encoding_and_expiry(void **state)
{
    (void)state;
    bsf_subscription_t s, back;
    assert_int_equal(check("{\"supi\":\"imsi-001010000000001\",\"suppFeat\":\"0\","
                           "\"events\":[\"SNSSAI_DNN_BINDING_DEREGISTRATION\","
                           "\"PCF_PDU_SESSION_BINDING_REGISTRATION\"],\"notifCorreId\":\"c1\","
                           "\"notifUri\":\"http://nef.example.com/n\","
                           "\"snssaiDnnPairs\":{\"dnn\":\"ims\",\"snssai\":{\"sst\":1,\"sd\":\"0000ab\"}}}",
                           &s),
                     BSF_CAUSE_NONE);
    assert_int_equal(bsf_subscription_set_expiry(&s, 1893456000250LL, &zone), 0);
    assert_string_equal(s.expiry, "2030-01-01T00:00:00.250Z");
    msgpack_sbuffer out;
    msgpack_packer pk;
    msgpack_sbuffer_init(&out);
    msgpack_packer_init(&pk, &out, msgpack_sbuffer_write);
    assert_int_equal(bsf_subscription_encode(&s, &pk), 0);
    char *json = to_json(out.data, out.size);
    assert_string_equal(json, "{\"events\":[\"PCF_PDU_SESSION_BINDING_REGISTRATION\","
                              "\"SNSSAI_DNN_BINDING_DEREGISTRATION\"],\"notifUri\":"
                              "\"http://nef.example.com/n\",\"notifCorreId\":\"c1\",\"supi\":"
                              "\"imsi-001010000000001\",\"snssaiDnnPairs\":{\"snssai\":{\"sst\":1,"
                              "\"sd\":\"0000AB\"},\"dnn\":\"ims\"},\"expiry\":"
                              "\"2030-01-01T00:00:00.250Z\",\"suppFeat\":\"0\"}");
    assert_int_equal(check(json, &back), BSF_CAUSE_NONE);
    assert_int_equal(back.expiry_ms, s.expiry_ms);
    free(json);
    msgpack_sbuffer_destroy(&out);
}

static void events_of_a_change(void **state)
{
    (void)state;
    bsf_subscription_t s;
    assert_int_equal(check("{\"events\":[\"PCF_PDU_SESSION_BINDING_REGISTRATION\","
                           "\"SNSSAI_DNN_BINDING_REGISTRATION\",\"PCF_UE_BINDING_DEREGISTRATION\"],"
                           BASE ",\"gpsi\":\"msisdn-4912345678\",\"addSnssaiDnnPairs\":"
                           "[{\"snssai\":{\"sst\":1},\"dnn\":\"Internet\"}]}", &s),
                     BSF_CAUSE_NONE);
    bsf_pcf_binding_t b = {.supi = "imsi-001010000000009", .gpsi = "msisdn-4912345678",
                           .dnn = "internet", .has_snssai = true, .snssai = {.sst = 1},
                           .pcf_fqdn = "pcf.example.com"};
    bsf_binding_change_t c = {.registration = true, .pdu = &b, .first_or_last = false};
    assert_int_equal(bsf_notification_events(&s, &c), 1u << BSF_SUB_EVENT_PDU_REGISTRATION);
    c.first_or_last = true;
    assert_int_equal(bsf_notification_events(&s, &c),
                     1u << BSF_SUB_EVENT_PDU_REGISTRATION |
                         1u << BSF_SUB_EVENT_SNSSAI_DNN_REGISTRATION);
    c.registration = false; /* not subscribed */
    assert_int_equal(bsf_notification_events(&s, &c), 0);
    b.dnn = "ims"; /* not a subscribed pair */
    c.registration = true;
    assert_int_equal(bsf_notification_events(&s, &c), 0);
    b.dnn = "internet";
    b.gpsi = "msisdn-4900000000"; /* neither the SUPI nor the GPSI */
    assert_int_equal(bsf_notification_events(&s, &c), 0);
    bsf_pcf_ue_binding_t ue = {.supi = "imsi-001010000000001", .pcf_for_ue_fqdn = "p.example.com"};
    bsf_binding_change_t u = {.registration = false, .ue = &ue};
    assert_int_equal(bsf_notification_events(&s, &u), 1u << BSF_SUB_EVENT_UE_DEREGISTRATION);
    msgpack_sbuffer out;
    msgpack_packer pk;
    msgpack_sbuffer_init(&out);
    msgpack_packer_init(&pk, &out, msgpack_sbuffer_write);
    assert_int_equal(bsf_notification_encode(&s, 1u << BSF_SUB_EVENT_UE_DEREGISTRATION, &u, &pk),
                     0);
    char *json = to_json(out.data, out.size);
    assert_string_equal(json, "{\"notifCorreId\":\"c1\",\"eventNotifs\":[{\"event\":"
                              "\"PCF_UE_BINDING_DEREGISTRATION\",\"pcfForUeInfo\":{\"pcfFqdn\":"
                              "\"p.example.com\"}}]}");
    free(json);
    msgpack_sbuffer_destroy(&out);
}

static void event_round_trip(void **state)
{
    (void)state;
    bsf_subscription_t s;
    assert_int_equal(check("{\"events\":[\"PCF_UE_BINDING_REGISTRATION\"]," BASE "}", &s),
                     BSF_CAUSE_NONE);
    bsf_event_t ev = {.type = BSF_EVENT_SUBSCRIPTION_CREATED, .site = 3, .seq = 9, .hlc = 77,
                      .subscription = &s, .created_hlc = 77}, back;
    bsf_binding_id_make(3, 9, (const uint8_t *)"abcdefgh", &ev.binding_id);
    msgpack_sbuffer out;
    msgpack_sbuffer_init(&out);
    tu_event_round_trip(&ev, &out, &zone, &back);
    assert_int_equal(back.type, BSF_EVENT_SUBSCRIPTION_CREATED);
    assert_string_equal(back.subscription->notif_corre_id, "c1");
    assert_int_equal(back.created_hlc, 77);
    ev = (bsf_event_t){.type = BSF_EVENT_SUBSCRIPTION_REMOVED, .site = 3, .seq = 10, .hlc = 78,
                       .binding_id = ev.binding_id, .reason = BSF_REASON_EXPIRED};
    tu_event_round_trip(&ev, &out, &zone, &back);
    assert_int_equal(back.reason, BSF_REASON_EXPIRED);
    assert_string_equal(bsf_event_type_name(back.type), "SubscriptionRemoved");
    msgpack_sbuffer_destroy(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(members_and_causes),
        cmocka_unit_test(canonical_encoding_and_expiry),
        cmocka_unit_test(events_of_a_change),
        cmocka_unit_test(event_round_trip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
