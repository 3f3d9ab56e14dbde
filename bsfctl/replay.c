/* bsfctl replay: rebuilds a store from the replicated log (Kafka) into a new directory. Every
 * site's events are applied once (by site and sequence number, as a site applies them), the
 * per-site sequence numbers and the consumer positions are stored with them, so a bsfd started
 * on the result continues from where the replay stopped. Prints the digest. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsfctl/apply_pipeline.h"
#include "bsfctl/bsfctl.h"
#include "bsfctl/kafka_source.h"
#include "bsfctl/store_access.h"
#include "common/error.h"
#include "common/clock.h"
#include "replication/kafka_reader.h"

#define REPLAY_BATCH 50000
#define MAX_TOPICS BSF_KAFKA_READER_MAX_TOPICS

/* What the writer thread saves with each commit: the per-site sequence numbers and clocks
 * and the topic positions of the events written so far. */
typedef struct {
    bsf_store_t *dst;
    uint64_t *seq, *hlc; /* per site id */
    uint8_t *touched;
    const char (*topics)[256];
    size_t n_positions;
    uint64_t positions[MAX_TOPICS];
} replay_state_t;

/* The reading thread's side. */
typedef struct {
    bsfctl_pipeline_t *pl;
    msgpack_sbuffer tmp;
    uint64_t *seen_seq; /* per site id: the highest sequence number sent to the writer */
    size_t n_topics;
    char topics[MAX_TOPICS][256];
    uint64_t events, applied, skipped, bad;
} replay_t;

static int save_state(void *ctx, MDB_txn *txn)
{
    replay_state_t *st = ctx;
    int rc = 0;
    for (unsigned site = 0; site < 65536 && !rc; site++)
        if (st->touched[site]) {
            rc = bsf_store_save_site_state(st->dst, txn, (uint16_t)site, st->seq[site],
                                           st->hlc[site]);
            st->touched[site] = 0;
        }
    for (size_t t = 0; t < st->n_positions && !rc; t++) {
        char source[320];
        snprintf(source, sizeof source, "kafka/%s/0", st->topics[t]);
        rc = bsf_store_save_position(st->dst, txn, source, st->positions[t]);
    }
    return rc;
}

static void note_written(void *ctx, const bsfctl_item_t *it)
{
    replay_state_t *st = ctx;
    st->positions[it->source] = it->position;
    if (it->source >= st->n_positions)
        st->n_positions = it->source + 1;
    if (it->has_event) {
        st->seq[it->pe.ev.site] = it->pe.ev.seq;
        st->hlc[it->pe.ev.site] = it->pe.ev.hlc;
        st->touched[it->pe.ev.site] = 1;
    }
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

/* Every message read becomes an item (at least its position); new events are prepared here
 * and written by the pipeline's writer. */
static int replay_visit(void *ctx, const char *topic, int64_t offset, const void *data,
                        size_t len)
{
    replay_t *r = ctx;
    msgpack_zone *zone;
    bsfctl_item_t *it = bsfctl_pipeline_next(r->pl, &zone);
    if (!it)
        return 1; /* the writer failed: bsfctl_pipeline_finish says why */
    it->source = (uint32_t)topic_slot(r, topic);
    it->position = (uint64_t)offset + 1;
    r->events++;
    bsf_event_t head;
    char err[256] = "not an event of a known version";
    bool readable = bsf_event_decode_envelope(data, len, &head) == 0;
    if (readable && head.seq <= r->seen_seq[head.site]) {
        r->skipped++;
    } else if (!readable ||
               bsf_prepared_event_make(data, len, NULL, 0, false, zone, &r->tmp, &it->pe, err,
                                       sizeof err)) {
        if (r->bad++ < 10)
            fprintf(stderr, "bsfctl: %s offset %" PRId64 " is not an event (%s); skipped\n",
                    topic, offset, err);
    } else {
        it->has_event = true;
        r->seen_seq[head.site] = head.seq;
        r->applied++;
    }
    bsfctl_pipeline_push(r->pl);
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

int bsfctl_replay(const bsfctl_options_t *o)
{
    bsfctl_kafka_read_t how = {.progress = true};
    if (!o->kafka || !o->out) {
        fprintf(stderr, "bsfctl: replay needs --kafka BROKERS --topics T1,T2 --out DIR\n");
        return 2;
    }
    if (parse_start(o, &how))
        return 2;
    if (bsfctl_refuse_existing_store(o->out))
        return 2;
    bsf_store_t dst;
    char err[512];
    uint64_t map_mb;
    if (bsfctl_map_size(o, 65536, &map_mb))
        return 2;
    bsf_store_options_t so = {o->out, map_mb, false, 126, 0};
    if (bsf_store_open(&dst, &so, err, sizeof err)) {
        fprintf(stderr, "bsfctl: %s\n", err);
        return 1;
    }
    replay_t *r = calloc(1, sizeof *r);
    replay_state_t *state = calloc(1, sizeof *state);
    uint64_t *seen = calloc(65536, sizeof *seen), *seq = calloc(65536, sizeof *seq),
             *hlc = calloc(65536, sizeof *hlc);
    uint8_t *touched = calloc(65536, 1);
    int out = 1;
    if (!r || !state || !seen || !seq || !hlc || !touched) {
        fprintf(stderr, "bsfctl: out of memory\n");
        goto done;
    }
    *state = (replay_state_t){.dst = &dst, .seq = seq, .hlc = hlc, .touched = touched,
                           .topics = (const char(*)[256])r->topics};
    r->seen_seq = seen;
    msgpack_sbuffer_init(&r->tmp);
    uint64_t t0 = bsf_clock_mono_ns();
    bsfctl_pipeline_hooks_t hooks = {state, note_written, save_state};
    if (!(r->pl = bsfctl_pipeline_start(&dst, REPLAY_BATCH, &hooks, err, sizeof err))) {
        fprintf(stderr, "bsfctl: %s\n", err);
        msgpack_sbuffer_destroy(&r->tmp);
        goto done;
    }
    int read = bsfctl_kafka_read(o, &how, replay_visit, r);
    int rc = bsfctl_pipeline_finish(r->pl);
    msgpack_sbuffer_destroy(&r->tmp);
    if (rc)
        fprintf(stderr, "bsfctl: writing the store failed: %s\n", bsf_strerror(rc));
    if (!rc && read == 0) {
        double secs = (double)(bsf_clock_mono_ns() - t0) / 1e9;
        fprintf(stderr,
                "%" PRIu64 " events read, %" PRIu64 " applied, %" PRIu64
                " already present, %" PRIu64 " unreadable, in %.2f s (%.0f events/s)\n",
                r->events, r->applied, r->skipped, r->bad, secs,
                secs > 0 ? (double)r->events / secs : 0.0);
        out = bsfctl_print_digest(&dst, NULL, o->json);
    }
done:
    free(r);
    free(state);
    free(seen);
    free(seq);
    free(hlc);
    free(touched);
    bsf_store_close(&dst);
    return out;
}
