/* Projections on real LMDB files: apply() is idempotent and order-insensitive (the same events
 * in any order give the same digest), lookups find what the indexes promise, and events
 * prepared on another thread (engine/prepared_event.h, bsfctl's apply pipeline) give the
 * same store as events applied directly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bsfctl/apply_pipeline.h"
#include "core/hlc.h"
#include "engine/store.h"
#include "projections/record.h"
#include "projections/mbs_projection.h"
#include "projections/ue_projection.h"
#include "tests/unit/test_util.h"

#define MAX_EVENTS 320

typedef struct {
    msgpack_sbuffer buf;
    msgpack_zone zone;
    bsf_event_t events[MAX_EVENTS];
    size_t n;
    char dir[64];
    int opened;
} fixture_t;

static bsf_pcf_binding_t *binding(fixture_t *f, const char *json)
{
    return tu_binding(json, &f->buf, &f->zone);
}

/* A PcfForUeBinding from JSON, in the fixture's zone. */
static bsf_pcf_ue_binding_t *ue_binding(fixture_t *f, const char *json)
{
    msgpack_object o = tu_json(json, &f->buf, &f->zone);
    bsf_pcf_ue_binding_t *b = msgpack_zone_malloc(&f->zone, sizeof *b);
    bsf_problem_t problem;
    assert_non_null(b);
    if (bsf_pcf_ue_binding_decode(&o, &f->zone, b, &problem) ||
        bsf_pcf_ue_binding_check_rules(b, &problem))
        fail_msg("bad UE binding %s: %s", json, problem.detail);
    return b;
}

/* A PcfMbsBinding from JSON, in the fixture's zone. */
static bsf_pcf_mbs_binding_t *mbs_binding(fixture_t *f, const char *json)
{
    msgpack_object o = tu_json(json, &f->buf, &f->zone);
    bsf_pcf_mbs_binding_t *b = msgpack_zone_malloc(&f->zone, sizeof *b);
    bsf_problem_t problem;
    assert_non_null(b);
    if (bsf_pcf_mbs_binding_decode(&o, &f->zone, b, &problem) ||
        bsf_pcf_mbs_binding_check_rules(b, &problem))
        fail_msg("bad MBS binding %s: %s", json, problem.detail);
    return b;
}

static bsf_binding_id_t make_id(uint16_t site, uint64_t seq)
{
    bsf_binding_id_t id;
    uint8_t rnd[8] = {(uint8_t)seq, 7, 7, 7, 7, 7, 7, (uint8_t)site};
    bsf_binding_id_make(site, seq, rnd, &id);
    return id;
}

static void add(fixture_t *f, bsf_event_t ev)
{
    assert_true(f->n < MAX_EVENTS);
    if (ev.type == BSF_EVENT_BINDING_REGISTERED || ev.type == BSF_EVENT_UE_BINDING_REGISTERED ||
        ev.type == BSF_EVENT_MBS_BINDING_REGISTERED || ev.type == BSF_EVENT_SUBSCRIPTION_CREATED)
        ev.created_hlc = ev.hlc;
    if (!ev.origin_ts_ms)
        ev.origin_ts_ms = -1;
    if (!ev.sender_ts_ms)
        ev.sender_ts_ms = -1;
    f->events[f->n++] = ev;
}

/* Nested IPv6 prefixes of many lengths around 2001:db8:77::, sent with host bits (the
 * decoder makes them canonical), some moved to another length by an update and some
 * deregistered: discovery's longest-prefix match must not depend on the order either. */
static const unsigned nested_lengths[] = {32, 40, 48, 56, 60, 64, 72, 96, 112, 127, 128, 64};

static void nested_prefixes(fixture_t *f, uint64_t t)
{
    char json[512];
    for (int i = 0; i < 12; i++) {
        uint16_t site = (uint16_t)(1 + i % 2);
        bsf_binding_id_t id = make_id(site, 700 + (uint64_t)i);
        snprintf(json, sizeof json,
                 "{\"supi\":\"imsi-00101777%07d\",\"ipv6Prefix\":\"2001:db8:77:0:1:2:3:%x/%u\","
                 "\"addIpv6Prefixes\":[\"2001:db8:78:%x::1/%u\"],"
                 "\"dnn\":\"ims\",\"snssai\":{\"sst\":1},\"pcfFqdn\":\"n%d.example.com\"}",
                 i, i, nested_lengths[i], i, 48 + i, i);
        /* Equal HLCs for the two /64s: the site, then the id, decide recency. */
        uint64_t hlc = t + (i == 11 ? 5 * 10 : (uint64_t)i * 10);
        add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_REGISTERED, .site = site,
                             .seq = 700 + (uint64_t)i, .hlc = hlc, .binding_id = id,
                             .binding = binding(f, json)});
        if (i % 4 == 2) { /* moved to a /80 */
            snprintf(json, sizeof json,
                     "{\"supi\":\"imsi-00101777%07d\",\"ipv6Prefix\":\"2001:db8:77::%x/80\","
                     "\"dnn\":\"ims\",\"snssai\":{\"sst\":1},\"pcfFqdn\":\"n%d.example.com\"}",
                     i, i, i);
            add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_UPDATED, .site = site,
                                 .seq = 800 + (uint64_t)i, .hlc = hlc + 3, .binding_id = id,
                                 .binding = binding(f, json), .created_hlc = hlc});
        }
        if (i % 5 == 3)
            add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_DEREGISTERED, .site = site,
                                 .seq = 900 + (uint64_t)i, .hlc = hlc + 4, .binding_id = id,
                                 .reason = BSF_REASON_PCF_REQUEST});
    }
}

/* PCF for a UE bindings of two sites: updates that change the GPSI-free PCF members, one
 * replaced by a newer registration of the same SUPI (the replacement's deregistration from
 * the creating site), early and duplicate deregistrations, and two updates with an equal HLC
 * from two sites (the site decides). */
static void ue_history(fixture_t *f, uint64_t t)
{
    char json[256];
    for (int i = 0; i < 14; i++) {
        uint16_t site = (uint16_t)(1 + i % 2);
        bsf_binding_id_t id = make_id(site, 1000 + (uint64_t)i);
        int ue = i < 12 ? i : i - 12; /* 12 and 13 register again for UEs 0 and 1 */
        snprintf(json, sizeof json,
                 "{\"supi\":\"imsi-00101888%07d\"%s,\"pcfForUeFqdn\":\"ue%d.example.com\"}", ue,
                 i % 3 ? ",\"gpsi\":\"msisdn-4988800000\"" : "", i);
        uint64_t hlc = t + (uint64_t)i * 10;
        add(f, (bsf_event_t){.type = BSF_EVENT_UE_BINDING_REGISTERED, .site = site,
                             .seq = 1000 + (uint64_t)i, .hlc = hlc, .binding_id = id,
                             .ue_binding = ue_binding(f, json)});
        if (i % 4 == 1) {
            snprintf(json, sizeof json,
                     "{\"supi\":\"imsi-00101888%07d\",\"pcfForUeIpEndPoints\":"
                     "[{\"ipv4Address\":\"192.0.2.%d\",\"port\":80}]}", ue, i);
            add(f, (bsf_event_t){.type = BSF_EVENT_UE_BINDING_UPDATED, .site = site,
                                 .seq = 1100 + (uint64_t)i, .hlc = hlc + 3, .binding_id = id,
                                 .created_hlc = hlc, .ue_binding = ue_binding(f, json)});
        }
        if (i % 5 == 2 || i < 2) /* deregistered, or replaced by 12 and 13 */
            add(f, (bsf_event_t){.type = BSF_EVENT_UE_BINDING_DEREGISTERED, .site = site,
                                 .seq = 1200 + (uint64_t)i, .hlc = hlc + (i < 2 ? 200 : 4),
                                 .binding_id = id,
                                 .reason = i < 2 ? BSF_REASON_REPLACED_BY_COLLISION
                                                 : BSF_REASON_PCF_REQUEST});
        if (i == 7) /* the same deregistration seen twice */
            for (uint16_t s2 = 1; s2 <= 2; s2++)
                add(f, (bsf_event_t){.type = BSF_EVENT_UE_BINDING_DEREGISTERED, .site = s2,
                                     .seq = 1300, .hlc = hlc + 8, .binding_id = id,
                                     .reason = BSF_REASON_OPERATOR});
    }
    bsf_binding_id_t id = make_id(2, 1003);
    for (uint16_t s2 = 1; s2 <= 2; s2++) {
        snprintf(json, sizeof json,
                 "{\"supi\":\"imsi-001018880000003\",\"pcfForUeFqdn\":\"site%u.example.com\"}",
                 s2);
        add(f, (bsf_event_t){.type = BSF_EVENT_UE_BINDING_UPDATED, .site = s2, .seq = 1400,
                             .hlc = t + 500, .binding_id = id, .created_hlc = t + 30,
                             .ue_binding = ue_binding(f, json)});
    }
}

/* MBS session bindings of two sites: TMGI, IPv4 and IPv6 SSM sessions, updates that change
 * the PCF, deregistrations (one duplicated), and an equal-HLC update conflict. */
static void mbs_history(fixture_t *f, uint64_t t)
{
    char json[320];
    for (int i = 0; i < 10; i++) {
        uint16_t site = (uint16_t)(1 + i % 2);
        bsf_binding_id_t id = make_id(site, 2000 + (uint64_t)i);
        if (i % 3 == 0)
            snprintf(json, sizeof json,
                     "{\"mbsSessionId\":{\"tmgi\":{\"mbsServiceId\":\"00%04X\",\"plmnId\":"
                     "{\"mcc\":\"001\",\"mnc\":\"01\"}},\"nid\":\"0000000000%X\"},"
                     "\"pcfFqdn\":\"mbs%d.example.com\"}", i, i, i);
        else if (i % 3 == 1)
            snprintf(json, sizeof json,
                     "{\"mbsSessionId\":{\"ssm\":{\"sourceIpAddr\":{\"ipv4Addr\":\"198.51.100.%d\"},"
                     "\"destIpAddr\":{\"ipv4Addr\":\"232.0.0.1\"}}},\"pcfFqdn\":\"mbs%d.example.com\"}",
                     i, i);
        else
            snprintf(json, sizeof json,
                     "{\"mbsSessionId\":{\"ssm\":{\"sourceIpAddr\":{\"ipv6Addr\":\"2001:db8::%x\"},"
                     "\"destIpAddr\":{\"ipv6Prefix\":\"ff3e::/96\"}},\"tmgi\":{\"mbsServiceId\":"
                     "\"AB%04X\",\"plmnId\":{\"mcc\":\"001\",\"mnc\":\"001\"}}},"
                     "\"pcfIpEndPoints\":[{\"ipv4Address\":\"192.0.2.%d\"}]}", i, i, i);
        uint64_t hlc = t + (uint64_t)i * 10;
        bsf_pcf_mbs_binding_t *b = mbs_binding(f, json);
        add(f, (bsf_event_t){.type = BSF_EVENT_MBS_BINDING_REGISTERED, .site = site,
                             .seq = 2000 + (uint64_t)i, .hlc = hlc, .binding_id = id,
                             .mbs_binding = b});
        if (i % 4 == 1) {
            bsf_pcf_mbs_binding_t *moved = msgpack_zone_malloc(&f->zone, sizeof *moved);
            *moved = *b;
            moved->pcf_fqdn = i % 8 == 1 ? "moved.example.com" : "moved2.example.com";
            add(f, (bsf_event_t){.type = BSF_EVENT_MBS_BINDING_UPDATED, .site = site,
                                 .seq = 2100 + (uint64_t)i, .hlc = hlc + 3, .binding_id = id,
                                 .created_hlc = hlc, .mbs_binding = moved});
            bsf_pcf_mbs_binding_t *other = msgpack_zone_malloc(&f->zone, sizeof *other);
            *other = *b;
            other->pcf_fqdn = "conflict.example.com";
            add(f, (bsf_event_t){.type = BSF_EVENT_MBS_BINDING_UPDATED,
                                 .site = (uint16_t)(3 - site), .seq = 2100 + (uint64_t)i,
                                 .hlc = hlc + 3, .binding_id = id, .created_hlc = hlc,
                                 .mbs_binding = other});
        }
        if (i % 4 == 2)
            for (int twice = 0; twice < 1 + (i == 6); twice++)
                add(f, (bsf_event_t){.type = BSF_EVENT_MBS_BINDING_DEREGISTERED, .site = site,
                                     .seq = 2200 + (uint64_t)i, .hlc = hlc + 5, .binding_id = id,
                                     .reason = BSF_REASON_PCF_REQUEST});
    }
}

/* A BsfSubscription from JSON, in the fixture's zone. */
static bsf_subscription_t *subscription(fixture_t *f, const char *json)
{
    msgpack_object o = tu_json(json, &f->buf, &f->zone);
    bsf_subscription_t *s = msgpack_zone_malloc(&f->zone, sizeof *s);
    bsf_problem_t problem;
    assert_non_null(s);
    if (bsf_subscription_decode(&o, &f->zone, s, &problem) ||
        bsf_subscription_check_rules(s, &problem))
        fail_msg("bad subscription %s: %s", json, problem.detail);
    return s;
}

/* Subscriptions of two sites: replacements that move the SUPI, GPSI and expiry indexes, an
 * equal-HLC replacement conflict from two sites, removals (one twice, one expired) and a
 * removal applied before its creation in some orders. */
static void sub_history(fixture_t *f, uint64_t t)
{
    char json[400];
    for (int i = 0; i < 10; i++) {
        uint16_t site = (uint16_t)(1 + i % 2);
        bsf_binding_id_t id = make_id(site, 3000 + (uint64_t)i);
        snprintf(json, sizeof json,
                 "{\"events\":[\"PCF_UE_BINDING_REGISTRATION\"],\"notifUri\":"
                 "\"http://nef%d.example.com/n\",\"notifCorreId\":\"c%d\",\"supi\":"
                 "\"imsi-00101999%07d\"%s,\"expiry\":\"2030-01-01T00:00:%02dZ\"}",
                 i, i, i % 4, i % 2 ? ",\"gpsi\":\"msisdn-4999900001\"" : "", i);
        uint64_t hlc = t + (uint64_t)i * 10;
        add(f, (bsf_event_t){.type = BSF_EVENT_SUBSCRIPTION_CREATED, .site = site,
                             .seq = 3000 + (uint64_t)i, .hlc = hlc, .binding_id = id,
                             .subscription = subscription(f, json)});
        if (i % 3 == 1)
            for (uint16_t s2 = 1; s2 <= 2; s2++) { /* equal HLCs: the site decides */
                snprintf(json, sizeof json,
                         "{\"events\":[\"PCF_PDU_SESSION_BINDING_REGISTRATION\"],\"notifUri\":"
                         "\"https://af%u.example.com/x\",\"notifCorreId\":\"r%d\",\"supi\":"
                         "\"imsi-00101999%07u\",\"snssaiDnnPairs\":{\"snssai\":{\"sst\":1},"
                         "\"dnn\":\"ims\"},\"expiry\":\"2031-01-01T00:00:00Z\"}",
                         (unsigned)s2, i, 50u + s2);
                add(f, (bsf_event_t){.type = BSF_EVENT_SUBSCRIPTION_REPLACED, .site = s2,
                                     .seq = 3100 + (uint64_t)i, .hlc = hlc + 3,
                                     .binding_id = id, .created_hlc = hlc,
                                     .subscription = subscription(f, json)});
            }
        if (i % 4 == 2)
            for (int twice = 0; twice < 1 + (i == 6); twice++)
                add(f, (bsf_event_t){.type = BSF_EVENT_SUBSCRIPTION_REMOVED, .site = site,
                                     .seq = 3200 + (uint64_t)i, .hlc = hlc + 5, .binding_id = id,
                                     .reason = i == 2 ? BSF_REASON_EXPIRED
                                                      : BSF_REASON_UNSUBSCRIBED});
    }
}

/* A history with registrations, updates (address moves, PCF changes), deregistrations
 * (one before its registration as seen from another site), collision replacements, two
 * sites, prefixes of several lengths, framed routes and MACs. */
static void build_history(fixture_t *f)
{
    char json[512];
    uint64_t t = BSF_HLC_FROM_MS(1700000000000ULL);
    for (int i = 0; i < 40; i++) {
        uint16_t site = (uint16_t)(1 + i % 2);
        bsf_binding_id_t id = make_id(site, (uint64_t)i + 1);
        if (i % 5 == 0)
            snprintf(json, sizeof json,
                     "{\"supi\":\"imsi-0010100000%05d\",\"macAddr48\":\"00-00-00-00-00-%02x\","
                     "\"dnn\":\"lan\",\"snssai\":{\"sst\":2},\"pcfFqdn\":\"pcf%d.example.com\"}",
                     i, i, i % 3);
        else if (i % 3 == 0)
            snprintf(json, sizeof json,
                     "{\"supi\":\"imsi-0010100000%05d\",\"ipv6Prefix\":\"2001:db8:%x::/%d\","
                     "\"ipv6FrameRouteList\":[\"2001:db8:f%x::/56\"],"
                     "\"dnn\":\"ims\",\"snssai\":{\"sst\":1,\"sd\":\"000001\"},"
                     "\"pcfDiamHost\":\"pcf%d.example.com\",\"pcfDiamRealm\":\"example.com\"}",
                     i, i, i % 2 ? 64 : 128, i, i % 3);
        else
            snprintf(json, sizeof json,
                     "{\"supi\":\"imsi-0010100000%05d\",\"gpsi\":\"msisdn-49170%05d\","
                     "\"ipv4Addr\":\"10.0.%d.%d\",\"ipv4FrameRouteList\":[\"192.168.%d.0/24\"],"
                     "\"dnn\":\"internet\",\"snssai\":{\"sst\":1},"
                     "\"pcfFqdn\":\"pcf%d.example.com\",\"vendorSpecific-000111\":"
                     "{\"version\":1,\"notificationUrl\":\"http://pcf%d.example.com/s/%d\"}}",
                     i, i, i / 10, i % 7, i, i % 3, i % 3, i);
        add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_REGISTERED, .site = site,
                             .seq = (uint64_t)i + 1, .hlc = t + (uint64_t)i * 10,
                             .binding_id = id, .binding = binding(f, json)});
        if (i % 4 == 1) { /* an update that moves the address and changes the PCF */
            snprintf(json, sizeof json,
                     "{\"supi\":\"imsi-0010100000%05d\",\"ipv4Addr\":\"10.9.%d.%d\","
                     "\"dnn\":\"internet\",\"snssai\":{\"sst\":1},"
                     "\"pcfFqdn\":\"moved%d.example.com\"}",
                     i, i / 10, i % 7, i);
            add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_UPDATED, .site = site,
                                 .seq = 100 + (uint64_t)i, .hlc = t + (uint64_t)i * 10 + 5,
                                 .binding_id = id, .binding = binding(f, json),
                                 .created_hlc = t + (uint64_t)i * 10});
        }
        if (i % 6 == 2) /* deregistered by the PCF */
            add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_DEREGISTERED, .site = site,
                                 .seq = 200 + (uint64_t)i, .hlc = t + (uint64_t)i * 10 + 7,
                                 .binding_id = id, .reason = BSF_REASON_PCF_REQUEST});
        /* Audit outcomes (projections/audit_projection.h): written by the creating site,
         * before an update (which resets them), after a deregistration (dropped). */
        if (i % 4 == 3 || i % 4 == 1)
            add(f, (bsf_event_t){.type = i % 4 == 3 ? BSF_EVENT_AUDIT_FAILED
                                                    : BSF_EVENT_AUDIT_SUSPECTED,
                                 .site = site, .seq = 150 + (uint64_t)i,
                                 .hlc = t + (uint64_t)i * 10 + 3, .binding_id = id,
                                 .audit = {(uint32_t)(i % 3 + 1), -1, (uint32_t)(i % 2),
                                           i % 2 ? "PCF-x" : NULL}});
        if (i % 6 == 2)
            add(f, (bsf_event_t){.type = BSF_EVENT_AUDIT_CONFIRMED, .site = site,
                                 .seq = 250 + (uint64_t)i, .hlc = t + (uint64_t)i * 10 + 9,
                                 .binding_id = id,
                                 .audit = {0, 1700000000123LL, 0, "PCF-y"}});
        if (i % 9 == 4) /* the same deregistration seen twice, from two sites */
            for (uint16_t s = 1; s <= 2; s++)
                add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_DEREGISTERED, .site = s,
                                     .seq = 300 + (uint64_t)i, .hlc = t + (uint64_t)i * 10 + 8,
                                     .binding_id = id, .reason = BSF_REASON_OPERATOR});
    }
    nested_prefixes(f, t + 2000);
    ue_history(f, t + 3000);
    mbs_history(f, t + 4000);
    sub_history(f, t + 5000);
    /* Two updates of one binding from two sites with the same HLC: the site id decides. */
    bsf_binding_id_t id = make_id(1, 1);
    add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_UPDATED, .site = 1, .seq = 500,
                         .hlc = t + 1000, .binding_id = id, .created_hlc = t,
                         .binding = binding(f, "{\"supi\":\"imsi-001010000000000\","
                                               "\"macAddr48\":\"00-00-00-00-00-aa\","
                                               "\"dnn\":\"lan\",\"snssai\":{\"sst\":2},"
                                               "\"pcfFqdn\":\"site1.example.com\"}")});
    add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_UPDATED, .site = 2, .seq = 500,
                         .hlc = t + 1000, .binding_id = id, .created_hlc = t,
                         .binding = binding(f, "{\"supi\":\"imsi-001010000000000\","
                                               "\"macAddr48\":\"00-00-00-00-00-bb\","
                                               "\"dnn\":\"lan\",\"snssai\":{\"sst\":2},"
                                               "\"pcfFqdn\":\"site2.example.com\"}")});
}

static int setup(void **state)
{
    fixture_t *f = calloc(1, sizeof *f);
    msgpack_sbuffer_init(&f->buf);
    msgpack_zone_init(&f->zone, 65536);
    build_history(f);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture_t *f = *state;
    msgpack_sbuffer_destroy(&f->buf);
    msgpack_zone_destroy(&f->zone);
    free(f);
    return 0;
}

static void open_store_sized(bsf_store_t *s, char *dir, size_t map_mb)
{
    strcpy(dir, "/tmp/bsf-unit-XXXXXX");
    assert_non_null(mkdtemp(dir));
    char err[256];
    bsf_store_options_t so = {dir, map_mb, false, 16};
    if (bsf_store_open(s, &so, err, sizeof err))
        fail_msg("%s", err);
}

static void open_store(bsf_store_t *s, char *dir)
{
    open_store_sized(s, dir, 64);
}

static void close_store(bsf_store_t *s, const char *dir)
{
    char path[128];
    bsf_store_close(s);
    snprintf(path, sizeof path, "%s/data.mdb", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/lock.mdb", dir);
    unlink(path);
    rmdir(dir);
}

#define N_PROBES 6

/* The binding id discovery answers for a few addresses in the nested prefixes (zeros: none)
 * and the number of matches it was chosen from. */
static void probe_discovery(fixture_t *f, bsf_store_t *s, MDB_txn *txn,
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

/* Applies the events in `order` (each `times` times) to a fresh store; returns the digest
 * and the live count, and leaves the discovery answers of the nested prefixes in
 * probe_answers. */
static void apply_all(fixture_t *f, const size_t *order, int times, uint8_t digest[32],
                      uint64_t *live)
{
    bsf_store_t s;
    char dir[64];
    open_store(&s, dir);
    MDB_txn *txn;
    assert_int_equal(mdb_txn_begin(s.env, NULL, 0, &txn), 0);
    msgpack_sbuffer scratch;
    msgpack_sbuffer_init(&scratch);
    for (int k = 0; k < times; k++)
        for (size_t i = 0; i < f->n; i++)
            assert_int_equal(bsf_projection_apply(&s.proj, txn, &f->events[order[i]], &scratch),
                             0);
    assert_int_equal(bsf_projection_digest(&s.proj, txn, digest), 0);
    *live = bsf_projection_counter(&s.proj, txn, "total") +
            1000 * bsf_projection_counter(&s.proj, txn, BSF_UE_COUNTER_TOTAL) +
            100000 * bsf_projection_counter(&s.proj, txn, BSF_MBS_COUNTER_TOTAL);
    probe_discovery(f, &s, txn, probe_answers);
    MDB_stat st;
    assert_int_equal(mdb_stat(txn, s.proj.audit, &st), 0);
    audit_records = st.ms_entries;
    assert_int_equal(mdb_txn_commit(txn), 0);
    msgpack_sbuffer_destroy(&scratch);
    close_store(&s, dir);
}

static void expect_answer(uint8_t answer[17], int nested, size_t n)
{
    bsf_binding_id_t id = make_id((uint16_t)(1 + nested % 2), 700 + (uint64_t)nested);
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
    bsf_binding_id_t id5 = make_id(2, 705), id11 = make_id(2, 711);
    expect_answer(a[2], memcmp(id5.b, id11.b, 16) > 0 ? 5 : 11, 2);
    /* 2001:db8:77:ff::/64: outside the /64s and the /60; the /40. */
    expect_answer(a[3], 1, 1);
    /* 2001:db8:78:3::/64 in addIpv6Prefixes /48../59 of the live ones: 11's /59. */
    expect_answer(a[4], 11, 1);
    expect_answer(a[5], -1, 0);
}

static void same_digest_in_any_order(void **state)
{
    fixture_t *f = *state;
    size_t order[MAX_EVENTS];
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

static void lookups(void **state)
{
    fixture_t *f = *state;
    bsf_store_t s;
    char dir[64];
    open_store(&s, dir);
    MDB_txn *txn;
    assert_int_equal(mdb_txn_begin(s.env, NULL, 0, &txn), 0);
    msgpack_sbuffer scratch;
    msgpack_sbuffer_init(&scratch);
    uint64_t t = BSF_HLC_FROM_MS(1800000000000ULL);
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
    for (int i = 0; i < 4; i++) {
        ids[i] = make_id(9, 1000 + (uint64_t)i);
        bsf_event_t ev = {.type = BSF_EVENT_BINDING_REGISTERED, .site = 9,
                          .seq = 1000 + (uint64_t)i, .hlc = t + (uint64_t)i, .binding_id = ids[i],
                          .binding = binding(f, bindings[i]), .created_hlc = t + (uint64_t)i,
                          .origin_ts_ms = -1, .sender_ts_ms = -1};
        assert_int_equal(bsf_projection_apply(&s.proj, txn, &ev, &scratch), 0);
    }
    bsf_discovery_query_t q = {.kind = BSF_UE_ADDR_IPV6};
    bsf_match_t m;
    size_t n;
    /* A /128 inside the /64 finds it; one outside and a /48 around it do not. */
    assert_true(bsf_ipv6_prefix_parse("2001:db8:aa::77/128", 19, &q.ipv6));
    assert_int_equal(bsf_projection_discover(&s.proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 1);
    assert_memory_equal(m.id.b, ids[0].b, 16);
    assert_true(bsf_ipv6_prefix_parse("2001:db8:ab::77/128", 19, &q.ipv6));
    assert_int_equal(bsf_projection_discover(&s.proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 0);
    assert_true(bsf_ipv6_prefix_parse("2001:db8::/32", 13, &q.ipv6));
    assert_int_equal(bsf_projection_discover(&s.proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 0);
    /* Two bindings on one IPv4 address: the most recent wins, both are counted. */
    q.kind = BSF_UE_ADDR_IPV4;
    assert_true(bsf_ipv4_parse("10.50.0.1", 9, &q.ipv4));
    assert_int_equal(bsf_projection_discover(&s.proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 2);
    assert_memory_equal(m.id.b, ids[2].b, 16);
    q.supi = "imsi-001019999900002"; /* a filter narrows to the older one */
    assert_int_equal(bsf_projection_discover(&s.proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 1);
    assert_memory_equal(m.id.b, ids[1].b, 16);
    /* A registration's cookie is kept in the record (seed 3.3). */
    bsf_event_t with_cookie = {.type = BSF_EVENT_BINDING_REGISTERED, .site = 9, .seq = 1500,
                               .hlc = t + 50, .binding_id = make_id(9, 1500),
                               .binding = binding(f, bindings[0]), .created_hlc = t + 50,
                               .origin_ts_ms = -1, .sender_ts_ms = -1, .cookie = "cookie-data",
                               .cookie_len = 11};
    assert_int_equal(bsf_projection_apply(&s.proj, txn, &with_cookie, &scratch), 0);
    bsf_record_t rec;
    assert_int_equal(bsf_projection_get(&s.proj, txn, &with_cookie.binding_id, &rec), 0);
    assert_int_equal(rec.cookie_len, 11);
    assert_memory_equal(rec.cookie, "cookie-data", 11);
    assert_int_equal(bsf_projection_get(&s.proj, txn, &ids[0], &rec), 0);
    assert_int_equal(rec.cookie_len, 0);
    bsf_event_t drop_cookie = with_cookie;
    drop_cookie.type = BSF_EVENT_BINDING_DEREGISTERED;
    drop_cookie.hlc = t + 51;
    drop_cookie.reason = BSF_REASON_PCF_REQUEST;
    assert_int_equal(bsf_projection_apply(&s.proj, txn, &drop_cookie, &scratch), 0);
    /* Tombstones past the horizon are collected, the others kept. */
    bsf_event_t old_dereg = {.type = BSF_EVENT_BINDING_DEREGISTERED, .site = 9, .seq = 1600,
                             .hlc = t + 10, .binding_id = ids[1], .reason = BSF_REASON_PCF_REQUEST};
    bsf_event_t new_dereg = old_dereg;
    new_dereg.seq = 1601;
    new_dereg.hlc = t + 90;
    new_dereg.binding_id = ids[2];
    assert_int_equal(bsf_projection_apply(&s.proj, txn, &old_dereg, &scratch), 0);
    assert_int_equal(bsf_projection_apply(&s.proj, txn, &new_dereg, &scratch), 0);
    size_t removed = 0;
    assert_int_equal(bsf_projection_gc_tombstones(&s.proj, txn, t + 60, 100, &removed), 0);
    assert_int_equal(removed, 2); /* ids[1] and the cookie binding (t + 51) */
    assert_int_equal(bsf_projection_get(&s.proj, txn, &ids[1], &rec), MDB_NOTFOUND);
    assert_int_equal(bsf_projection_get(&s.proj, txn, &ids[2], &rec), 0);
    assert_int_equal(rec.state, BSF_RECORD_DEAD);
    MDB_stat st;
    assert_int_equal(mdb_stat(txn, s.proj.tombstones, &st), 0);
    assert_int_equal(st.ms_entries, 1);
    /* Additional MAC addresses are indexed. */
    q = (bsf_discovery_query_t){.kind = BSF_UE_ADDR_MAC};
    assert_true(bsf_mac48_parse("02-00-00-00-00-02", 17, &q.mac));
    assert_int_equal(bsf_projection_discover(&s.proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 1);
    assert_memory_equal(m.id.b, ids[3].b, 16);
    /* Deregistration removes every index entry and counter. */
    bsf_event_t dereg = {.type = BSF_EVENT_BINDING_DEREGISTERED, .site = 9, .seq = 2000,
                         .hlc = t + 100, .binding_id = ids[3], .reason = BSF_REASON_PCF_REQUEST};
    assert_int_equal(bsf_projection_apply(&s.proj, txn, &dereg, &scratch), 0);
    assert_int_equal(bsf_projection_discover(&s.proj, txn, &q, &f->zone, &m, &n), 0);
    assert_int_equal(n, 0);
    /* Live now: only ids[0] (ids[1], ids[2] and the cookie binding were deregistered above). */
    assert_int_equal(bsf_projection_counter(&s.proj, txn, "total"), 1);
    assert_int_equal(bsf_projection_counter(&s.proj, txn, "pcf/d.example.com"), 0);
    assert_int_equal(bsf_projection_counter(&s.proj, txn, "dnn/x"), 1);
    mdb_txn_abort(txn);
    msgpack_sbuffer_destroy(&scratch);
    close_store(&s, dir);
}

static size_t discover6(fixture_t *f, bsf_store_t *s, MDB_txn *txn, const char *prefix,
                        const char *dnn, bsf_match_t *m)
{
    bsf_discovery_query_t q = {.kind = BSF_UE_ADDR_IPV6, .dnn = dnn};
    assert_true(bsf_ipv6_prefix_parse(prefix, strlen(prefix), &q.ipv6));
    size_t n = 0;
    assert_int_equal(bsf_projection_discover(&s->proj, txn, &q, &f->zone, m, &n), 0);
    return n;
}

/* The most specific prefix holding the query wins, however recent a shorter one is; a
 * filter that the specific one fails falls back to the next length. */
static void longest_prefix_wins(void **state)
{
    fixture_t *f = *state;
    bsf_store_t s;
    char dir[64];
    open_store(&s, dir);
    MDB_txn *txn;
    assert_int_equal(mdb_txn_begin(s.env, NULL, 0, &txn), 0);
    msgpack_sbuffer scratch;
    msgpack_sbuffer_init(&scratch);
    uint64_t t = BSF_HLC_FROM_MS(1800000000000ULL);
    const char *const bindings[] = {
        "{\"ipv6Prefix\":\"2001:db8:1:2::/64\",\"dnn\":\"a\",\"snssai\":{\"sst\":1},"
        "\"pcfFqdn\":\"specific.example.com\"}",
        "{\"ipv6Prefix\":\"2001:db8::/32\",\"dnn\":\"b\",\"snssai\":{\"sst\":1},"
        "\"pcfFqdn\":\"wide.example.com\"}",
        "{\"ipv6Prefix\":\"2001:db8:9::/64\",\"ipv6FrameRouteList\":[\"2001:db8:1:2:3::/80\"],"
        "\"dnn\":\"c\",\"snssai\":{\"sst\":1},\"pcfFqdn\":\"route.example.com\"}",
    };
    bsf_binding_id_t ids[3];
    for (int i = 0; i < 3; i++) { /* the /32 is the most recent of the first two */
        ids[i] = make_id(9, 3000 + (uint64_t)i);
        bsf_event_t ev = {.type = BSF_EVENT_BINDING_REGISTERED, .site = 9,
                          .seq = 3000 + (uint64_t)i, .hlc = t + (uint64_t)i, .binding_id = ids[i],
                          .binding = binding(f, bindings[i]), .created_hlc = t + (uint64_t)i,
                          .origin_ts_ms = -1, .sender_ts_ms = -1};
        assert_int_equal(bsf_projection_apply(&s.proj, txn, &ev, &scratch), 0);
    }
    bsf_match_t m;
    assert_int_equal(discover6(f, &s, txn, "2001:db8:1:2::77/128", NULL, &m), 1);
    assert_memory_equal(m.id.b, ids[0].b, 16);
    assert_int_equal(discover6(f, &s, txn, "2001:db8:1:2::/64", NULL, &m), 1);
    assert_memory_equal(m.id.b, ids[0].b, 16);
    assert_int_equal(discover6(f, &s, txn, "2001:db8:1:2::77/128", "b", &m), 1);
    assert_memory_equal(m.id.b, ids[1].b, 16); /* the /64 fails the filter */
    assert_int_equal(discover6(f, &s, txn, "2001:db8:1:3::77/128", NULL, &m), 1);
    assert_memory_equal(m.id.b, ids[1].b, 16);
    assert_int_equal(discover6(f, &s, txn, "2001:db8:1::/48", NULL, &m), 1);
    assert_memory_equal(m.id.b, ids[1].b, 16);
    /* A framed route is a prefix like the others: the /80 is more specific than the /64. */
    assert_int_equal(discover6(f, &s, txn, "2001:db8:1:2:3::1/128", NULL, &m), 1);
    assert_memory_equal(m.id.b, ids[2].b, 16);
    assert_int_equal(discover6(f, &s, txn, "2001:db9::1/128", NULL, &m), 0);
    mdb_txn_abort(txn);
    msgpack_sbuffer_destroy(&scratch);
    close_store(&s, dir);
}

/* The encoded form of event i (as Kafka or another store's log carries it). */
static void encode_event(fixture_t *f, size_t i, msgpack_sbuffer *out)
{
    msgpack_sbuffer_clear(out);
    msgpack_packer pk;
    msgpack_packer_init(&pk, out, msgpack_sbuffer_write);
    assert_int_equal(bsf_event_encode(&f->events[i], &pk), 0);
}

static void reference_digest(fixture_t *f, uint8_t digest[32])
{
    size_t order[MAX_EVENTS];
    uint64_t live;
    for (size_t i = 0; i < f->n; i++)
        order[i] = i;
    apply_all(f, order, 1, digest, &live);
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
    fixture_t *f = *state;
    uint8_t reference[32], digest[32], answers[N_PROBES][17];
    reference_digest(f, reference);
    bsf_store_t s;
    char dir[64], err[256];
    open_store(&s, dir);
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
    bsf_store_options_t so = {dir, 64, false, 16};
    if (bsf_store_open(&s, &so, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(mdb_txn_begin(s.env, NULL, MDB_RDONLY, &txn), 0);
    assert_int_equal(mdb_get(txn, s.meta, &k, &v), 0);
    assert_int_equal(*(unsigned char *)v.mv_data, 4);
    assert_int_equal(bsf_projection_digest(&s.proj, txn, digest), 0);
    assert_memory_equal(digest, reference, 32);
    probe_discovery(f, &s, txn, answers);
    assert_memory_equal(answers, probe_answers, sizeof answers);
    mdb_txn_abort(txn);
    msgpack_sbuffer_destroy(&scratch);
    close_store(&s, dir);
}

static void prepared_events_give_the_same_store(void **state)
{
    fixture_t *f = *state;
    uint8_t reference[32], digest[32];
    reference_digest(f, reference);
    bsf_store_t s;
    char dir[64], err[256];
    open_store(&s, dir);
    MDB_txn *txn;
    assert_int_equal(mdb_txn_begin(s.env, NULL, 0, &txn), 0);
    msgpack_sbuffer raw, tmp, scratch;
    msgpack_sbuffer_init(&raw);
    msgpack_sbuffer_init(&tmp);
    msgpack_sbuffer_init(&scratch);
    msgpack_zone zone;
    msgpack_zone_init(&zone, 4096);
    for (size_t i = 0; i < f->n; i++) {
        encode_event(f, i, &raw);
        bsf_prepared_event_t pe;
        /* binding frames made by the preparing side for even events, by the writer for odd */
        if (bsf_prepared_event_make(raw.data, raw.size, i % 2 == 0, &zone, &tmp, &pe, err,
                                    sizeof err))
            fail_msg("event %zu: %s", i, err);
        msgpack_sbuffer_clear(&raw); /* the prepared event keeps its own copy */
        assert_int_equal(pe.ev.type, f->events[i].type);
        /* (UE bindings are framed by the writer: they are few and small) */
        assert_true((pe.binding_frame != NULL) ==
                    (i % 2 == 0 && bsf_event_has_binding(pe.ev.type) &&
                     !bsf_event_is_ue(pe.ev.type) && !bsf_event_is_mbs(pe.ev.type)));
        assert_int_equal(bsf_store_write_prepared(&s, txn, &pe, &scratch, NULL), 0);
        msgpack_zone_clear(&zone);
    }
    assert_int_equal(bsf_projection_digest(&s.proj, txn, digest), 0);
    assert_memory_equal(digest, reference, 32);
    assert_int_equal(s.log.last, f->n);
    /* not an event: refused with a reason, nothing allocated outside the zone */
    bsf_prepared_event_t pe;
    err[0] = '\0';
    assert_int_equal(bsf_prepared_event_make("\x93\x01", 2, true, &zone, &tmp, &pe, err,
                                             sizeof err),
                     -1);
    assert_true(err[0] != '\0');
    mdb_txn_abort(txn);
    msgpack_zone_destroy(&zone);
    msgpack_sbuffer_destroy(&raw);
    msgpack_sbuffer_destroy(&tmp);
    msgpack_sbuffer_destroy(&scratch);
    close_store(&s, dir);
}

typedef struct {
    uint64_t written, commits, last_position;
    bool in_order;
} pipeline_seen_t;

static void seen_written(void *ctx, const bsfctl_item_t *it)
{
    pipeline_seen_t *seen = ctx;
    seen->in_order = seen->in_order && it->position == seen->last_position + 1;
    seen->last_position = it->position;
    seen->written++;
}

static int seen_commit(void *ctx, MDB_txn *txn)
{
    (void)txn;
    ((pipeline_seen_t *)ctx)->commits++;
    return 0;
}

/* Pushes the history `rounds` times (positions from 1); stops when the writer fails.
 * Returns the number of items pushed. */
static uint64_t push_history(fixture_t *f, bsfctl_pipeline_t *pl, int rounds)
{
    msgpack_sbuffer raw, tmp;
    msgpack_sbuffer_init(&raw);
    msgpack_sbuffer_init(&tmp);
    uint64_t pushed = 0;
    char err[256];
    for (int r = 0; r < rounds; r++)
        for (size_t i = 0; i < f->n; i++) {
            msgpack_zone *zone;
            bsfctl_item_t *it = bsfctl_pipeline_next(pl, &zone);
            if (!it)
                goto out;
            encode_event(f, i, &raw);
            if (bsf_prepared_event_make(raw.data, raw.size, false, zone, &tmp, &it->pe, err,
                                        sizeof err))
                fail_msg("event %zu: %s", i, err);
            it->has_event = true;
            it->position = ++pushed;
            bsfctl_pipeline_push(pl);
        }
out:
    msgpack_sbuffer_destroy(&raw);
    msgpack_sbuffer_destroy(&tmp);
    return pushed;
}

static void pipeline_writes_in_order_and_commits(void **state)
{
    fixture_t *f = *state;
    uint8_t reference[32], digest[32];
    reference_digest(f, reference);
    bsf_store_t s;
    char dir[64], err[256];
    open_store(&s, dir);
    pipeline_seen_t seen = {.in_order = true};
    bsfctl_pipeline_hooks_t hooks = {&seen, seen_written, seen_commit};
    bsfctl_pipeline_t *pl = bsfctl_pipeline_start(&s, 7, &hooks, err, sizeof err);
    assert_non_null(pl);
    /* 25 rounds: several batches of the pipeline; the same events again change nothing */
    uint64_t pushed = push_history(f, pl, 25);
    assert_int_equal(pushed, 25 * f->n);
    assert_int_equal(bsfctl_pipeline_finish(pl), 0);
    assert_int_equal(seen.written, pushed);
    assert_true(seen.in_order);
    assert_int_equal(seen.commits, pushed / 7 + 1); /* every 7 items, and the last */
    MDB_txn *txn;
    assert_int_equal(mdb_txn_begin(s.env, NULL, MDB_RDONLY, &txn), 0);
    assert_int_equal(bsf_projection_digest(&s.proj, txn, digest), 0);
    mdb_txn_abort(txn);
    assert_memory_equal(digest, reference, 32);
    assert_int_equal(s.log.last, pushed);
    close_store(&s, dir);
}

static void pipeline_stops_when_the_store_is_full(void **state)
{
    fixture_t *f = *state;
    bsf_store_t s;
    char dir[64], err[256];
    open_store_sized(&s, dir, 1);
    pipeline_seen_t seen = {.in_order = true};
    bsfctl_pipeline_hooks_t hooks = {&seen, seen_written, seen_commit};
    bsfctl_pipeline_t *pl = bsfctl_pipeline_start(&s, 1000, &hooks, err, sizeof err);
    assert_non_null(pl);
    /* far more log than 1 MB holds: the reader is told to stop instead of waiting */
    uint64_t pushed = push_history(f, pl, 2000);
    assert_true(pushed < 2000 * f->n);
    assert_int_equal(bsfctl_pipeline_finish(pl), MDB_MAP_FULL);
    /* what was committed before the failure is whole: log and projections agree */
    MDB_txn *txn;
    assert_int_equal(mdb_txn_begin(s.env, NULL, MDB_RDONLY, &txn), 0);
    uint64_t events = 0, first = 0;
    assert_int_equal(bsf_embedded_log_stat(&s.log, txn, &events, &first), 0);
    mdb_txn_abort(txn);
    assert_int_equal(events % 1000, 0);
    assert_true(seen.commits == events / 1000);
    close_store(&s, dir);
}

/* The free space a store reports: the map past its file, and pages freed by earlier
 * transactions once the free list is counted. */
static void space_counts_the_free_list(void **state)
{
    (void)state;
    bsf_store_t s;
    char dir[64];
    open_store_sized(&s, dir, 4);
    bsf_store_space_t before, after, quick;
    assert_int_equal(bsf_store_space(&s, UINT64_MAX, &before), 0);
    assert_int_equal(before.map, 4u << 20);
    assert_true(before.beyond <= before.map && before.total >= before.beyond);
    /* the filesystem is measured; the store can reach at most its map */
    assert_true(before.fs_free != UINT64_MAX && before.fs_free > 0);
    assert_true(before.limit <= before.map);
    assert_true(before.beyond <= before.fs_free + bsf_store_file_bytes(&s));
    /* 200 KB written, then deleted in a later transaction: the file keeps its size, its pages
     * go to the free list */
    MDB_txn *txn;
    char value[1024] = {0};
    for (int round = 0; round < 2; round++) {
        assert_int_equal(mdb_txn_begin(s.env, NULL, 0, &txn), 0);
        for (unsigned i = 0; i < 200; i++) {
            char key[32];
            snprintf(key, sizeof key, "space-test/%u", i);
            memcpy(value, &i, sizeof i);
            MDB_val k = {strlen(key), key}, v = {sizeof value, value};
            int rc = round ? mdb_del(txn, s.meta, &k, NULL) : mdb_put(txn, s.meta, &k, &v, 0);
            assert_int_equal(rc, 0);
        }
        assert_int_equal(mdb_txn_commit(txn), 0);
    }
    assert_int_equal(bsf_store_space(&s, UINT64_MAX, &after), 0);
    assert_true(after.beyond + 200 * 1024 <= before.beyond);
    assert_true(after.total >= after.beyond + 200 * 1024);
    assert_true(after.total <= before.total);
    /* below the scan threshold only the map past the file is counted */
    assert_int_equal(bsf_store_space(&s, 0, &quick), 0);
    assert_int_equal(quick.total, quick.beyond);
    assert_int_equal(quick.beyond, after.beyond);
    close_store(&s, dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(same_digest_in_any_order, setup, teardown),
        cmocka_unit_test_setup_teardown(lookups, setup, teardown),
        cmocka_unit_test_setup_teardown(longest_prefix_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(prepared_events_give_the_same_store, setup, teardown),
        cmocka_unit_test(record_formats),
        cmocka_unit_test_setup_teardown(an_old_store_opens, setup, teardown),
        cmocka_unit_test_setup_teardown(pipeline_writes_in_order_and_commits, setup, teardown),
        cmocka_unit_test_setup_teardown(pipeline_stops_when_the_store_is_full, setup, teardown),
        cmocka_unit_test(space_counts_the_free_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
