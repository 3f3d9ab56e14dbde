/* The subscriptions a binding event concerns, and their notifications. */
#include "engine/notify_match.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "common/fifo.h"
#include "core/notification.h"
#include "projections/sub_projection.h"
#include "projections/ue_projection.h"

#define MAX_SUBS 64      /* subscriptions of one UE value looked at (engine/sub_index.c) */
#define MAX_SESSIONS 64  /* PDU-session bindings of one SUPI looked at for first / last */

void bsf_notify_items_free(bsf_notify_item_t *items)
{
    while (items) {
        bsf_notify_item_t *next = items->next;
        free(items);
        items = next;
    }
}

void bsf_notify_list_clear(bsf_notify_list_t *l)
{
    bsf_notify_items_free(l->head);
    l->head = l->tail = NULL;
    l->n = 0;
}

void bsf_notify_list_destroy(bsf_notify_list_t *l)
{
    bsf_notify_list_clear(l);
    msgpack_sbuffer_destroy(&l->scratch);
    msgpack_sbuffer_destroy(&l->binding);
    memset(&l->scratch, 0, sizeof l->scratch);
    memset(&l->binding, 0, sizeof l->binding);
}

typedef struct {
    bsf_binding_id_t ids[2 * MAX_SUBS]; /* per UE value MAX_SUBS; both values when seen */
    size_t n;
} ids_t;

static void add_session(void *ctx, const bsf_binding_id_t *id)
{
    ids_t *x = ctx;
    if (x->n < MAX_SESSIONS)
        x->ids[x->n++] = *id;
}

/* The binding the event is about: from the event for a registration, from the store for a
 * deregistration (still live: it is applied after this). 0 with *found, or an LMDB code. */
static int load_binding(bsf_store_t *s, MDB_txn *txn, const bsf_event_t *ev, msgpack_zone *zone,
                        bsf_binding_change_t *c, bool *found)
{
    *found = false;
    memset(c, 0, sizeof *c);
    bool pdu = ev->type == BSF_EVENT_BINDING_REGISTERED ||
               ev->type == BSF_EVENT_BINDING_DEREGISTERED;
    c->registration = ev->type == BSF_EVENT_BINDING_REGISTERED ||
                      ev->type == BSF_EVENT_UE_BINDING_REGISTERED;
    if (c->registration) {
        c->pdu = pdu ? ev->binding : NULL;
        c->ue = pdu ? NULL : ev->ue_binding;
        *found = c->pdu || c->ue;
        return 0;
    }
    bsf_record_t rec;
    int rc = pdu ? bsf_projection_get(&s->proj, txn, &ev->binding_id, &rec)
                 : bsf_ue_projection_get(&s->proj, txn, &ev->binding_id, &rec);
    if (rc == MDB_NOTFOUND || (rc == 0 && rec.state != BSF_RECORD_LIVE))
        return 0; /* never seen here, or already ended: nothing to tell */
    if (rc)
        return rc;
    if (pdu) {
        bsf_pcf_binding_t *b = msgpack_zone_malloc(zone, sizeof *b);
        if (!b || bsf_record_decode_binding(&rec, zone, b))
            return b ? MDB_CORRUPTED : -ENOMEM;
        c->pdu = b;
    } else {
        bsf_pcf_ue_binding_t *b = msgpack_zone_malloc(zone, sizeof *b);
        if (!b || bsf_record_decode_ue_binding(&rec, zone, b))
            return b ? MDB_CORRUPTED : -ENOMEM;
        c->ue = b;
    }
    *found = true;
    return 0;
}

/* True when no other live PDU-session binding of the SUPI has the same (DNN, S-NSSAI). */
static int first_or_last(bsf_store_t *s, MDB_txn *txn, const bsf_event_t *ev,
                         const bsf_pcf_binding_t *b, msgpack_zone *zone, bool *out)
{
    ids_t *x = msgpack_zone_malloc(zone, sizeof *x);
    if (!x)
        return -ENOMEM;
    x->n = 0;
    *out = true;
    int rc = bsf_projection_ids_by_subscriber(&s->proj, txn, b->supi, false, add_session, x);
    for (size_t i = 0; !rc && i < x->n && *out; i++) {
        if (memcmp(x->ids[i].b, ev->binding_id.b, 16) == 0)
            continue;
        bsf_record_t rec;
        bsf_pcf_binding_t other;
        rc = bsf_projection_get(&s->proj, txn, &x->ids[i], &rec);
        if (rc == MDB_NOTFOUND || (rc == 0 && rec.state != BSF_RECORD_LIVE)) {
            rc = 0;
            continue;
        }
        if (!rc && bsf_record_decode_binding(&rec, zone, &other))
            rc = MDB_CORRUPTED;
        if (!rc && other.dnn && other.has_snssai && bsf_dnn_equal(other.dnn, b->dnn) &&
            bsf_snssai_equal(&other.snssai, &b->snssai))
            *out = false;
    }
    return rc;
}

/* One item: the notifUri and the BsfNotification's msgpack (encoded in `body`, the list's
 * scratch, so no buffer is allocated per item; the binding's part is `binding`, encoded once
 * per event). NULL when out of memory. */
static bsf_notify_item_t *make_item(const bsf_binding_id_t *id, const bsf_event_t *ev,
                                    const bsf_subscription_t *sub, uint32_t events,
                                    const bsf_binding_change_t *c, const msgpack_sbuffer *binding,
                                    msgpack_sbuffer *body)
{
    msgpack_packer pk;
    msgpack_sbuffer_clear(body);
    msgpack_packer_init(&pk, body, msgpack_sbuffer_write);
    bsf_notify_item_t *it = NULL;
    size_t ulen = strlen(sub->notif_uri), slen = strlen(sub->supi);
    if (!bsf_notification_encode_with(sub, events, c, binding->data, binding->size, &pk) &&
        (it = malloc(sizeof *it + ulen + 1 + slen + 1 + body->size))) {
        memset(it, 0, sizeof *it);
        it->sub_id = *id;
        it->event_hlc = ev->hlc;
        memcpy(it->data, sub->notif_uri, ulen + 1);
        memcpy(it->data + ulen + 1, sub->supi, slen + 1);
        memcpy(it->data + ulen + slen + 2, body->data, body->size);
        it->uri = it->data;
        it->supi = it->data + ulen + 1;
        it->body = it->data + ulen + slen + 2;
        it->body_len = body->size;
    }
    return it;
}

static void append(bsf_notify_list_t *out, bsf_notify_item_t *it)
{
    BSF_FIFO_APPEND(out->head, out->tail, it, next);
    out->n++;
}

typedef struct {
    bsf_store_t *s;
    MDB_txn *txn;
    const bsf_event_t *ev;
    int64_t now_ms;
    msgpack_zone *zone;
    bsf_binding_change_t c;
    bool edge_known;
    ids_t *seen;   /* subscriptions already looked at (through the SUPI, then the GPSI) */
    bsf_notify_list_t *out;
} match_t;

static bool seen_before(ids_t *seen, const bsf_binding_id_t *id)
{
    for (size_t i = 0; i < seen->n; i++)
        if (memcmp(seen->ids[i].b, id->b, 16) == 0)
            return true;
    if (seen->n < 2 * MAX_SUBS)
        seen->ids[seen->n++] = *id;
    return false;
}

/* The notifications of one cached subscription. */
static int notify_one(match_t *m, const bsf_sub_cached_t *cs)
{
    const bsf_subscription_t *sub = &cs->sub;
    int rc = 0;
    if (seen_before(m->seen, &cs->id) || (sub->expiry_ms >= 0 && sub->expiry_ms <= m->now_ms))
        return 0;
    const bsf_pcf_binding_t *b = m->c.pdu;
    if (b && !m->edge_known && b->supi && b->dnn && b->has_snssai &&
        (sub->events & (1u << BSF_SUB_EVENT_SNSSAI_DNN_REGISTRATION |
                        1u << BSF_SUB_EVENT_SNSSAI_DNN_DEREGISTRATION))) {
        rc = first_or_last(m->s, m->txn, m->ev, b, m->zone, &m->c.first_or_last);
        m->edge_known = true;
    }
    uint32_t events = rc ? 0 : bsf_notification_events(sub, &m->c);
    if (!events)
        return rc;
    msgpack_sbuffer *binding = &m->out->binding;
    if (!binding->size) {
        msgpack_packer pk;
        msgpack_packer_init(&pk, binding, msgpack_sbuffer_write);
        if (bsf_notification_encode_binding(&m->c, &pk)) {
            msgpack_sbuffer_clear(binding);
            return -ENOMEM;
        }
    }
    bsf_notify_item_t *it =
        make_item(&cs->id, m->ev, sub, events, &m->c, binding, &m->out->scratch);
    if (it)
        append(m->out, it);
    else
        BSF_WARN("notify", "notification dropped: out of memory");
    return 0;
}

static bool concerned(const bsf_event_t *ev)
{
    return ev->type == BSF_EVENT_BINDING_REGISTERED || ev->type == BSF_EVENT_BINDING_DEREGISTERED ||
           ev->type == BSF_EVENT_UE_BINDING_REGISTERED ||
           ev->type == BSF_EVENT_UE_BINDING_DEREGISTERED;
}

int bsf_notify_match(bsf_store_t *s, MDB_txn *txn, const bsf_event_t *ev, int64_t now_ms,
                     bsf_sub_index_t *idx, msgpack_zone *zone, bsf_notify_list_t *out)
{
    /* No subscription anywhere (the usual case): nothing read, no binding decoded. */
    if (!concerned(ev) || !idx->keys.total)
        return 0;
    msgpack_zone_clear(zone);
    match_t m = {.s = s, .txn = txn, .ev = ev, .now_ms = now_ms, .zone = zone, .out = out};
    bool found;
    int rc = load_binding(s, txn, ev, zone, &m.c, &found);
    const char *value[2] = {m.c.pdu ? m.c.pdu->supi : m.c.ue ? m.c.ue->supi : NULL,
                            m.c.pdu ? m.c.pdu->gpsi : m.c.ue ? m.c.ue->gpsi : NULL};
    if (rc || !found)
        return rc == -ENOMEM ? 0 : rc;
    msgpack_sbuffer_clear(&out->binding);
    for (int k = 0; k < 2 && !rc; k++) {
        uint64_t h;
        const bsf_sub_cache_entry_t *en;
        if (!value[k] || !bsf_sub_index_may_have(idx, h = bsf_sub_index_hash(value[k], k)))
            continue; /* nobody subscribed to this SUPI / GPSI: no store read */
        if (!m.seen) {
            if (!(m.seen = msgpack_zone_malloc(zone, sizeof *m.seen)))
                return 0;
            m.seen->n = 0;
        }
        rc = bsf_sub_index_entry(idx, s, txn, h, value[k], k, zone, &en);
        for (size_t i = 0; !rc && i < en->n; i++)
            rc = notify_one(&m, &en->subs[i]);
    }
    if (rc == -ENOMEM)
        BSF_WARN("notify", "notifications of an event dropped: out of memory");
    return rc == -ENOMEM ? 0 : rc;
}
