/* The fixture of the store tests (test_projection, test_prepared_event, test_apply_pipeline,
 * test_store): a history of events of every kind from two sites (PCF bindings with updates,
 * deregistrations, audit outcomes and nested IPv6 prefixes, UE and MBS bindings,
 * subscriptions, equal-HLC conflicts), and stores on real LMDB files in fresh temporary
 * directories. Test thread only; every failure fails the running test. */
#ifndef BSF_TESTS_UNIT_HISTORY_FIXTURES_H
#define BSF_TESTS_UNIT_HISTORY_FIXTURES_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/event.h"
#include "engine/store.h"

#define HF_MAX_EVENTS 320

/* The history: events[0..n), their bindings in `zone`. */
typedef struct {
    msgpack_sbuffer buf;
    msgpack_zone zone;
    bsf_event_t events[HF_MAX_EVENTS];
    size_t n;
} hf_history_t;

/* cmocka setup and teardown: a new history as the test's state (the fixture owns it),
 * freed by hf_teardown. */
int hf_setup(void **state);
int hf_teardown(void **state);

/* A PCF binding decoded from JSON (checked against the rules) into the history's zone. */
bsf_pcf_binding_t *hf_binding(hf_history_t *f, const char *json);
/* The binding id of `site`'s sequence number `seq` (fixed random part). */
bsf_binding_id_t hf_make_id(uint16_t site, uint64_t seq);

/* Opens a store of `map_mb` MB in a new directory (its name into `dir`, 64 bytes);
 * hf_store_close closes it and removes its files and the directory. */
void hf_store_open(bsf_store_t *s, char *dir, size_t map_mb);
void hf_store_close(bsf_store_t *s, const char *dir);

/* A test writing a store directly: a fresh store of 64 MB, a write transaction on it and a
 * scratch buffer for the projections. hf_writer_end commits (or aborts) the transaction,
 * then closes and removes the store. */
typedef struct {
    bsf_store_t s;
    char dir[64];
    MDB_txn *txn;
    msgpack_sbuffer scratch;
} hf_writer_t;
void hf_writer_begin(hf_writer_t *w);
void hf_writer_end(hf_writer_t *w, bool commit);

/* The encoded form of event i (as Kafka or another store's log carries it) into `out`. */
void hf_encode_event(hf_history_t *f, size_t i, msgpack_sbuffer *out);

/* Called by hf_apply inside its write transaction, after the digest. */
typedef void (*hf_inspect_fn)(void *ctx, bsf_store_t *s, MDB_txn *txn);

/* Applies the events in `order` (indexes into events; NULL: as recorded), each `times`
 * times, to a fresh 64 MB store; its projections' digest into `digest`, `inspect` (when not
 * NULL) called before the commit; the store is removed afterwards. */
void hf_apply(hf_history_t *f, const size_t *order, int times, uint8_t digest[32],
              hf_inspect_fn inspect, void *ctx);
/* The digest of the history applied once in its order. */
void hf_reference_digest(hf_history_t *f, uint8_t digest[32]);

#endif
