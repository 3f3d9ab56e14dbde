/* The binding audit's pure parts (audit/audit_decide.h, audit/token_bucket.h), its events
 * (core/event.h: AuditConfirmed / Suspected / Failed), the deletion log's JSON
 * (audit/deletion_log.h), and on a real store the audit command and the batched scan
 * (engine/audit_commands.c, engine/audit_read.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "audit/audit_decide.h"
#include "audit/deletion_log.h"
#include "audit/token_bucket.h"
#include "common/clock.h"
#include "core/hlc.h"
#include "core/pcf_vendor.h"
#include "engine/audit_read.h"
#include "tests/unit/engine_fixtures.h"
#include "tests/unit/test_util.h"

static const bsf_audit_settings_t base = {.enabled = true, .query_pcf = true,
                                          .interval_ms = 1000, .min_ttl_ms = 10000,
                                          .max_ttl_ms = 60000, .min_attempts = 3,
                                          .total_404 = 1, .max_queries_per_s = 10};

static void due_paths(void **state)
{
    (void)state;
    /* age since the later of created and last confirmed */
    assert_int_equal(bsf_audit_decide_due(&base, 19999, 10000, -1, 0, true), BSF_AUDIT_SKIP);
    assert_int_equal(bsf_audit_decide_due(&base, 20000, 10000, -1, 0, true), BSF_AUDIT_QUERY);
    assert_int_equal(bsf_audit_decide_due(&base, 20000, 0, 15000, 0, true), BSF_AUDIT_SKIP);
    assert_int_equal(bsf_audit_decide_due(&base, 20000, 10000, -1, 0, false),
                     BSF_AUDIT_MARK_SUSPECTED);
    bsf_audit_settings_t no_query = base;
    no_query.query_pcf = false;
    assert_int_equal(bsf_audit_decide_due(&no_query, 20000, 0, -1, 0, true),
                     BSF_AUDIT_MARK_SUSPECTED);
    /* max TTL needs the attempts too */
    assert_int_equal(bsf_audit_decide_due(&base, 70000, 0, -1, 2, true), BSF_AUDIT_QUERY);
    assert_int_equal(bsf_audit_decide_due(&base, 70000, 0, -1, 3, true),
                     BSF_AUDIT_REMOVE_MAX_TTL);
    /* a clock step back: never suspected */
    assert_int_equal(bsf_audit_decide_due(&base, 5, 10000, -1, 9, true), BSF_AUDIT_SKIP);
}

static void answer_paths(void **state)
{
    (void)state;
    assert_int_equal(bsf_audit_decide_answer(&base, BSF_AUDIT_ANSWER_FOUND, 0, 0),
                     BSF_AUDIT_CONFIRM);
    assert_int_equal(bsf_audit_decide_answer(&base, BSF_AUDIT_ANSWER_FAILED, 0, 0),
                     BSF_AUDIT_FAIL);
    assert_int_equal(bsf_audit_decide_answer(&base, BSF_AUDIT_ANSWER_NOT_FOUND, 1, 1),
                     BSF_AUDIT_REMOVE_NOT_FOUND);
    bsf_audit_settings_t two = base;
    two.total_404 = 2;
    assert_int_equal(bsf_audit_decide_answer(&two, BSF_AUDIT_ANSWER_NOT_FOUND, 1, 1),
                     BSF_AUDIT_ASK_SAME);
    assert_int_equal(bsf_audit_decide_answer(&two, BSF_AUDIT_ANSWER_NOT_FOUND, 2, 1),
                     BSF_AUDIT_REMOVE_NOT_FOUND);
    two.require_different_pcf = true;
    /* two 404s from one PCF do not make a quorum of different PCFs */
    assert_int_equal(bsf_audit_decide_answer(&two, BSF_AUDIT_ANSWER_NOT_FOUND, 2, 1),
                     BSF_AUDIT_ASK_ALTERNATE);
    assert_int_equal(bsf_audit_decide_answer(&two, BSF_AUDIT_ANSWER_NOT_FOUND, 2, 2),
                     BSF_AUDIT_REMOVE_NOT_FOUND);
}

static void token_bucket_rate(void **state)
{
    (void)state;
    bsf_token_bucket_t b;
    uint64_t wait = 0, t = 1000000000ull;
    bsf_token_bucket_init(&b, 10, 1, t);
    assert_true(bsf_token_bucket_take(&b, t, &wait));
    assert_false(bsf_token_bucket_take(&b, t, &wait));
    assert_true(wait > 99000000ull && wait <= 100000001ull);
    /* over 10 s at most 10/s (+ the burst) */
    unsigned taken = 0;
    for (uint64_t now = t; now < t + 10000000000ull; now += 1000000ull)
        taken += bsf_token_bucket_take(&b, now, &wait);
    assert_true(taken >= 99 && taken <= 101);
    bsf_token_bucket_init(&b, 0, 1, t); /* unlimited */
    for (int i = 0; i < 1000; i++)
        assert_true(bsf_token_bucket_take(&b, t, &wait));
}

static void audit_events_roundtrip(void **state)
{
    (void)state;
    msgpack_sbuffer buf;
    msgpack_zone zone;
    msgpack_sbuffer_init(&buf);
    assert_true(msgpack_zone_init(&zone, 4096));
    bsf_event_t ev = {.type = BSF_EVENT_AUDIT_FAILED, .site = 3, .seq = 9, .hlc = 77,
                      .audit = {4, 1700000000000LL, 1, "PCF-abc"}};
    uint8_t rnd[8] = {1};
    bsf_binding_id_make(3, 5, rnd, &ev.binding_id);
    bsf_event_t out;
    tu_event_round_trip(&ev, &buf, &zone, &out);
    assert_int_equal(out.type, BSF_EVENT_AUDIT_FAILED);
    assert_int_equal(out.audit.attempts, 4);
    assert_int_equal(out.audit.last_audited_ms, 1700000000000LL);
    assert_int_equal(out.audit.not_found, 1);
    assert_string_equal(out.audit.responder, "PCF-abc");
    assert_memory_equal(out.binding_id.b, ev.binding_id.b, 16);
    bsf_event_t head;
    assert_int_equal(bsf_event_decode_envelope(buf.data, buf.size, &head), 0);
    assert_int_equal(head.type, BSF_EVENT_AUDIT_FAILED);
    /* never audited, no responder */
    ev = (bsf_event_t){.type = BSF_EVENT_AUDIT_SUSPECTED, .site = 1, .seq = 1, .hlc = 1,
                       .binding_id = ev.binding_id, .audit = {1, -1, 0, NULL}};
    tu_event_round_trip(&ev, &buf, &zone, &out);
    assert_int_equal(out.audit.last_audited_ms, -1);
    assert_null(out.audit.responder);
    assert_string_equal(bsf_event_type_name(BSF_EVENT_AUDIT_CONFIRMED), "AuditConfirmed");
    assert_string_equal(bsf_event_type_name((bsf_event_type_t)13), "Unknown");
    bsf_event_type_t t;
    assert_false(bsf_event_type_parse("Unknown", 7, &t)); /* numbers 13..15 have no name */
    assert_true(bsf_event_type_parse("AuditSuspected", 14, &t));
    assert_int_equal(t, BSF_EVENT_AUDIT_SUSPECTED);
    msgpack_zone_destroy(&zone);
    msgpack_sbuffer_destroy(&buf);
}

/* An audit event without its `audit` payload, or with a member of the wrong type. */
static void audit_event_without_payload_is_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "{\"v\":1,\"type\":\"AuditConfirmed\",\"site\":1,\"seq\":1,\"hlc\":1,"
        "\"bindingId\":\"00010000000000010100000000000000\"}",
        "{\"v\":1,\"type\":\"AuditFailed\",\"site\":1,\"seq\":1,\"hlc\":1,"
        "\"bindingId\":\"00010000000000010100000000000000\",\"audit\":{\"attempts\":1}}",
        "{\"v\":1,\"type\":\"AuditFailed\",\"site\":1,\"seq\":1,\"hlc\":1,"
        "\"bindingId\":\"00010000000000010100000000000000\",\"audit\":{\"attempts\":-1,"
        "\"lastAudited\":null,\"notFound\":0}}",
        "{\"v\":1,\"type\":\"AuditFailed\",\"site\":1,\"seq\":1,\"hlc\":1,"
        "\"bindingId\":\"00010000000000010100000000000000\",\"audit\":{\"attempts\":1,"
        "\"lastAudited\":null,\"notFound\":0,\"pcf\":7}}",
    };
    msgpack_sbuffer buf;
    msgpack_zone zone;
    msgpack_sbuffer_init(&buf);
    assert_true(msgpack_zone_init(&zone, 4096));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tu_json(bad[i], &buf, &zone);
        bsf_event_t out;
        bsf_pcf_binding_t b;
        char err[128];
        if (bsf_event_decode(buf.data, buf.size, &zone, &out, &b, err, sizeof err) == 0)
            fail_msg("accepted %s", bad[i]);
    }
    msgpack_zone_destroy(&zone);
    msgpack_sbuffer_destroy(&buf);
}

static void deletion_log_masks_and_omits(void **state)
{
    (void)state;
    bsf_pcf_binding_t *b =
        tu_bind("{\"supi\":\"imsi-311480611009999\",\"ipv4Addr\":\"140.0.0.1\","
                "\"ipv6Prefix\":\"2607:f160:3e:6d::/64\",\"dnn\":\"abcinternet\","
                "\"snssai\":{\"sst\":11,\"sd\":\"abc123\"},\"pcfDiamHost\":\"pcf.example.com\","
                "\"pcfDiamRealm\":\"oracle.com\"}");
    bsf_binding_id_t id;
    uint8_t rnd[8] = {9};
    bsf_binding_id_make(1, 1, rnd, &id);
    bsf_removal_t r = {&id, b, BSF_HLC_FROM_MS(1749626756701ULL), BSF_REASON_DIAMETER_FAILURE,
                       2, 1749626757000LL};
    char *text = bsf_deletion_log_format(&r, false);
    json_t *o = json_loads(text, 0, NULL);
    assert_non_null(o);
    assert_string_equal(json_string_value(json_object_get(o, "reason")),
                        "Stale Session Notification received from Diameter Gateway");
    assert_string_equal(json_string_value(json_object_get(o, "supi")), "XXXX");
    assert_string_equal(json_string_value(json_object_get(o, "ipv4Addr")), "XXXX");
    assert_string_equal(json_string_value(json_object_get(o, "ipv6Prefix")), "XXXX");
    assert_string_equal(json_string_value(json_object_get(o, "dnn")), "abcinternet");
    assert_string_equal(json_string_value(json_object_get(json_object_get(o, "snssai"), "sd")),
                        "ABC123");
    assert_null(json_object_get(o, "gpsi")); /* absent: left out, not null */
    assert_null(json_object_get(o, "pcfFqdn"));
    assert_string_equal(json_string_value(json_object_get(o, "createdDateTime")),
                        "2025-06-11T07:25:56.701Z");
    assert_int_equal(json_integer_value(json_object_get(o, "auditAttempts")), 2);
    json_decref(o);
    free(text);
    text = bsf_deletion_log_format(&r, true);
    assert_non_null(strstr(text, "\"supi\":\"imsi-311480611009999\""));
    free(text);
}

/* A removal counts (and logs) only once its transaction committed. */
static void deletion_log_waits_for_the_commit(void **state)
{
    (void)state;
    bsf_deletion_log_t *d = bsf_deletion_log_create(-1, false);
    assert_non_null(d);
    bsf_pcf_binding_t *b = tu_bind("{\"ipv4Addr\":\"10.0.0.9\",\"dnn\":\"internet\","
                                   "\"snssai\":{\"sst\":1},\"pcfFqdn\":\"pcf.example.com\"}");
    bsf_binding_id_t id;
    uint8_t rnd[8] = {3};
    bsf_binding_id_make(1, 2, rnd, &id);
    bsf_removal_t r = {&id, b, 1, BSF_REASON_AUDIT_MAX_TTL, 0, -1};
    bsf_text_t m = {0};
    bsf_deletion_log_removal(d, &r);
    bsf_deletion_log_settled(d, false);
    bsf_deletion_log_write_metrics(d, &m);
    assert_non_null(strstr(m.data, "{reason=\"audit_max_ttl\"} 0\n"));
    bsf_text_free(&m);
    m = (bsf_text_t){0};
    bsf_deletion_log_removal(d, &r);
    bsf_deletion_log_settled(d, true);
    bsf_deletion_log_write_metrics(d, &m);
    assert_non_null(strstr(m.data, "{reason=\"audit_max_ttl\"} 1\n"));
    bsf_text_free(&m);
    bsf_deletion_log_free(d);
}

static void vendor_urls(void **state)
{
    (void)state;
    static const char *const good[] = {"http://pcf1:8080/npcf/x", "https://[::1]:443/a",
                                       "http://10.0.0.1"};
    static const char *const bad[] = {"", "http://", "http:///x", "ftp://pcf/x", "pcf/x",
                                      "http://pcf/a b", "https://pcf/\x7f"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(bsf_pcf_vendor_url_ok(good[i], strlen(good[i])));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(bsf_pcf_vendor_url_ok(bad[i], strlen(bad[i])));
}

/* ---- on a real store ---------------------------------------------------------------- */

static int store_setup(void **state)
{
    tu_scratch_setup(state);
    *state = ef_create("/tmp/bsf-test-audit-XXXXXX", false);
    return 0;
}

static int store_teardown(void **state)
{
    ef_destroy(*state);
    return tu_scratch_teardown(state);
}

static bsf_binding_id_t register_one(ef_store_t *f, int n)
{
    char json[256];
    snprintf(json, sizeof json,
             "{\"supi\":\"imsi-00101000000%04d\",\"ipv4Addr\":\"10.1.%d.%d\",\"dnn\":\"internet\","
             "\"snssai\":{\"sst\":1},\"pcfFqdn\":\"pcf.example.com\",\"vendorSpecific-000111\":"
             "{\"notificationUrl\":\"http://pcf.example.com/s/%d\"}}",
             n, n / 250, n % 250, n);
    bsf_command_t *cmd = bsf_command_new(BSF_CMD_REGISTER);
    msgpack_object o = tu_json(json, &f->json, &cmd->zone);
    bsf_problem_t p;
    assert_int_equal(bsf_pcf_binding_decode(&o, &cmd->zone, &cmd->binding, &p), 0);
    tu_engine_run(f->engine, cmd);
    assert_int_equal(cmd->status, BSF_CMD_OK);
    bsf_binding_id_t id = cmd->id;
    bsf_command_free(cmd);
    return id;
}

/* All candidates of a scan, in batches of `per_call` records. */
static size_t scan_all(ef_store_t *f, const bsf_audit_scan_t *q, bsf_audit_item_t *out,
                       size_t cap)
{
    bsf_audit_cursor_t cur = {0};
    size_t total = 0, calls = 0;
    msgpack_zone zone;
    assert_true(msgpack_zone_init(&zone, 8192));
    while (!cur.done) {
        bsf_read_t *r = ef_read(f);
        size_t n = 0;
        assert_int_equal(bsf_read_audit_batch(r, q, &cur, &zone, out + total, cap - total, &n),
                         0);
        bsf_read_end(r);
        bsf_read_release(r);
        total += n;
        assert_true(++calls < 100);
    }
    msgpack_zone_destroy(&zone);
    return total;
}

static void command_and_scan(void **state)
{
    ef_store_t *f = *state;
    bsf_binding_id_t ids[30];
    for (int i = 0; i < 30; i++)
        ids[i] = register_one(f, i);
    int64_t now = (int64_t)bsf_clock_wall_ms();
    bsf_audit_scan_t q = {.site = 1, .due_before_ms = now + 1000, .reaudit_before_ms = now,
                          .max_scan = 7};
    bsf_audit_item_t items[64];
    assert_int_equal(scan_all(f, &q, items, 64), 30);
    assert_non_null(items[0].binding.notification_url);
    q.site = 2; /* another site audits none of them */
    assert_int_equal(scan_all(f, &q, items, 64), 0);
    q.site = 1;
    q.due_before_ms = now - 60000; /* none old enough */
    assert_int_equal(scan_all(f, &q, items, 64), 0);
    /* an audit outcome: the scan sees its state; an outcome on an older read is refused */
    q.due_before_ms = now + 1000;
    scan_all(f, &q, items, 64);
    bsf_command_t *cmd = bsf_command_new(BSF_CMD_AUDIT);
    cmd->id = items[0].id;
    cmd->audit_outcome = BSF_EVENT_AUDIT_FAILED;
    cmd->audit_state = (bsf_audit_state_t){1, -1, 0, NULL};
    cmd->expect_hlc = items[0].hlc;
    tu_engine_run(f->engine, cmd);
    assert_int_equal(cmd->status, BSF_CMD_OK);
    bsf_command_reset_outcome(cmd);
    tu_engine_run(f->engine, cmd); /* same expectation: the audit record changed since */
    assert_int_equal(cmd->status, BSF_CMD_REFUSED);
    assert_int_equal(cmd->problem.cause, BSF_CAUSE_MODIFICATION_NOT_ALLOWED);
    bsf_command_free(cmd);
    q.reaudit_before_ms = now - 60000; /* audited just now: not again before the interval */
    assert_int_equal(scan_all(f, &q, items, 64), 29);
    q.reaudit_before_ms = now + 60000;
    size_t n = scan_all(f, &q, items, 64);
    bool seen = false;
    for (size_t i = 0; i < n; i++)
        if (memcmp(items[i].id.b, ids[0].b, 16) == 0 || items[i].attempts) {
            seen = true;
            assert_int_equal(items[i].attempts, 1);
            assert_true(items[i].suspected);
        }
    assert_true(seen);
    /* a removal with a stale expectation is refused; a right one removes */
    cmd = bsf_command_new(BSF_CMD_DEREGISTER);
    cmd->id = ids[1];
    cmd->reason = BSF_REASON_AUDIT_NOT_FOUND;
    cmd->expect_hlc = 1;
    tu_engine_run(f->engine, cmd);
    assert_int_equal(cmd->status, BSF_CMD_REFUSED);
    bsf_command_free(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(due_paths),
        cmocka_unit_test(answer_paths),
        cmocka_unit_test(token_bucket_rate),
        cmocka_unit_test(audit_events_roundtrip),
        cmocka_unit_test(audit_event_without_payload_is_refused),
        cmocka_unit_test_setup_teardown(deletion_log_masks_and_omits, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(deletion_log_waits_for_the_commit, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test(vendor_urls),
        cmocka_unit_test_setup_teardown(command_and_scan, store_setup, store_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
