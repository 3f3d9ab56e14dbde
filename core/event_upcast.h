/* Event upcasters: an event written in an older version of the contract (docs/events.md) is
 * rewritten, as an unpacked msgpack map, into the form of the newest version before it is
 * decoded, so the decoder (core/event.c) knows one form only and every reader (the engine's
 * replay and apply, bsfctl rebuild / replay / history, the Kafka applier) gets the same
 * in-memory event from a version-1 or a version-2 record. One step per version (1 -> 2, a
 * later 2 -> 3 beside it); each step keeps the meaning of the old form exactly.
 *
 * msgpack-c only (no core, LMDB or I/O headers): core/event.c calls it. Pure functions, any
 * thread. */
#ifndef BSF_MIGRATIONS_EVENT_UPCAST_H
#define BSF_MIGRATIONS_EVENT_UPCAST_H

#include <msgpack.h>
#include <stddef.h>

/* Oldest and newest `v` this build reads. */
#define BSF_EVENT_UPCAST_OLDEST 1
#define BSF_EVENT_UPCAST_NEWEST 2

/* Rewrites `root` (the event's map, unpacked into `zone`) from version `from` to
 * BSF_EVENT_UPCAST_NEWEST: new member arrays come from `zone` (freed with it), strings and
 * payload maps are shared with the old map. `from` == NEWEST leaves it as it is. Returns 0,
 * or -1 with a message in `err` (a version outside OLDEST..NEWEST, a `type` member that is
 * not a string, out of memory); `root` is unchanged then. */
int bsf_event_upcast(msgpack_object *root, unsigned from, msgpack_zone *zone, char *err,
                     size_t err_cap);

#endif
