/* The subscriptions a binding event concerns, and their notifications. */
#include "engine/notify_match.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "core/notification.h"
#include "projections/sub_projection.h"
#include "projections/ue_projection.h"

#define MAX_SUBS 64      /* subscriptions of one UE looked at per event */
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
    memset(&l->scratch, 0, sizeof l->scratch);
}

typedef struct {
    bsf_binding_id_t ids[MAX_SUBS];
    size_t n;
} ids_t;

static bool add_id(void *ctx, const bsf_binding_id_t *id)
{
    ids_t *x = ctx;
    for (size_t i = 0; i < x->n; i++)
        if (memcmp(x->ids[i].b, id->b, 16) == 0)
            return false;
    x->ids[x->n++] = *id;
    return x->n == MAX_SUBS;
}

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
 * scratch, so no buffer is allocated per item). NULL when out of memory. */
static bsf_notify_item_t *make_item(const bsf_binding_id_t *id, const bsf_event_t *ev,
                                    const bsf_subscription_t *sub, uint32_t events,
                                    const bsf_binding_change_t *c, msgpack_sbuffer *body)
{
    msgpack_packer pk;
    msgpack_sbuffer_clear(body);
    msgpack_packer_init(&pk, body, msgpack_sbuffer_write);
    bsf_notify_item_t *it = NULL;
    size_t ulen = strlen(sub->notif_uri), slen = strlen(sub->supi);
    if (!bsf_notification_encode(sub, events, c, &pk) &&
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
    if (out->tail)
        out->tail->next = it;
    else
        out->head = it;
    out->tail = it;
    out->n++;
}

/* The subscription `id`, when it is live, this site's, unexpired: 0 with *sub set or NULL. */
static int load_sub(bsf_store_t *s, MDB_txn *txn, const bsf_binding_id_t *id, uint16_t site,
                    int64_t now_ms, msgpack_zone *zone, bsf_subscription_t *sub, bool *ok)
{
    bsf_record_t rec;
    *ok = false;
    if (bsf_binding_id_site(id) != site)
        return 0; /* the creating site notifies */
    int rc = bsf_sub_projection_get(&s->proj, txn, id, &rec);
    if (rc == MDB_NOTFOUND || (rc == 0 && rec.state != BSF_RECORD_LIVE))
        return 0;
    if (!rc && bsf_record_decode_subscription(&rec, zone, sub))
        rc = MDB_CORRUPTED;
    *ok = !rc && (sub->expiry_ms < 0 || sub->expiry_ms > now_ms);
    return rc;
}

int bsf_notify_match(bsf_store_t *s, MDB_txn *txn, const bsf_event_t *ev, uint16_t site,
                     int64_t now_ms, msgpack_zone *zone, bsf_notify_list_t *out)
{
    if (ev->type != BSF_EVENT_BINDING_REGISTERED && ev->type != BSF_EVENT_BINDING_DEREGISTERED &&
        ev->type != BSF_EVENT_UE_BINDING_REGISTERED &&
        ev->type != BSF_EVENT_UE_BINDING_DEREGISTERED)
        return 0;
    /* No subscription anywhere (the usual case): one counter read, no binding decoded. */
    if (bsf_projection_counter(&s->proj, txn, BSF_SUB_COUNTER_TOTAL) == 0)
        return 0;
    msgpack_zone_clear(zone);
    bsf_binding_change_t c;
    bool found;
    int rc = load_binding(s, txn, ev, zone, &c, &found);
    const char *supi = c.pdu ? c.pdu->supi : c.ue ? c.ue->supi : NULL;
    const char *gpsi = c.pdu ? c.pdu->gpsi : c.ue ? c.ue->gpsi : NULL;
    if (rc || !found || (!supi && !gpsi))
        return rc == -ENOMEM ? 0 : rc;
    ids_t *subs = msgpack_zone_malloc(zone, sizeof *subs);
    if (!subs)
        return 0;
    subs->n = 0;
    if (supi)
        rc = bsf_sub_projection_ids(&s->proj, txn, supi, false, add_id, subs);
    if (!rc && gpsi && subs->n < MAX_SUBS)
        rc = bsf_sub_projection_ids(&s->proj, txn, gpsi, true, add_id, subs);
    bool edge_known = false;
    for (size_t i = 0; !rc && i < subs->n; i++) {
        bsf_subscription_t sub;
        bool ok;
        if ((rc = load_sub(s, txn, &subs->ids[i], site, now_ms, zone, &sub, &ok)) || !ok)
            continue;
        if (c.pdu && !edge_known && c.pdu->supi && c.pdu->dnn && c.pdu->has_snssai &&
            (sub.events & (1u << BSF_SUB_EVENT_SNSSAI_DNN_REGISTRATION |
                           1u << BSF_SUB_EVENT_SNSSAI_DNN_DEREGISTRATION))) {
            rc = first_or_last(s, txn, ev, c.pdu, zone, &c.first_or_last);
            edge_known = true;
        }
        uint32_t events = rc ? 0 : bsf_notification_events(&sub, &c);
        if (!events)
            continue;
        bsf_notify_item_t *it = make_item(&subs->ids[i], ev, &sub, events, &c, &out->scratch);
        if (it)
            append(out, it);
        else
            BSF_WARN("notify", "notification dropped: out of memory");
    }
    return rc == -ENOMEM ? 0 : rc;
}
