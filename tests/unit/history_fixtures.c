/* The event history of the store tests (see history_fixtures.h). */
#include "tests/unit/history_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/hlc.h"
#include "tests/unit/binding_fixtures.h"
#include "tests/unit/test_util.h"

bsf_pcf_binding_t *hf_binding(hf_history_t *f, const char *json)
{
    return tu_binding(json, &f->buf, &f->zone);
}

/* A PcfForUeBinding from JSON, in the fixture's zone. */
static bsf_pcf_ue_binding_t *ue_binding(hf_history_t *f, const char *json)
{
    bsf_pcf_ue_binding_t *b = msgpack_zone_malloc(&f->zone, sizeof *b);
    assert_non_null(b);
    tu_ue_binding_into(json, &f->buf, &f->zone, b);
    return b;
}

/* A PcfMbsBinding from JSON, in the fixture's zone. */
static bsf_pcf_mbs_binding_t *mbs_binding(hf_history_t *f, const char *json)
{
    bsf_pcf_mbs_binding_t *b = msgpack_zone_malloc(&f->zone, sizeof *b);
    assert_non_null(b);
    tu_mbs_binding_into(json, &f->buf, &f->zone, b);
    return b;
}

bsf_binding_id_t hf_make_id(uint16_t site, uint64_t seq)
{
    bsf_binding_id_t id;
    uint8_t rnd[8] = {(uint8_t)seq, 7, 7, 7, 7, 7, 7, (uint8_t)site};
    bsf_binding_id_make(site, seq, rnd, &id);
    return id;
}

static void add(hf_history_t *f, bsf_event_t ev)
{
    assert_true(f->n < HF_MAX_EVENTS);
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

static void nested_prefixes(hf_history_t *f, uint64_t t)
{
    char json[512];
    for (int i = 0; i < 12; i++) {
        uint16_t site = (uint16_t)(1 + i % 2);
        bsf_binding_id_t id = hf_make_id(site, 700 + (uint64_t)i);
        snprintf(json, sizeof json,
                 "{\"supi\":\"imsi-00101777%07d\",\"ipv6Prefix\":\"2001:db8:77:0:1:2:3:%x/%u\","
                 "\"addIpv6Prefixes\":[\"2001:db8:78:%x::1/%u\"],"
                 "\"dnn\":\"ims\",\"snssai\":{\"sst\":1},\"pcfFqdn\":\"n%d.example.com\"}",
                 i, i, nested_lengths[i], i, 48 + i, i);
        /* Equal HLCs for the two /64s: the site, then the id, decide recency. */
        uint64_t hlc = t + (i == 11 ? 5 * 10 : (uint64_t)i * 10);
        add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_REGISTERED, .site = site,
                             .seq = 700 + (uint64_t)i, .hlc = hlc, .binding_id = id,
                             .binding = hf_binding(f, json)});
        if (i % 4 == 2) { /* moved to a /80 */
            snprintf(json, sizeof json,
                     "{\"supi\":\"imsi-00101777%07d\",\"ipv6Prefix\":\"2001:db8:77::%x/80\","
                     "\"dnn\":\"ims\",\"snssai\":{\"sst\":1},\"pcfFqdn\":\"n%d.example.com\"}",
                     i, i, i);
            add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_UPDATED, .site = site,
                                 .seq = 800 + (uint64_t)i, .hlc = hlc + 3, .binding_id = id,
                                 .binding = hf_binding(f, json), .created_hlc = hlc});
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
static void ue_history(hf_history_t *f, uint64_t t)
{
    char json[256];
    for (int i = 0; i < 14; i++) {
        uint16_t site = (uint16_t)(1 + i % 2);
        bsf_binding_id_t id = hf_make_id(site, 1000 + (uint64_t)i);
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
    bsf_binding_id_t id = hf_make_id(2, 1003);
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
static void mbs_history(hf_history_t *f, uint64_t t)
{
    char json[320];
    for (int i = 0; i < 10; i++) {
        uint16_t site = (uint16_t)(1 + i % 2);
        bsf_binding_id_t id = hf_make_id(site, 2000 + (uint64_t)i);
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
static bsf_subscription_t *subscription(hf_history_t *f, const char *json)
{
    bsf_subscription_t *s = msgpack_zone_malloc(&f->zone, sizeof *s);
    assert_non_null(s);
    tu_subscription_into(json, &f->buf, &f->zone, s);
    return s;
}

/* Subscriptions of two sites: replacements that move the SUPI, GPSI and expiry indexes, an
 * equal-HLC replacement conflict from two sites, removals (one twice, one expired) and a
 * removal applied before its creation in some orders. */
static void sub_history(hf_history_t *f, uint64_t t)
{
    char json[400];
    for (int i = 0; i < 10; i++) {
        uint16_t site = (uint16_t)(1 + i % 2);
        bsf_binding_id_t id = hf_make_id(site, 3000 + (uint64_t)i);
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
static void build_history(hf_history_t *f)
{
    char json[512];
    uint64_t t = BSF_HLC_FROM_MS(1700000000000ULL);
    for (int i = 0; i < 40; i++) {
        uint16_t site = (uint16_t)(1 + i % 2);
        bsf_binding_id_t id = hf_make_id(site, (uint64_t)i + 1);
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
                             .binding_id = id, .binding = hf_binding(f, json)});
        if (i % 4 == 1) { /* an update that moves the address and changes the PCF */
            snprintf(json, sizeof json,
                     "{\"supi\":\"imsi-0010100000%05d\",\"ipv4Addr\":\"10.9.%d.%d\","
                     "\"dnn\":\"internet\",\"snssai\":{\"sst\":1},"
                     "\"pcfFqdn\":\"moved%d.example.com\"}",
                     i, i / 10, i % 7, i);
            add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_UPDATED, .site = site,
                                 .seq = 100 + (uint64_t)i, .hlc = t + (uint64_t)i * 10 + 5,
                                 .binding_id = id, .binding = hf_binding(f, json),
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
    bsf_binding_id_t id = hf_make_id(1, 1);
    add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_UPDATED, .site = 1, .seq = 500,
                         .hlc = t + 1000, .binding_id = id, .created_hlc = t,
                         .binding = hf_binding(f, "{\"supi\":\"imsi-001010000000000\","
                                               "\"macAddr48\":\"00-00-00-00-00-aa\","
                                               "\"dnn\":\"lan\",\"snssai\":{\"sst\":2},"
                                               "\"pcfFqdn\":\"site1.example.com\"}")});
    add(f, (bsf_event_t){.type = BSF_EVENT_BINDING_UPDATED, .site = 2, .seq = 500,
                         .hlc = t + 1000, .binding_id = id, .created_hlc = t,
                         .binding = hf_binding(f, "{\"supi\":\"imsi-001010000000000\","
                                               "\"macAddr48\":\"00-00-00-00-00-bb\","
                                               "\"dnn\":\"lan\",\"snssai\":{\"sst\":2},"
                                               "\"pcfFqdn\":\"site2.example.com\"}")});
}

int hf_setup(void **state)
{
    hf_history_t *f = calloc(1, sizeof *f);
    msgpack_sbuffer_init(&f->buf);
    msgpack_zone_init(&f->zone, 65536);
    build_history(f);
    *state = f;
    return 0;
}

int hf_teardown(void **state)
{
    hf_history_t *f = *state;
    msgpack_sbuffer_destroy(&f->buf);
    msgpack_zone_destroy(&f->zone);
    free(f);
    return 0;
}

void hf_store_open(bsf_store_t *s, char *dir, size_t map_mb)
{
    strcpy(dir, "/tmp/bsf-unit-XXXXXX");
    assert_non_null(mkdtemp(dir));
    tu_store_open(s, dir, map_mb);
}

void hf_store_close(bsf_store_t *s, const char *dir)
{
    char path[128];
    bsf_store_close(s);
    snprintf(path, sizeof path, "%s/data.mdb", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/lock.mdb", dir);
    unlink(path);
    rmdir(dir);
}

void hf_encode_event(hf_history_t *f, size_t i, msgpack_sbuffer *out)
{
    msgpack_sbuffer_clear(out);
    msgpack_packer pk;
    msgpack_packer_init(&pk, out, msgpack_sbuffer_write);
    assert_int_equal(bsf_event_encode(&f->events[i], &pk), 0);
}

void hf_writer_begin(hf_writer_t *w)
{
    hf_store_open(&w->s, w->dir, 64);
    assert_int_equal(mdb_txn_begin(w->s.env, NULL, 0, &w->txn), 0);
    msgpack_sbuffer_init(&w->scratch);
}

void hf_writer_end(hf_writer_t *w, bool commit)
{
    if (commit)
        assert_int_equal(mdb_txn_commit(w->txn), 0);
    else
        mdb_txn_abort(w->txn);
    msgpack_sbuffer_destroy(&w->scratch);
    hf_store_close(&w->s, w->dir);
}

void hf_apply(hf_history_t *f, const size_t *order, int times, uint8_t digest[32],
              hf_inspect_fn inspect, void *ctx)
{
    hf_writer_t w;
    hf_writer_begin(&w);
    for (int k = 0; k < times; k++)
        for (size_t i = 0; i < f->n; i++)
            assert_int_equal(bsf_projection_apply(&w.s.proj, w.txn,
                                                  &f->events[order ? order[i] : i], &w.scratch),
                             0);
    assert_int_equal(bsf_projection_digest(&w.s.proj, w.txn, digest), 0);
    if (inspect)
        inspect(ctx, &w.s, w.txn);
    hf_writer_end(&w, true);
}

void hf_reference_digest(hf_history_t *f, uint8_t digest[32])
{
    hf_apply(f, NULL, 1, digest, NULL, NULL);
}
