/* feed/feed_snapshot: record copies and their bounds. */
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
#include "feed/feed_snapshot.h"
#include "tests/unit/feed_fixtures.h"

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
    json_t *doc = tf_encode(&s->rec, &meta);
    assert_int_equal(tf_num(doc, "headersDropped"), 5);
    assert_int_equal(tf_num(doc, "payloadLength"), 1000);
    assert_int_equal(strlen(tf_str(doc, "payload")), 300);
    assert_true(json_is_true(json_object_get(doc, "truncated")));
    json_decref(doc);
    free(s);
    free(long_value);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(snapshot_copies_everything),
        cmocka_unit_test(snapshot_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
