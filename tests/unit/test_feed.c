/* The message feed: record encoding (JSON, escaping, base64, keys), record copies and their
 * bounds, the lock-free queue, settings checks, and a feed producing to librdkafka's
 * in-process mock cluster. */
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

#include "feed/feed.h"
#include "feed/feed_encode.h"
#include "feed/feed_queue.h"
#include "feed/feed_snapshot.h"

/* ---- helpers ------------------------------------------------------------------------- */

static json_t *encode(const bsf_feed_record_t *rec, const bsf_feed_meta_t *meta)
{
    bsf_text_t out = {0};
    assert_int_equal(bsf_feed_encode(rec, meta, &out), 0);
    assert_non_null(out.data);
    assert_int_equal(strlen(out.data), out.len);
    assert_null(strchr(out.data, '\n')); /* one record per line in any text dump */
    json_error_t e;
    json_t *doc = json_loadb(out.data, out.len, JSON_REJECT_DUPLICATES, &e);
    if (!doc)
        fail_msg("not JSON (%s): %s", e.text, out.data);
    bsf_text_free(&out);
    return doc;
}

static const char *str(json_t *doc, const char *name)
{
    json_t *v = json_object_get(doc, name);
    if (!json_is_string(v))
        fail_msg("member %s is not a string", name);
    return json_string_value(v);
}

static json_int_t num(json_t *doc, const char *name)
{
    json_t *v = json_object_get(doc, name);
    if (!json_is_integer(v))
        fail_msg("member %s is not an integer", name);
    return json_integer_value(v);
}

static const bsf_feed_meta_t meta1 = {7, 0x1a2b3c, 0, 0, false};

/* ---- encoding -------------------------------------------------------------------------- */

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
    json_t *doc = encode(&rec, &meta);
    assert_int_equal(num(doc, "version"), BSF_FEED_FORMAT_VERSION);
    assert_string_equal(str(doc, "protocol"), "sbi");
    assert_string_equal(str(doc, "direction"), "ingress");
    assert_string_equal(str(doc, "kind"), "request");
    assert_int_equal(num(doc, "site"), 7);
    assert_string_equal(str(doc, "transactionId"), "7-1a2b3c-2a");
    assert_string_equal(str(doc, "local"), "127.0.0.1:8080");
    assert_string_equal(str(doc, "peer"), "127.0.0.1:40000");
    assert_string_equal(str(doc, "method"), "POST");
    assert_string_equal(str(doc, "path"), "/nbsf-management/v1/pcfBindings");
    assert_int_equal(num(doc, "receivedMs"), 1700000000123);
    assert_null(json_object_get(doc, "sentMs"));
    assert_null(json_object_get(doc, "status"));
    assert_null(json_object_get(doc, "bindingId"));
    assert_null(json_object_get(doc, "commandCode"));
    assert_null(json_object_get(doc, "truncated"));
    assert_string_equal(str(doc, "correlationInfo"), "imsi-001010000000001");
    json_t *headers = json_object_get(doc, "headers");
    assert_int_equal(json_array_size(headers), 2);
    assert_string_equal(json_string_value(json_array_get(json_array_get(headers, 1), 0)),
                        "3gpp-sbi-correlation-info");
    assert_string_equal(json_string_value(json_array_get(json_array_get(headers, 1), 1)),
                        "imsi-001010000000001");
    assert_int_equal(num(doc, "payloadLength"), (json_int_t)strlen(body));
    assert_string_equal(str(doc, "payloadEncoding"), "utf-8");
    assert_string_equal(str(doc, "payload"), body);
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
    json_t *doc = encode(&rec, &meta);
    assert_string_equal(str(doc, "kind"), "response");
    assert_int_equal(num(doc, "status"), 201);
    assert_int_equal(num(doc, "sentMs"), 1700000000125);
    assert_string_equal(str(doc, "bindingId"), "0001000000000001cedf6c453c4e4f2a");
    assert_int_equal(num(doc, "payloadLength"), 131);
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
    json_t *doc = encode(&rec, &meta);
    assert_string_equal(str(doc, "protocol"), "diameter");
    assert_string_equal(str(doc, "direction"), "egress");
    assert_string_equal(str(doc, "peerHost"), "pcf1.example.com");
    assert_int_equal(num(doc, "commandCode"), 265);
    assert_int_equal(num(doc, "commandFlags"), 0x40);
    assert_int_equal(num(doc, "applicationId"), 16777236);
    assert_int_equal(num(doc, "hopByHop"), 0xdeadbeef);
    assert_int_equal(num(doc, "endToEnd"), 7);
    assert_int_equal(num(doc, "resultCode"), 2001);
    assert_string_equal(str(doc, "sessionId"), "af.example.com;1;2");
    assert_null(json_object_get(doc, "method"));
    assert_string_equal(str(doc, "payloadEncoding"), "base64");
    assert_string_equal(str(doc, "payload"), "AQAAFP8=");
    json_decref(doc);
}

static void base64_lengths(void **state)
{
    (void)state;
    const char *expect[] = {"", "YQ==", "YWI=", "YWJj", "YWJjZA=="};
    for (size_t n = 1; n < 5; n++) {
        bsf_feed_record_t rec = {.protocol = BSF_FEED_DIAMETER, .payload = "abcd",
                                 .payload_len = n};
        json_t *doc = encode(&rec, &meta1);
        assert_string_equal(str(doc, "payload"), expect[n]);
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
    json_t *doc = encode(&rec, &meta1);
    const char *got =
        json_string_value(json_array_get(json_array_get(json_object_get(doc, "headers"), 0), 1));
    assert_string_equal(got, "a\"b\\c\n\t\x01 caf\xc3\xa9 \xf0\x9f\x98\x80 bad\xc3\xbf end");
    assert_string_equal(str(doc, "path"), "/p\"q");
    json_decref(doc);
}

static void binary_sbi_payload_is_base64(void **state)
{
    (void)state;
    const char body[] = "\xc0\x80"; /* overlong: not UTF-8 */
    bsf_feed_record_t rec = {.protocol = BSF_FEED_SBI, .payload = body, .payload_len = 2};
    json_t *doc = encode(&rec, &meta1);
    assert_string_equal(str(doc, "payloadEncoding"), "base64");
    assert_string_equal(str(doc, "payload"), "wIA=");
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

/* ---- copies and their bounds ----------------------------------------------------------- */

static bsf_feed_snapshot_t *copy_of(const bsf_feed_record_t *rec, bool copy, size_t max_payload)
{
    size_t bytes = bsf_feed_snapshot_size(rec, copy, max_payload);
    void *mem = malloc(bytes);
    assert_non_null(mem);
    return bsf_feed_snapshot_write(rec, copy, max_payload, mem, bytes);
}

static void snapshot_copies_everything(void **state)
{
    (void)state;
    char method[] = "PATCH", path[] = "/x", hname[] = "a", hval[] = "b", payload[] = "{}";
    bsf_feed_header_t h[] = {{hname, hval}};
    bsf_feed_record_t rec = {.protocol = BSF_FEED_SBI, .kind = BSF_FEED_RESPONSE, .status = 200,
                             .transaction_id = 9, .method = method, .path = path,
                             .headers = h, .n_headers = 1, .payload = payload,
                             .payload_len = 2};
    bsf_feed_snapshot_t *s = copy_of(&rec, true, 1024);
    assert_int_equal(s->bytes, bsf_feed_snapshot_size(&rec, true, 1024));
    memset(method, 'X', 5); /* the copy does not depend on the caller's memory */
    memset(hval, 'X', 1);
    memset(payload, 'X', 2);
    assert_string_equal(s->rec.method, "PATCH");
    assert_string_equal(s->rec.path, "/x");
    assert_string_equal(s->rec.headers[0].name, "a");
    assert_string_equal(s->rec.headers[0].value, "b");
    assert_memory_equal(s->rec.payload, "{}", 2);
    assert_int_equal(s->rec.status, 200);
    assert_int_equal(s->rec.transaction_id, 9);
    assert_null(s->rec.local);
    assert_false(s->truncated);
    assert_int_equal(s->payload_len, 2);
    free(s);

    s = copy_of(&rec, false, 1024); /* copyPayload off */
    assert_null(s->rec.payload);
    assert_int_equal(s->rec.payload_len, 0);
    assert_int_equal(s->payload_len, 2);
    assert_false(s->truncated);
    free(s);
}

static void snapshot_bounds(void **state)
{
    (void)state;
    size_t long_len = BSF_FEED_MAX_STRING + 100;
    char *long_value = malloc(long_len + 1);
    memset(long_value, 'v', long_len);
    long_value[long_len] = '\0';
    bsf_feed_header_t h[BSF_FEED_MAX_HEADERS + 5];
    for (size_t i = 0; i < BSF_FEED_MAX_HEADERS + 5; i++)
        h[i] = (bsf_feed_header_t){"n", "v"};
    char payload[1000];
    memset(payload, 'p', sizeof payload);
    bsf_feed_record_t rec = {.protocol = BSF_FEED_SBI, .path = long_value, .headers = h,
                             .n_headers = BSF_FEED_MAX_HEADERS + 5, .payload = payload,
                             .payload_len = sizeof payload};
    bsf_feed_snapshot_t *s = copy_of(&rec, true, 300);
    assert_int_equal(strlen(s->rec.path), BSF_FEED_MAX_STRING);
    assert_int_equal(s->rec.n_headers, BSF_FEED_MAX_HEADERS);
    assert_int_equal(s->headers_dropped, 5);
    assert_int_equal(s->rec.payload_len, 300);
    assert_int_equal(s->payload_len, sizeof payload);
    assert_true(s->truncated);
    assert_true(s->bytes < sizeof *s + BSF_FEED_MAX_STRING + 300 + BSF_FEED_MAX_HEADERS * 24);
    bsf_feed_meta_t meta = {1, 1, s->payload_len, s->headers_dropped, s->truncated};
    json_t *doc = encode(&s->rec, &meta);
    assert_int_equal(num(doc, "headersDropped"), 5);
    assert_int_equal(num(doc, "payloadLength"), 1000);
    assert_int_equal(strlen(str(doc, "payload")), 300);
    assert_true(json_is_true(json_object_get(doc, "truncated")));
    json_decref(doc);
    free(s);
    free(long_value);
}

/* ---- the queue --------------------------------------------------------------------------- */

static bool push(bsf_feed_queue_t *q, void *item)
{
    bsf_feed_ticket_t t;
    if (!bsf_feed_queue_reserve(q, &t))
        return false;
    bsf_feed_queue_publish(q, &t, item);
    return true;
}

static void *pop(bsf_feed_queue_t *q)
{
    void *item;
    if (!bsf_feed_queue_peek(q, &item))
        return NULL;
    bsf_feed_queue_release(q);
    return item;
}

static void queue_bounded_fifo(void **state)
{
    (void)state;
    bsf_feed_queue_t q;
    int items[64];
    assert_int_equal(bsf_feed_queue_init(&q, 5, 100), 0); /* not a power of two on purpose */
    assert_int_equal(q.cell_bytes, 128);
    size_t next_in = 0, next_out = 0;
    for (int lap = 0; lap < 7; lap++) {
        while (push(&q, &items[next_in % 64]))
            next_in++;
        assert_int_equal(bsf_feed_queue_depth(&q), 5);
        for (int k = 0; k < 3; k++) {
            assert_ptr_equal(pop(&q), &items[next_out % 64]);
            next_out++;
        }
        assert_int_equal(bsf_feed_queue_depth(&q), 2);
    }
    while (pop(&q))
        next_out++;
    assert_int_equal(next_in, next_out);
    assert_null(pop(&q));
    assert_int_equal(bsf_feed_queue_depth(&q), 0);

    /* Cells: each reserved position has its own; a reserved, unpublished position holds the
     * consumer back; a NULL item is still a position. */
    bsf_feed_ticket_t a, b;
    assert_true(bsf_feed_queue_reserve(&q, &a));
    assert_true(bsf_feed_queue_reserve(&q, &b));
    assert_ptr_not_equal(a.cell, b.cell);
    assert_true(bsf_feed_queue_owns(&q, a.cell) && bsf_feed_queue_owns(&q, b.cell));
    assert_false(bsf_feed_queue_owns(&q, items));
    memset(a.cell, 'a', q.cell_bytes);
    memset(b.cell, 'b', q.cell_bytes);
    bsf_feed_queue_publish(&q, &b, b.cell);
    void *item;
    assert_false(bsf_feed_queue_peek(&q, &item)); /* a comes first and is not published */
    bsf_feed_queue_publish(&q, &a, NULL);
    assert_true(bsf_feed_queue_peek(&q, &item));
    assert_null(item);
    bsf_feed_queue_release(&q);
    assert_true(bsf_feed_queue_peek(&q, &item));
    assert_ptr_equal(item, b.cell);
    assert_int_equal(((char *)item)[q.cell_bytes - 1], 'b');
    bsf_feed_queue_release(&q);
    assert_false(bsf_feed_queue_peek(&q, &item));
    bsf_feed_queue_destroy(&q);
    assert_int_equal(bsf_feed_queue_init(&q, 0, 64), -1);
}

#define PRODUCERS 4
#define PER_PRODUCER 50000

typedef struct {
    bsf_feed_queue_t *q;
    uintptr_t base;
    size_t pushed;
} producer_arg_t;

static void *producer(void *p)
{
    producer_arg_t *a = p;
    for (uintptr_t i = 1; i <= PER_PRODUCER; i++)
        if (push(a->q, (void *)(a->base + i)))
            a->pushed++;
    return NULL;
}

typedef struct {
    bsf_feed_queue_t *q;
    atomic_bool done;
    size_t popped;
    bool in_order;
} consumer_arg_t;

/* Each producer's items must come out in its order; nothing lost, nothing twice. */
static void *consumer(void *p)
{
    consumer_arg_t *a = p;
    uintptr_t last[PRODUCERS] = {0};
    for (;;) {
        bool done = atomic_load(&a->done); /* read before the pop: no item is missed */
        void *item = pop(a->q);
        if (!item) {
            if (done)
                return NULL;
            continue;
        }
        uintptr_t v = (uintptr_t)item;
        int t = (int)(v >> 32) - 1;
        if (t < 0 || t >= PRODUCERS || (v & 0xffffffffu) <= last[t])
            a->in_order = false;
        else
            last[t] = v & 0xffffffffu;
        a->popped++;
    }
}

static void queue_concurrent(void **state)
{
    (void)state;
    bsf_feed_queue_t q;
    assert_int_equal(bsf_feed_queue_init(&q, 1000, 0), 0);
    consumer_arg_t c = {&q, false, 0, true};
    pthread_t consumer_thread, threads[PRODUCERS];
    producer_arg_t args[PRODUCERS];
    assert_int_equal(pthread_create(&consumer_thread, NULL, consumer, &c), 0);
    for (int t = 0; t < PRODUCERS; t++) {
        args[t] = (producer_arg_t){&q, (uintptr_t)(t + 1) << 32, 0};
        assert_int_equal(pthread_create(&threads[t], NULL, producer, &args[t]), 0);
    }
    size_t pushed = 0;
    for (int t = 0; t < PRODUCERS; t++) {
        pthread_join(threads[t], NULL);
        pushed += args[t].pushed;
    }
    atomic_store(&c.done, true);
    pthread_join(consumer_thread, NULL);
    assert_true(c.in_order);
    assert_int_equal(c.popped, pushed);
    assert_true(pushed > 0);
    assert_int_equal(bsf_feed_queue_depth(&q), 0);
    bsf_feed_queue_destroy(&q);
}

/* ---- settings ---------------------------------------------------------------------------- */

static bsf_feed_settings_t settings(void)
{
    bsf_feed_settings_t s = {.enabled = true, .topic = "bsf.feed", .copy_payload = true,
                             .queue_capacity = 1024, .queue_max_mb = 16,
                             .max_payload_bytes = 65536, .message_timeout_ms = 5000,
                             .flush_timeout_ms = 2000};
    snprintf(s.brokers, sizeof s.brokers, "127.0.0.1:9");
    return s;
}

static void settings_checks(void **state)
{
    (void)state;
    char err[256];
    bsf_feed_settings_t s = settings();
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), 0);
    snprintf(s.topic, sizeof s.topic, "a/b");
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "feed.topic"));
    s = settings();
    s.brokers[0] = '\0';
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "feed.brokers"));
    s.enabled = false; /* not needed when off */
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), 0);
    s = settings();
    snprintf(s.client_properties, sizeof s.client_properties, "linger.ms=10\nacks=1");
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "feed.client_properties"));
    snprintf(s.client_properties, sizeof s.client_properties, "no.such.property=1");
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), -1);
    snprintf(s.client_properties, sizeof s.client_properties, "linger.ms");
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), -1);
    snprintf(s.client_properties, sizeof s.client_properties,
             "linger.ms=10\ncompression.codec=lz4");
    assert_int_equal(bsf_feed_settings_check(&s, err, sizeof err), 0);
}

/* ---- a feed on librdkafka's mock cluster ------------------------------------------------- */

static unsigned long long metric(bsf_feed_t *feed, const char *line_start)
{
    bsf_text_t t = {0};
    bsf_feed_write_metrics(feed, &t);
    char line[160];
    snprintf(line, sizeof line, "\n%s", line_start); /* a sample, not its # HELP line */
    const char *p = strstr(t.data, line);
    unsigned long long v = p ? strtoull(p + strlen(line), NULL, 10) : ~0ull;
    bsf_text_free(&t);
    return v;
}

static unsigned long long wait_metric(bsf_feed_t *feed, const char *line_start,
                                      unsigned long long want)
{
    unsigned long long v = 0;
    for (int i = 0; i < 1000 && (v = metric(feed, line_start)) != want; i++)
        usleep(10000);
    return v;
}

static void feed_delivers_to_mock_cluster(void **state)
{
    (void)state;
    bsf_feed_settings_t s = settings();
    snprintf(s.client_properties, sizeof s.client_properties, "test.mock.num.brokers=1");
    s.ack_required = true;
    char err[256];
    bsf_feed_t *feed;
    assert_int_equal(bsf_feed_create(&s, 3, &feed, err, sizeof err), 0);
    static char big[5000]; /* larger than a queue cell: allocated */
    memset(big, 'x', sizeof big);
    bsf_feed_record_t rec = {.protocol = BSF_FEED_SBI, .method = "GET", .path = "/"};
    for (int i = 0; i < 100; i++) {
        rec.transaction_id = bsf_feed_transaction_id(feed);
        rec.kind = i % 2 ? BSF_FEED_RESPONSE : BSF_FEED_REQUEST;
        rec.payload = i % 10 ? NULL : big;
        rec.payload_len = i % 10 ? 0 : sizeof big;
        assert_true(bsf_feed_offer(feed, &rec));
    }
    assert_int_equal(wait_metric(feed, "bsf_feed_sent_total ", 100), 100);
    assert_int_equal(metric(feed, "bsf_feed_produced_total "), 100);
    assert_int_equal(metric(feed, "bsf_feed_offered_total{protocol=\"sbi\",direction=\"ingress\","
                                  "kind=\"request\"} "),
                     50);
    assert_int_equal(metric(feed, "bsf_feed_dropped_total{reason=\"queue_full\"} "), 0);
    assert_int_equal(metric(feed, "bsf_feed_queue_depth "), 0);
    assert_int_equal(metric(feed, "bsf_feed_queue_overflow_bytes "), 0);
    assert_true(metric(feed, "bsf_feed_produced_bytes_total ") > 10 * sizeof big);
    bsf_feed_destroy(feed);
}

static void feed_drops_when_full(void **state)
{
    (void)state;
    /* No broker at all: records pile up in the client until its queue is full. */
    bsf_feed_settings_t s = settings();
    s.queue_capacity = 16;
    s.flush_timeout_ms = 0;
    char err[256];
    bsf_feed_t *feed;
    assert_int_equal(bsf_feed_create(&s, 3, &feed, err, sizeof err), 0);
    bsf_feed_record_t rec = {.protocol = BSF_FEED_DIAMETER, .command_code = 265};
    size_t queued = 0;
    for (int i = 0; i < 2000; i++)
        queued += bsf_feed_offer(feed, &rec);
    assert_true(queued < 2000);
    unsigned long long dropped = 0;
    const char *reasons[] = {"queue_full", "client_queue_full"};
    /* Every record is either produced or dropped once the feed thread caught up. */
    for (int i = 0; i < 500; i++) {
        dropped = 0;
        for (int r = 0; r < 2; r++) {
            char line[96];
            snprintf(line, sizeof line, "bsf_feed_dropped_total{reason=\"%s\"} ", reasons[r]);
            dropped += metric(feed, line);
        }
        if (dropped + metric(feed, "bsf_feed_produced_total ") == 2000)
            break;
        usleep(10000);
    }
    assert_int_equal(dropped + metric(feed, "bsf_feed_produced_total "), 2000);
    assert_true(metric(feed, "bsf_feed_produced_total ") <= 16);
    assert_int_equal(metric(feed, "bsf_feed_queue_depth "), 0);
    bsf_feed_destroy(feed); /* flush bound 0: the client's records are purged */
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
        cmocka_unit_test(snapshot_copies_everything),
        cmocka_unit_test(snapshot_bounds),
        cmocka_unit_test(queue_bounded_fifo),
        cmocka_unit_test(queue_concurrent),
        cmocka_unit_test(settings_checks),
        cmocka_unit_test(feed_delivers_to_mock_cluster),
        cmocka_unit_test(feed_drops_when_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
