/* The SBI client's connection pool; see sbi_client_pool.h. */
#include "gateways/sbi/sbi_client_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/dlist.h"
#include "common/fifo.h"

typedef struct {
    bsf_h2c_t *c;
    bool ready;
} slot_t;

struct bsf_sbi_pool_entry {
    bsf_sbi_pool_t *pool;
    bsf_sbi_pool_entry_t *next;
    bool tls;
    char host[BSF_SBI_HOST_MAX];
    uint16_t port;
    slot_t *slots;
    size_t n_slots;
    bsf_sbi_pool_waiter_t *head, *tail;
    bool pumping;
};

struct bsf_sbi_pool {
    uv_loop_t *loop;
    bsf_sbi_pool_config_t cfg;
    SSL_CTX *tls;
    bsf_sbi_pool_entry_t *entries;
    size_t n_conns;
};

static void pump(bsf_sbi_pool_entry_t *e);

bsf_sbi_pool_t *bsf_sbi_pool_new(uv_loop_t *loop, const bsf_sbi_pool_config_t *cfg,
                                 SSL_CTX *tls)
{
    bsf_sbi_pool_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->loop = loop;
    p->cfg = *cfg;
    if (p->cfg.max_connections == 0)
        p->cfg.max_connections = 1;
    p->tls = tls;
    return p;
}

static bsf_sbi_pool_waiter_t *pop(bsf_sbi_pool_entry_t *e)
{
    bsf_sbi_pool_waiter_t *w = e->head;
    if (w)
        bsf_sbi_pool_withdraw(w);
    return w;
}

void bsf_sbi_pool_withdraw(bsf_sbi_pool_waiter_t *w)
{
    bsf_sbi_pool_entry_t *e = w->entry;
    if (!e)
        return;
    BSF_DLIST_UNLINK_TAIL(e->head, e->tail, w);
    w->prev = w->next = NULL;
    w->entry = NULL;
}

static void fail_all(bsf_sbi_pool_entry_t *e, const char *why)
{
    bsf_sbi_pool_waiter_t *w;
    while ((w = pop(e)))
        w->failed(w, why);
}

static slot_t *find_slot(bsf_sbi_pool_entry_t *e, bsf_h2c_t *c)
{
    for (size_t i = 0; i < e->n_slots; i++)
        if (e->slots[i].c == c)
            return &e->slots[i];
    return NULL;
}

static void ev_ready(void *owner, bsf_h2c_t *c)
{
    bsf_sbi_pool_entry_t *e = owner;
    slot_t *s = find_slot(e, c);
    if (s)
        s->ready = true;
    pump(e);
}

static void ev_slot_free(void *owner, bsf_h2c_t *c)
{
    (void)c;
    pump(owner);
}

static void ev_closed(void *owner, bsf_h2c_t *c, const char *why)
{
    bsf_sbi_pool_entry_t *e = owner;
    slot_t *s = find_slot(e, c);
    if (!s)
        return;
    bool was_ready = s->ready;
    *s = e->slots[--e->n_slots];
    e->pool->n_conns--;
    /* A connection that never came up fails the queue unless another one may still. */
    bool another = false;
    for (size_t i = 0; i < e->n_slots; i++)
        another = another || bsf_h2c_usable(e->slots[i].c);
    if (!was_ready && !another)
        fail_all(e, why);
    else
        pump(e);
}

static const bsf_h2c_events_t events = {ev_ready, ev_slot_free, ev_closed};

/* Opens one more connection. Returns 0, or -1 with the reason in why. */
static int open_conn(bsf_sbi_pool_entry_t *e, char *why, size_t cap)
{
    bsf_sbi_pool_t *p = e->pool;
    if (e->tls && !p->tls) {
        snprintf(why, cap, "https is not configured (no TLS context)");
        return -1;
    }
    slot_t *slots = realloc(e->slots, (e->n_slots + 1) * sizeof *slots);
    if (!slots) {
        snprintf(why, cap, "out of memory");
        return -1;
    }
    e->slots = slots;
    bsf_h2c_params_t params = {
        .loop = p->loop, .host = e->host, .port = e->port, .tls = e->tls ? p->tls : NULL,
        .connect_timeout_ms = p->cfg.connect_timeout_ms, .family = p->cfg.family,
        .max_streams = p->cfg.max_streams,
        .max_body_bytes = p->cfg.max_body_bytes, .events = &events, .owner = e};
    bsf_h2c_t *c;
    if (bsf_h2c_open(&params, &c, why, cap))
        return -1;
    e->slots[e->n_slots++] = (slot_t){c, false};
    p->n_conns++;
    return 0;
}

/* Gives waiting requests the free streams; opens a connection when all are busy and none
 * is on its way. */
static void pump(bsf_sbi_pool_entry_t *e)
{
    if (e->pumping)
        return;
    e->pumping = true;
    while (e->head) {
        bsf_h2c_t *room = NULL;
        bool opening = false;
        for (size_t i = 0; i < e->n_slots && !room; i++) {
            if (bsf_h2c_can_submit(e->slots[i].c))
                room = e->slots[i].c;
            else if (!e->slots[i].ready && bsf_h2c_usable(e->slots[i].c))
                opening = true;
        }
        if (room) {
            bsf_sbi_pool_waiter_t *w = pop(e);
            w->granted(w, room);
            continue;
        }
        char why[160];
        if (opening || e->n_slots >= e->pool->cfg.max_connections)
            break;
        if (open_conn(e, why, sizeof why)) {
            fail_all(e, why);
            break;
        }
    }
    e->pumping = false;
}

static bsf_sbi_pool_entry_t *entry_for(bsf_sbi_pool_t *p, const bsf_sbi_uri_t *t)
{
    for (bsf_sbi_pool_entry_t *e = p->entries; e; e = e->next)
        if (e->tls == t->tls && e->port == t->port && strcmp(e->host, t->host) == 0)
            return e;
    bsf_sbi_pool_entry_t *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->pool = p;
    e->tls = t->tls;
    e->port = t->port;
    snprintf(e->host, sizeof e->host, "%s", t->host);
    e->next = p->entries;
    p->entries = e;
    return e;
}

void bsf_sbi_pool_acquire(bsf_sbi_pool_t *p, const bsf_sbi_uri_t *target,
                          bsf_sbi_pool_waiter_t *w)
{
    bsf_sbi_pool_entry_t *e = entry_for(p, target);
    if (!e) {
        w->failed(w, "out of memory");
        return;
    }
    w->entry = e;
    w->next = NULL;
    w->prev = e->tail;
    BSF_FIFO_APPEND(e->head, e->tail, w, next);
    pump(e);
}

void bsf_sbi_pool_sweep(bsf_sbi_pool_t *p)
{
    uint64_t now = bsf_clock_mono_ns();
    uint64_t idle = (uint64_t)p->cfg.idle_timeout_ms * 1000000u;
    for (bsf_sbi_pool_entry_t **pe = &p->entries; *pe;) {
        bsf_sbi_pool_entry_t *e = *pe;
        for (size_t i = e->n_slots; i-- > 0;) {
            bsf_h2c_t *c = e->slots[i].c;
            if (e->slots[i].ready && bsf_h2c_active(c) == 0 && idle &&
                now - bsf_h2c_last_used_ns(c) >= idle)
                bsf_h2c_shutdown(c);
        }
        if (e->n_slots == 0 && !e->head) {
            *pe = e->next;
            free(e->slots);
            free(e);
        } else {
            pe = &e->next;
        }
    }
}

void bsf_sbi_pool_close_all(bsf_sbi_pool_t *p)
{
    for (bsf_sbi_pool_entry_t *e = p->entries; e; e = e->next) {
        fail_all(e, "client stopping");
        while (e->n_slots > 0)
            bsf_h2c_close(e->slots[e->n_slots - 1].c, "client stopping");
        fail_all(e, "client stopping"); /* whoever queued again from a failed stream */
    }
}

size_t bsf_sbi_pool_connections(const bsf_sbi_pool_t *p)
{
    return p->n_conns;
}

void bsf_sbi_pool_free(bsf_sbi_pool_t *p)
{
    if (!p)
        return;
    while (p->entries) {
        bsf_sbi_pool_entry_t *e = p->entries;
        p->entries = e->next;
        free(e->slots);
        free(e);
    }
    free(p);
}
