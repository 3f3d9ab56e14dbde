/* The bounded table of Rx sessions. */
#include "gateways/diameter/rx_sessions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bsf_rx_session_entry {
    bsf_rx_session_entry_t *next;       /* bucket chain */
    bsf_rx_session_entry_t *prev_q, *next_q; /* idle or ending queue */
    bool ending;
    uint64_t expires_ns;
    uint64_t hash;
    bsf_rx_session_t data;
    size_t sid_len;
    char sid[]; /* not NUL-terminated */
};

static uint64_t hash_sid(const char *sid, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)sid[i];
        h *= 1099511628211ull;
    }
    return h;
}

static bsf_rx_session_shard_t *shard_of(bsf_rx_sessions_t *s, uint64_t h)
{
    return &s->shards[h % BSF_RX_SESSION_SHARDS];
}

static size_t bucket_of(const bsf_rx_session_shard_t *sh, uint64_t h)
{
    return (size_t)(h / BSF_RX_SESSION_SHARDS) & (sh->n_buckets - 1);
}

int bsf_rx_sessions_init(bsf_rx_sessions_t *s, size_t max, uint64_t idle_ns, uint64_t ending_ns)
{
    memset(s, 0, sizeof *s);
    s->max = max;
    s->idle_ns = idle_ns;
    s->ending_ns = ending_ns;
    atomic_init(&s->count, 0);
    size_t per = max / BSF_RX_SESSION_SHARDS + 1, n = 16;
    while (n < per && n < ((size_t)1 << 20))
        n <<= 1;
    for (size_t i = 0; i < BSF_RX_SESSION_SHARDS; i++) {
        bsf_rx_session_shard_t *sh = &s->shards[i];
        sh->buckets = calloc(n, sizeof *sh->buckets);
        if (!sh->buckets || pthread_mutex_init(&sh->mu, NULL)) {
            free(sh->buckets);
            sh->buckets = NULL;
            bsf_rx_sessions_destroy(s);
            return ENOMEM;
        }
        sh->n_buckets = n;
    }
    return 0;
}

void bsf_rx_sessions_destroy(bsf_rx_sessions_t *s)
{
    for (size_t i = 0; i < BSF_RX_SESSION_SHARDS; i++) {
        bsf_rx_session_shard_t *sh = &s->shards[i];
        if (!sh->buckets)
            continue;
        for (size_t b = 0; b < sh->n_buckets; b++)
            for (bsf_rx_session_entry_t *e = sh->buckets[b], *next; e; e = next) {
                next = e->next;
                free(e);
            }
        free(sh->buckets);
        sh->buckets = NULL;
        pthread_mutex_destroy(&sh->mu);
    }
}

/* ---- queues (lock held) ---- */

static void queue_unlink(bsf_rx_session_shard_t *sh, bsf_rx_session_entry_t *e)
{
    bsf_rx_session_entry_t **head = e->ending ? &sh->ending_head : &sh->idle_head;
    bsf_rx_session_entry_t **tail = e->ending ? &sh->ending_tail : &sh->idle_tail;
    if (e->prev_q)
        e->prev_q->next_q = e->next_q;
    else
        *head = e->next_q;
    if (e->next_q)
        e->next_q->prev_q = e->prev_q;
    else
        *tail = e->prev_q;
    e->prev_q = e->next_q = NULL;
}

static void queue_append(bsf_rx_session_shard_t *sh, bsf_rx_session_entry_t *e)
{
    bsf_rx_session_entry_t **head = e->ending ? &sh->ending_head : &sh->idle_head;
    bsf_rx_session_entry_t **tail = e->ending ? &sh->ending_tail : &sh->idle_tail;
    e->prev_q = *tail;
    e->next_q = NULL;
    if (*tail)
        (*tail)->next_q = e;
    else
        *head = e;
    *tail = e;
}

static bsf_rx_session_entry_t **find_link(bsf_rx_session_shard_t *sh, uint64_t h, const char *sid,
                                          size_t n)
{
    bsf_rx_session_entry_t **link = &sh->buckets[bucket_of(sh, h)];
    for (; *link; link = &(*link)->next)
        if ((*link)->hash == h && (*link)->sid_len == n && memcmp((*link)->sid, sid, n) == 0)
            return link;
    return link;
}

static void remove_locked(bsf_rx_sessions_t *s, bsf_rx_session_shard_t *sh,
                          bsf_rx_session_entry_t **link)
{
    bsf_rx_session_entry_t *e = *link;
    *link = e->next;
    queue_unlink(sh, e);
    free(e);
    atomic_fetch_sub(&s->count, 1);
}

/* ---- API ---- */

bsf_rx_session_add_t bsf_rx_sessions_put(bsf_rx_sessions_t *s, const char *sid, size_t sid_len,
                                         const bsf_rx_session_t *data, uint64_t now_ns)
{
    uint64_t h = hash_sid(sid, sid_len);
    bsf_rx_session_shard_t *sh = shard_of(s, h);
    pthread_mutex_lock(&sh->mu);
    bsf_rx_session_entry_t **link = find_link(sh, h, sid, sid_len);
    if (*link) {
        bsf_rx_session_entry_t *e = *link;
        e->data = *data;
        queue_unlink(sh, e);
        e->ending = false;
        e->expires_ns = now_ns + s->idle_ns;
        queue_append(sh, e);
        pthread_mutex_unlock(&sh->mu);
        return BSF_RX_SESSION_REPLACED;
    }
    /* Reserve a place in the global count first so concurrent adds cannot exceed it. */
    if (atomic_fetch_add(&s->count, 1) >= s->max) {
        atomic_fetch_sub(&s->count, 1);
        pthread_mutex_unlock(&sh->mu);
        return BSF_RX_SESSION_FULL;
    }
    bsf_rx_session_entry_t *e = malloc(sizeof *e + sid_len);
    if (!e) {
        atomic_fetch_sub(&s->count, 1);
        pthread_mutex_unlock(&sh->mu);
        return BSF_RX_SESSION_NOMEM;
    }
    memset(e, 0, sizeof *e);
    e->hash = h;
    e->data = *data;
    e->sid_len = sid_len;
    memcpy(e->sid, sid, sid_len);
    e->expires_ns = now_ns + s->idle_ns;
    *link = e;
    queue_append(sh, e);
    pthread_mutex_unlock(&sh->mu);
    return BSF_RX_SESSION_ADDED;
}

bool bsf_rx_sessions_get(bsf_rx_sessions_t *s, const char *sid, size_t sid_len, uint64_t now_ns,
                         bsf_rx_session_t *out)
{
    uint64_t h = hash_sid(sid, sid_len);
    bsf_rx_session_shard_t *sh = shard_of(s, h);
    pthread_mutex_lock(&sh->mu);
    bsf_rx_session_entry_t *e = *find_link(sh, h, sid, sid_len);
    if (e) {
        *out = e->data;
        if (!e->ending) { /* an ending session keeps its deadline */
            queue_unlink(sh, e);
            e->expires_ns = now_ns + s->idle_ns;
            queue_append(sh, e);
        }
    }
    pthread_mutex_unlock(&sh->mu);
    return e != NULL;
}

void bsf_rx_sessions_set_pcf(bsf_rx_sessions_t *s, const char *sid, size_t sid_len,
                             const char *pcf_peer, const char *pcf_host)
{
    uint64_t h = hash_sid(sid, sid_len);
    bsf_rx_session_shard_t *sh = shard_of(s, h);
    pthread_mutex_lock(&sh->mu);
    bsf_rx_session_entry_t *e = *find_link(sh, h, sid, sid_len);
    if (e) {
        bsf_rx_identity_copy(e->data.pcf_peer, pcf_peer, SIZE_MAX);
        if (pcf_host)
            bsf_rx_identity_copy(e->data.pcf_host, pcf_host, SIZE_MAX);
    }
    pthread_mutex_unlock(&sh->mu);
}

void bsf_rx_sessions_end(bsf_rx_sessions_t *s, const char *sid, size_t sid_len, uint64_t now_ns)
{
    uint64_t h = hash_sid(sid, sid_len);
    bsf_rx_session_shard_t *sh = shard_of(s, h);
    pthread_mutex_lock(&sh->mu);
    bsf_rx_session_entry_t *e = *find_link(sh, h, sid, sid_len);
    if (e && !e->ending) {
        queue_unlink(sh, e);
        e->ending = true;
        e->expires_ns = now_ns + s->ending_ns;
        queue_append(sh, e);
    }
    pthread_mutex_unlock(&sh->mu);
}

bool bsf_rx_sessions_remove(bsf_rx_sessions_t *s, const char *sid, size_t sid_len)
{
    uint64_t h = hash_sid(sid, sid_len);
    bsf_rx_session_shard_t *sh = shard_of(s, h);
    pthread_mutex_lock(&sh->mu);
    bsf_rx_session_entry_t **link = find_link(sh, h, sid, sid_len);
    bool found = *link != NULL;
    if (found)
        remove_locked(s, sh, link);
    pthread_mutex_unlock(&sh->mu);
    return found;
}

static size_t expire_queue(bsf_rx_sessions_t *s, bsf_rx_session_shard_t *sh, bool ending,
                           uint64_t now_ns)
{
    size_t n = 0;
    for (;;) {
        bsf_rx_session_entry_t *e = ending ? sh->ending_head : sh->idle_head;
        if (!e || e->expires_ns > now_ns)
            return n;
        remove_locked(s, sh, find_link(sh, e->hash, e->sid, e->sid_len));
        n++;
    }
}

size_t bsf_rx_sessions_expire(bsf_rx_sessions_t *s, uint64_t now_ns)
{
    size_t n = 0;
    for (size_t i = 0; i < BSF_RX_SESSION_SHARDS; i++) {
        bsf_rx_session_shard_t *sh = &s->shards[i];
        pthread_mutex_lock(&sh->mu);
        n += expire_queue(s, sh, false, now_ns);
        n += expire_queue(s, sh, true, now_ns);
        pthread_mutex_unlock(&sh->mu);
    }
    return n;
}

size_t bsf_rx_sessions_count(bsf_rx_sessions_t *s)
{
    return atomic_load(&s->count);
}
