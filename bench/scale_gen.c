/* scale-gen: fills a new store with N PDU-session bindings without HTTP, for the issue-16
 * benchmarks at 25 million bindings (loading them through bsfd takes hours on a busy 2-core
 * machine; this takes minutes).
 *
 *   scale-gen DIR N [MAP_MB]
 *
 * Binding i is what `bsf-load --mode register --key-mix` posts for index i (SUPI, GPSI, the UE
 * address of kind i % 3: IPv4 10.0.0.0 + i, IPv6 2001:db8:<i>::/64 or MAC 02-00-<i>, DNN
 * internet, S-NSSAI 1/000001, PCF n = i % 16's FQDN, end point, Diameter host and realm and
 * pcfId), registered by site 1 as BindingRegistered event i + 1. The events go through the
 * same path as `bsfctl rebuild` (bsfctl/apply_pipeline.c: log append + projection apply),
 * with the site's sequence number and clock saved, so bsfd with site.id=1 opens the store
 * and serves it like one it wrote itself. Exits 0, or 1 with a message. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bsfctl/apply_pipeline.h"
#include "core/event.h"
#include "core/hlc.h"
#include "engine/store.h"

#define SITE 1
#define COMMIT_EVERY 10000

typedef struct {
    uint64_t seq, hlc;
} gen_state_t;

static void note_written(void *ctx, const bsfctl_item_t *it)
{
    gen_state_t *g = ctx;
    g->seq = it->pe.ev.seq;
    g->hlc = it->pe.ev.hlc;
}

static bsf_store_t *g_store; /* the store save_state writes the site's state into */

static int save_state(void *ctx, MDB_txn *txn)
{
    gen_state_t *g = ctx;
    return g->seq ? bsf_store_save_site_state(g_store, txn, SITE, g->seq, g->hlc) : 0;
}

/* The binding of index i, its strings in `zone`. */
static void make_binding(uint64_t i, msgpack_zone *zone, bsf_pcf_binding_t *b)
{
    unsigned pcf = (unsigned)(i % 16);
    char *s = msgpack_zone_malloc(zone, 192);
    memset(b, 0, sizeof *b);
    b->supi = s;
    s += 1 + sprintf(s, "imsi-00101%010" PRIu64, i);
    b->gpsi = s;
    s += 1 + sprintf(s, "msisdn-49%010" PRIu64, i);
    b->pcf_fqdn = s;
    s += 1 + sprintf(s, "pcf%u.example.com", pcf);
    b->pcf_diam_host = s;
    s += 1 + sprintf(s, "pcf%u.diam.example.com", pcf);
    b->pcf_id = s;
    sprintf(s, "5a1c6a4e-0000-4000-8000-0000000000%02u", pcf);
    b->pcf_diam_realm = "example.com";
    b->dnn = "internet";
    b->has_snssai = true;
    b->snssai = (bsf_snssai_t){.sst = 1, .has_sd = true, .sd = 1};
    bsf_ip_end_point_t *ep = msgpack_zone_malloc(zone, sizeof *ep);
    *ep = (bsf_ip_end_point_t){.has_ipv4 = true, .ipv4 = {{192, 0, 2, (uint8_t)pcf}},
                               .has_port = true, .port = 8080};
    b->pcf_ip_end_points = (bsf_ip_end_points_t){1, ep};
    uint32_t a = (uint32_t)i;
    if (i % 3 == 0) {
        b->has_ipv4 = true;
        uint32_t v4 = 0x0a000000u + a;
        b->ipv4 = (bsf_ipv4_t){{(uint8_t)(v4 >> 24), (uint8_t)(v4 >> 16), (uint8_t)(v4 >> 8),
                                (uint8_t)v4}};
    } else if (i % 3 == 1) {
        b->has_ipv6 = true;
        b->ipv6 = (bsf_ipv6_prefix_t){{0x20, 0x01, 0x0d, 0xb8, (uint8_t)(a >> 24),
                                       (uint8_t)(a >> 16), (uint8_t)(a >> 8), (uint8_t)a},
                                      64};
    } else {
        b->has_mac = true;
        b->mac = (bsf_mac48_t){{0x02, 0x00, (uint8_t)(a >> 24), (uint8_t)(a >> 16),
                                (uint8_t)(a >> 8), (uint8_t)a}};
    }
}

/* Encodes registration i and prepares it into the pipeline's next item. 0 or -1. */
static int push_one(bsfctl_pipeline_t *pl, uint64_t i, uint64_t hlc, msgpack_sbuffer *raw,
                    msgpack_sbuffer *tmp)
{
    msgpack_zone *zone;
    bsfctl_item_t *it = bsfctl_pipeline_next(pl, &zone);
    if (!it)
        return -1;
    msgpack_zone local;
    msgpack_zone_init(&local, 1024);
    bsf_pcf_binding_t b;
    make_binding(i, &local, &b);
    uint8_t rnd[8];
    for (int k = 0; k < 8; k++)
        rnd[k] = (uint8_t)rand();
    bsf_event_t ev = {.type = BSF_EVENT_BINDING_REGISTERED, .site = SITE, .seq = i + 1,
                      .hlc = hlc, .binding = &b, .created_hlc = hlc, .origin_ts_ms = -1,
                      .sender_ts_ms = -1};
    bsf_binding_id_make(SITE, i + 1, rnd, &ev.binding_id);
    msgpack_sbuffer_clear(raw);
    msgpack_packer pk;
    msgpack_packer_init(&pk, raw, msgpack_sbuffer_write);
    char err[128];
    int rc = bsf_event_encode(&ev, &pk) ||
             bsf_prepared_event_make(raw->data, raw->size, NULL, 0, true, zone, tmp, &it->pe, err,
                                     sizeof err);
    msgpack_zone_destroy(&local);
    if (rc) {
        fprintf(stderr, "scale-gen: event %" PRIu64 ": %s\n", i, err);
        return -1;
    }
    it->has_event = true;
    bsfctl_pipeline_push(pl);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: scale-gen DIR N [MAP_MB]\n");
        return 2;
    }
    uint64_t n = strtoull(argv[2], NULL, 10);
    bsf_store_options_t so = {.path = argv[1],
                              .map_size_mb = argc > 3 ? strtoull(argv[3], NULL, 10) : 65536};
    static bsf_store_t store;
    char err[256];
    if (bsf_store_open(&store, &so, err, sizeof err)) {
        fprintf(stderr, "scale-gen: %s\n", err);
        return 1;
    }
    g_store = &store;
    gen_state_t g = {0, 0};
    bsfctl_pipeline_hooks_t hooks = {&g, note_written, save_state};
    bsfctl_pipeline_t *pl = bsfctl_pipeline_start(&store, COMMIT_EVERY, &hooks, err, sizeof err);
    if (!pl) {
        fprintf(stderr, "scale-gen: %s\n", err);
        bsf_store_close(&store);
        return 1;
    }
    srand(7);
    msgpack_sbuffer raw, tmp;
    msgpack_sbuffer_init(&raw);
    msgpack_sbuffer_init(&tmp);
    uint64_t hlc = BSF_HLC_FROM_MS((uint64_t)time(NULL) * 1000 - n / 10);
    int rc = 0;
    for (uint64_t i = 0; i < n && !rc; i++) {
        hlc += 1u << 6; /* ~1,000 registrations per millisecond */
        rc = push_one(pl, i, hlc, &raw, &tmp);
        if (i % 1000000 == 0 && i)
            fprintf(stderr, "scale-gen: %" PRIu64 "\n", i);
    }
    int frc = bsfctl_pipeline_finish(pl);
    msgpack_sbuffer_destroy(&raw);
    msgpack_sbuffer_destroy(&tmp);
    bsf_store_close(&store);
    if (rc || frc) {
        fprintf(stderr, "scale-gen: stopped (%d)\n", frc);
        return 1;
    }
    printf("scale-gen: %" PRIu64 " bindings in %s\n", n, argv[1]);
    return 0;
}
