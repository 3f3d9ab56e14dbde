/* Projections on real LMDB files (projections/projection.c): apply() is idempotent and
 * order-insensitive (the same events in any order give the same digest), and lookups find
 * what the indexes promise (discovery by address, longest prefix, cookies, tombstones,
 * counters). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/hlc.h"
#include "engine/store.h"
#include "projections/record.h"
#include "projections/mbs_projection.h"
#include "projections/ue_projection.h"
#include "tests/unit/history_fixtures.h"
#include "tests/unit/test_util.h"

#define N_PROBES 6

/* The binding id discovery answers for a few addresses in the nested prefixes (zeros: none)
 * and the number of matches it was chosen from. */
static void probe_discovery(hf_history_t *f, bsf_store_t *s, MDB_txn *txn,
                            uint8_t answers[N_PROBES][17])
{
    static const char *const probes[N_PROBES] = {
        "2001:db8:77:0:1:2:3:a/128", "2001:db8:77::5/128", "2001:db8:77:0:ffff::/128",
        "2001:db8:77:ff::/64", "2001:db8:78:3::/64", "2001:db9::1/128"};
    for (int i = 0; i < N_PROBES; i++) {
        bsf_discovery_query_t q = {.kind = BSF_UE_ADDR_IPV6};
        assert_true(bsf_ipv6_prefix_parse(probes[i], strlen(probes[i]), &q.ipv6));
        bsf_match_t m;
        size_t n = 0;
        assert_int_equal(bsf_projection_discover(&s->proj, txn, &q, &f->zone, &m, &n), 0);
        memset(answers[i], 0, 17);
        if (n)
            memcpy(answers[i], m.id.b, 16);
        answers[i][16] = (uint8_t)n;
    }
}

static uint8_t probe_answers[N_PROBES][17];
static size_t audit_records; /* entries of the audit projection after apply_all */

/* What apply_all reads from the store after the apply: the live counts, the discovery answers
 * of the nested prefixes (into probe_answers), the audit projection's size. */
static void inspect(void *ctx, bsf_store_t *s, MDB_txn *txn)
{
    hf_history_t *f = ((void **)ctx)[0];
    uint64_t *live = ((void **)ctx)[1];
    *live = bsf_projection_counter(&s->proj, txn, "total") +
            1000 * bsf_projection_counter(&s->proj, txn, BSF_UE_COUNTER_TOTAL) +
            100000 * bsf_projection_counter(&s->proj, txn, BSF_MBS_COUNTER_TOTAL);
    probe_discovery(f, s, txn, probe_answers);
    MDB_stat st;
    assert_int_equal(mdb_stat(txn, s->proj.audit, &st), 0);
    audit_records = st.ms_entries;
}

/* Applies the events in `order` (each `times` times) to a fresh store; returns the digest
 * and the live count, and leaves the discovery answers of the nested prefixes in
 * probe_answers. */
static void apply_all(hf_history_t *f, const size_t *order, int times, uint8_t digest[32],
                      uint64_t *live)
{
    void *ctx[2] = {f, live};
    hf_apply(f, order, times, digest, inspect, ctx);
}

static void expect_answer(uint8_t answer[17], int nested, size_t n)
{
    bsf_binding_id_t id = hf_make_id((uint16_t)(1 + nested % 2), 700 + (uint64_t)nested);
    if (nested < 0)
        memset(id.b, 0, 16);
    assert_memory_equal(answer, id.b, 16);
    assert_int_equal(answer[16], n);
}

/* What longest-prefix match answers for the probes of probe_discovery. Live: the nested
 * bindings 0, 1, 4, 5, 7, 9, 11 at their lengths; 2, 6 and 10 moved to 2001:db8:77::/80;
 * 3 and 8 deregistered. */
static void expect_nested_answers(uint8_t a[N_PROBES][17])
{
    /* ...:1:2:3:a: in /32, /40, /60, /64 (5, 11) and /96 (7); not in the /127 (...:3:8). */
    expect_answer(a[0], 7, 1);
    /* 2001:db8:77::5: the three /80s win over the /64s; the most recently created (10). */
    expect_answer(a[1], 10, 3);
    /* 2001:db8:77:0:ffff::: the two /64s, created at the same HLC by site 2: the id decides. */
    bsf_binding_id_t id5 = hf_make_id(2, 705), id11 = hf_make_id(2, 711);
    expect_answer(a[2], memcmp(id5.b, id11.b, 16) > 0 ? 5 : 11, 2);
    /* 2001:db8:77:ff::/64: outside the /64s and the /60; the /40. */
    expect_answer(a[3], 1, 1);
    /* 2001:db8:78:3::/64 in addIpv6Prefixes /48../59 of the live ones: 11's /59. */
    expect_answer(a[4], 11, 1);
    expect_answer(a[5], -1, 0);
}

static void same_digest_in_any_order(void **state)
{
    hf_history_t *f = *state;
    size_t order[HF_MAX_EVENTS];
    for (size_t i = 0; i < f->n; i++)
        order[i] = i;
    uint8_t reference[32], digest[32];
    uint64_t live_ref, live;
    apply_all(f, order, 1, reference, &live_ref);
    assert_true(live_ref % 1000 > 10 && live_ref % 1000 < 50);
    /* UE bindings: 14 registered, 0 and 1 replaced, 2, 7 and 12 deregistered. */
    assert_int_equal(live_ref / 1000 % 100, 9);
    /* MBS bindings: 10 registered, 2 and 6 deregistered. */
    assert_int_equal(live_ref / 100000, 8);
    uint8_t answers[N_PROBES][17];
    memcpy(answers, probe_answers, sizeof answers);
    expect_nested_answers(answers);
    /* Audit records: the 20 odd bindings (audited, or reset by their update) and binding 0
     * (updated), less 13 and 31 (deregistered), and the nested bindings 2, 6 and 10 (reset
     * by their update); the confirmations after a deregistration are dropped. */
    assert_int_equal(audit_records, 22);
    /* Idempotence: every event applied twice. */
    apply_all(f, order, 2, digest, &live);
    assert_memory_equal(digest, reference, 32);
    /* Reverse order, then seeded shuffles. */
    for (size_t i = 0; i < f->n; i++)
        order[i] = f->n - 1 - i;
    apply_all(f, order, 1, digest, &live);
    assert_memory_equal(digest, reference, 32);
    srand(20261130);
    for (int round = 0; round < 40; round++) {
        for (size_t i = f->n - 1; i > 0; i--) {
            size_t j = (size_t)rand() % (i + 1), tmp = order[i];
            order[i] = order[j];
            order[j] = tmp;
        }
        apply_all(f, order, 1, digest, &live);
        if (memcmp(digest, reference, 32) != 0)
            fail_msg("digest differs in shuffle round %d", round);
        assert_int_equal(audit_records, 22);
        assert_int_equal(live, live_ref);
        if (memcmp(answers, probe_answers, sizeof answers) != 0)
            fail_msg("discovery answers differ in shuffle round %d", round);
    }
}

/* The HLC the bindings of the lookup tests are registered from. */
static const uint64_t t0 = BSF_HLC_FROM_MS(1800000000000ULL);

/* Registers bindings[0..n) (JSON) at site 9, sequence numbers from `seq`, HLCs from t0
 * (each one later than the one before); their ids into ids[]. */
static void register_all(hf_history_t *f, hf_writer_t *w, const char *const *bindings, int n,
                         uint64_t seq, bsf_binding_id_t *ids)
{
    for (int i = 0; i < n; i++) {
        ids[i] = hf_make_id(9, seq + (uint64_t)i);
        bsf_event_t ev = {.type = BSF_EVENT_BINDING_REGISTERED, .site = 9,
                          .seq = seq + (uint64_t)i, .hlc = t0 + (uint64_t)i, .binding_id = ids[i],
                          .binding = hf_binding(f, bindings[i]), .created_hlc = t0 + (uint64_t)i,
                          .origin_ts_ms = -1, .sender_ts_ms = -1};
        assert_int_equal(bsf_projection_apply(&w->s.proj, w->txn, &ev, &w->scratch), 0);
    }
}

static void lookups(void **state)
{
    hf_history_t *f = *state;
    hf_writer_t w;
    hf_writer_begin(&w);
    bsf_store_t *s = &w.s;
    MDB_txn *txn = w.txn;
    const char *const bindings[] = {
        "{\"supi\":\"imsi-001019999900001\",\"ipv6Prefix\":\"2001:db8:aa::/64\",\"dnn\":\"x\","
        "\"snssai\":{\"sst\":1},\"pcfFqdn\":\"a.example.com\"}",
        "{\"supi\":\"imsi-001019999900002\",\"ipv4Addr\":\"10.50.0.1\",\"dnn\":\"x\","
        "\"snssai\":{\"sst\":1},\"pcfFqdn\":\"b.example.com\"}",
        "{\"supi\":\"imsi-001019999900003\",\"ipv4Addr\":\"10.50.0.1\",\"dnn\":\"x\","
        "\"snssai\":{\"sst\":1},\"pcfFqdn\":\"c.example.com\"}",
        "{\"supi\":\"imsi-001019999900004\",\"macAddr48\":\"02-00-00-00-00-01\","
        "\"addMacAddrs\":[\"02-00-00-00-00-02\"],\"dnn\":\"x\",\"snssai\":{\"sst\":1},"
        "\"pcfFqdn\":\"d.example.com\"}",
    };
    bsf_binding_id_t ids[4];
    register_all(f, &w, bindings, 4, 1000, ids);
    bsf_discovery_query_t q = {.kind = BSF_UE_ADDR_IPV6};
    bsf_match_t m;
    size_t n;
    /* A /128 inside the /64 finds it; one outside and a /48 around it do not. */
    assert_true(bsf_ipv6_prefix_parse("2001:db8:aa::77/128", 19, &q.ipv6));
    assert_int_equal(bsf_projection_discover(&s->proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 1);
    assert_memory_equal(m.id.b, ids[0].b, 16);
    assert_true(bsf_ipv6_prefix_parse("2001:db8:ab::77/128", 19, &q.ipv6));
    assert_int_equal(bsf_projection_discover(&s->proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 0);
    assert_true(bsf_ipv6_prefix_parse("2001:db8::/32", 13, &q.ipv6));
    assert_int_equal(bsf_projection_discover(&s->proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 0);
    /* Two bindings on one IPv4 address: the most recent wins, both are counted. */
    q.kind = BSF_UE_ADDR_IPV4;
    assert_true(bsf_ipv4_parse("10.50.0.1", 9, &q.ipv4));
    assert_int_equal(bsf_projection_discover(&s->proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 2);
    assert_memory_equal(m.id.b, ids[2].b, 16);
    q.supi = "imsi-001019999900002"; /* a filter narrows to the older one */
    assert_int_equal(bsf_projection_discover(&s->proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 1);
    assert_memory_equal(m.id.b, ids[1].b, 16);
    /* A registration's cookie is kept in the record (seed 3.3). */
    bsf_event_t with_cookie = {.type = BSF_EVENT_BINDING_REGISTERED, .site = 9, .seq = 1500,
                               .hlc = t0 + 50, .binding_id = hf_make_id(9, 1500),
                               .binding = hf_binding(f, bindings[0]), .created_hlc = t0 + 50,
                               .origin_ts_ms = -1, .sender_ts_ms = -1, .cookie = "cookie-data",
                               .cookie_len = 11};
    assert_int_equal(bsf_projection_apply(&s->proj, txn, &with_cookie, &w.scratch), 0);
    bsf_record_t rec;
    assert_int_equal(bsf_projection_get(&s->proj, txn, &with_cookie.binding_id, &rec), 0);
    assert_int_equal(rec.cookie_len, 11);
    assert_memory_equal(rec.cookie, "cookie-data", 11);
    assert_int_equal(bsf_projection_get(&s->proj, txn, &ids[0], &rec), 0);
    assert_int_equal(rec.cookie_len, 0);
    bsf_event_t drop_cookie = with_cookie;
    drop_cookie.type = BSF_EVENT_BINDING_DEREGISTERED;
    drop_cookie.hlc = t0 + 51;
    drop_cookie.reason = BSF_REASON_PCF_REQUEST;
    assert_int_equal(bsf_projection_apply(&s->proj, txn, &drop_cookie, &w.scratch), 0);
    /* Tombstones past the horizon are collected, the others kept. */
    bsf_event_t old_dereg = {.type = BSF_EVENT_BINDING_DEREGISTERED, .site = 9, .seq = 1600,
                             .hlc = t0 + 10, .binding_id = ids[1],
                             .reason = BSF_REASON_PCF_REQUEST};
    bsf_event_t new_dereg = old_dereg;
    new_dereg.seq = 1601;
    new_dereg.hlc = t0 + 90;
    new_dereg.binding_id = ids[2];
    assert_int_equal(bsf_projection_apply(&s->proj, txn, &old_dereg, &w.scratch), 0);
    assert_int_equal(bsf_projection_apply(&s->proj, txn, &new_dereg, &w.scratch), 0);
    size_t removed = 0;
    assert_int_equal(bsf_projection_gc_tombstones(&s->proj, txn, t0 + 60, 100, &removed), 0);
    assert_int_equal(removed, 2); /* ids[1] and the cookie binding (t0 + 51) */
    assert_int_equal(bsf_projection_get(&s->proj, txn, &ids[1], &rec), MDB_NOTFOUND);
    assert_int_equal(bsf_projection_get(&s->proj, txn, &ids[2], &rec), 0);
    assert_int_equal(rec.state, BSF_RECORD_DEAD);
    MDB_stat st;
    assert_int_equal(mdb_stat(txn, s->proj.tombstones, &st), 0);
    assert_int_equal(st.ms_entries, 1);
    /* Additional MAC addresses are indexed. */
    q = (bsf_discovery_query_t){.kind = BSF_UE_ADDR_MAC};
    assert_true(bsf_mac48_parse("02-00-00-00-00-02", 17, &q.mac));
    assert_int_equal(bsf_projection_discover(&s->proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 1);
    assert_memory_equal(m.id.b, ids[3].b, 16);
    /* Deregistration removes every index entry and counter. */
    bsf_event_t dereg = {.type = BSF_EVENT_BINDING_DEREGISTERED, .site = 9, .seq = 2000,
                         .hlc = t0 + 100, .binding_id = ids[3], .reason = BSF_REASON_PCF_REQUEST};
    assert_int_equal(bsf_projection_apply(&s->proj, txn, &dereg, &w.scratch), 0);
    assert_int_equal(bsf_projection_discover(&s->proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 0);
    /* Live now: only ids[0] (ids[1], ids[2] and the cookie binding were deregistered above). */
    assert_int_equal(bsf_projection_counter(&s->proj, txn, "total"), 1);
    assert_int_equal(bsf_projection_counter(&s->proj, txn, "pcf/d.example.com"), 0);
    assert_int_equal(bsf_projection_counter(&s->proj, txn, "dnn/x"), 1);
    hf_writer_end(&w, false);
}

static size_t discover6(hf_history_t *f, hf_writer_t *w, const char *prefix, const char *dnn,
                        bsf_match_t *m)
{
    bsf_discovery_query_t q = {.kind = BSF_UE_ADDR_IPV6, .dnn = dnn};
    assert_true(bsf_ipv6_prefix_parse(prefix, strlen(prefix), &q.ipv6));
    size_t n = 0;
    assert_int_equal(bsf_projection_discover(&w->s.proj, w->txn, &q, &f->zone, m, &n), 0);
    return n;
}

/* The most specific prefix holding the query wins, however recent a shorter one is; a
 * filter that the specific one fails falls back to the next length. */
static void longest_prefix_wins(void **state)
{
    hf_history_t *f = *state;
    hf_writer_t w;
    hf_writer_begin(&w);
    const char *const bindings[] = {
        "{\"ipv6Prefix\":\"2001:db8:1:2::/64\",\"dnn\":\"a\",\"snssai\":{\"sst\":1},"
        "\"pcfFqdn\":\"specific.example.com\"}",
        "{\"ipv6Prefix\":\"2001:db8::/32\",\"dnn\":\"b\",\"snssai\":{\"sst\":1},"
        "\"pcfFqdn\":\"wide.example.com\"}",
        "{\"ipv6Prefix\":\"2001:db8:9::/64\",\"ipv6FrameRouteList\":[\"2001:db8:1:2:3::/80\"],"
        "\"dnn\":\"c\",\"snssai\":{\"sst\":1},\"pcfFqdn\":\"route.example.com\"}",
    };
    bsf_binding_id_t ids[3]; /* the /32 is the most recent of the first two */
    register_all(f, &w, bindings, 3, 3000, ids);
    /* query, DNN filter: how many match, and the index of the winner (-1: none) */
    static const struct {
        const char *prefix, *dnn;
        size_t n;
        int winner;
    } cases[] = {
        {"2001:db8:1:2::77/128", NULL, 1, 0},
        {"2001:db8:1:2::/64", NULL, 1, 0},
        {"2001:db8:1:2::77/128", "b", 1, 1}, /* the /64 fails the filter */
        {"2001:db8:1:3::77/128", NULL, 1, 1},
        {"2001:db8:1::/48", NULL, 1, 1},
        /* A framed route is a prefix like the others: the /80 is more specific than the /64. */
        {"2001:db8:1:2:3::1/128", NULL, 1, 2},
        {"2001:db9::1/128", NULL, 0, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bsf_match_t m;
        assert_int_equal(discover6(f, &w, cases[i].prefix, cases[i].dnn, &m), cases[i].n);
        if (cases[i].winner >= 0)
            assert_memory_equal(m.id.b, ids[cases[i].winner].b, 16);
    }
    hf_writer_end(&w, false);
}

/* Record format 3 (compact header) round-trips every optional member; format 2 values parse
 * to the same fields; truncated or unknown values are refused. */
static void record_formats(void **state)
{
    (void)state;
    static const char binding[] = "\x28\xb5\x2f\xfd-frame";
    bsf_record_t cases[] = {
        {BSF_RECORD_LIVE, 3, 100, 100, -1, -1, NULL, 0, binding, sizeof binding - 1},
        {BSF_RECORD_LIVE, 3, 200, 100, 1700000000000, 1700000000001, "ck", 2, binding, 3},
        {BSF_RECORD_LIVE, 65535, 300, 300, -1, 42, NULL, 0, binding, 1},
        {BSF_RECORD_DEAD, 9, 400, 0, -1, -1, NULL, 0, NULL, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int fixed = 0; fixed < 2; fixed++) {
            const bsf_record_t *c = &cases[i];
            uint8_t v[128];
            size_t n = fixed ? bsf_record_write_fixed_header(c, v) : bsf_record_write_header(c, v);
            assert_true(n <= BSF_RECORD_HEADER_MAX);
            assert_int_equal(v[0], fixed ? BSF_RECORD_FORMAT_FIXED : BSF_RECORD_FORMAT);
            if (c->cookie_len)
                memcpy(v + n, c->cookie, c->cookie_len);
            if (c->binding_len)
                memcpy(v + n + c->cookie_len, c->binding, c->binding_len);
            size_t len = n + c->cookie_len + c->binding_len;
            bsf_record_t r;
            assert_int_equal(bsf_record_parse(v, len, &r), 0);
            assert_int_equal(r.state, c->state);
            assert_int_equal(r.site, c->site);
            assert_int_equal(r.hlc, c->hlc);
            if (c->state == BSF_RECORD_LIVE) {
                assert_int_equal(r.created_hlc, c->created_hlc);
                assert_int_equal(r.origin_ts_ms, c->origin_ts_ms);
                assert_int_equal(r.sender_ts_ms, c->sender_ts_ms);
                assert_int_equal(r.cookie_len, c->cookie_len);
                if (c->cookie_len)
                    assert_memory_equal(r.cookie, c->cookie, c->cookie_len);
                assert_int_equal(r.binding_len, c->binding_len);
                assert_memory_equal(r.binding, c->binding, c->binding_len);
                assert_int_not_equal(bsf_record_parse(v, n, &r), 0); /* no binding */
                if (!fixed && i == 0)
                    assert_int_equal(n, 13); /* a plain registration's header */
            } else {
                assert_int_not_equal(bsf_record_parse(v, n + 1, &r), 0);
            }
            assert_int_not_equal(bsf_record_parse(v, 11, &r), 0);
            v[0] = 4;
            assert_int_not_equal(bsf_record_parse(v, len, &r), 0); /* unknown format */
        }
    }
    uint8_t bad[16] = {BSF_RECORD_FORMAT, BSF_RECORD_LIVE, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x10};
    bsf_record_t r;
    assert_int_not_equal(bsf_record_parse(bad, sizeof bad, &r), 0); /* unknown flag */
}

/* Rewrites every record of `dbi` in format 2, as the previous release wrote them. */
static void rewrite_fixed(MDB_txn *txn, MDB_dbi dbi)
{
    MDB_cursor *cur;
    assert_int_equal(mdb_cursor_open(txn, dbi, &cur), 0);
    MDB_val k, v;
    int rc;
    while ((rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0) {
        bsf_record_t r;
        assert_int_equal(bsf_record_parse(v.mv_data, v.mv_size, &r), 0);
        assert_int_equal(((const uint8_t *)v.mv_data)[0], BSF_RECORD_FORMAT);
        uint8_t buf[4096];
        size_t n = bsf_record_write_fixed_header(&r, buf);
        assert_true(n + r.cookie_len + r.binding_len <= sizeof buf);
        if (r.state == BSF_RECORD_LIVE) { /* a tombstone has neither */
            memcpy(buf + n, r.cookie, r.cookie_len);
            memcpy(buf + n + r.cookie_len, r.binding, r.binding_len);
        }
        MDB_val nv = {n + r.cookie_len + r.binding_len, buf};
        uint8_t key[16]; /* a copy: the put moves what the cursor's key points to */
        assert_int_equal(k.mv_size, 16);
        memcpy(key, k.mv_data, 16);
        MDB_val kc = {16, key};
        assert_int_equal(mdb_cursor_put(cur, &kc, &nv, MDB_CURRENT), 0);
    }
    assert_int_equal(rc, MDB_NOTFOUND);
    mdb_cursor_close(cur);
}

/* A store of schema 3 (format-2 records, the previous release's) has the digest of the same
 * events written now, answers discovery the same, and opens read-write as schema 4. */
static void an_old_store_opens(void **state)
{
    hf_history_t *f = *state;
    uint8_t reference[32], digest[32], answers[N_PROBES][17];
    uint64_t live;
    apply_all(f, NULL, 1, reference, &live); /* and the answers into probe_answers */
    bsf_store_t s;
    char dir[64];
    hf_store_open(&s, dir, 64);
    MDB_txn *txn;
    assert_int_equal(mdb_txn_begin(s.env, NULL, 0, &txn), 0);
    msgpack_sbuffer scratch;
    msgpack_sbuffer_init(&scratch);
    for (size_t i = 0; i < f->n; i++)
        assert_int_equal(bsf_projection_apply(&s.proj, txn, &f->events[i], &scratch), 0);
    assert_int_equal(bsf_projection_digest(&s.proj, txn, digest), 0);
    assert_memory_equal(digest, reference, 32);
    rewrite_fixed(txn, s.proj.bindings);
    rewrite_fixed(txn, s.proj.ue_bindings);
    rewrite_fixed(txn, s.proj.mbs_bindings);
    unsigned char three = 3;
    MDB_val k = {14, "schema_version"}, v = {1, &three};
    assert_int_equal(mdb_put(txn, s.meta, &k, &v, 0), 0);
    assert_int_equal(mdb_txn_commit(txn), 0);
    bsf_store_close(&s);
    tu_store_open(&s, dir, 64);
    assert_int_equal(mdb_txn_begin(s.env, NULL, MDB_RDONLY, &txn), 0);
    assert_int_equal(mdb_get(txn, s.meta, &k, &v), 0);
    assert_int_equal(*(unsigned char *)v.mv_data, 4);
    assert_int_equal(bsf_projection_digest(&s.proj, txn, digest), 0);
    assert_memory_equal(digest, reference, 32);
    probe_discovery(f, &s, txn, answers);
    assert_memory_equal(answers, probe_answers, sizeof answers);
    mdb_txn_abort(txn);
    msgpack_sbuffer_destroy(&scratch);
    hf_store_close(&s, dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(same_digest_in_any_order, hf_setup, hf_teardown),
        cmocka_unit_test_setup_teardown(lookups, hf_setup, hf_teardown),
        cmocka_unit_test_setup_teardown(longest_prefix_wins, hf_setup, hf_teardown),
        cmocka_unit_test(record_formats),
        cmocka_unit_test_setup_teardown(an_old_store_opens, hf_setup, hf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
