/* feed/feed_encode: record encoding (JSON, escaping, base64, UTF-8, keys). */
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "feed/feed_encode.h"
#include "tests/unit/feed_fixtures.h"

static const bsf_feed_meta_t meta1 = {7, 0x1a2b3c, 0, 0, false};

static void sbi_request(void **state)
{
    (void)state;
    const char body[] = "{\"supi\":\"imsi-001010000000001\",\"dnn\":\"internet\"}";
    bsf_feed_header_t h[] = {{"content-type", "application/json"},
                             {"3gpp-sbi-correlation-info", "imsi-001010000000001"}};
    bsf_feed_record_t rec = {
        .protocol = BSF_FEED_SBI,
        .direction = BSF_FEED_INGRESS,
        .kind = BSF_FEED_REQUEST,
        .transaction_id = 42,
        .local = "127.0.0.1:8080",
        .peer = "127.0.0.1:40000",
        .received_ms = 1700000000123,
        .correlation_info = "imsi-001010000000001",
        .method = "POST",
        .path = "/nbsf-management/v1/pcfBindings",
        .headers = h,
        .n_headers = 2,
        .payload = body,
        .payload_len = strlen(body),
    };
    bsf_feed_meta_t meta = meta1;
    meta.payload_len = strlen(body);
    json_t *doc = tf_encode(&rec, &meta);
    assert_int_equal(tf_num(doc, "version"), BSF_FEED_FORMAT_VERSION);
    assert_string_equal(tf_str(doc, "protocol"), "sbi");
    assert_string_equal(tf_str(doc, "direction"), "ingress");
    assert_string_equal(tf_str(doc, "kind"), "request");
    assert_int_equal(tf_num(doc, "site"), 7);
    assert_string_equal(tf_str(doc, "transactionId"), "7-1a2b3c-2a");
    assert_string_equal(tf_str(doc, "local"), "127.0.0.1:8080");
    assert_string_equal(tf_str(doc, "peer"), "127.0.0.1:40000");
    assert_string_equal(tf_str(doc, "method"), "POST");
    assert_string_equal(tf_str(doc, "path"), "/nbsf-management/v1/pcfBindings");
    assert_int_equal(tf_num(doc, "receivedMs"), 1700000000123);
    assert_null(json_object_get(doc, "sentMs"));
    assert_null(json_object_get(doc, "status"));
    assert_null(json_object_get(doc, "bindingId"));
    assert_null(json_object_get(doc, "commandCode"));
    assert_null(json_object_get(doc, "truncated"));
    assert_string_equal(tf_str(doc, "correlationInfo"), "imsi-001010000000001");
    json_t *headers = json_object_get(doc, "headers");
    assert_int_equal(json_array_size(headers), 2);
    assert_string_equal(json_string_value(json_array_get(json_array_get(headers, 1), 0)),
                        "3gpp-sbi-correlation-info");
    assert_string_equal(json_string_value(json_array_get(json_array_get(headers, 1), 1)),
                        "imsi-001010000000001");
    assert_int_equal(tf_num(doc, "payloadLength"), (json_int_t)strlen(body));
    assert_string_equal(tf_str(doc, "payloadEncoding"), "utf-8");
    assert_string_equal(tf_str(doc, "payload"), body);
    json_decref(doc);
}

static void sbi_response_without_payload_copy(void **state)
{
    (void)state;
    bsf_feed_header_t h[] = {{"location", "http://bsf/nbsf-management/v1/pcfBindings/0001"}};
    bsf_feed_record_t rec = {
        .protocol = BSF_FEED_SBI,
        .direction = BSF_FEED_INGRESS,
        .kind = BSF_FEED_RESPONSE,
        .transaction_id = 1,
        .received_ms = 1700000000123,
        .sent_ms = 1700000000125,
        .binding_id = "0001000000000001cedf6c453c4e4f2a",
        .method = "POST",
        .path = "/nbsf-management/v1/pcfBindings",
        .status = 201,
        .headers = h,
        .n_headers = 1,
    };
    bsf_feed_meta_t meta = meta1;
    meta.payload_len = 131; /* the body was not copied */
    json_t *doc = tf_encode(&rec, &meta);
    assert_string_equal(tf_str(doc, "kind"), "response");
    assert_int_equal(tf_num(doc, "status"), 201);
    assert_int_equal(tf_num(doc, "sentMs"), 1700000000125);
    assert_string_equal(tf_str(doc, "bindingId"), "0001000000000001cedf6c453c4e4f2a");
    assert_int_equal(tf_num(doc, "payloadLength"), 131);
    assert_null(json_object_get(doc, "payload"));
    assert_null(json_object_get(doc, "payloadEncoding"));
    assert_null(json_object_get(doc, "local"));
    assert_null(json_object_get(doc, "correlationInfo"));
    json_decref(doc);
}

static void diameter_answer(void **state)
{
    (void)state;
    const unsigned char msg[] = {0x01, 0x00, 0x00, 0x14, 0xff};
    bsf_feed_header_t avps[] = {{"Origin-Host", "pcf1.example.com"}};
    bsf_feed_record_t rec = {
        .protocol = BSF_FEED_DIAMETER,
        .direction = BSF_FEED_EGRESS,
        .kind = BSF_FEED_RESPONSE,
        .transaction_id = 3,
        .session_id = "af.example.com;1;2",
        .peer_host = "pcf1.example.com",
        .command_code = 265,
        .command_flags = 0x40,
        .application_id = 16777236,
        .hop_by_hop = 0xdeadbeef,
        .end_to_end = 7,
        .result_code = 2001,
        .headers = avps,
        .n_headers = 1,
        .payload = msg,
        .payload_len = sizeof msg,
    };
    bsf_feed_meta_t meta = meta1;
    meta.payload_len = sizeof msg;
    json_t *doc = tf_encode(&rec, &meta);
    assert_string_equal(tf_str(doc, "protocol"), "diameter");
    assert_string_equal(tf_str(doc, "direction"), "egress");
    assert_string_equal(tf_str(doc, "peerHost"), "pcf1.example.com");
    assert_int_equal(tf_num(doc, "commandCode"), 265);
    assert_int_equal(tf_num(doc, "commandFlags"), 0x40);
    assert_int_equal(tf_num(doc, "applicationId"), 16777236);
    assert_int_equal(tf_num(doc, "hopByHop"), 0xdeadbeef);
    assert_int_equal(tf_num(doc, "endToEnd"), 7);
    assert_int_equal(tf_num(doc, "resultCode"), 2001);
    assert_string_equal(tf_str(doc, "sessionId"), "af.example.com;1;2");
    assert_null(json_object_get(doc, "method"));
    assert_string_equal(tf_str(doc, "payloadEncoding"), "base64");
    assert_string_equal(tf_str(doc, "payload"), "AQAAFP8=");
    json_decref(doc);
}

static void base64_lengths(void **state)
{
    (void)state;
    const char *expect[] = {"", "YQ==", "YWI=", "YWJj", "YWJjZA=="};
    for (size_t n = 1; n < 5; n++) {
        bsf_feed_record_t rec = {.protocol = BSF_FEED_DIAMETER, .payload = "abcd",
                                 .payload_len = n};
        json_t *doc = tf_encode(&rec, &meta1);
        assert_string_equal(tf_str(doc, "payload"), expect[n]);
        json_decref(doc);
    }
}

static void escaping(void **state)
{
    (void)state;
    /* quotes, backslash, control characters, valid multi-byte UTF-8, an ill-formed byte */
    const char value[] = "a\"b\\c\n\t\x01 caf\xc3\xa9 \xf0\x9f\x98\x80 bad\xff end";
    bsf_feed_header_t h[] = {{"x-test", value}};
    bsf_feed_record_t rec = {.protocol = BSF_FEED_SBI, .method = "GET", .path = "/p\"q",
                             .headers = h, .n_headers = 1};
    json_t *doc = tf_encode(&rec, &meta1);
    const char *got =
        json_string_value(json_array_get(json_array_get(json_object_get(doc, "headers"), 0), 1));
    assert_string_equal(got, "a\"b\\c\n\t\x01 caf\xc3\xa9 \xf0\x9f\x98\x80 bad\xc3\xbf end");
    assert_string_equal(tf_str(doc, "path"), "/p\"q");
    json_decref(doc);
}

static void binary_sbi_payload_is_base64(void **state)
{
    (void)state;
    const char body[] = "\xc0\x80"; /* overlong: not UTF-8 */
    bsf_feed_record_t rec = {.protocol = BSF_FEED_SBI, .payload = body, .payload_len = 2};
    json_t *doc = tf_encode(&rec, &meta1);
    assert_string_equal(tf_str(doc, "payloadEncoding"), "base64");
    assert_string_equal(tf_str(doc, "payload"), "wIA=");
    json_decref(doc);
}

static void utf8_validation(void **state)
{
    (void)state;
    struct {
        const char *s;
        bool ok;
    } cases[] = {
        {"plain", true},          {"caf\xc3\xa9", true},     {"\xe2\x82\xac", true},
        {"\xf0\x9f\x98\x80", true}, {"\xf4\x8f\xbf\xbf", true}, {"\xc0\x80", false},
        {"\xc1\xbf", false},      {"\xe0\x80\xaf", false},   {"\xed\xa0\x80", false},
        {"\xf4\x90\x80\x80", false}, {"\xf5\x80\x80\x80", false}, {"\xc3", false},
        {"\xe2\x82", false},      {"\x80", false},           {"\xff", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (bsf_feed_utf8_valid((const unsigned char *)cases[i].s, strlen(cases[i].s)) !=
            cases[i].ok)
            fail_msg("case %zu", i);
}

static void keys(void **state)
{
    (void)state;
    size_t n;
    bsf_feed_record_t rec = {.correlation_info = "imsi-1", .session_id = "s",
                             .binding_id = "b"};
    assert_string_equal(bsf_feed_key(&rec, "txn", &n), "imsi-1");
    assert_int_equal(n, 6);
    rec.correlation_info = "";
    assert_string_equal(bsf_feed_key(&rec, "txn", &n), "s");
    rec.session_id = NULL;
    assert_string_equal(bsf_feed_key(&rec, "txn", &n), "b");
    rec.binding_id = NULL;
    assert_string_equal(bsf_feed_key(&rec, "txn", &n), "txn");
    assert_int_equal(n, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sbi_request),
        cmocka_unit_test(sbi_response_without_payload_copy),
        cmocka_unit_test(diameter_answer),
        cmocka_unit_test(base64_lengths),
        cmocka_unit_test(escaping),
        cmocka_unit_test(binary_sbi_payload_is_base64),
        cmocka_unit_test(utf8_validation),
        cmocka_unit_test(keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
