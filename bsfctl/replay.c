/* bsfctl replay: rebuilds a store from the replicated log (Kafka) into a new directory. Every
 * site's events are applied once (by site and sequence number, as a site applies them), the
 * per-site sequence numbers and the consumer positions are stored with them, so a bsfd started
 * on the result continues from where the replay stopped. Prints the digest. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bsfctl/bsfctl.h"
#include "bsfctl/kafka_source.h"
#include "bsfctl/store_access.h"
#include "common/clock.h"
#include "replication/kafka_reader.h"

#define REPLAY_BATCH 50000
#define MAX_TOPICS BSF_KAFKA_READER_MAX_TOPICS

typedef struct {
    bsf_store_t *dst;
    MDB_txn *txn;
    msgpack_zone zone;
    msgpack_sbuffer scratch;
    uint64_t *seq, *hlc; /* per site id */
    uint8_t *touched;
    size_t n_topics;
    char topics[MAX_TOPICS][256];
    uint64_t positions[MAX_TOPICS];
    uint64_t events, applied, skipped, bad, in_batch;
    int err;
} replay_t;

static int save_state(replay_t *r)
{
    int rc = 0;
    for (unsigned site = 0; site < 65536 && !rc; site++)
        if (r->touched[site]) {
            rc = bsf_store_save_site_state(r->dst, r->txn, (uint16_t)site, r->seq[site],
                                           r->hlc[site]);
            r->touched[site] = 0;
        }
    for (size_t t = 0; t < r->n_topics && !rc; t++) {
        char source[320];
        snprintf(source, sizeof source, "kafka/%s/0", r->topics[t]);
        rc = bsf_store_save_position(r->dst, r->txn, source, r->positions[t]);
    }
    return rc;
}

static int commit(replay_t *r, bool reopen)
{
    int rc = save_state(r);
    if (rc) {
        mdb_txn_abort(r->txn);
        r->txn = NULL;
        return rc;
    }
    rc = mdb_txn_commit(r->txn);
    r->txn = NULL;
    if (!rc && reopen)
        rc = mdb_txn_begin(r->dst->env, NULL, 0, &r->txn);
    r->in_batch = 0;
    return rc;
}

static size_t topic_slot(replay_t *r, const char *topic)
{
    for (size_t t = 0; t < r->n_topics; t++)
        if (strcmp(r->topics[t], topic) == 0)
            return t;
    if (r->n_topics == MAX_TOPICS)
        return MAX_TOPICS - 1;
    snprintf(r->topics[r->n_topics], sizeof r->topics[0], "%s", topic);
    return r->n_topics++;
}

static int replay_visit(void *ctx, const char *topic, int64_t offset, const void *data,
                        size_t len)
{
    replay_t *r = ctx;
    bsf_event_t ev;
    bsf_pcf_binding_t binding;
    char err[256];
    r->positions[topic_slot(r, topic)] = (uint64_t)offset + 1;
    r->events++;
    msgpack_zone_clear(&r->zone);
    if (bsf_event_decode(data, len, &r->zone, &ev, &binding, err, sizeof err)) {
        if (r->bad++ < 10)
            fprintf(stderr, "bsfctl: %s offset %" PRId64 " is not an event (%s); skipped\n",
                    topic, offset, err);
    } else if (ev.seq <= r->seq[ev.site]) {
        r->skipped++;
    } else {
        r->err = bsf_store_write_raw_event(r->dst, r->txn, data, len, &ev, &r->scratch, NULL);
        if (r->err)
            return 1;
        r->seq[ev.site] = ev.seq;
        r->hlc[ev.site] = ev.hlc;
        r->touched[ev.site] = 1;
        r->applied++;
    }
    if (++r->in_batch == REPLAY_BATCH && (r->err = commit(r, true)))
        return 1;
    return 0;
}

static int parse_start(const bsfctl_options_t *o, bsfctl_kafka_read_t *how)
{
    int given = o->from_beginning + (o->offset != NULL) + (o->since != NULL);
    if (given > 1) {
        fprintf(stderr, "bsfctl: give one of --from-beginning, --offset N, --since TIME\n");
        return -1;
    }
    how->start = BSFCTL_FROM_BEGINNING;
    if (o->offset) {
        char *end;
        long long v = strtoll(o->offset, &end, 10);
        if (*end || end == o->offset || v < 0) {
            fprintf(stderr, "bsfctl: --offset needs a non-negative integer\n");
            return -1;
        }
        how->start = BSFCTL_FROM_OFFSET;
        how->offset = v;
    } else if (o->since) {
        if (bsfctl_parse_time(o->since, &how->time_ms)) {
            fprintf(stderr, "bsfctl: --since needs RFC 3339 or Unix milliseconds\n");
            return -1;
        }
        how->start = BSFCTL_FROM_TIME;
    }
    return 0;
}

static int print_store_digest(bsf_store_t *store)
{
    MDB_txn *txn;
    uint8_t d[32];
    char hex[65];
    int rc = mdb_txn_begin(store->env, NULL, MDB_RDONLY, &txn);
    if (!rc) {
        rc = bsf_projection_digest(&store->proj, txn, d);
        mdb_txn_abort(txn);
    }
    if (rc) {
        fprintf(stderr, "bsfctl: digest failed: %s\n", mdb_strerror(rc));
        return 1;
    }
    bsfctl_hex(d, 32, hex);
    printf("%s\n", hex);
    return 0;
}

int bsfctl_replay(const bsfctl_options_t *o)
{
    bsfctl_kafka_read_t how = {.progress = true};
    if (!o->kafka || !o->out) {
        fprintf(stderr, "bsfctl: replay needs --kafka BROKERS --topics T1,T2 --out DIR\n");
        return 2;
    }
    if (parse_start(o, &how))
        return 2;
    struct stat st;
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/data.mdb", o->out);
    if (stat(probe, &st) == 0) {
        fprintf(stderr, "bsfctl: %s already holds a store; give a new directory\n", o->out);
        return 2;
    }
    bsf_store_t dst;
    char err[512];
    bsf_store_options_t so = {o->out, 65536, false, 126};
    if (bsf_store_open(&dst, &so, err, sizeof err)) {
        fprintf(stderr, "bsfctl: %s\n", err);
        return 1;
    }
    replay_t *r = calloc(1, sizeof *r);
    uint64_t *seq = calloc(65536, sizeof *seq), *hlc = calloc(65536, sizeof *hlc);
    uint8_t *touched = calloc(65536, 1);
    int out = 1;
    if (!r || !seq || !hlc || !touched) {
        fprintf(stderr, "bsfctl: out of memory\n");
        goto done;
    }
    r->dst = &dst;
    r->seq = seq;
    r->hlc = hlc;
    r->touched = touched;
    msgpack_zone_init(&r->zone, 8192);
    msgpack_sbuffer_init(&r->scratch);
    uint64_t t0 = bsf_clock_mono_ns();
    int rc = mdb_txn_begin(dst.env, NULL, 0, &r->txn);
    if (rc) {
        fprintf(stderr, "bsfctl: %s\n", mdb_strerror(rc));
    } else {
        int read = bsfctl_kafka_read(o, &how, replay_visit, r);
        if (read == 0 && !r->err) {
            rc = commit(r, false);
            if (rc)
                fprintf(stderr, "bsfctl: writing the store failed: %s\n", mdb_strerror(rc));
        } else {
            if (r->err)
                fprintf(stderr, "bsfctl: writing the store failed: %s\n", mdb_strerror(r->err));
            if (r->txn)
                mdb_txn_abort(r->txn);
            rc = -1;
        }
        double secs = (double)(bsf_clock_mono_ns() - t0) / 1e9;
        if (!rc) {
            fprintf(stderr,
                    "%" PRIu64 " events read, %" PRIu64 " applied, %" PRIu64
                    " already present, %" PRIu64 " unreadable, in %.2f s (%.0f events/s)\n",
                    r->events, r->applied, r->skipped, r->bad, secs,
                    secs > 0 ? (double)r->events / secs : 0.0);
            out = print_store_digest(&dst);
        }
    }
    msgpack_zone_destroy(&r->zone);
    msgpack_sbuffer_destroy(&r->scratch);
done:
    free(r);
    free(seq);
    free(hlc);
    free(touched);
    bsf_store_close(&dst);
    return out;
}
