/*
 * rxpeer_sess.h - thread-safe table of Rx sessions known to a peer, keyed by Session-Id.
 *
 * For each session: the remote host/realm (PCF: the AF's Origin-Host/Realm, where RAR/ASR go;
 * AF: the Destination-Host/Realm it used) and the UE address text.  One allocation per session.
 */
#ifndef RXPEER_SESS_H
#define RXPEER_SESS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "rxpeer_json.h"

struct rxpeer_sess_entry;

struct rxpeer_sess {
	pthread_mutex_t mu;
	struct rxpeer_sess_entry **buckets;
	size_t n_buckets; /* power of two */
	size_t count;
};

/* Copy of one session's data. */
struct rxpeer_sess_view {
	char host[256];
	char realm[256];
	char ue[64];
	uint32_t updates;
};

int rxpeer_sess_init(struct rxpeer_sess *t);
void rxpeer_sess_fini(struct rxpeer_sess *t);

/* Insert, or update an existing session (NULL fields keep their value). *is_new set if given. */
int rxpeer_sess_put(struct rxpeer_sess *t, const char *sid, const char *host, const char *realm,
    const char *ue, int *is_new);
/* 0 and *out filled, or ENOENT. */
int rxpeer_sess_get(struct rxpeer_sess *t, const char *sid, struct rxpeer_sess_view *out);
/* 0 if removed, ENOENT if unknown. */
int rxpeer_sess_del(struct rxpeer_sess *t, const char *sid);
size_t rxpeer_sess_count(struct rxpeer_sess *t);
/* Remove all sessions. */
void rxpeer_sess_clear(struct rxpeer_sess *t);
/* Member `key`: [{"session_id":..,"host":..,"realm":..,"ue":..,"updates":n}] (at most max). */
void rxpeer_sess_json(struct rxpeer_sess *t, struct rxpeer_json *j, const char *key, size_t max);

#endif /* RXPEER_SESS_H */
