/* sub-gen: fills a new store with N subscriptions without HTTP, for the start-up measure of
 * bench/notify_rebuild.py (making 100,000 through bsfd takes half an hour on a busy 2-core
 * machine; this takes seconds).
 *
 *   sub-gen DIR N
 *
 * Subscription i is what bench/notify.py posts for index i (SUPI imsi-00101<i, 10 digits>,
 * notifUri http://127.0.0.1:9/ok?s=<i>, PCF_PDU_SESSION_BINDING_REGISTRATION, notifCorreId
 * b<i>, no expiry), created by site 1 as SubscriptionCreated event i + 1 through the store's
 * write path (log append + projection apply), with the site's sequence number and clock
 * saved, so bsfd with site.id=1 serves the store like one it wrote itself. Exits 0, or 1
 * with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/event.h"
#include "core/hlc.h"
#include "engine/store.h"

#define SITE 1
#define COMMIT_EVERY 10000

static int write_range(bsf_store_t *s, uint64_t from, uint64_t to, uint64_t hlc0,
                       msgpack_sbuffer *buf, msgpack_sbuffer *scratch)
{
    MDB_txn *txn;
    int rc = mdb_txn_begin(s->env, NULL, 0, &txn);
    for (uint64_t i = from; !rc && i < to; i++) {
        char supi[32], uri[64], corre[32];
        snprintf(supi, sizeof supi, "imsi-00101%010llu", (unsigned long long)i);
        snprintf(uri, sizeof uri, "http://127.0.0.1:9/ok?s=%llu", (unsigned long long)i);
        snprintf(corre, sizeof corre, "b%llu", (unsigned long long)i);
        bsf_subscription_t sub = {.events = 1u << BSF_SUB_EVENT_PDU_REGISTRATION,
                                  .notif_uri = uri, .notif_corre_id = corre, .supi = supi,
                                  .expiry_ms = -1};
        uint8_t rnd[8] = {(uint8_t)i, (uint8_t)(i >> 8), (uint8_t)(i >> 16), 0x5b};
        bsf_event_t ev = {.type = BSF_EVENT_SUBSCRIPTION_CREATED, .site = SITE, .seq = i + 1,
                          .hlc = hlc0 + i, .created_hlc = hlc0 + i, .subscription = &sub,
                          .origin_ts_ms = -1, .sender_ts_ms = -1};
        bsf_binding_id_make(SITE, i + 1, rnd, &ev.binding_id);
        uint64_t pos;
        rc = bsf_store_write_event(s, txn, &ev, buf, scratch, &pos);
    }
    if (!rc)
        rc = bsf_store_save_site_state(s, txn, SITE, to, hlc0 + to - 1);
    if (rc) {
        mdb_txn_abort(txn);
        return rc;
    }
    return mdb_txn_commit(txn);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: sub-gen DIR N\n");
        return 1;
    }
    char err[256];
    bsf_store_t store;
    bsf_store_options_t so = {.path = argv[1], .map_size_mb = 4096};
    if (bsf_store_open(&store, &so, err, sizeof err)) {
        fprintf(stderr, "sub-gen: %s\n", err);
        return 1;
    }
    uint64_t n = strtoull(argv[2], NULL, 10);
    uint64_t hlc0 = BSF_HLC_FROM_MS((uint64_t)time(NULL) * 1000u);
    msgpack_sbuffer buf, scratch;
    msgpack_sbuffer_init(&buf);
    msgpack_sbuffer_init(&scratch);
    int rc = 0;
    for (uint64_t i = 0; !rc && i < n; i += COMMIT_EVERY)
        rc = write_range(&store, i, i + COMMIT_EVERY < n ? i + COMMIT_EVERY : n, hlc0, &buf,
                         &scratch);
    msgpack_sbuffer_destroy(&buf);
    msgpack_sbuffer_destroy(&scratch);
    bsf_store_close(&store);
    if (rc) {
        fprintf(stderr, "sub-gen: write failed: %d\n", rc);
        return 1;
    }
    return 0;
}
