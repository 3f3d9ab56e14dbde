/* The Rx gateway's binding lookup on its own (issue 8 §2): CPU time per AAR-I lookup on a
 * loaded store, through bsf_rx_binding_lookup (a pooled read handle: renewed transaction,
 * reused zone), against the path it replaced (a new read transaction and a new zone per
 * lookup), measured in one thread with CLOCK_THREAD_CPUTIME_ID so that other load on the
 * machine counts little.
 *
 *   build/bench/rx-lookup-bench STORE_DIR BINDINGS [LOOKUPS]
 *
 * STORE_DIR is a store loaded by bench/rx_bench.py (IPv4 10.0.0.0 + i, i < BINDINGS). */
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/read.h"
#include "engine/store.h"
#include "gateways/diameter/rx_binding.h"

static uint64_t thread_cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static bsf_discovery_query_t query(unsigned i)
{
    bsf_discovery_query_t q = {.kind = BSF_UE_ADDR_IPV4};
    uint32_t a = 0x0a000000u + i;
    q.ipv4.b[0] = (uint8_t)(a >> 24);
    q.ipv4.b[1] = (uint8_t)(a >> 16);
    q.ipv4.b[2] = (uint8_t)(a >> 8);
    q.ipv4.b[3] = (uint8_t)a;
    return q;
}

/* The replaced path, as rx_binding.c had it: a transaction and a zone per lookup. */
static int lookup_per_call(bsf_store_t *s, const bsf_discovery_query_t *q)
{
    MDB_txn *txn;
    if (mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn))
        return -1;
    msgpack_zone zone;
    if (!msgpack_zone_init(&zone, 2048)) {
        mdb_txn_abort(txn);
        return -1;
    }
    bsf_match_t best;
    size_t n = 0;
    int rc = bsf_projection_discover(&s->proj, txn, q, &zone, &best, &n);
    bsf_rx_binding_t b;
    memset(&b, 0, sizeof b);
    if (!rc && n) {
        b.id = best.id;
        bsf_rx_identity_copy(b.pcf_host, best.binding.pcf_diam_host, SIZE_MAX);
        bsf_rx_identity_copy(b.pcf_realm, best.binding.pcf_diam_realm, SIZE_MAX);
    }
    msgpack_zone_destroy(&zone);
    mdb_txn_abort(txn);
    return rc || !n ? -1 : 0;
}

static int lookup_pooled(bsf_store_t *s, const bsf_discovery_query_t *q)
{
    bsf_rx_binding_t b;
    bsf_rx_lookup_result_t r = bsf_rx_binding_lookup(s, q, false, &b);
    bsf_rx_binding_clear(&b);
    return r == BSF_RX_LOOKUP_FOUND ? 0 : -1;
}

/* The snapshot alone, without the lookup: what the two paths differ in. */
static int snapshot_per_call(bsf_store_t *s, const bsf_discovery_query_t *q)
{
    (void)q;
    MDB_txn *txn;
    if (mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn))
        return -1;
    msgpack_zone zone;
    int ok = msgpack_zone_init(&zone, 2048);
    if (ok)
        msgpack_zone_destroy(&zone);
    mdb_txn_abort(txn);
    return ok ? 0 : -1;
}

static int snapshot_pooled(bsf_store_t *s, const bsf_discovery_query_t *q)
{
    (void)q;
    bsf_read_t *r;
    if (bsf_read_acquire(s, &r))
        return -1;
    int rc = bsf_read_begin(r);
    bsf_read_release(r);
    return rc;
}

static double run(bsf_store_t *s, int (*fn)(bsf_store_t *, const bsf_discovery_query_t *),
                  unsigned bindings, unsigned lookups)
{
    uint64_t t0 = thread_cpu_ns();
    unsigned x = 12345, failed = 0;
    for (unsigned i = 0; i < lookups; i++) {
        x = x * 1103515245u + 12345u;
        bsf_discovery_query_t q = query(x % bindings);
        failed += fn(s, &q) != 0;
    }
    if (failed)
        fprintf(stderr, "%u lookups found nothing\n", failed);
    return (double)(thread_cpu_ns() - t0) / 1000.0 / lookups;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s STORE_DIR BINDINGS [LOOKUPS]\n", argv[0]);
        return 2;
    }
    unsigned bindings = (unsigned)strtoul(argv[2], NULL, 10);
    unsigned lookups = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 200000;
    bsf_store_t s;
    char err[256];
    bsf_store_options_t opt = {argv[1], 0, true, 0, 0};
    if (!bindings || bsf_store_open(&s, &opt, err, sizeof err)) {
        fprintf(stderr, "%s\n", bindings ? err : "BINDINGS must be > 0");
        return 1;
    }
    run(&s, lookup_pooled, bindings, lookups / 4); /* warm the map and the pool */
    for (int round = 0; round < 4; round++) {
        /* Alternate which goes first: the machine's other load drifts. */
        double per_call, pooled;
        if (round % 2) {
            pooled = run(&s, lookup_pooled, bindings, lookups);
            per_call = run(&s, lookup_per_call, bindings, lookups);
        } else {
            per_call = run(&s, lookup_per_call, bindings, lookups);
            pooled = run(&s, lookup_pooled, bindings, lookups);
        }
        double snap_call = run(&s, snapshot_per_call, bindings, lookups);
        double snap_pooled = run(&s, snapshot_pooled, bindings, lookups);
        printf("{\"round\": %d, \"lookups\": %u, \"lookup_txn_per_call_us\": %.3f, "
               "\"lookup_pooled_us\": %.3f, \"snapshot_per_call_us\": %.3f, "
               "\"snapshot_pooled_us\": %.3f}\n",
               round + 1, lookups, per_call, pooled, snap_call, snap_pooled);
    }
    bsf_store_close(&s);
    return 0;
}
