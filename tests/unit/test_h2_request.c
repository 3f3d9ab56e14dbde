/* The SBI server's request path without sockets: the memory budget's accounting, and client
 * bytes (from a real nghttp2 client session) through bsf_h2_server_feed_for_testing — header
 * counts and sizes, bodies without content-length, HPACK bombs. */
#include <nghttp2/nghttp2.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/sbi/h2_budget.h"
#include "gateways/sbi/h2_server_testing.h"

typedef struct {
    int handled, rejected, last_reject;
    size_t n_headers, body_len;
    char body[256];
} seen_t;

static void handle(void *ctx, bsf_h2_worker_t *w, bsf_h2_stream_t *s, const bsf_h2_request_t *r)
{
    (void)w;
    seen_t *seen = ctx;
    seen->handled++;
    seen->n_headers = r->n_headers;
    seen->body_len = r->body_len;
    if (r->body_len < sizeof seen->body)
        memcpy(seen->body, r->body ? r->body : "", r->body_len);
    bsf_h2_respond(s, 204, NULL, NULL, 0, NULL, 0);
}

static void reject(void *ctx, bsf_h2_worker_t *w, bsf_h2_stream_t *s, bsf_h2_reject_t why)
{
    (void)w;
    seen_t *seen = ctx;
    seen->rejected++;
    seen->last_reject = (int)why;
    bsf_h2_respond(s, 400, NULL, NULL, 0, NULL, 0);
}

static void abandon(void *ctx, void *pending)
{
    (void)ctx;
    (void)pending;
}

/* ---- client bytes ------------------------------------------------------------------ */

typedef struct {
    uint8_t buf[1 << 18];
    size_t len;
} wire_t;

static void client_bytes(nghttp2_session *cl, wire_t *out)
{
    const uint8_t *data;
    ssize_t n;
    while ((n = nghttp2_session_mem_send(cl, &data)) > 0) {
        assert_true(out->len + (size_t)n <= sizeof out->buf);
        memcpy(out->buf + out->len, data, (size_t)n);
        out->len += (size_t)n;
    }
}

static ssize_t body_read(nghttp2_session *s, int32_t id, uint8_t *buf, size_t length,
                         uint32_t *flags, nghttp2_data_source *src, void *user)
{
    (void)s;
    (void)id;
    (void)user;
    const char *text = src->ptr;
    size_t n = strlen(text) < length ? strlen(text) : length;
    memcpy(buf, text, n);
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

/* One request (`body` NULL: none) with `n_extra` headers of `value_len` bytes each. */
static void request(wire_t *out, const char *method, const char *body, size_t n_extra,
                    size_t value_len)
{
    nghttp2_session_callbacks *cbs;
    nghttp2_session_callbacks_new(&cbs);
    nghttp2_session *cl;
    nghttp2_session_client_new(&cl, cbs, NULL);
    nghttp2_session_callbacks_del(cbs);
    nghttp2_submit_settings(cl, NGHTTP2_FLAG_NONE, NULL, 0);
    static char names[400][16];
    static char value[4096];
    memset(value, 'v', sizeof value);
    nghttp2_nv nva[404];
    size_t n = 0;
#define NV(a, b, bl) nva[n++] = (nghttp2_nv){(uint8_t *)(a), (uint8_t *)(b), strlen(a), bl, 0}
    NV(":method", method, strlen(method));
    NV(":path", "/nbsf-management/v1/pcfBindings", strlen("/nbsf-management/v1/pcfBindings"));
    NV(":scheme", "http", 4);
    NV(":authority", "bsf", 3);
    for (size_t i = 0; i < n_extra && n < 404; i++) {
        snprintf(names[i], sizeof names[i], "x-extra-%zu", i);
        NV(names[i], value, value_len);
    }
#undef NV
    nghttp2_data_provider prd = {.source.ptr = (void *)body, .read_callback = body_read};
    assert_true(nghttp2_submit_request(cl, NULL, nva, n, body ? &prd : NULL, NULL) > 0);
    client_bytes(cl, out);
    nghttp2_session_del(cl);
}

static seen_t feed(const wire_t *w, size_t chunk)
{
    seen_t seen = {0};
    bsf_h2_config_t cfg = {.host = "127.0.0.1", .workers = 1, .max_body_bytes = 4096,
                           .max_uri_bytes = 512, .max_concurrent_streams = 16,
                           .worker_memory_bytes = 1u << 20, .max_header_list_bytes = 16384};
    bsf_h2_handler_t h = {.handle = handle, .reject = reject, .abandon = abandon, .ctx = &seen};
    assert_int_equal(bsf_h2_server_feed_for_testing(&cfg, &h, w->buf, w->len, chunk), 0);
    return seen;
}

/* One request as in request(), fed to a server in `chunk`-byte reads (0: all at once). */
static seen_t send_one(const char *method, const char *body, size_t n_extra, size_t value_len,
                       size_t chunk)
{
    static wire_t w; /* too large for the stack */
    w.len = 0;
    request(&w, method, body, n_extra, value_len);
    return feed(&w, chunk);
}

/* ---- tests ------------------------------------------------------------------------- */

static void budget_accounts_and_returns_to_zero(void **state)
{
    (void)state;
    bsf_h2_budget_t b = {.limit = 1000};
    char *p = bsf_h2_budget_malloc(&b, 100);
    assert_non_null(p);
    assert_true(bsf_h2_budget_used(&b) >= 100);
    assert_false(bsf_h2_budget_over(&b, 1, 1));
    p = bsf_h2_budget_realloc(&b, p, 900);
    assert_true(bsf_h2_budget_over(&b, 7, 8)); /* 900 + prefix > 875 */
    char *q = bsf_h2_budget_calloc(&b, 10, 10);
    assert_true(bsf_h2_budget_over(&b, 1, 1));
    bsf_h2_budget_free(&b, p);
    bsf_h2_budget_free(&b, q);
    bsf_h2_budget_free(&b, NULL);
    assert_int_equal(bsf_h2_budget_used(&b), 0);
    bsf_h2_budget_t unlimited = {0};
    assert_false(bsf_h2_budget_over(&unlimited, 1, 1));
}

static void thirty_three_extra_headers_reach_the_handler(void **state)
{
    (void)state;
    seen_t seen = send_one("GET", NULL, 33, 1, 0);
    assert_int_equal(seen.handled, 1);
    assert_int_equal(seen.rejected, 0);
    assert_int_equal(seen.n_headers, 33);
}

static void too_large_a_header_list_is_refused_as_such(void **state)
{
    (void)state;
    seen_t seen = send_one("GET", NULL, 20, 1000, 0); /* 20 × 1,042 > 16,384 */
    assert_int_equal(seen.handled, 0);
    assert_int_equal(seen.rejected, 1);
    assert_int_equal(seen.last_reject, BSF_H2_REJECT_HEADERS_TOO_LARGE);
}

static void hpack_bomb_is_reset_without_reaching_anyone(void **state)
{
    (void)state;
    /* 1.2 MB of headers: far over 4 × 16 KiB */
    seen_t seen = send_one("GET", NULL, 300, 4000, 1000);
    assert_int_equal(seen.handled, 0);
    assert_int_equal(seen.rejected, 0);
}

static void body_without_content_length_is_read_to_the_end(void **state)
{
    (void)state;
    seen_t seen = send_one("POST", "{\"a\":1}", 0, 0, 5); /* in 5-byte reads */
    assert_int_equal(seen.handled, 1);
    assert_int_equal(seen.body_len, 7);
    assert_memory_equal(seen.body, "{\"a\":1}", 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(budget_accounts_and_returns_to_zero),
        cmocka_unit_test(thirty_three_extra_headers_reach_the_handler),
        cmocka_unit_test(too_large_a_header_list_is_refused_as_such),
        cmocka_unit_test(hpack_bomb_is_reset_without_reaching_anyone),
        cmocka_unit_test(body_without_content_length_is_read_to_the_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
