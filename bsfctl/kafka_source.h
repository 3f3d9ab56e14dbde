/* bsfctl's reading of the replicated log: the topics given with --kafka / --topics, each from
 * a start (the beginning, an offset, or the first event at or after a time) to its end. */
#ifndef BSF_BSFCTL_KAFKA_SOURCE_H
#define BSF_BSFCTL_KAFKA_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bsfctl/bsfctl.h"

typedef enum { BSFCTL_FROM_BEGINNING, BSFCTL_FROM_OFFSET, BSFCTL_FROM_TIME } bsfctl_start_t;

typedef struct {
    bsfctl_start_t start;
    int64_t offset;  /* BSFCTL_FROM_OFFSET */
    int64_t time_ms; /* BSFCTL_FROM_TIME */
    bool progress;   /* a progress line on stderr */
} bsfctl_kafka_read_t;

/* Called for each event: its topic, offset and bytes. A non-zero return stops the reading
 * (and is returned). */
typedef int (*bsfctl_kafka_visit_fn)(void *ctx, const char *topic, int64_t offset,
                                     const void *event, size_t len);

/* Reads every topic of --topics from its start to its end. Returns 0, the visitor's non-zero
 * value, or -1 after printing why. */
int bsfctl_kafka_read(const bsfctl_options_t *o, const bsfctl_kafka_read_t *how,
                      bsfctl_kafka_visit_fn visit, void *ctx);

#endif
