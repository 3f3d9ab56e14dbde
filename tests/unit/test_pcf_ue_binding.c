/* core/pcf_ue_binding.c, core/pcf_ue_binding_patch.c, core/ue_decide.c and the UE events of
 * core/event.c: member formats and causes, the schema's rules, canonical encoding, the
 * bsf_doc_type_t, merge patch, the replacement rule and the event round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/event.h"
#include "core/pcf_ue_binding_patch.h"
#include "core/ue_decide.h"
#include "tests/unit/binding_fixtures.h"
#include "tests/unit/test_util.h"

/* the file's fixture: buffers, a zone and a problem (tests/unit/test_util.h) */
#define FX tu_scratch()

/* Decodes and rule-checks `json`: the cause (NONE when valid). */
static bsf_cause_t check(const char *json, bsf_pcf_ue_binding_t *b)
{
    return tu_ue_check(json, &FX->buf, &FX->zone, b, &FX->problem);
}

static const char *param(void)
{
    return FX->problem.n_params ? FX->problem.params[0].param : "";
}

static void members_and_causes(void **state)
{
    (void)state;
    bsf_pcf_ue_binding_t b;
    assert_int_equal(check("{\"supi\":\"imsi-001010000000001\",\"gpsi\":\"msisdn-4912345678\","
                           "\"pcfForUeFqdn\":\"pcf.example.com\",\"pcfId\":"
                           "\"b5b4b5c2-7f2a-4a4e-9b0e-2b8f1c3d4e5f\",\"unknown\":1}", &b),
                     BSF_CAUSE_NONE);
    assert_string_equal(b.supi, "imsi-001010000000001");
    assert_string_equal(b.gpsi, "msisdn-4912345678");
    /* the cause of each refused document, the first parameter it names (NULL: not checked)
     * and how many it names (0: not checked) */
    static const struct {
        const char *json;
        bsf_cause_t cause;
        const char *param;
        size_t n_params;
    } bad[] = {
        {"{\"pcfForUeFqdn\":\"pcf.example.com\"}", BSF_CAUSE_MANDATORY_IE_MISSING, "/supi", 0},
        {"{\"supi\":\"imsi-12\",\"pcfForUeFqdn\":\"pcf.example.com\"}",
         BSF_CAUSE_MANDATORY_IE_INCORRECT, "/supi", 0},
        {"{\"supi\":\"imsi-001010000000001\",\"gpsi\":\"msisdn-1\","
         "\"pcfForUeFqdn\":\"pcf.example.com\"}",
         BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/gpsi", 0},
        {"{\"supi\":\"imsi-001010000000001\"}", BSF_CAUSE_MANDATORY_IE_MISSING, NULL, 2},
        {"{\"supi\":\"imsi-001010000000001\",\"pcfForUeIpEndPoints\":[]}",
         BSF_CAUSE_OPTIONAL_IE_INCORRECT, "/pcfForUeIpEndPoints", 0},
        {"{\"supi\":\"imsi-001010000000001\",\"pcfForUeFqdn\":\"x\",\"suppFeat\":\"1\"}",
         BSF_CAUSE_OPTIONAL_IE_INCORRECT, NULL, 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(check(bad[i].json, &b), bad[i].cause);
        if (bad[i].param)
            assert_string_equal(param(), bad[i].param);
        if (bad[i].n_params)
            assert_int_equal(FX->problem.n_params, bad[i].n_params);
    }
    assert_int_equal(check("[1]", &b), BSF_CAUSE_INVALID_MSG_FORMAT);
}

/* msgpack-c's text form of the canonical encoding (members in schema order), written by
 * `encode`: bsf_pcf_ue_binding_encode, or bsf_pcf_ue_binding_type's. */
static const char *encoded_text(int (*encode)(const void *, msgpack_packer *),
                                const bsf_pcf_ue_binding_t *b)
{
    static msgpack_sbuffer mp;
    msgpack_sbuffer_init(&mp);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &mp, msgpack_sbuffer_write);
    assert_int_equal(encode ? encode(b, &pk) : bsf_pcf_ue_binding_encode(b, &pk), 0);
    msgpack_object o;
    size_t off = 0;
    assert_int_equal(msgpack_unpack(mp.data, mp.size, &off, &FX->zone, &o), MSGPACK_UNPACK_SUCCESS);
    static char text[1024];
    assert_true(msgpack_object_print_buffer(text, sizeof text, o) > 0);
    msgpack_sbuffer_destroy(&mp);
    return text;
}

static void canonical_encoding(void **state)
{
    (void)state;
    bsf_pcf_ue_binding_t b;
    assert_int_equal(check("{\"suppFeat\":\"0\",\"bindLevel\":\"NF_SET\",\"pcfSetId\":\"set1\","
                           "\"pcfForUeIpEndPoints\":[{\"port\":80,\"ipv6Address\":"
                           "\"2001:DB8::0001\"}],\"supi\":\"imsi-001010000000001\"}", &b),
                     BSF_CAUSE_NONE);
    assert_string_equal(encoded_text(NULL, &b),
                        "{\"supi\"=>\"imsi-001010000000001\", \"pcfForUeIpEndPoints\"=>"
                        "[{\"ipv6Address\"=>\"2001:db8::1\", \"port\"=>80}], "
                        "\"pcfSetId\"=>\"set1\", \"bindLevel\"=>\"NF_SET\", \"suppFeat\"=>\"0\"}");
}

/* bsf_pcf_ue_binding_type: its decode checks the rules too, its encode is the canonical map. */
static void as_doc_type(void **state)
{
    (void)state;
    const bsf_doc_type_t *t = &bsf_pcf_ue_binding_type;
    bsf_pcf_ue_binding_t b;
    assert_int_equal(t->size, sizeof b);
    msgpack_object o = tu_json("{\"supi\":\"imsi-001010000000001\"}", &FX->buf, &FX->zone);
    assert_int_equal(t->decode(&o, &FX->zone, &b, &FX->problem), -1);
    assert_int_equal(FX->problem.cause, BSF_CAUSE_MANDATORY_IE_MISSING);
    o = tu_json("{\"pcfForUeFqdn\":\"pcf.example.com\",\"supi\":\"imsi-001010000000001\"}",
                &FX->buf, &FX->zone);
    assert_int_equal(t->decode(&o, &FX->zone, &b, &FX->problem), 0);
    assert_string_equal(encoded_text(t->encode, &b),
                        "{\"supi\"=>\"imsi-001010000000001\", "
                        "\"pcfForUeFqdn\"=>\"pcf.example.com\"}");
}

static void merge_patch(void **state)
{
    (void)state;
    bsf_pcf_ue_binding_t base, result;
    bsf_pcf_ue_binding_patch_t p;
    assert_int_equal(check("{\"supi\":\"imsi-001010000000001\",\"pcfForUeFqdn\":\"a.example.com\"}",
                           &base),
                     BSF_CAUSE_NONE);
    msgpack_object o = tu_json("{\"pcfForUeFqdn\":\"b.example.com\",\"pcfForUeIpEndPoints\":"
                               "[{\"ipv4Address\":\"192.0.2.1\"}]}", &FX->buf, &FX->zone);
    assert_int_equal(bsf_pcf_ue_binding_patch_decode(&o, &FX->zone, &p, &FX->problem), 0);
    assert_false(bsf_pcf_ue_binding_patch_is_empty(&p));
    bsf_pcf_ue_binding_patch_apply(&base, &p, &result);
    assert_string_equal(result.pcf_for_ue_fqdn, "b.example.com");
    assert_int_equal(result.pcf_for_ue_ip_end_points.n, 1);
    assert_string_equal(result.supi, "imsi-001010000000001");
    static const struct {
        const char *json;
        bsf_cause_t cause;
    } bad[] = {
        {"{\"supi\":\"imsi-001010000000002\"}", BSF_CAUSE_MODIFICATION_NOT_ALLOWED},
        {"{\"gpsi\":\"msisdn-4912345678\"}", BSF_CAUSE_MODIFICATION_NOT_ALLOWED},
        {"{\"pcfForUeFqdn\":null}", BSF_CAUSE_OPTIONAL_IE_INCORRECT},
        {"{\"pcfId\":\"no\"}", BSF_CAUSE_OPTIONAL_IE_INCORRECT},
        {"[]", BSF_CAUSE_INVALID_MSG_FORMAT},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        o = tu_json(bad[i].json, &FX->buf, &FX->zone);
        assert_int_equal(bsf_pcf_ue_binding_patch_decode(&o, &FX->zone, &p, &FX->problem), -1);
        assert_int_equal(FX->problem.cause, bad[i].cause);
    }
    o = tu_json("{}", &FX->buf, &FX->zone);
    assert_int_equal(bsf_pcf_ue_binding_patch_decode(&o, &FX->zone, &p, &FX->problem), 0);
    assert_true(bsf_pcf_ue_binding_patch_is_empty(&p));
}

static bsf_binding_id_t id_of(uint16_t site, uint64_t seq)
{
    bsf_binding_id_t id;
    uint8_t rnd[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    bsf_binding_id_make(site, seq, rnd, &id);
    return id;
}

static void replacement_rule(void **state)
{
    (void)state;
    bsf_pcf_ue_binding_t a, b, c;
    assert_int_equal(check("{\"supi\":\"imsi-001010000000001\",\"pcfForUeFqdn\":\"a.example.com\"}",
                           &a), BSF_CAUSE_NONE);
    assert_int_equal(check("{\"supi\":\"imsi-001010000000001\",\"pcfForUeFqdn\":\"b.example.com\"}",
                           &b), BSF_CAUSE_NONE);
    assert_int_equal(check("{\"supi\":\"imsi-001010000000001\",\"pcfForUeFqdn\":\"A.example.com\"}",
                           &c), BSF_CAUSE_NONE);
    bsf_ue_binding_view_t v[2] = {{id_of(1, 1), &a, 100}, {id_of(2, 2), &b, 200}};
    bsf_ue_decision_t d;
    bsf_decide_ue_register(&c, v, 2, &d);
    assert_int_equal(d.n_replaced, 2);
    assert_int_equal(d.reason[0], BSF_REASON_REREGISTERED); /* same PCF, FQDN case aside */
    assert_int_equal(d.reason[1], BSF_REASON_REPLACED_BY_COLLISION);
    /* Another site's registration created at 150: replaces site 1's (100), not its own or
     * a newer one; site 2's is not site 1's to remove. */
    bsf_ue_binding_view_t remote = {id_of(3, 9), &c, 150};
    bsf_decide_replicated_ue_registration(&remote, v, 2, 1, &d);
    assert_int_equal(d.n_replaced, 1);
    assert_ptr_equal(d.replaced[0], &v[0]);
    bsf_decide_replicated_ue_registration(&remote, v, 2, 2, &d);
    assert_int_equal(d.n_replaced, 0); /* site 2's binding (200) is newer */
}

static void event_round_trip(void **state)
{
    (void)state;
    bsf_pcf_ue_binding_t b;
    assert_int_equal(check("{\"supi\":\"imsi-001010000000001\",\"gpsi\":\"msisdn-4912345678\","
                           "\"pcfForUeFqdn\":\"a.example.com\"}", &b), BSF_CAUSE_NONE);
    bsf_event_t ev = {.type = BSF_EVENT_UE_BINDING_UPDATED, .site = 4, .seq = 9, .hlc = 77,
                      .binding_id = id_of(4, 3), .ue_binding = &b, .created_hlc = 70};
    msgpack_sbuffer *out = &FX->out; /* the fixture's: cleared by each use */
    bsf_event_t back;
    tu_event_round_trip(&ev, out, &FX->zone, &back);
    assert_int_equal(back.type, BSF_EVENT_UE_BINDING_UPDATED);
    assert_null(back.binding);
    assert_non_null(back.ue_binding);
    assert_string_equal(back.ue_binding->gpsi, "msisdn-4912345678");
    assert_int_equal(back.created_hlc, 70);
    bsf_event_t env;
    assert_int_equal(bsf_event_decode_envelope(out->data, out->size, &env), 0);
    assert_int_equal(env.type, BSF_EVENT_UE_BINDING_UPDATED);
    assert_string_equal(bsf_event_type_name(env.type), "UeBindingUpdated");
    /* deregistration */
    bsf_event_t dereg = {.type = BSF_EVENT_UE_BINDING_DEREGISTERED, .site = 4, .seq = 10,
                         .hlc = 78, .binding_id = id_of(4, 3), .reason = BSF_REASON_OPERATOR};
    tu_event_round_trip(&dereg, out, &FX->zone, &back);
    assert_int_equal(back.type, BSF_EVENT_UE_BINDING_DEREGISTERED);
    assert_int_equal(back.reason, BSF_REASON_OPERATOR);
    /* a UE registration without its payload is refused */
    msgpack_packer pk;
    msgpack_sbuffer_clear(out);
    msgpack_packer_init(&pk, out, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 7);
    const char *keys[] = {"v", "type", "site", "seq", "hlc", "bindingId", "createdHlc"};
    char idt[BSF_BINDING_ID_TEXT_LEN + 1];
    bsf_binding_id_format(&ev.binding_id, idt);
    for (int i = 0; i < 7; i++) {
        msgpack_pack_str(&pk, strlen(keys[i]));
        msgpack_pack_str_body(&pk, keys[i], strlen(keys[i]));
        if (i == 1) {
            msgpack_pack_str(&pk, 19);
            msgpack_pack_str_body(&pk, "UeBindingRegistered", 19);
        } else if (i == 5) {
            msgpack_pack_str(&pk, strlen(idt));
            msgpack_pack_str_body(&pk, idt, strlen(idt));
        } else {
            msgpack_pack_uint8(&pk, 1);
        }
    }
    bsf_pcf_binding_t unused;
    char err[128];
    assert_int_equal(
        bsf_event_decode(out->data, out->size, &FX->zone, &back, &unused, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(members_and_causes),
        cmocka_unit_test(canonical_encoding),
        cmocka_unit_test(as_doc_type),
        cmocka_unit_test(merge_patch),
        cmocka_unit_test(replacement_rule),
        cmocka_unit_test(event_round_trip),
    };
    return cmocka_run_group_tests(tests, tu_scratch_setup, tu_scratch_teardown);
}
