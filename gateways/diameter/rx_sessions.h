/* The Rx sessions the gateway follows: Session-Id -> the AF that opened it, the PCF hop it
 * was forwarded to and the binding it was routed by. AAR-U and STR follow the session to the
 * same PCF; RAR and ASR from the PCF go back to the AF.
 *
 * Bounded (an AAR-I beyond the maximum is refused) and forgotten after an idle time. Sharded
 * by Session-Id hash, one lock per shard; each shard keeps its entries in order of last use,
 * so expiry only looks at the oldest ones. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_SESSIONS_H
#define BSF_GATEWAYS_DIAMETER_RX_SESSIONS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/binding_id.h"
#include "gateways/diameter/rx_routes.h"

/* What a session holds; copies are handed out. */
typedef struct {
    char af_peer[BSF_RX_IDENTITY_MAX];  /* neighbour the AF's requests came from */
    char pcf_peer[BSF_RX_IDENTITY_MAX]; /* neighbour towards the PCF */
    char pcf_host[BSF_RX_IDENTITY_MAX]; /* the PCF's identity (Destination-Host); may be "" */
    bool has_binding;
    bsf_binding_id_t binding_id;
} bsf_rx_session_t;

typedef struct bsf_rx_session_entry bsf_rx_session_entry_t;

typedef struct {
    pthread_mutex_t mu;
    bsf_rx_session_entry_t **buckets;
    size_t n_buckets; /* power of two */
    /* In order of expiry: `idle` by last use, `ending` (aborted sessions) by deadline. */
    bsf_rx_session_entry_t *idle_head, *idle_tail;
    bsf_rx_session_entry_t *ending_head, *ending_tail;
} bsf_rx_session_shard_t;

#define BSF_RX_SESSION_SHARDS 32

typedef struct {
    bsf_rx_session_shard_t shards[BSF_RX_SESSION_SHARDS];
    size_t max;
    uint64_t idle_ns, ending_ns;
    atomic_size_t count;
} bsf_rx_sessions_t;

typedef enum {
    BSF_RX_SESSION_ADDED = 0,
    BSF_RX_SESSION_REPLACED, /* the Session-Id was known: its data was replaced */
    BSF_RX_SESSION_FULL,
    BSF_RX_SESSION_NOMEM,
} bsf_rx_session_add_t;

/* idle_ns: expiry after the last use; ending_ns: expiry after bsf_rx_sessions_end. */
int bsf_rx_sessions_init(bsf_rx_sessions_t *s, size_t max, uint64_t idle_ns, uint64_t ending_ns);
void bsf_rx_sessions_destroy(bsf_rx_sessions_t *s);

bsf_rx_session_add_t bsf_rx_sessions_put(bsf_rx_sessions_t *s, const char *sid, size_t sid_len,
                                         const bsf_rx_session_t *data, uint64_t now_ns);
/* Copies the session into *out and counts it as used. Returns false when unknown. */
bool bsf_rx_sessions_get(bsf_rx_sessions_t *s, const char *sid, size_t sid_len, uint64_t now_ns,
                         bsf_rx_session_t *out);
/* Records the PCF hop that answered (after a retry moved the session) and, when not NULL,
 * the PCF identity the request was finally addressed to. */
void bsf_rx_sessions_set_pcf(bsf_rx_sessions_t *s, const char *sid, size_t sid_len,
                             const char *pcf_peer, const char *pcf_host);
/* The session is ending (ASA): it is forgotten `ending_ns` from now unless removed before. */
void bsf_rx_sessions_end(bsf_rx_sessions_t *s, const char *sid, size_t sid_len, uint64_t now_ns);
/* Returns true when it was there. */
bool bsf_rx_sessions_remove(bsf_rx_sessions_t *s, const char *sid, size_t sid_len);
/* Forgets the sessions whose time is up; returns how many. */
size_t bsf_rx_sessions_expire(bsf_rx_sessions_t *s, uint64_t now_ns);
size_t bsf_rx_sessions_count(bsf_rx_sessions_t *s);

#endif
