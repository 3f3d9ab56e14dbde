/* bsfctl history: the events of one binding, subscriber or UE address, from the store's log
 * (which holds every site's events) or from the replicated log's topics, in HLC order. Two
 * passes: the first finds the bindings that match, the second prints their events (a
 * deregistration carries no address and may be stored before the registration it ends). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsfctl/bsfctl.h"
#include "bsfctl/kafka_source.h"
#include "bsfctl/store_access.h"
#include "common/time_text.h"
#include "core/discovery.h"
#include "core/hlc.h"
#include "gateways/sbi/json_codec.h"

#define MAX_TRACKED 4096

typedef enum { BY_BINDING, BY_SUPI, BY_GPSI, BY_ADDRESS } filter_kind_t;

typedef struct {
    const bsfctl_options_t *o;
    filter_kind_t kind;
    bsf_binding_id_t id;
    bsf_discovery_query_t addr;
    int64_t since_ms, until_ms;
    /* Ids of the bindings that matched so far: their deregistrations carry no binding. */
    bsf_binding_id_t tracked[MAX_TRACKED];
    size_t n_tracked;
    msgpack_zone zone;
    msgpack_sbuffer text;
    size_t printed;
    const char *topic; /* reading Kafka: the event's topic (position = its offset) */
    /* The matches are kept and printed in HLC order at the end: the sites' events reach a
     * log (and the topics interleave) in no particular order. */
    struct match *matches;
    size_t n_matches, cap_matches;
    char topics[16][256]; /* the topic names (the reader's own go away with it) */
    size_t n_topics;
} history_t;

typedef struct match {
    uint64_t hlc, offset;
    uint16_t site;
    const char *topic;
    char *raw;
    size_t len;
} match_t;

static const char *intern(history_t *h, const char *topic);

static bool tracked(const history_t *h, const bsf_binding_id_t *id)
{
    for (size_t i = 0; i < h->n_tracked; i++)
        if (memcmp(h->tracked[i].b, id->b, 16) == 0)
            return true;
    return false;
}

static void track(history_t *h, const bsf_binding_id_t *id)
{
    if (!tracked(h, id) && h->n_tracked < MAX_TRACKED)
        h->tracked[h->n_tracked++] = *id;
}

static bool binding_matches(const history_t *h, const bsf_pcf_binding_t *b)
{
    switch (h->kind) {
    case BY_SUPI:
        return b->supi && strcmp(b->supi, h->o->supi) == 0;
    case BY_GPSI:
        return b->gpsi && strcmp(b->gpsi, h->o->gpsi) == 0;
    case BY_ADDRESS:
        return bsf_discovery_matches(&h->addr, b);
    default:
        return false;
    }
}

/* PCF-for-UE bindings match by SUPI or GPSI (they have no UE address). */
static bool ue_binding_matches(const history_t *h, const bsf_pcf_ue_binding_t *b)
{
    if (h->kind == BY_SUPI)
        return strcmp(b->supi, h->o->supi) == 0;
    return h->kind == BY_GPSI && b->gpsi && strcmp(b->gpsi, h->o->gpsi) == 0;
}

/* Subscriptions match by their SUPI or GPSI, like the UE's bindings. */
static bool sub_matches(const history_t *h, const bsf_subscription_t *s)
{
    if (h->kind == BY_SUPI)
        return strcmp(s->supi, h->o->supi) == 0;
    return h->kind == BY_GPSI && s->gpsi && strcmp(s->gpsi, h->o->gpsi) == 0;
}

static bool event_matches(history_t *h, const bsf_event_t *ev)
{
    if (h->kind == BY_BINDING)
        return memcmp(ev->binding_id.b, h->id.b, 16) == 0;
    if ((ev->binding && binding_matches(h, ev->binding)) ||
        (ev->ue_binding && ue_binding_matches(h, ev->ue_binding)) ||
        (ev->subscription && sub_matches(h, ev->subscription))) {
        track(h, &ev->binding_id);
        return true;
    }
    return tracked(h, &ev->binding_id);
}

static void print_event(history_t *h, uint64_t position, const bsf_event_t *ev, const char *raw,
                        size_t raw_len)
{
    char id[BSF_BINDING_ID_TEXT_LEN + 1], by[BSF_BINDING_ID_TEXT_LEN + 1], ts[32];
    bsf_binding_id_format(&ev->binding_id, id);
    bsf_time_format_rfc3339((int64_t)BSF_HLC_MS(ev->hlc), ts);
    msgpack_sbuffer_clear(&h->text);
    const char *member = ev->ue_binding     ? "ueBinding"
                         : ev->mbs_binding  ? "mbsBinding"
                         : ev->subscription ? "subscription"
                                            : "binding";
    if (ev->binding || ev->ue_binding || ev->mbs_binding || ev->subscription) {
        /* The binding as JSON, from the event's own bytes. */
        size_t member_len = strlen(member);
        msgpack_object root;
        size_t off = 0;
        msgpack_zone_clear(&h->zone);
        if (msgpack_unpack(raw, raw_len, &off, &h->zone, &root) == MSGPACK_UNPACK_SUCCESS)
            for (uint32_t i = 0; i < root.via.map.size; i++) {
                const msgpack_object_kv *kv = &root.via.map.ptr[i];
                if (kv->key.type == MSGPACK_OBJECT_STR && kv->key.via.str.size == member_len &&
                    memcmp(kv->key.via.str.ptr, member, member_len) == 0)
                    bsf_json_write(&kv->val, &h->text, NULL, NULL);
            }
    }
    msgpack_sbuffer_write(&h->text, "", 1);
    if (ev->has_replaced_by)
        bsf_binding_id_format(&ev->replaced_by, by);
    if (h->o->json) {
        if (h->topic)
            printf("{\"topic\":\"%s\",\"offset\":%llu,", h->topic,
                   (unsigned long long)position);
        else
            printf("{\"position\":%llu,", (unsigned long long)position);
        printf("\"time\":\"%s\",\"type\":\"%s\",\"bindingId\":\"%s\","
               "\"site\":%u,\"seq\":%llu,\"hlc\":%llu",
               ts, bsf_event_type_name(ev->type), id, ev->site, (unsigned long long)ev->seq,
               (unsigned long long)ev->hlc);
        if (bsf_event_is_deregistration(ev->type)) {
            printf(",\"reason\":\"%s\"", bsf_dereg_reason_name(ev->reason));
            if (ev->has_replaced_by)
                printf(",\"replacedBy\":\"%s\"", by);
        } else {
            printf(",\"%s\":%s", member, h->text.data);
        }
        printf("}\n");
    } else {
        printf("%s  %-19s %s  site %u seq %llu", ts, bsf_event_type_name(ev->type), id, ev->site,
               (unsigned long long)ev->seq);
        if (bsf_event_is_deregistration(ev->type))
            printf("  reason=%s%s%s", bsf_dereg_reason_name(ev->reason),
                   ev->has_replaced_by ? " replaced_by=" : "", ev->has_replaced_by ? by : "");
        else
            printf("  %s", h->text.data);
        printf("\n");
    }
    h->printed++;
}

static int visit(void *ctx, uint64_t position, const void *data, size_t len)
{
    history_t *h = ctx;
    bsf_event_t ev;
    bsf_pcf_binding_t binding;
    char err[256];
    msgpack_zone_clear(&h->zone);
    if (bsf_event_decode(data, len, &h->zone, &ev, &binding, err, sizeof err)) {
        fprintf(stderr, "bsfctl: event at position %llu is unreadable: %s\n",
                (unsigned long long)position, err);
        return 0;
    }
    if (!event_matches(h, &ev))
        return 0;
    int64_t ms = (int64_t)BSF_HLC_MS(ev.hlc);
    if ((h->since_ms >= 0 && ms < h->since_ms) || (h->until_ms >= 0 && ms > h->until_ms))
        return 0;
    if (h->n_matches == h->cap_matches) {
        size_t cap = h->cap_matches ? h->cap_matches * 2 : 64;
        match_t *m = realloc(h->matches, cap * sizeof *m);
        if (!m)
            return 1;
        h->matches = m;
        h->cap_matches = cap;
    }
    char *raw = malloc(len);
    if (!raw)
        return 1;
    memcpy(raw, data, len);
    h->matches[h->n_matches++] = (match_t){ev.hlc, position, ev.site,
                                           h->topic ? intern(h, h->topic) : NULL, raw, len};
    return 0;
}

static const char *intern(history_t *h, const char *topic)
{
    for (size_t i = 0; i < h->n_topics; i++)
        if (strcmp(h->topics[i], topic) == 0)
            return h->topics[i];
    if (h->n_topics == 16)
        return "?";
    snprintf(h->topics[h->n_topics], sizeof h->topics[0], "%s", topic);
    return h->topics[h->n_topics++];
}

static int match_cmp(const void *a, const void *b)
{
    const match_t *x = a, *y = b;
    if (x->hlc != y->hlc)
        return x->hlc < y->hlc ? -1 : 1;
    return (int)x->site - (int)y->site;
}

/* Prints the kept matches in HLC order, then frees them. */
static void print_matches(history_t *h)
{
    if (!h->n_matches)
        return;
    qsort(h->matches, h->n_matches, sizeof *h->matches, match_cmp);
    for (size_t i = 0; i < h->n_matches; i++) {
        match_t *m = &h->matches[i];
        bsf_event_t ev;
        bsf_pcf_binding_t binding;
        char err[256];
        msgpack_zone_clear(&h->zone);
        h->topic = m->topic; /* NULL: a position in the store's log */
        if (bsf_event_decode(m->raw, m->len, &h->zone, &ev, &binding, err, sizeof err) == 0)
            print_event(h, m->offset, &ev, m->raw, m->len);
        free(m->raw);
    }
    free(h->matches);
    h->matches = NULL;
    h->n_matches = h->cap_matches = 0;
}

/* First pass over the topics: the ids of the bindings that match (a site's deregistration
 * may come before the registration from another topic). */
static int track_kafka(void *ctx, const char *topic, int64_t offset, const void *data,
                       size_t len)
{
    (void)topic;
    (void)offset;
    history_t *h = ctx;
    bsf_event_t ev;
    bsf_pcf_binding_t binding;
    char err[256];
    msgpack_zone_clear(&h->zone);
    if (bsf_event_decode(data, len, &h->zone, &ev, &binding, err, sizeof err) == 0)
        event_matches(h, &ev);
    return 0;
}

static int track_local(void *ctx, uint64_t position, const void *data, size_t len)
{
    return track_kafka(ctx, NULL, (int64_t)position, data, len);
}

static int visit_kafka(void *ctx, const char *topic, int64_t offset, const void *data,
                       size_t len)
{
    history_t *h = ctx;
    h->topic = topic;
    return visit(ctx, (uint64_t)offset, data, len);
}

static int parse_address(const char *s, bsf_discovery_query_t *q)
{
    size_t n = strlen(s);
    memset(q, 0, sizeof *q);
    if (bsf_ipv4_parse(s, n, &q->ipv4)) {
        q->kind = BSF_UE_ADDR_IPV4;
        return 0;
    }
    if (bsf_mac48_parse(s, n, &q->mac)) {
        q->kind = BSF_UE_ADDR_MAC;
        return 0;
    }
    q->kind = BSF_UE_ADDR_IPV6;
    if (bsf_ipv6_prefix_parse(s, n, &q->ipv6))
        return 0;
    q->ipv6.len = 128;
    return bsf_ipv6_addr_parse(s, n, q->ipv6.b) ? 0 : -1;
}

int bsfctl_history(const bsfctl_options_t *o)
{
    history_t *h = calloc(1, sizeof *h);
    if (!h)
        return 1;
    h->o = o;
    int rc = 2;
    if (o->binding) {
        h->kind = BY_BINDING;
        if (!bsf_binding_id_parse(o->binding, strlen(o->binding), &h->id)) {
            fprintf(stderr, "bsfctl: --binding needs a 32-hex-digit binding id\n");
            goto out;
        }
    } else if (o->supi) {
        h->kind = BY_SUPI;
    } else if (o->gpsi) {
        h->kind = BY_GPSI;
    } else if (o->ue_addr) {
        h->kind = BY_ADDRESS;
        if (parse_address(o->ue_addr, &h->addr)) {
            fprintf(stderr, "bsfctl: --ue-addr needs an IPv4 address, IPv6 address or prefix, "
                            "or MAC address\n");
            goto out;
        }
    } else {
        fprintf(stderr, "bsfctl: history needs --binding, --supi, --gpsi or --ue-addr\n");
        goto out;
    }
    if (bsfctl_parse_time(o->since, &h->since_ms) || bsfctl_parse_time(o->until, &h->until_ms)) {
        fprintf(stderr, "bsfctl: --since / --until need RFC 3339 or Unix milliseconds\n");
        goto out;
    }
    int lrc;
    msgpack_zone_init(&h->zone, 8192);
    msgpack_sbuffer_init(&h->text);
    if (o->kafka) {
        /* Every site's topic; the events of one binding may be in several. */
        /* From the beginning: a deregistration is matched through its registration. */
        bsfctl_kafka_read_t how = {.start = BSFCTL_FROM_BEGINNING};
        lrc = h->kind == BY_BINDING ? 0 : bsfctl_kafka_read(o, &how, track_kafka, h);
        if (!lrc)
            lrc = bsfctl_kafka_read(o, &how, visit_kafka, h);
        print_matches(h);
    } else {
        bsf_store_t store;
        MDB_txn *txn;
        if (bsfctl_open_read(o->store, &store, &txn)) {
            msgpack_zone_destroy(&h->zone);
            msgpack_sbuffer_destroy(&h->text);
            rc = 1;
            goto out;
        }
        lrc = h->kind == BY_BINDING ? 0 : bsfctl_scan_history(o, &store, txn, track_local, h);
        if (!lrc)
            lrc = bsfctl_scan_history(o, &store, txn, visit, h);
        print_matches(h);
        mdb_txn_abort(txn);
        bsf_store_close(&store);
    }
    msgpack_zone_destroy(&h->zone);
    msgpack_sbuffer_destroy(&h->text);
    if (lrc) {
        rc = 1;
    } else {
        rc = 0;
        if (!o->json)
            fprintf(stderr, "%zu event(s)\n", h->printed);
    }
out:
    free(h);
    return rc;
}
