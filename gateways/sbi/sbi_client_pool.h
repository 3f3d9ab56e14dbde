/* The SBI client's connections, pooled per authority (scheme, host, port): requests share
 * connections up to the streams each allows, at most `max_connections` per authority; a
 * request that finds no room waits in a FIFO until a stream frees up or a connection opens.
 * Runs on the SBI client's thread only. */
#ifndef BSF_GATEWAYS_SBI_SBI_CLIENT_POOL_H
#define BSF_GATEWAYS_SBI_SBI_CLIENT_POOL_H

#include <openssl/ssl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "gateways/sbi/h2_client.h"
#include "gateways/sbi/sbi_uri.h"

typedef struct bsf_sbi_pool bsf_sbi_pool_t;
typedef struct bsf_sbi_pool_entry bsf_sbi_pool_entry_t;

/* A request waiting for a connection; embedded in the request, owned by the caller. */
typedef struct bsf_sbi_pool_waiter {
    struct bsf_sbi_pool_waiter *prev, *next;
    bsf_sbi_pool_entry_t *entry; /* non-NULL while queued */
    /* A connection with a free stream: submit on it now (bsf_h2c_submit). */
    void (*granted)(struct bsf_sbi_pool_waiter *w, bsf_h2c_t *c);
    /* No connection could be made (the last attempt's reason). */
    void (*failed)(struct bsf_sbi_pool_waiter *w, const char *why);
} bsf_sbi_pool_waiter_t;

typedef struct {
    unsigned max_connections;    /* per authority, >= 1 */
    uint32_t max_streams;        /* per connection */
    unsigned connect_timeout_ms;
    bsf_family_pref_t family;    /* of the addresses connected to */
    unsigned idle_timeout_ms;    /* a connection without streams that long is closed */
    size_t max_body_bytes;
} bsf_sbi_pool_config_t;

/* tls: the context for https authorities (NULL: https requests fail). Returns NULL when out
 * of memory. */
bsf_sbi_pool_t *bsf_sbi_pool_new(uv_loop_t *loop, const bsf_sbi_pool_config_t *cfg,
                                 SSL_CTX *tls);

/* Finds room for a request to `target`: w->granted now or later, or w->failed (maybe now). */
void bsf_sbi_pool_acquire(bsf_sbi_pool_t *p, const bsf_sbi_uri_t *target,
                          bsf_sbi_pool_waiter_t *w);
/* Takes a waiting request out of its queue (no callback follows). No-op when not queued. */
void bsf_sbi_pool_withdraw(bsf_sbi_pool_waiter_t *w);

/* Closes idle connections and forgets authorities without any. Call now and then. */
void bsf_sbi_pool_sweep(bsf_sbi_pool_t *p);
/* Closes every connection (their streams fail) and fails the waiters. */
void bsf_sbi_pool_close_all(bsf_sbi_pool_t *p);
/* Connections open or opening. */
size_t bsf_sbi_pool_connections(const bsf_sbi_pool_t *p);
/* Frees the pool; call after close_all, once the loop closed the handles. */
void bsf_sbi_pool_free(bsf_sbi_pool_t *p);

#endif
