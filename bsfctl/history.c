/* bsfctl history: the events of one binding, subscriber or UE address, from the store's log
 * (which holds every site's events) or from the replicated log's topics, in HLC order, in one
 * pass. A binding matches from its first event that names the subscriber or the address on;
 * its later events (updates, the deregistration, which names neither) follow it. One case
 * needs care: a deregistration from another site may be read before the registration it ends
 * (the sites' events interleave). Such a deregistration is kept aside until the registration
 * is read: a binding id holds its creating site and the sequence number of its registration,
 * and each site's events are read in sequence order, so once that site's reading passed the
 * number the registration has been read (or has left the log): nothing else is kept. */
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
    /* Deregistrations read before their registration (see above), and the highest sequence
     * number read of each site. */
    struct match *pending;
    size_t n_pending, cap_pending;
    uint64_t *site_seq;      /* 65536 entries */
    uint32_t *pending_sites; /* per creating site, the deregistrations kept aside */
} history_t;

typedef struct match {
    uint64_t hlc, offset;
    uint16_t site;
    const char *topic;
    char *raw;
    size_t len;
    bsf_binding_id_t id;
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
    const char *member = ev->ue_binding                 ? "ueBinding"
                         : ev->mbs_binding              ? "mbsBinding"
                         : ev->subscription             ? "subscription"
                         : bsf_event_is_audit(ev->type) ? "audit"
                                                        : "binding";
    if (ev->binding || ev->ue_binding || ev->mbs_binding || ev->subscription ||
        bsf_event_is_audit(ev->type)) {
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

/* Appends a copy of the event to `list`. Returns 0 or 1 (no memory). */
static int keep(history_t *h, match_t **list, size_t *n, size_t *cap, const bsf_event_t *ev,
                uint64_t position, const void *data, size_t len)
{
    if (*n == *cap) {
        size_t grown = *cap ? *cap * 2 : 64;
        match_t *m = realloc(*list, grown * sizeof *m);
        if (!m)
            return 1;
        *list = m;
        *cap = grown;
    }
    char *raw = malloc(len);
    if (!raw)
        return 1;
    memcpy(raw, data, len);
    (*list)[(*n)++] = (match_t){ev->hlc,
                                position,
                                ev->site,
                                h->topic ? intern(h, h->topic) : NULL,
                                raw,
                                len,
                                ev->binding_id};
    return 0;
}

/* The sequence number of a binding's registration, from its id (core/binding_id.h). */
static uint64_t registration_seq(const bsf_binding_id_t *id)
{
    uint64_t seq = 0;
    for (int i = 2; i < 8; i++)
        seq = seq << 8 | id->b[i];
    return seq;
}

static bool in_window(const history_t *h, const bsf_event_t *ev)
{
    int64_t ms = (int64_t)BSF_HLC_MS(ev->hlc);
    return !((h->since_ms >= 0 && ms < h->since_ms) || (h->until_ms >= 0 && ms > h->until_ms));
}

/* The binding `id` just matched: its deregistrations kept aside join the matches. */
static int promote_pending(history_t *h, const bsf_binding_id_t *id)
{
    size_t kept = 0;
    for (size_t i = 0; i < h->n_pending; i++) {
        match_t *p = &h->pending[i];
        if (memcmp(p->id.b, id->b, 16) != 0) {
            h->pending[kept++] = *p;
            continue;
        }
        h->pending_sites[bsf_binding_id_site(&p->id)]--;
        if (h->n_matches == h->cap_matches) {
            size_t grown = h->cap_matches ? h->cap_matches * 2 : 64;
            match_t *m = realloc(h->matches, grown * sizeof *m);
            if (!m)
                return 1;
            h->matches = m;
            h->cap_matches = grown;
        }
        h->matches[h->n_matches++] = *p;
    }
    h->n_pending = kept;
    return 0;
}

/* Drops the deregistrations kept aside whose registration has now been read (it did not
 * match, or they would have been promoted). */
static void expire_pending(history_t *h)
{
    size_t kept = 0;
    for (size_t i = 0; i < h->n_pending; i++) {
        match_t *p = &h->pending[i];
        uint16_t site = bsf_binding_id_site(&p->id);
        if (h->site_seq[site] >= registration_seq(&p->id)) {
            free(p->raw);
            h->pending_sites[site]--;
        } else
            h->pending[kept++] = *p;
    }
    h->n_pending = kept;
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
    if (ev.seq > h->site_seq[ev.site])
        h->site_seq[ev.site] = ev.seq;
    bool was_tracked = h->kind != BY_BINDING && tracked(h, &ev.binding_id);
    if (!event_matches(h, &ev)) {
        bool content = ev.binding || ev.ue_binding || ev.mbs_binding;
        uint16_t site = bsf_binding_id_site(&ev.binding_id);
        if (h->kind != BY_BINDING && !content &&
            h->site_seq[site] < registration_seq(&ev.binding_id) && in_window(h, &ev)) {
            h->pending_sites[site]++;
            return keep(h, &h->pending, &h->n_pending, &h->cap_pending, &ev, position, data,
                        len);
        }
        if (h->pending_sites[ev.site]) /* that site's reading moved on */
            expire_pending(h);
        return 0;
    }
    if (!was_tracked && h->kind != BY_BINDING && promote_pending(h, &ev.binding_id))
        return 1;
    if (!in_window(h, &ev))
        return 0;
    return keep(h, &h->matches, &h->n_matches, &h->cap_matches, &ev, position, data, len);
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
    h->site_seq = calloc(65536, sizeof *h->site_seq);
    h->pending_sites = calloc(65536, sizeof *h->pending_sites);
    if (!h->site_seq || !h->pending_sites) {
        rc = 1;
        goto out;
    }
    msgpack_zone_init(&h->zone, 8192);
    msgpack_sbuffer_init(&h->text);
    if (o->kafka) {
        /* Every site's topic; the events of one binding may be in several. */
        /* From the beginning: a deregistration is matched through its registration. */
        bsfctl_kafka_read_t how = {.start = BSFCTL_FROM_BEGINNING};
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
        bsf_log_unstored_t u = {visit, h};
        lrc = bsfctl_scan_history(o, &store, txn, bsf_log_visit_unstored, &u);
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
    for (size_t i = 0; i < h->n_pending; i++)
        free(h->pending[i].raw);
    free(h->pending);
    free(h->site_seq);
    free(h->pending_sites);
    free(h);
    return rc;
}
