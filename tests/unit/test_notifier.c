/* gateways/sbi/notifier.c: the hand-off from the engine to the SBI client's thread is bounded
 * (notify.handoff_max): beyond it the oldest items are dropped and counted
 * (bsf_notifications_dropped_total{reason="handoff_full"}), and what stays is sent once a
 * client is there, to a real HTTP/2 peer on loopback (tests/peers/h2_peer.py). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <msgpack.h>

#include "common/text.h"
#include "gateways/sbi/notifier.h"
#include "tests/unit/test_util.h"

static char dir[64];
static pid_t peer;
static int port;

static int setup(void **state)
{
    (void)state;
    tu_temp_dir(dir, sizeof dir, "test_notifier");
    peer = tu_peer_start(BSF_H2_PEER, dir, "port", NULL, 200, &port);
    if (peer > 0)
        return 0;
    fail_msg("the HTTP/2 peer did not start");
    return -1;
}

static int teardown(void **state)
{
    (void)state;
    return tu_peers_stop(&peer, 1, dir);
}

/* One item for subscriber `k` (its own notifUri), a BsfNotification {notifCorreId: k}. */
static bsf_notify_item_t *item(int k)
{
    char uri[128], corre[16];
    snprintf(uri, sizeof uri, "http://127.0.0.1:%d/echo?s=%d", port, k);
    snprintf(corre, sizeof corre, "c%d", k);
    msgpack_sbuffer b;
    msgpack_packer pk;
    msgpack_sbuffer_init(&b);
    msgpack_packer_init(&pk, &b, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 1);
    msgpack_pack_str_with_body(&pk, "notifCorreId", 12);
    msgpack_pack_str_with_body(&pk, corre, strlen(corre));
    const char *supi = "imsi-001010000000001";
    size_t ulen = strlen(uri), slen = strlen(supi);
    bsf_notify_item_t *it = calloc(1, sizeof *it + ulen + slen + 2 + b.size);
    assert_non_null(it);
    memcpy(it->data, uri, ulen + 1);
    memcpy(it->data + ulen + 1, supi, slen + 1);
    memcpy(it->data + ulen + slen + 2, b.data, b.size);
    it->sub_id.b[0] = (uint8_t)k;
    it->uri = it->data;
    it->supi = it->data + ulen + 1;
    it->body = it->data + ulen + slen + 2;
    it->body_len = b.size;
    msgpack_sbuffer_destroy(&b);
    return it;
}

/* A list of items k0 .. k0 + n - 1, in that order. */
static bsf_notify_item_t *items(int k0, int n)
{
    bsf_notify_item_t *head = NULL, **tail = &head;
    for (int k = k0; k < k0 + n; k++) {
        *tail = item(k);
        tail = &(*tail)->next;
    }
    return head;
}

/* The value of one sample in the notifier's metrics text (-1: absent). */
static long long metric(bsf_notifier_t *n, const char *name)
{
    bsf_text_t t = {0};
    bsf_notifier_write_metrics(n, &t);
    long long v = -1;
    size_t len = strlen(name);
    for (const char *p = t.data; p && *p;) {
        const char *eol = strchr(p, '\n');
        if (strncmp(p, name, len) == 0 && p[len] == ' ')
            v = atoll(p + len + 1);
        p = eol ? eol + 1 : NULL;
    }
    bsf_text_free(&t);
    return v;
}

static bsf_notifier_t *notifier(unsigned handoff_max)
{
    bsf_notifier_config_t cfg = {.queue_per_subscriber = 10, .max_subscribers = 100,
                                 .handoff_max = handoff_max, .retries = 0,
                                 .timeout_ms = 2000, .backoff_ms = 10,
                                 .backoff_max_ms = 10, .priority = 24};
    bsf_notifier_t *n = bsf_notifier_create(&cfg);
    assert_non_null(n);
    return n;
}

#define DROPPED_HANDOFF "bsf_notifications_dropped_total{reason=\"handoff_full\"}"

/* No client yet: the hand-off keeps the newest handoff_max, drops and counts the rest. */
static void handoff_bounded(void **state)
{
    (void)state;
    bsf_notifier_t *n = notifier(3);
    bsf_notifier_deliver(n, items(0, 2));
    assert_int_equal(metric(n, "bsf_notifications_handoff"), 2);
    assert_int_equal(metric(n, DROPPED_HANDOFF), 0);
    bsf_notifier_deliver(n, items(2, 3)); /* 5 > 3: the two oldest go */
    assert_int_equal(metric(n, "bsf_notifications_handoff"), 3);
    assert_int_equal(metric(n, DROPPED_HANDOFF), 2);
    bsf_notifier_deliver(n, items(5, 10)); /* one list longer than the bound */
    assert_int_equal(metric(n, "bsf_notifications_handoff"), 3);
    assert_int_equal(metric(n, DROPPED_HANDOFF), 12);
    assert_int_equal(metric(n, "bsf_notifications_total"), 15);
    bsf_notifier_deliver(n, NULL); /* nothing: nothing changes */
    assert_int_equal(metric(n, "bsf_notifications_total"), 15);
    bsf_notifier_destroy(n); /* frees the three still there (ASan checks) */
}

/* What stayed in the hand-off is sent once the client is there: 3 answered, 2 dropped. */
static void kept_ones_sent(void **state)
{
    (void)state;
    bsf_notifier_t *n = notifier(3);
    bsf_notifier_deliver(n, items(0, 5));
    bsf_sbi_client_config_t cfg = {.nf_instance_id = "54804518-4191-46b3-955c-ac631f953ed8",
                                   .fqdn = "bsf1.example", .max_connections = 2,
                                   .max_streams = 16, .max_body_bytes = 64 * 1024};
    bsf_sbi_client_t *cl = NULL;
    char err[200];
    if (bsf_sbi_client_start(&cfg, &cl, err, sizeof err))
        fail_msg("start: %s", err);
    bsf_notifier_set_client(n, cl);
    for (int i = 0; i < 200 && metric(n, "bsf_notifications_sent_total") < 3; i++)
        usleep(25000);
    assert_int_equal(metric(n, "bsf_notifications_sent_total"), 3);
    assert_int_equal(metric(n, DROPPED_HANDOFF), 2);
    assert_int_equal(metric(n, "bsf_notifications_handoff"), 0);
    assert_int_equal(metric(n, "bsf_notifications_waiting"), 0);
    bsf_sbi_client_stop(cl);
    bsf_notifier_destroy(n);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handoff_bounded),
        cmocka_unit_test(kept_ones_sent),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
