/* bsfctl export: every event, from the local log or from the replicated log (Kafka), as JSON
 * lines (the event map of docs/events.md, one per line) or as the raw msgpack events one
 * after the other (each is a self-delimiting msgpack map), for analytics. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsfctl/bsfctl.h"
#include "bsfctl/kafka_source.h"
#include "bsfctl/store_access.h"
#include "core/event.h"
#include "core/hlc.h"
#include "core/msgpack_guard.h"
#include "gateways/sbi/json_codec.h"

typedef struct {
    bool msgpack;
    int64_t since_ms, until_ms;
    msgpack_zone zone;
    msgpack_sbuffer json;
    uint64_t written, bad;
    int err;
} export_t;

static int write_event(export_t *x, const void *data, size_t len, const char *where,
                       uint64_t position)
{
    bsf_event_t ev;
    if (bsf_event_decode_envelope(data, len, &ev) || !bsf_msgpack_well_formed(data, len, 16)) {
        if (x->bad++ < 10)
            fprintf(stderr, "bsfctl: %s %" PRIu64 " holds no readable event; skipped\n", where,
                    position);
        return 0;
    }
    int64_t ms = (int64_t)BSF_HLC_MS(ev.hlc);
    if ((x->since_ms >= 0 && ms < x->since_ms) || (x->until_ms >= 0 && ms > x->until_ms))
        return 0;
    if (x->msgpack) {
        if (fwrite(data, 1, len, stdout) != len)
            return x->err = 1;
    } else {
        msgpack_object root;
        size_t off = 0;
        msgpack_zone_clear(&x->zone);
        msgpack_sbuffer_clear(&x->json);
        if (msgpack_unpack(data, len, &off, &x->zone, &root) != MSGPACK_UNPACK_SUCCESS ||
            bsf_json_write(&root, &x->json, NULL, NULL)) {
            x->bad++;
            return 0;
        }
        msgpack_sbuffer_write(&x->json, "\n", 1);
        if (fwrite(x->json.data, 1, x->json.size, stdout) != x->json.size)
            return x->err = 1;
    }
    x->written++;
    return 0;
}

static int visit_local(void *ctx, uint64_t position, const void *data, size_t len)
{
    export_t *x = ctx;
    return write_event(x, data, len, "log position", position);
}

static int visit_kafka(void *ctx, const char *topic, int64_t offset, const void *data,
                       size_t len)
{
    (void)topic;
    export_t *x = ctx;
    return write_event(x, data, len, "offset", (uint64_t)offset);
}

int bsfctl_export(const bsfctl_options_t *o)
{
    export_t x = {.since_ms = -1, .until_ms = -1};
    if (o->format && strcmp(o->format, "jsonl") != 0 && strcmp(o->format, "msgpack") != 0) {
        fprintf(stderr, "bsfctl: --format is jsonl or msgpack\n");
        return 2;
    }
    x.msgpack = o->format && strcmp(o->format, "msgpack") == 0;
    if (x.msgpack && o->json) {
        fprintf(stderr, "bsfctl: --json is --format jsonl, not msgpack\n");
        return 2;
    }
    if (bsfctl_parse_time(o->since, &x.since_ms) || bsfctl_parse_time(o->until, &x.until_ms)) {
        fprintf(stderr, "bsfctl: --since / --until need RFC 3339 or Unix milliseconds\n");
        return 2;
    }
    if (!o->kafka && !o->store) {
        fprintf(stderr, "bsfctl: export needs --store DIR or --kafka BROKERS --topics T1,T2\n");
        return 2;
    }
    msgpack_zone_init(&x.zone, 8192);
    msgpack_sbuffer_init(&x.json);
    int rc;
    if (o->kafka) {
        /* With --since, start each topic at the first event of that time. */
        bsfctl_kafka_read_t how = {.start = x.since_ms >= 0 ? BSFCTL_FROM_TIME
                                                             : BSFCTL_FROM_BEGINNING,
                                   .time_ms = x.since_ms};
        rc = bsfctl_kafka_read(o, &how, visit_kafka, &x) ? 1 : 0;
    } else {
        bsf_store_t store;
        MDB_txn *txn;
        rc = 1;
        if (bsfctl_open_read(o->store, &store, &txn) == 0) {
            bsf_log_unstored_t u = {visit_local, &x};
            int lrc = bsfctl_scan_history(o, &store, txn, bsf_log_visit_unstored, &u);
            rc = lrc ? 1 : 0;
            mdb_txn_abort(txn);
            bsf_store_close(&store);
        }
    }
    fflush(stdout);
    if (x.err) {
        fprintf(stderr, "bsfctl: writing the output failed\n");
        rc = 1;
    }
    fprintf(stderr, "%" PRIu64 " event(s) exported%s\n", x.written,
            x.bad ? ", some unreadable ones skipped" : "");
    msgpack_zone_destroy(&x.zone);
    msgpack_sbuffer_destroy(&x.json);
    return rc;
}
