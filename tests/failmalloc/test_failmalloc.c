/* Every allocation of the pure tables and codecs failed in turn (tests/failmalloc/failmalloc.h):
 * the Rx session and pending tables, the feed queue, and a binding's decode (msgpack-c unpack
 * into a zone, TS 29.521 member decoding, the set-only merge patches, the canonical encoding, the
 * event codec). Each must
 * report the failure, leak nothing and never crash. */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/event.h"
#include "core/pcf_binding.h"
#include "core/pcf_mbs_binding.h"
#include "core/pcf_ue_binding_patch.h"
#include "feed/feed_queue.h"
#include "gateways/diameter/rx_pending.h"
#include "gateways/diameter/rx_sessions.h"
#include "tests/failmalloc/failmalloc.h"

#define SEC 1000000000ull

/* ---- the Rx session table ------------------------------------------------------------ */

static int sessions_scenario(void *ctx)
{
    (void)ctx;
    bsf_rx_sessions_t t;
    if (bsf_rx_sessions_init(&t, 64, 10 * SEC, 2 * SEC))
        return -1;
    bsf_rx_session_t s = {.af_peer = "af1", .pcf_peer = "pcf1"}, got;
    int rc = 0;
    char sid[32];
    for (int i = 0; i < 40; i++) {
        snprintf(sid, sizeof sid, "bsf.example.com;%d;1", i);
        bsf_rx_session_add_t r = bsf_rx_sessions_put(&t, sid, strlen(sid), &s, (uint64_t)i);
        if (r == BSF_RX_SESSION_NOMEM) {
            rc = -1; /* reported: the AAR-I would get 3004 */
            continue;
        }
        assert_int_equal(r, BSF_RX_SESSION_ADDED);
        assert_true(bsf_rx_sessions_get(&t, sid, strlen(sid), (uint64_t)i, &got));
    }
    bsf_rx_sessions_set_pcf(&t, "bsf.example.com;3;1", 19, "pcf2", NULL);
    bsf_rx_sessions_end(&t, "bsf.example.com;4;1", 19, 100);
    bsf_rx_sessions_remove(&t, "bsf.example.com;5;1", 19);
    bsf_rx_sessions_expire(&t, 5 * SEC);
    bsf_rx_sessions_destroy(&t);
    return rc;
}

/* ---- the Rx pending table ------------------------------------------------------------ */

static int pending_scenario(void *ctx)
{
    (void)ctx;
    bsf_rx_pending_t p;
    int rc = bsf_rx_pending_init(&p, 128);
    if (rc) {
        assert_int_equal(rc, ENOMEM);
        return -1;
    }
    int tx[8];
    uintptr_t h[8];
    for (int i = 0; i < 8; i++)
        assert_int_not_equal(h[i] = bsf_rx_pending_add(&p, &tx[i], (uint64_t)i), 0);
    assert_ptr_equal(bsf_rx_pending_take(&p, h[2]), &tx[2]);
    void *out[8];
    assert_int_equal(bsf_rx_pending_take_expired(&p, UINT64_MAX, out, 8), 7);
    bsf_rx_pending_destroy(&p);
    return 0;
}

/* ---- the feed queue ------------------------------------------------------------------ */

static int queue_scenario(void *ctx)
{
    (void)ctx;
    bsf_feed_queue_t q;
    if (bsf_feed_queue_init(&q, 16, 100))
        return -1;
    for (int i = 0; i < 20; i++) {
        bsf_feed_ticket_t t;
        if (!bsf_feed_queue_reserve(&q, &t))
            break;
        memset(t.cell, i, 100);
        bsf_feed_queue_publish(&q, &t, t.cell);
    }
    void *item;
    size_t n = 0;
    while (bsf_feed_queue_peek(&q, &item)) {
        assert_true(bsf_feed_queue_owns(&q, item));
        bsf_feed_queue_release(&q);
        n++;
    }
    assert_int_equal(n, 16);
    bsf_feed_queue_destroy(&q);
    return 0;
}

/* ---- a binding's decode, encode and event round trip ---------------------------------- */

static void pack_str(msgpack_packer *pk, const char *s)
{
    msgpack_pack_str(pk, strlen(s));
    msgpack_pack_str_body(pk, s, strlen(s));
}

/* Packs each string up to the NULL, in order. */
static void pack_strs(msgpack_packer *pk, ...)
{
    va_list ap;
    va_start(ap, pk);
    for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *))
        pack_str(pk, s);
    va_end(ap);
}

/* A PcfBinding as msgpack into docs[0]. */
static void pack_binding(msgpack_sbuffer *docs)
{
    msgpack_packer pk;
    msgpack_packer_init(&pk, &docs[0], msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 8);
    pack_strs(&pk, "supi", "imsi-001010000000001", "ipv4Addr", "10.0.0.1", "dnn", "internet",
              "snssai", (char *)NULL);
    msgpack_pack_map(&pk, 2);
    pack_str(&pk, "sst");
    msgpack_pack_int(&pk, 1);
    pack_strs(&pk, "sd", "000001", "pcfFqdn", "pcf1.example.com", "ipv6Prefix", "2001:db8:0::/64",
              "addIpv6Prefixes", (char *)NULL);
    msgpack_pack_array(&pk, 2);
    pack_strs(&pk, "2001:db8:1::/64", "2001:db8:2::/64", "pcfIpEndPoints", (char *)NULL);
    msgpack_pack_array(&pk, 1);
    msgpack_pack_map(&pk, 2);
    pack_strs(&pk, "ipv4Address", "192.0.2.1", "port", (char *)NULL);
    msgpack_pack_int(&pk, 8080);
}

/* Unpacks `doc` into *obj in `zone`: true, or false when an allocation failed (any other
 * failure fails the test). */
static bool unpack(const msgpack_sbuffer *doc, msgpack_zone *zone, msgpack_object *obj)
{
    size_t off = 0;
    msgpack_unpack_return u = msgpack_unpack(doc->data, doc->size, &off, zone, obj);
    if (u != MSGPACK_UNPACK_SUCCESS)
        assert_int_equal(u, MSGPACK_UNPACK_NOMEM_ERROR);
    return u == MSGPACK_UNPACK_SUCCESS;
}

/* Decodes the binding (checking that an allocation failure is reported as SYSTEM_FAILURE,
 * not as bad input), encodes it canonically, and round-trips it in an event. */
static int decode_encode(const msgpack_object *objs, msgpack_zone *zone, msgpack_sbuffer *buf)
{
    const msgpack_object *map = &objs[0];
    bsf_pcf_binding_t b, back;
    bsf_problem_t problem;
    if (bsf_pcf_binding_decode(map, zone, &b, &problem)) {
        assert_int_equal(problem.cause, BSF_CAUSE_SYSTEM_FAILURE);
        return -1;
    }
    if (bsf_pcf_binding_check_rules(&b, &problem))
        fail_msg("the binding breaks a rule: %s", problem.detail);
    msgpack_packer pk;
    msgpack_packer_init(&pk, buf, msgpack_sbuffer_write);
    bsf_event_t ev = {.type = BSF_EVENT_BINDING_REGISTERED, .site = 1, .seq = 1, .hlc = 1,
                      .binding = &b, .created_hlc = 1, .origin_ts_ms = -1, .sender_ts_ms = -1};
    if (bsf_event_encode(&ev, &pk))
        return -1;
    bsf_event_t out;
    char err[128];
    if (bsf_event_decode(buf->data, buf->size, zone, &out, &back, err, sizeof err)) {
        assert_non_null(strstr(err, "memory"));
        return -1;
    }
    assert_string_equal(out.binding->supi, "imsi-001010000000001");
    return 0;
}

/* A scenario that needs no context, run under its own name (the cmocka state). */
typedef struct {
    const char *name;
    int (*scenario)(void *ctx);
} plain_case_t;

static void run_plain(void **state)
{
    const plain_case_t *k = *state;
    bsf_fm_run(k->name, k->scenario, NULL);
}

#define PLAIN_CASE(k) {(k)->name, run_plain, NULL, NULL, (k)}

/* ---- UE and MBS bindings: decode and event round trip --------------------------------- */

/* The member pcfForUeIpEndPoints: `n` end points, IPv6 addresses 2001:db8::1 onwards. */
static void pack_ue_end_points(msgpack_packer *pk, int n)
{
    pack_str(pk, "pcfForUeIpEndPoints");
    msgpack_pack_array(pk, (size_t)n);
    for (int i = 0; i < n; i++) {
        char v6[32];
        snprintf(v6, sizeof v6, "2001:db8::%d", i + 1);
        msgpack_pack_map(pk, 1);
        pack_str(pk, "ipv6Address");
        pack_str(pk, v6);
    }
}

/* A PcfForUeBinding into docs[0] and a PcfMbsBinding into docs[1], as msgpack. */
static void pack_ue_and_mbs(msgpack_sbuffer *docs)
{
    msgpack_packer pk;
    msgpack_packer_init(&pk, &docs[0], msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 3);
    pack_str(&pk, "supi");
    pack_str(&pk, "imsi-001010000000001");
    pack_str(&pk, "gpsi");
    pack_str(&pk, "msisdn-4912345678");
    pack_ue_end_points(&pk, 1);
    msgpack_packer_init(&pk, &docs[1], msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 2);
    pack_str(&pk, "mbsSessionId");
    msgpack_pack_map(&pk, 1);
    pack_str(&pk, "ssm");
    msgpack_pack_map(&pk, 2);
    pack_str(&pk, "sourceIpAddr");
    msgpack_pack_map(&pk, 1);
    pack_str(&pk, "ipv4Addr");
    pack_str(&pk, "198.51.100.1");
    pack_str(&pk, "destIpAddr");
    msgpack_pack_map(&pk, 1);
    pack_str(&pk, "ipv6Prefix");
    pack_str(&pk, "ff3e::/96");
    pack_str(&pk, "pcfFqdn");
    pack_str(&pk, "pcf1.example.com");
}

/* Decodes both bindings (an allocation failure is SYSTEM_FAILURE, not bad input), then
 * round-trips each in an event. */
static int ue_mbs_round_trip(const msgpack_object *objs, msgpack_zone *zone, msgpack_sbuffer *buf)
{
    bsf_pcf_ue_binding_t ue;
    bsf_pcf_mbs_binding_t mbs;
    bsf_problem_t problem;
    if (bsf_pcf_ue_binding_decode(&objs[0], zone, &ue, &problem) ||
        bsf_pcf_mbs_binding_decode(&objs[1], zone, &mbs, &problem)) {
        assert_int_equal(problem.cause, BSF_CAUSE_SYSTEM_FAILURE);
        return -1;
    }
    bsf_event_t evs[2] = {
        {.type = BSF_EVENT_UE_BINDING_REGISTERED, .site = 1, .seq = 1, .hlc = 1,
         .ue_binding = &ue, .created_hlc = 1},
        {.type = BSF_EVENT_MBS_BINDING_REGISTERED, .site = 1, .seq = 2, .hlc = 2,
         .mbs_binding = &mbs, .created_hlc = 2}};
    for (int i = 0; i < 2; i++) {
        msgpack_packer pk;
        msgpack_sbuffer_clear(buf);
        msgpack_packer_init(&pk, buf, msgpack_sbuffer_write);
        if (bsf_event_encode(&evs[i], &pk))
            return -1;
        bsf_event_t out;
        bsf_pcf_binding_t unused;
        char err[128];
        if (bsf_event_decode(buf->data, buf->size, zone, &out, &unused, err, sizeof err)) {
            assert_non_null(strstr(err, "memory"));
            return -1;
        }
        assert_true(i == 0 ? out.ue_binding != NULL : out.mbs_binding != NULL);
    }
    return 0;
}

/* A PcfForUeBindingPatch into docs[0] and a PcfMbsBindingPatch into docs[1], as msgpack. */
static void pack_ue_and_mbs_patches(msgpack_sbuffer *docs)
{
    msgpack_packer pk;
    msgpack_packer_init(&pk, &docs[0], msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 2);
    pack_str(&pk, "pcfForUeFqdn");
    pack_str(&pk, "pcf2.example.com");
    pack_ue_end_points(&pk, 4); /* more than the zone's first chunk holds: it grows mid-decode */
    msgpack_packer_init(&pk, &docs[1], msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 1);
    pack_str(&pk, "pcfFqdn");
    pack_str(&pk, "pcf2.example.com");
}

/* Decodes both set-only merge patches (core/merge_patch), applies each to a stored binding and
 * encodes the result: an allocation failure is SYSTEM_FAILURE, the result has the new values. */
static int ue_mbs_patch_round_trip(const msgpack_object *objs, msgpack_zone *zone,
                                   msgpack_sbuffer *buf)
{
    static const bsf_pcf_ue_binding_t ue = {.supi = "imsi-001010000000001",
                                            .pcf_for_ue_fqdn = "pcf1.example.com"};
    static const bsf_pcf_mbs_binding_t mbs = {
        .has_mbs_session_id = true,
        .mbs_session_id = {.has_tmgi = true, .mbs_service_id = "ABCDEF", .mcc = "001",
                           .mnc = "01"},
        .pcf_fqdn = "pcf1.example.com"};
    bsf_pcf_ue_binding_patch_t ue_patch;
    bsf_pcf_mbs_binding_patch_t mbs_patch;
    bsf_problem_t problem;
    if (bsf_pcf_ue_binding_patch_decode(&objs[0], zone, &ue_patch, &problem) ||
        bsf_pcf_mbs_binding_patch_decode(&objs[1], zone, &mbs_patch, &problem)) {
        assert_int_equal(problem.cause, BSF_CAUSE_SYSTEM_FAILURE);
        return -1;
    }
    bsf_pcf_ue_binding_t ue_after;
    bsf_pcf_mbs_binding_t mbs_after;
    bsf_pcf_ue_binding_patch_apply(&ue, &ue_patch, &ue_after);
    bsf_pcf_mbs_binding_patch_apply(&mbs, &mbs_patch, &mbs_after);
    assert_string_equal(ue_after.pcf_for_ue_fqdn, "pcf2.example.com");
    assert_int_equal(ue_after.pcf_for_ue_ip_end_points.n, 4);
    assert_string_equal(mbs_after.pcf_fqdn, "pcf2.example.com");
    msgpack_packer pk;
    msgpack_sbuffer_clear(buf);
    msgpack_packer_init(&pk, buf, msgpack_sbuffer_write);
    return bsf_pcf_ue_binding_encode(&ue_after, &pk) || bsf_pcf_mbs_binding_encode(&mbs_after, &pk)
               ? -1
               : 0;
}

/* ---- the decode scenarios ------------------------------------------------------------ */

/* Documents packed before the runs, unpacked in each run into a new zone and handed to
 * `round_trip` (0, or -1 when an allocation failed). The cmocka state of run_decode. */
typedef struct {
    const char *name;
    size_t n_docs;
    void (*pack)(msgpack_sbuffer *docs);
    int (*round_trip)(const msgpack_object *objs, msgpack_zone *zone, msgpack_sbuffer *buf);
    size_t min_allocs; /* the zone's chunks, the unpack, the encoder's buffer at the least */
    msgpack_sbuffer docs[2];
} decode_case_t;

static int decode_scenario(void *ctx)
{
    decode_case_t *k = ctx;
    msgpack_zone zone;
    if (!msgpack_zone_init(&zone, 256)) /* small chunks: the decode needs several */
        return -1;
    msgpack_sbuffer buf;
    msgpack_sbuffer_init(&buf);
    msgpack_object objs[2];
    bool unpacked = true;
    for (size_t i = 0; i < k->n_docs && unpacked; i++)
        unpacked = unpack(&k->docs[i], &zone, &objs[i]);
    int rc = unpacked ? k->round_trip(objs, &zone, &buf) : -1;
    msgpack_sbuffer_destroy(&buf);
    msgpack_zone_destroy(&zone);
    return rc;
}

static void run_decode(void **state)
{
    decode_case_t *k = *state;
    for (size_t i = 0; i < k->n_docs; i++)
        msgpack_sbuffer_init(&k->docs[i]);
    k->pack(k->docs);
    assert_true(bsf_fm_run(k->name, decode_scenario, k) >= k->min_allocs);
    for (size_t i = 0; i < k->n_docs; i++)
        msgpack_sbuffer_destroy(&k->docs[i]);
}

#define DECODE_CASE(k) {(k)->name, run_decode, NULL, NULL, (k)}

int main(void)
{
    static plain_case_t plain[] = {
        {"rx_sessions", sessions_scenario},
        {"rx_pending", pending_scenario},
        {"feed_queue", queue_scenario},
    };
    static decode_case_t decode[] = {
        {.name = "binding_decode", .n_docs = 1, .pack = pack_binding,
         .round_trip = decode_encode, .min_allocs = 6},
        {.name = "ue_mbs_decode", .n_docs = 2, .pack = pack_ue_and_mbs,
         .round_trip = ue_mbs_round_trip, .min_allocs = 6},
        {.name = "ue_mbs_patch", .n_docs = 2, .pack = pack_ue_and_mbs_patches,
         .round_trip = ue_mbs_patch_round_trip, .min_allocs = 4},
    };
    const struct CMUnitTest tests[] = {
        PLAIN_CASE(&plain[0]),
        PLAIN_CASE(&plain[1]),
        PLAIN_CASE(&plain[2]),
        DECODE_CASE(&decode[0]),
        DECODE_CASE(&decode[1]),
        DECODE_CASE(&decode[2]),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
