/* libFuzzer target: bytes from an HTTP/2 client into one server connection — the server's
 * nghttp2 session and callbacks, header limits, request assembly (headers and body), the
 * refusals, and a handler that routes the request to the real parsers the Nbsf service uses
 * (discovery query, JSON body) with the store stubbed out. The first input byte chooses how
 * the rest is cut into reads. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/sbi/discovery_query.h"
#include "gateways/sbi/h2_server_testing.h"
#include "gateways/sbi/json_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int pending_token;

static void route(const bsf_h2_request_t *r, bsf_h2_stream_t *s)
{
    const char *q = memchr(r->path, '?', r->path_len);
    msgpack_zone zone;
    msgpack_zone_init(&zone, 2048);
    bsf_problem_t problem;
    int status = 404;
    if (strcmp(r->method, "GET") == 0 && q) {
        bsf_discovery_query_t dq;
        status = bsf_discovery_query_parse(q + 1, r->path_len - (size_t)(q + 1 - r->path), &zone,
                                           &dq, &problem)
                     ? 400
                     : 204;
    } else if (strcmp(r->method, "POST") == 0) {
        msgpack_sbuffer out;
        msgpack_sbuffer_init(&out);
        msgpack_object obj;
        status = bsf_json_to_msgpack(r->body ? r->body : "", r->body_len, &out, &zone, &obj,
                                     &problem)
                     ? 400
                     : 201;
        msgpack_sbuffer_destroy(&out);
    } else if (strcmp(r->method, "DELETE") == 0) {
        /* An answer that comes later: the connection may die first (abandon). */
        bsf_h2_stream_set_pending(s, &pending_token);
        msgpack_zone_destroy(&zone);
        return;
    }
    msgpack_zone_destroy(&zone);
    bsf_h2_header_t h = {"x-headers", r->n_headers ? r->headers[r->n_headers - 1].value : ""};
    bsf_h2_respond(s, status, "application/json", &h, 1, "{}", 2);
}

static void handle(void *ctx, bsf_h2_worker_t *w, bsf_h2_stream_t *s, const bsf_h2_request_t *r)
{
    (void)ctx;
    (void)w;
    if (!r->method || !r->path)
        abort(); /* the server never hands over a request without them */
    for (size_t i = 0; i < r->n_headers; i++)
        if (!r->headers[i].name || !r->headers[i].value)
            abort();
    bsf_h2_stream_info_t info;
    bsf_h2_stream_info(s, &info);
    route(r, s);
}

static void reject(void *ctx, bsf_h2_worker_t *w, bsf_h2_stream_t *s, bsf_h2_reject_t why)
{
    (void)ctx;
    (void)w;
    static const int status[] = {413, 411, 414, 431};
    bsf_h2_respond(s, status[why < 4 ? why : 3], NULL, NULL, 0, NULL, 0);
}

static void abandon(void *ctx, void *pending)
{
    (void)ctx;
    if (pending != &pending_token)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    bsf_h2_config_t cfg = {
        .host = "127.0.0.1",
        .workers = 1,
        .max_body_bytes = 4096,
        .max_uri_bytes = 512,
        .max_concurrent_streams = 16,
        .worker_memory_bytes = 1u << 20,
        .max_header_list_bytes = 2048,
    };
    bsf_h2_handler_t h = {.handle = handle, .reject = reject, .abandon = abandon};
    size_t chunk = data[0] % 4 == 0 ? 0 : (size_t)data[0];
    if (bsf_h2_server_feed_for_testing(&cfg, &h, data + 1, size - 1, chunk) == 1)
        abort(); /* memory still accounted to a closed connection */
    return 0;
}
