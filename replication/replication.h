/* Replication between sites through the log (Apache Kafka): the outbox shipper that
 * produces this site's events and the applier that consumes the other sites' events. (The
 * message feed of seed §3.43 is not part of it: gateways/feed/, docs/feed.md.) With
 * `log.backend = embedded` it does nothing.
 *
 * Lifecycle in bsfd: create (before the engine is created: it may install engine hooks),
 * start (after the engine runs), stop (after the engine stopped: ships what is left). */
#ifndef BSF_REPLICATION_REPLICATION_H
#define BSF_REPLICATION_REPLICATION_H

#include <stddef.h>
#include <stdint.h>

#include "common/text.h"
#include "engine/engine.h"
#include "engine/store.h"
#include "replication/replication_settings.h"

typedef struct bsf_replication bsf_replication_t;

/* Returns 0 (with *out NULL when there is nothing to replicate) or -1 with a message. */
int bsf_replication_create(const bsf_replication_settings_t *settings, uint16_t site_id,
                           bsf_store_t *store, bsf_engine_config_t *engine_cfg,
                           bsf_replication_t **out, char *err, size_t err_cap);
int bsf_replication_start(bsf_replication_t *r, bsf_engine_t *engine, char *err, size_t err_cap);
void bsf_replication_stop(bsf_replication_t *r);
void bsf_replication_destroy(bsf_replication_t *r);
/* Prometheus text: replication lag per source site, shipper backlog. */
void bsf_replication_write_metrics(void *r, bsf_text_t *out);
#define BSF_REPLICATION_MAX_TOPICS 16 /* topics one site consumes at most */
/* A topic held at an event of a newer version than this release reads (replication/applier.h). */
typedef struct {
    char topic[BSF_KAFKA_TOPIC_MAX + 1];
    uint64_t offset, version;
} bsf_replication_hold_t;
/* The held topics, at most `cap` into `out`; returns how many. Any thread; NULL: 0. */
size_t bsf_replication_held(bsf_replication_t *r, bsf_replication_hold_t *out, size_t cap);
/* The replication links (this site's producer, and each topic of the other sites read) and
 * how many are healthy now (producer connected; topic's end known): inputs of the NF score.
 * Any thread; NULL (no Kafka): 0 and 0. */
void bsf_replication_health(bsf_replication_t *r, unsigned *healthy, unsigned *links);

#endif
