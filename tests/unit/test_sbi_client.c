/* The SBI client against a real HTTP/2 server on loopback: tests/peers/h2_peer.py, once
 * with h2c (prior knowledge) and once with TLS (ALPN h2, a certificate made here). */
#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "core/sbi_time.h"
#include "gateways/sbi/sbi_client.h"
#include "tests/unit/sbi_call_fixtures.h"
#include "tests/unit/test_util.h"

#define NF_ID "54804518-4191-46b3-955c-ac631f953ed8"

static char dir[64];
static pid_t peer_h2c, peer_tls;
static int port_h2c, port_tls;

/* ---- the peer ---------------------------------------------------------------------- */

static pid_t start_peer(const char *port_name, bool tls, int *port)
{
    char cert[128], key[128];
    snprintf(cert, sizeof cert, "%s/cert.pem", dir);
    snprintf(key, sizeof key, "%s/key.pem", dir);
    const char *const with_tls[] = {"--cert", cert, "--key", key, NULL};
    pid_t pid = tu_peer_start(BSF_H2_PEER, dir, port_name, tls ? with_tls : NULL, 200, port);
    if (pid > 0)
        return pid;
    fail_msg("the HTTP/2 peer did not start");
    return -1;
}

static int setup(void **state)
{
    (void)state;
    tu_temp_dir(dir, sizeof dir, "test_sbi_client");
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
             "-days 2 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost "
             "-keyout %s/key.pem -out %s/cert.pem 2>/dev/null",
             dir, dir);
    assert_int_equal(system(cmd), 0);
    peer_h2c = start_peer("port.h2c", false, &port_h2c);
    peer_tls = start_peer("port.tls", true, &port_tls);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    pid_t peers[] = {peer_h2c, peer_tls};
    return tu_peers_stop(peers, 2, dir);
}

static bsf_sbi_client_t *client(unsigned max_conns, uint32_t max_streams)
{
    bsf_sbi_client_config_t cfg = {.nf_instance_id = NF_ID, .fqdn = "bsf1.example",
                                   .max_connections = max_conns, .max_streams = max_streams,
                                   .max_body_bytes = 64 * 1024, .tls_verify = true};
    char ca[128], err[200];
    snprintf(ca, sizeof ca, "%s/cert.pem", dir);
    cfg.tls_ca_file = ca;
    bsf_sbi_client_t *cl = NULL;
    if (bsf_sbi_client_start(&cfg, &cl, err, sizeof err))
        fail_msg("start: %s", err);
    return cl;
}

/* cmocka setup and teardown of the tests that use the usual client (2 connections of 16
 * streams): it is the test's state, and it is stopped even when the test fails. */
static int usual_client_start(void **state)
{
    *state = client(2, 16);
    return 0;
}

static int usual_client_stop(void **state)
{
    bsf_sbi_client_stop(*state);
    return 0;
}

static char uri_buf[8][256];
static const char *uri(int port, const char *path)
{
    static int i;
    char *u = uri_buf[i++ % 8];
    snprintf(u, 256, "http://127.0.0.1:%d%s", port, path);
    return u;
}

static bsf_sbi_request_t get(const char *u)
{
    return (bsf_sbi_request_t){.method = "GET", .uri = u, .priority = -1, .timeout_ms = 3000};
}

static const bsf_sbi_retry_profile_t no_retry = {0};

/* A GET of `path` at the h2c peer (get()'s options), waited for. */
static void run_get(bsf_sbi_client_t *cl, const char *path, sc_call_t *c)
{
    bsf_sbi_request_t q = get(uri(port_h2c, path));
    sc_call_run(cl, &q, c);
}

/* ---- tests ------------------------------------------------------------------------- */

static const char *echoed(json_t *root, const char *name)
{
    json_t *h;
    size_t i;
    json_array_foreach(json_object_get(root, "headers"), i, h)
    {
        if (strcmp(json_string_value(json_array_get(h, 0)), name) == 0)
            return json_string_value(json_array_get(h, 1));
    }
    return NULL;
}

static void headers_sent(void **state)
{
    bsf_sbi_client_t *cl = *state;
    bsf_sbi_request_t q = {.method = "PUT", .uri = uri(port_h2c, "/echo"),
                           .content_type = "application/json", .body = "{\"a\":1}",
                           .body_len = 7, .timeout_ms = 2500, .priority = 7,
                           .correlation_info = "imsi-001010000000001",
                           .callback = "Nbsf_Management_Notify", .routing_binding = "bl=nfset",
                           .binding = "bl=nfinstance; nfinst=x", .n_headers = 1,
                           .headers = {{"x-extra", "yes"}}};
    sc_call_t c;
    uint64_t before = bsf_clock_wall_ms();
    sc_call_run(cl, &q, &c);
    assert_int_equal(c.result, BSF_SBI_OK);
    assert_int_equal(c.status, 200);
    assert_true(c.on_client_thread);
    json_t *root = json_loads(c.body, 0, NULL);
    assert_non_null(root);
    assert_string_equal(echoed(root, ":method"), "PUT");
    assert_string_equal(echoed(root, ":scheme"), "http");
    assert_string_equal(echoed(root, ":path"), "/echo");
    assert_string_equal(echoed(root, "user-agent"), "BSF-" NF_ID " bsf1.example");
    const char *ts = echoed(root, "3gpp-sbi-sender-timestamp");
    assert_non_null(ts);
    int64_t t = bsf_sbi_time_parse(ts, strlen(ts));
    assert_true(t >= (int64_t)before - 1 && t <= (int64_t)bsf_clock_wall_ms());
    int max_rsp = atoi(echoed(root, "3gpp-sbi-max-rsp-time"));
    assert_true(max_rsp > 2000 && max_rsp <= 2500);
    assert_string_equal(echoed(root, "3gpp-sbi-message-priority"), "7");
    assert_string_equal(echoed(root, "3gpp-sbi-correlation-info"), "imsi-001010000000001");
    assert_string_equal(echoed(root, "3gpp-sbi-callback"), "Nbsf_Management_Notify");
    assert_string_equal(echoed(root, "3gpp-sbi-routing-binding"), "bl=nfset");
    assert_string_equal(echoed(root, "3gpp-sbi-binding"), "bl=nfinstance; nfinst=x");
    assert_null(echoed(root, "3gpp-sbi-target-apiroot"));
    assert_string_equal(echoed(root, "content-type"), "application/json");
    assert_string_equal(echoed(root, "content-length"), "7");
    assert_string_equal(echoed(root, "x-extra"), "yes");
    assert_string_equal(json_string_value(json_object_get(root, "body")), "{\"a\":1}");
    json_decref(root);
}

static void through_scp(void **state)
{
    bsf_sbi_client_t *cl = *state;
    char scp[64];
    snprintf(scp, sizeof scp, "http://127.0.0.1:%d", port_h2c);
    bsf_sbi_request_t q = get("http://nrf.example:8080/echo");
    q.scp_uri = scp;
    sc_call_t c;
    sc_call_run(cl, &q, &c);
    assert_int_equal(c.status, 200);
    json_t *root = json_loads(c.body, 0, NULL);
    assert_string_equal(echoed(root, "3gpp-sbi-target-apiroot"), "http://nrf.example:8080");
    char auth[32];
    snprintf(auth, sizeof auth, "127.0.0.1:%d", port_h2c);
    assert_string_equal(echoed(root, ":authority"), auth);
    assert_string_equal(echoed(root, ":path"), "/echo");
    json_decref(root);
}

static void connection_reused(void **state)
{
    (void)state;
    bsf_sbi_client_t *cl = client(4, 16);
    char first[16] = "";
    for (int i = 0; i < 20; i++) {
        sc_call_t c;
        bsf_sbi_request_t q = get(uri(port_h2c, "/echo"));
        sc_call_run(cl, &q, &c);
        assert_int_equal(c.status, 200);
        if (i == 0)
            snprintf(first, sizeof first, "%s", c.conn);
        assert_string_equal(c.conn, first);
    }
    bsf_sbi_client_stop(cl);
}

/* 6 slow requests, 1 connection of 2 streams: three rounds, one connection. */
static void streams_bounded(void **state)
{
    (void)state;
    bsf_sbi_client_t *cl = client(1, 2);
    sc_call_t c[6];
    uint64_t t0 = bsf_clock_mono_ns();
    for (int i = 0; i < 6; i++) {
        bsf_sbi_request_t q = get(uri(port_h2c, "/delay/300/echo"));
        sc_call_submit(cl, &q, &c[i]);
    }
    for (int i = 0; i < 6; i++) {
        sc_call_wait(&c[i]);
        assert_int_equal(c[i].status, 200);
        assert_string_equal(c[i].conn, c[0].conn);
    }
    uint64_t ms = (bsf_clock_mono_ns() - t0) / 1000000u;
    assert_true(ms >= 880);
    bsf_sbi_client_stop(cl);
}

/* 4 slow requests, 1 stream per connection, at most 2 connections. */
static void connections_bounded(void **state)
{
    (void)state;
    bsf_sbi_client_t *cl = client(2, 1);
    sc_call_t c[4];
    for (int i = 0; i < 4; i++) {
        bsf_sbi_request_t q = get(uri(port_h2c, "/delay/200/echo"));
        sc_call_submit(cl, &q, &c[i]);
    }
    char seen[4][16];
    int distinct = 0;
    for (int i = 0; i < 4; i++) {
        sc_call_wait(&c[i]);
        assert_int_equal(c[i].status, 200);
        bool known = false;
        for (int j = 0; j < distinct; j++)
            known = known || strcmp(seen[j], c[i].conn) == 0;
        if (!known)
            snprintf(seen[distinct++], 16, "%s", c[i].conn);
    }
    assert_int_equal(distinct, 2);
    bsf_sbi_client_stop(cl);
}

static void deadline(void **state)
{
    bsf_sbi_client_t *cl = *state;
    bsf_sbi_request_t q = get(uri(port_h2c, "/delay/2000/status/200"));
    q.timeout_ms = 300;
    q.retry = &no_retry;
    sc_call_t c;
    uint64_t t0 = bsf_clock_mono_ns();
    sc_call_run(cl, &q, &c);
    uint64_t ms = (bsf_clock_mono_ns() - t0) / 1000000u;
    assert_int_equal(c.result, BSF_SBI_ERR_TIMEOUT);
    assert_true(ms >= 290 && ms < 1000);
    /* per-attempt timeout with retries: two attempts of 200 ms within a 1 s deadline */
    bsf_sbi_retry_profile_t p = bsf_sbi_retry_default;
    p.max_retries = 1;
    p.attempt_timeout_ms = 200;
    q.retry = &p;
    q.timeout_ms = 1000;
    sc_call_run(cl, &q, &c);
    assert_int_equal(c.result, BSF_SBI_ERR_TIMEOUT);
    assert_int_equal(c.attempts, 2);
}

static void retries(void **state)
{
    bsf_sbi_client_t *cl = *state;
    sc_call_t c;
    run_get(cl, "/flaky/r1/2", &c);
    assert_int_equal(c.status, 200);
    assert_int_equal(c.attempts, 3);
    run_get(cl, "/flaky/r2/5", &c);
    assert_int_equal(c.status, 503);
    assert_int_equal(c.attempts, 3);
    assert_true(c.has_problem);
    assert_string_equal(c.problem.cause, "NF_CONGESTION");
    run_get(cl, "/status/404", &c);
    assert_int_equal(c.status, 404);
    assert_int_equal(c.attempts, 1);
    assert_true(c.has_problem);
    assert_int_equal(c.problem.status, 404);
    /* Retry-After: 1 s is waited for */
    bsf_sbi_retry_profile_t p = bsf_sbi_retry_default;
    p.max_retries = 1;
    bsf_sbi_request_t q = get(uri(port_h2c, "/status/503?retry-after=1"));
    q.retry = &p;
    uint64_t t0 = bsf_clock_mono_ns();
    sc_call_run(cl, &q, &c);
    assert_int_equal(c.status, 503);
    assert_int_equal(c.attempts, 2);
    assert_true((bsf_clock_mono_ns() - t0) / 1000000u >= 990);
}

static void redirects(void **state)
{
    bsf_sbi_client_t *cl = *state;
    sc_call_t c;
    run_get(cl, "/redirect/307/2", &c);
    if (c.result != BSF_SBI_OK)
        fail_msg("result %d: %s", c.result, c.error);
    assert_int_equal(c.status, 200);
    assert_int_equal(c.redirects, 2);
    assert_string_equal(c.body, "{\"redirected\":true}");
    run_get(cl, "/redirect/308/5", &c);
    assert_int_equal(c.result, BSF_SBI_ERR_REDIRECTS);
    assert_int_equal(c.redirects, 3);
}

static void failures(void **state)
{
    bsf_sbi_client_t *cl = *state;
    sc_call_t c;
    /* nobody listens on port 1 */
    bsf_sbi_request_t q = get("http://127.0.0.1:1/x");
    sc_call_run(cl, &q, &c);
    assert_int_equal(c.result, BSF_SBI_ERR_CONNECT);
    assert_int_equal(c.attempts, 3);
    run_get(cl, "/reset", &c);
    assert_int_equal(c.result, BSF_SBI_ERR_PROTOCOL);
    run_get(cl, "/big/100000", &c); /* more than max_body_bytes */
    assert_int_equal(c.result, BSF_SBI_ERR_PROTOCOL);
    run_get(cl, "/big/60000", &c);
    assert_int_equal(c.status, 200);
    assert_int_equal(c.body_len, 60000);
    run_get(cl, "/goaway", &c);
    assert_int_equal(c.result, BSF_SBI_ERR_CONNECT);
    run_get(cl, "/echo", &c); /* a new connection after the GOAWAY */
    assert_int_equal(c.status, 200);
}

static void submit_errors(void **state)
{
    (void)state;
    bsf_sbi_client_t *cl = client(2, 16);
    char err[160];
    sc_call_t c;
    sc_call_init(&c);
    bsf_sbi_request_t q = get("ftp://x/");
    assert_int_equal(bsf_sbi_client_submit(cl, &q, sc_call_done, &c, err, sizeof err), -1);
    q = get(uri(port_h2c, "/echo"));
    q.priority = 32;
    assert_int_equal(bsf_sbi_client_submit(cl, &q, sc_call_done, &c, err, sizeof err), -1);
    q.priority = -1;
    q.correlation_info = "imsi-1\r\nx: y";
    assert_int_equal(bsf_sbi_client_submit(cl, &q, sc_call_done, &c, err, sizeof err), -1);
    /* a slow request in flight when the client stops completes with STOPPED */
    q = get(uri(port_h2c, "/delay/5000/echo"));
    q.timeout_ms = 10000;
    sc_call_t slow;
    sc_call_submit(cl, &q, &slow);
    usleep(100000);
    bsf_sbi_client_stop(cl);
    assert_int_equal(slow.done, 1);
    assert_int_equal(slow.calls, 1);
    assert_int_equal(slow.result, BSF_SBI_ERR_STOPPED);
    assert_int_equal(c.calls, 0); /* refused submits never call back */
}

static void tls(void **state)
{
    (void)state;
    bsf_sbi_client_t *cl = client(2, 16);
    sc_call_t c;
    char u[128];
    snprintf(u, sizeof u, "https://127.0.0.1:%d/echo", port_tls);
    bsf_sbi_request_t q = get(u);
    sc_call_run(cl, &q, &c);
    assert_int_equal(c.result, BSF_SBI_OK);
    assert_int_equal(c.status, 200);
    json_t *root = json_loads(c.body, 0, NULL);
    assert_string_equal(echoed(root, ":scheme"), "https");
    json_decref(root);
    char first[16];
    snprintf(first, sizeof first, "%s", c.conn);
    sc_call_run(cl, &q, &c);
    assert_string_equal(c.conn, first);
    snprintf(u, sizeof u, "https://localhost:%d/big/60000", port_tls);
    q = get(u); /* by name: another authority, another connection, SNI and name check */
    sc_call_run(cl, &q, &c);
    assert_int_equal(c.status, 200);
    assert_int_equal(c.body_len, 60000);
    bsf_sbi_client_stop(cl);
    /* a client that does not trust the certificate */
    bsf_sbi_client_config_t cfg = {.nf_instance_id = NF_ID, .tls_verify = true,
                                   .tls_ca_file = "/etc/ssl/certs/ca-certificates.crt"};
    char err[200];
    assert_int_equal(bsf_sbi_client_start(&cfg, &cl, err, sizeof err), 0);
    q.retry = &no_retry;
    sc_call_run(cl, &q, &c);
    assert_int_equal(c.result, BSF_SBI_ERR_CONNECT);
    assert_non_null(strstr(c.error, "certificate"));
    /* h2c to a TLS port does not hang past the deadline */
    snprintf(u, sizeof u, "http://127.0.0.1:%d/echo", port_tls);
    q = get(u);
    q.retry = &no_retry;
    q.timeout_ms = 1000;
    sc_call_run(cl, &q, &c);
    assert_true(c.result == BSF_SBI_ERR_CONNECT || c.result == BSF_SBI_ERR_TIMEOUT);
    bsf_sbi_client_stop(cl);
}

typedef struct {
    atomic_int ran, stopped, on_thread;
    uint64_t at_ns;
} post_probe_t;

static void on_post(void *arg, bool stopped)
{
    post_probe_t *p = arg;
    char name[32] = "";
    pthread_getname_np(pthread_self(), name, sizeof name);
    p->on_thread = strcmp(name, "bsf-sbi-client") == 0;
    p->at_ns = bsf_clock_mono_ns();
    if (stopped)
        p->stopped++;
    else
        p->ran++;
}

/* Timers on the client thread: run once after the delay; at stop, pending ones run with
 * stopped = true; after stop, posting is refused. */
static void posts(void **state)
{
    (void)state;
    bsf_sbi_client_t *cl = client(1, 1);
    post_probe_t soon = {0}, later = {0};
    uint64_t t0 = bsf_clock_mono_ns();
    assert_int_equal(bsf_sbi_client_post(cl, 200, on_post, &soon), 0);
    assert_int_equal(bsf_sbi_client_post(cl, 60000, on_post, &later), 0);
    while (!soon.ran)
        usleep(10000);
    assert_true((soon.at_ns - t0) / 1000000u >= 195);
    assert_true(soon.on_thread);
    bsf_sbi_client_stop(cl);
    assert_int_equal(soon.ran, 1);
    assert_int_equal(soon.stopped, 0);
    assert_int_equal(later.ran, 0);
    assert_int_equal(later.stopped, 1);
}

/* A path the h2c peer answers with 200 and an OCI of `metric` % (Validity 60 s, NF instance
 * "x") of the URL-encoded timestamp `ts`, into `path` (`cap` bytes). */
static void oci_path(char *path, size_t cap, const char *ts, int metric)
{
    snprintf(path, cap,
             "/status/200?oci=Timestamp%%3A%%20%%22%s%%22%%3B%%20Validity%%3A%%2060%%3B%%20"
             "Metric%%3A%%20%d%%25%%3B%%20NFInst%%3A%%20x",
             ts, metric);
}

/* TS 29.500 §6.4: a producer's OCI of 50 % drops every other request to it (Loss), as if
 * refused; an OCI with the same timestamp is discarded; a newer one with 0 % ends it. */
static void overload_control(void **state)
{
    (void)state;
    bsf_sbi_client_t *cl = client(1, 16);
    char path[320];
    const char *ts = "Tue%2C%2004%20Feb%202020%2008%3A49%3A37.845%20GMT";
    oci_path(path, sizeof path, ts, 50);
    bsf_sbi_request_t q = get(uri(port_h2c, path));
    sc_call_t c;
    sc_call_run(cl, &q, &c);
    assert_int_equal(c.result, BSF_SBI_OK);
    int dropped = 0, answered = 0;
    for (int i = 0; i < 20; i++) {
        q = get(uri(port_h2c, "/status/200"));
        sc_call_run(cl, &q, &c);
        dropped += c.result == BSF_SBI_ERR_OVERLOAD;
        answered += c.result == BSF_SBI_OK;
    }
    assert_int_equal(dropped, 10);
    assert_int_equal(answered, 10);
    bsf_sbi_client_stats_t st;
    bsf_sbi_client_stats(cl, &st);
    assert_int_equal(st.throttled, 10);
    /* the same timestamp with 0 %: discarded, the 50 % still applies */
    oci_path(path, sizeof path, ts, 0);
    q = get(uri(port_h2c, path));
    do
        sc_call_run(cl, &q, &c);
    while (c.result == BSF_SBI_ERR_OVERLOAD);
    dropped = 0;
    for (int i = 0; i < 4; i++) {
        q = get(uri(port_h2c, "/status/200"));
        sc_call_run(cl, &q, &c);
        dropped += c.result == BSF_SBI_ERR_OVERLOAD;
    }
    assert_int_equal(dropped, 2);
    /* a newer OCI with 0 %: the overload ceased */
    const char *later = "Tue%2C%2004%20Feb%202020%2008%3A49%3A38.000%20GMT";
    oci_path(path, sizeof path, later, 0);
    q = get(uri(port_h2c, path));
    do
        sc_call_run(cl, &q, &c);
    while (c.result == BSF_SBI_ERR_OVERLOAD);
    for (int i = 0; i < 10; i++) {
        q = get(uri(port_h2c, "/status/200"));
        sc_call_run(cl, &q, &c);
        assert_int_equal(c.result, BSF_SBI_OK);
    }
    bsf_sbi_client_stop(cl);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(headers_sent, usual_client_start, usual_client_stop),
        cmocka_unit_test_setup_teardown(through_scp, usual_client_start, usual_client_stop),
        cmocka_unit_test(connection_reused),
        cmocka_unit_test(streams_bounded),
        cmocka_unit_test(connections_bounded),
        cmocka_unit_test_setup_teardown(deadline, usual_client_start, usual_client_stop),
        cmocka_unit_test_setup_teardown(retries, usual_client_start, usual_client_stop),
        cmocka_unit_test_setup_teardown(redirects, usual_client_start, usual_client_stop),
        cmocka_unit_test_setup_teardown(failures, usual_client_start, usual_client_stop),
        cmocka_unit_test(submit_errors),
        cmocka_unit_test(tls),
        cmocka_unit_test(posts),
        cmocka_unit_test(overload_control),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
