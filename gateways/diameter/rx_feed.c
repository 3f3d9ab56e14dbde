/* Rx messages to the message feed, from libfdcore's message hooks (see rx_feed.h). */
#include "gateways/diameter/rx_feed.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "gateways/diameter/rx_avp.h"
#include "gateways/diameter/rx_peer_addr.h"
#include "common/error.h"

#define SID_MAX 1024
#define MAX_AVPS 6

/* The AVPs a record reads, found in one walk over the message. */
enum {
    W_SESSION_ID,
    W_ORIGIN_HOST,
    W_ORIGIN_REALM,
    W_DEST_HOST,
    W_DEST_REALM,
    W_EXPERIMENTAL_RESULT,
    W_RESULT_CODE,
    W_COUNT
};

/* What a request message carries for the records of its answer (libfdcore allocates it
 * zeroed with the message and frees it with it). Written by the thread that receives or
 * sends the request, read by the one that receives or sends its answer: atomics, the
 * binding published by `has_binding`. */
struct fd_hook_permsgdata {
    atomic_uint_least64_t in_txn; /* the ingress exchange (request received) */
    atomic_uint_least64_t in_received_ms;
    atomic_uint_least64_t out_txn; /* the egress exchange (request sent; last attempt) */
    atomic_uint_least64_t out_sent_ms;
    atomic_bool has_binding;
    bsf_binding_id_t binding;
};

struct bsf_rx_feed {
    bsf_feed_t *feed;
    const bsf_rx_dict_t *rx;
    bsf_rx_feed_binding_fn binding_of;
    void *ctx;
    bool copy_payload;
    bsf_rx_peer_addrs_t *addrs;
    struct fd_hook_data_hdl *data;
    bsf_rx_avp_want_t wants[W_COUNT];
};

/* The exchange a record belongs to. */
typedef struct {
    bsf_feed_direction_t direction;
    bsf_feed_kind_t kind;
    uint64_t txn, received_ms, sent_ms;
    bool has_binding;
    bsf_binding_id_t binding;
} rx_exchange_t;

static void keep_binding(struct fd_hook_permsgdata *pmd, const bsf_binding_id_t *id)
{
    if (atomic_load_explicit(&pmd->has_binding, memory_order_acquire))
        return; /* a retry: the same binding */
    pmd->binding = *id;
    atomic_store_explicit(&pmd->has_binding, true, memory_order_release);
}

static void read_binding(struct fd_hook_permsgdata *pmd, rx_exchange_t *x)
{
    x->has_binding = atomic_load_explicit(&pmd->has_binding, memory_order_acquire);
    if (x->has_binding)
        x->binding = pmd->binding;
}

/* A request received (ingress) or sent (egress): a new exchange, kept with the request. */
static void request_exchange(bsf_rx_feed_t *f, struct msg *msg, bool received,
                             struct fd_hook_permsgdata *pmd, uint64_t now, rx_exchange_t *x)
{
    x->kind = BSF_FEED_REQUEST;
    x->txn = bsf_feed_transaction_id(f->feed);
    if (received) {
        x->direction = BSF_FEED_INGRESS;
        x->received_ms = now;
        if (pmd) {
            atomic_store_explicit(&pmd->in_received_ms, now, memory_order_relaxed);
            atomic_store_explicit(&pmd->in_txn, x->txn, memory_order_release);
        }
        return;
    }
    x->direction = BSF_FEED_EGRESS;
    x->sent_ms = now;
    bsf_binding_id_t id;
    if (f->binding_of && f->binding_of(f->ctx, msg, &id)) {
        x->has_binding = true;
        x->binding = id;
        if (pmd)
            keep_binding(pmd, &id);
    }
    if (pmd) {
        atomic_store_explicit(&pmd->out_sent_ms, now, memory_order_relaxed);
        atomic_store_explicit(&pmd->out_txn, x->txn, memory_order_release);
    }
}

/* An answer received (to a request we sent: egress) or sent (to a request we received:
 * ingress): the exchange of its request. */
static void answer_exchange(bsf_rx_feed_t *f, struct msg *msg, bool received, uint64_t now,
                            rx_exchange_t *x)
{
    x->kind = BSF_FEED_RESPONSE;
    struct fd_hook_permsgdata *q = fd_hook_get_request_pmd(f->data, msg);
    if (received) {
        x->direction = BSF_FEED_EGRESS;
        x->received_ms = now;
        if (q) {
            x->txn = atomic_load_explicit(&q->out_txn, memory_order_acquire);
            x->sent_ms = atomic_load_explicit(&q->out_sent_ms, memory_order_relaxed);
        }
    } else {
        x->direction = BSF_FEED_INGRESS;
        x->sent_ms = now;
        if (q) {
            x->txn = atomic_load_explicit(&q->in_txn, memory_order_acquire);
            x->received_ms = atomic_load_explicit(&q->in_received_ms, memory_order_relaxed);
        }
    }
    if (q)
        read_binding(q, x);
    if (!x->txn) /* a request we never saw (a stand-in for one libfdcore lost) */
        x->txn = bsf_feed_transaction_id(f->feed);
}

typedef struct {
    bsf_feed_header_t avps[MAX_AVPS];
    size_t n;
    char text[MAX_AVPS][256];
} rx_avp_texts_t;

static void add_text(rx_avp_texts_t *t, struct avp *a, int rc, const char *name)
{
    if (rc != 0 || t->n == MAX_AVPS || bsf_rx_avp_copy_text(a, t->text[t->n], sizeof t->text[0]))
        return;
    t->avps[t->n] = (bsf_feed_header_t){name, t->text[t->n]};
    t->n++;
}

static void add_number(rx_avp_texts_t *t, const char *name, uint32_t v)
{
    if (t->n == MAX_AVPS)
        return;
    snprintf(t->text[t->n], sizeof t->text[0], "%u", v);
    t->avps[t->n] = (bsf_feed_header_t){name, t->text[t->n]};
    t->n++;
}

static void offer(bsf_rx_feed_t *f, struct msg *msg, const struct msg_hdr *hdr,
                  struct peer_hdr *peer, const rx_exchange_t *x)
{
    const bsf_rx_dict_t *rx = f->rx;
    bsf_feed_record_t rec = {
        .protocol = BSF_FEED_DIAMETER,
        .direction = x->direction,
        .kind = x->kind,
        .transaction_id = x->txn,
        .received_ms = x->received_ms,
        .sent_ms = x->sent_ms,
        .command_code = hdr->msg_code,
        .command_flags = hdr->msg_flags,
        .application_id = hdr->msg_appl,
        .hop_by_hop = hdr->msg_hbhid,
        .end_to_end = hdr->msg_eteid,
    };
    struct avp *a[W_COUNT];
    int rc[W_COUNT];
    bool request = x->kind == BSF_FEED_REQUEST;
    bsf_rx_avp_collect(msg, f->wants, W_COUNT, a, rc);
    char sid[SID_MAX];
    if (rc[W_SESSION_ID] == 0 && bsf_rx_avp_copy_text(a[W_SESSION_ID], sid, sizeof sid) == 0)
        rec.session_id = sid;
    char binding[BSF_BINDING_ID_TEXT_LEN + 1];
    if (x->has_binding) {
        bsf_binding_id_format(&x->binding, binding);
        rec.binding_id = binding;
    }
    bsf_rx_peer_addr_t addr;
    if (peer) {
        rec.peer_host = peer->info.pi_diamid;
        if (bsf_rx_peer_addrs_get(f->addrs, peer, &addr)) {
            rec.local = addr.local[0] ? addr.local : NULL;
            rec.peer = addr.remote[0] ? addr.remote : NULL;
        }
    }
    rx_avp_texts_t t;
    t.n = 0;
    add_text(&t, a[W_ORIGIN_HOST], rc[W_ORIGIN_HOST], "Origin-Host");
    add_text(&t, a[W_ORIGIN_REALM], rc[W_ORIGIN_REALM], "Origin-Realm");
    if (request) {
        add_text(&t, a[W_DEST_HOST], rc[W_DEST_HOST], "Destination-Host");
        add_text(&t, a[W_DEST_REALM], rc[W_DEST_REALM], "Destination-Realm");
    } else {
        /* as bsf_rx_avp_answer_info: the Experimental-Result-Code, else the Result-Code */
        struct avp *code = NULL;
        bool experimental = rc[W_EXPERIMENTAL_RESULT] == 0 &&
                            bsf_rx_avp_find_child(a[W_EXPERIMENTAL_RESULT],
                                                  rx->experimental_result_code, &code) == 0;
        if (!experimental && rc[W_RESULT_CODE] == 0)
            code = a[W_RESULT_CODE];
        rec.result_code = code ? bsf_rx_avp_u32(code) : 0;
        if (rec.result_code)
            add_number(&t, experimental ? "Experimental-Result-Code" : "Result-Code",
                       rec.result_code);
    }
    rec.headers = t.n ? t.avps : NULL;
    rec.n_headers = t.n;
    /* The message's length is always in the record, its bytes only with feed.copy_payload
     * (without it bsf_feed_offer reads no byte of the payload: the header stands in). */
    uint8_t *raw = NULL;
    size_t raw_len = 0;
    rec.payload = hdr;
    rec.payload_len = hdr->msg_length;
    if (f->copy_payload && fd_msg_bufferize(msg, &raw, &raw_len) == 0) {
        rec.payload = raw;
        rec.payload_len = raw_len;
    }
    bsf_feed_offer(f->feed, &rec);
    free(raw);
}

static void on_hook(enum fd_hook_type type, struct msg *msg, struct peer_hdr *peer, void *other,
                    struct fd_hook_permsgdata *pmd, void *regdata)
{
    bsf_rx_feed_t *f = regdata;
    (void)other;
    if (type == HOOK_PEER_CONNECT_SUCCESS || type == HOOK_PEER_CONNECT_FAILED) {
        if (peer)
            bsf_rx_peer_addrs_forget(f->addrs, peer);
        return;
    }
    struct msg_hdr *hdr = NULL;
    if (!msg || fd_msg_hdr(msg, &hdr) != 0 || !fd_msg_is_routable(msg))
        return; /* CER/CEA, DWR/DWA, DPR/DPA */
    bool received = type == HOOK_MESSAGE_RECEIVED;
    uint64_t now = bsf_clock_wall_ms();
    rx_exchange_t x;
    memset(&x, 0, sizeof x);
    if (hdr->msg_flags & CMD_FLAG_REQUEST)
        request_exchange(f, msg, received, pmd, now, &x);
    else
        answer_exchange(f, msg, received, now, &x);
    offer(f, msg, hdr, peer, &x);
}

int bsf_rx_feed_start(bsf_feed_t *feed, const bsf_rx_dict_t *rx, bsf_rx_feed_binding_fn binding_of,
                      void *ctx, bsf_rx_feed_t **out, char *err, size_t cap)
{
    *out = NULL;
    bsf_rx_feed_t *f = calloc(1, sizeof *f);
    if (!f || !(f->addrs = bsf_rx_peer_addrs_new())) {
        free(f);
        snprintf(err, cap, "diameter: out of memory");
        return -1;
    }
    f->feed = feed;
    f->copy_payload = bsf_feed_copies_payload(feed);
    f->rx = rx;
    f->binding_of = binding_of;
    f->ctx = ctx;
    struct dict_object *models[W_COUNT] = {
        [W_SESSION_ID] = rx->session_id,          [W_ORIGIN_HOST] = rx->origin_host,
        [W_ORIGIN_REALM] = rx->origin_realm,      [W_DEST_HOST] = rx->destination_host,
        [W_DEST_REALM] = rx->destination_realm,   [W_EXPERIMENTAL_RESULT] = rx->experimental_result,
        [W_RESULT_CODE] = rx->result_code};
    for (size_t i = 0; i < W_COUNT; i++)
        bsf_rx_avp_want(models[i], &f->wants[i]);
    struct fd_hook_hdl *h = NULL;
    int rc = fd_hook_data_register(sizeof(struct fd_hook_permsgdata), NULL, NULL, &f->data);
    /* MESSAGE_SENT: libfdcore calls it when the message is encoded, its Hop-by-Hop id set,
     * just before writing it to the socket. */
    if (rc == 0)
        rc = fd_hook_register(HOOK_MASK(HOOK_MESSAGE_RECEIVED, HOOK_MESSAGE_SENT,
                                        HOOK_PEER_CONNECT_SUCCESS, HOOK_PEER_CONNECT_FAILED),
                              on_hook, f, f->data, &h);
    if (rc) {
        snprintf(err, cap, "diameter: cannot register the feed with freeDiameter: %s",
                 bsf_strerror(rc));
        bsf_rx_feed_free(f);
        return -1;
    }
    *out = f;
    return 0;
}

void bsf_rx_feed_free(bsf_rx_feed_t *f)
{
    if (!f)
        return;
    bsf_rx_peer_addrs_free(f->addrs);
    free(f);
}
