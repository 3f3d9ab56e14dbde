/* CPU per shed SBI request (issue 14 §1: <= 1 us), measured two ways on one thread:
 *   decision  the admission decision alone, as the server makes it at header completion
 *             (priority header among 8 request headers, the shared state, the discard);
 *   server    whole requests through the HTTP/2 server's real code path
 *             (bsf_h2_server_feed_for_testing: nghttp2 decoding, request assembly, the admit
 *             hook, the 503 ProblemDetails answer encoded and written), CONGESTED versus an
 *             admitted request answered at once with an empty 204 (the same path without the
 *             admission answer), so that the difference is what shedding adds.
 * Usage: admission-bench [requests]   (default 200000) */
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gateways/admission/admission.h"
#include "gateways/sbi/h2_server_testing.h"
#include "gateways/sbi/sbi_admission.h"

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct {
    uint8_t *data;
    size_t len, cap;
} buf_t;

static ssize_t on_send(nghttp2_session *s, const uint8_t *data, size_t len, int flags, void *u)
{
    (void)s;
    (void)flags;
    buf_t *b = u;
    if (b->len + len > b->cap) {
        b->cap = (b->len + len) * 2;
        b->data = realloc(b->data, b->cap);
        if (!b->data)
            abort();
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return (ssize_t)len;
}

/* The client's bytes: preface, SETTINGS and n discovery GETs (HPACK-encoded as a client
 * would, with the dynamic table). */
static buf_t client_bytes(unsigned n)
{
    buf_t b = {0};
    nghttp2_session_callbacks *cbs;
    nghttp2_session_callbacks_new(&cbs);
    nghttp2_session_callbacks_set_send_callback(cbs, on_send);
    nghttp2_session *s;
    nghttp2_option *opt; /* the server's SETTINGS never come back: allow every stream */
    nghttp2_option_new(&opt);
    nghttp2_option_set_peer_max_concurrent_streams(opt, n + 10);
    nghttp2_session_client_new2(&s, cbs, &b, opt);
    nghttp2_option_del(opt);
    nghttp2_submit_settings(s, NGHTTP2_FLAG_NONE, NULL, 0);
    /* a connection window for every answer's DATA, as a real client keeps it open: without
     * it the shed answers' bodies stay queued and their streams open */
    nghttp2_session_set_local_window_size(s, NGHTTP2_FLAG_NONE, 0, 1 << 30);
#define NV(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, sizeof(v) - 1, 0}
    nghttp2_nv nva[] = {NV(":method", "GET"),
                        NV(":scheme", "http"),
                        NV(":authority", "bsf.example:8080"),
                        NV(":path", "/nbsf-management/v1/pcfBindings?ipv4Addr=10.1.2.3"),
                        NV("user-agent", "PCF-54804518-4191-46b3-955c-ac631f953ed8 pcf1"),
                        NV("accept", "application/json"),
                        NV("3gpp-sbi-sender-timestamp", "Tue, 04 Feb 2020 08:49:37.845 GMT"),
                        NV("3gpp-sbi-max-rsp-time", "3000"),
                        NV("3gpp-sbi-correlation-info", "imsi-001010000000001"),
                        NV("3gpp-sbi-message-priority", "20")};
#undef NV
    for (unsigned i = 0; i < n; i++) {
        nghttp2_submit_request(s, NULL, nva, sizeof nva / sizeof nva[0], NULL, NULL);
        if (i % 64 == 63)
            nghttp2_session_send(s);
    }
    nghttp2_session_send(s);
    nghttp2_session_del(s);
    nghttp2_session_callbacks_del(cbs);
    return b;
}

static bool admit(void *ctx, bsf_h2_worker_t *w, bsf_h2_stream_t *s, const bsf_h2_request_t *r)
{
    (void)w;
    return bsf_sbi_admission_check(ctx, s, r);
}

static size_t headers(void *ctx, bsf_h2_header_t *out, size_t cap)
{
    return bsf_sbi_admission_headers(ctx, out, cap);
}

static void answered(void *ctx, const char *method, int status, int answer_priority)
{
    bsf_sbi_admission_answered(ctx, method, status, answer_priority);
}

static void handle(void *ctx, bsf_h2_worker_t *w, bsf_h2_stream_t *s, const bsf_h2_request_t *r)
{
    (void)ctx;
    (void)w;
    (void)r;
    bsf_h2_respond(s, 204, NULL, NULL, 0, NULL, 0);
}

static void reject(void *ctx, bsf_h2_worker_t *w, bsf_h2_stream_t *s, bsf_h2_reject_t why)
{
    (void)ctx;
    (void)w;
    (void)why;
    bsf_h2_respond(s, 400, NULL, NULL, 0, NULL, 0);
}

static void abandon(void *ctx, void *pending)
{
    (void)ctx;
    (void)pending;
}

static size_t one(void *ctx)
{
    return *(size_t *)ctx;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 200000;
    bsf_admission_config_t ac = {.sbi_enabled = true, .sample_count = 1,
                                 .pending = {1, 2, 3, 4},
                                 .shedding = {.discard_priority = {30, 24, 18, 14}},
                                 .op_priority = {15, 20, 16, 20, 20}};
    for (int i = 0; i < 4; i++)
        ac.cpu[i] = ac.memory[i] = UINT32_MAX;
    for (int i = 0; i < 3; i++)
        ac.ov_cpu.onset[i] = ac.ov_cpu.abatement[i] = ac.ov_pending.onset[i] =
            ac.ov_pending.abatement[i] = ac.ov_memory.onset[i] = ac.ov_memory.abatement[i] =
                UINT32_MAX;
    bsf_admission_t *adm = bsf_admission_new(&ac);
    size_t pending = 0;
    bsf_admission_add_resource(adm, "pending", ac.pending, one, &pending);
    bsf_sbi_admission_config_t sc = {.adm = adm, .nf_instance_id =
                                     "54804518-4191-46b3-955c-ac631f953ed8",
                                     .server_header = true, .status = 503,
                                     .cause = "NF_CONGESTION_RISK", .retry_after_s = 1};
    bsf_sbi_admission_t *sa = bsf_sbi_admission_new(&sc);

    /* decision alone, CONGESTED */
    pending = 10;
    bsf_admission_sample(adm, 0, 0);
    bsf_h2_header_t hs[8] = {{"user-agent", "PCF-x pcf1"}, {"accept", "application/json"},
                             {"3gpp-sbi-sender-timestamp", "Tue"}, {"3gpp-sbi-max-rsp-time", "3000"},
                             {"3gpp-sbi-correlation-info", "imsi-1"}, {"x-a", "1"}, {"x-b", "2"},
                             {"3gpp-sbi-message-priority", "20"}};
    unsigned kept = 0;
    double t0 = cpu_s();
    for (unsigned i = 0; i < n * 10; i++) {
        const char *prio = NULL;
        for (int k = 0; k < 8; k++)
            if (strcmp(hs[k].name, "3gpp-sbi-message-priority") == 0)
                prio = hs[k].value;
        kept += bsf_admission_sbi_admit(adm, bsf_admission_sbi_priority(adm, "GET", prio));
    }
    double decision = (cpu_s() - t0) / (n * 10.0);
    if (kept)
        abort();

    buf_t b = client_bytes(n);
    bsf_h2_config_t cfg = {.max_body_bytes = 65536, .max_uri_bytes = 4096,
                           .max_concurrent_streams = n + 10, .max_header_list_bytes = 16384};
    bsf_h2_handler_t h = {.handle = handle, .reject = reject, .abandon = abandon, .ctx = sa,
                          .admit = admit, .response_headers = headers,
                          .answered = answered};
    t0 = cpu_s();
    int rc = bsf_h2_server_feed_for_testing(&cfg, &h, b.data, b.len, 16384);
    double shed = (cpu_s() - t0) / n;
    pending = 0;
    bsf_admission_sample(adm, 0, 0);
    t0 = cpu_s();
    rc |= bsf_h2_server_feed_for_testing(&cfg, &h, b.data, b.len, 16384);
    double served = (cpu_s() - t0) / n;
    bsf_text_t m = {0};
    bsf_admission_write_metrics(adm, &m);
    const char *c = strstr(m.data, "reject_total{state=\"CONGESTED\"} ");
    printf("requests %u, shed counted %s", n, c ? strchr(c, '}') + 2 : "?\n");
    printf("decision alone:                      %.1f ns per request\n", decision * 1e9);
    printf("server, CONGESTED (503 ProblemDetails): %.2f us per request\n", shed * 1e6);
    printf("server, admitted (empty 204 at once):   %.2f us per request\n", served * 1e6);
    printf("(feed rc %d, %zu client bytes)\n", rc, b.len);
    bsf_text_free(&m);
    bsf_sbi_admission_free(sa);
    bsf_admission_free(adm);
    free(b.data);
    return rc ? 1 : 0;
}
