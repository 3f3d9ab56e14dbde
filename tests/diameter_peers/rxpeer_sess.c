/* rxpeer_sess.c - see rxpeer_sess.h */
#include "rxpeer_sess.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct rxpeer_sess_entry {
	struct rxpeer_sess_entry *next;
	uint64_t hash;
	uint32_t updates;
	char *host, *realm, *ue; /* point into the same allocation, after sid */
	char sid[];
};

#define RXPEER_SESS_FIELD 255 /* max stored length of host/realm */

static uint64_t rxpeer_sess_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 1099511628211ull;
	}
	return h;
}

int rxpeer_sess_init(struct rxpeer_sess *t)
{
	memset(t, 0, sizeof(*t));
	t->n_buckets = 1024;
	t->buckets = calloc(t->n_buckets, sizeof(*t->buckets));
	if (t->buckets == NULL)
		return ENOMEM;
	return pthread_mutex_init(&t->mu, NULL);
}

void rxpeer_sess_clear(struct rxpeer_sess *t)
{
	pthread_mutex_lock(&t->mu);
	for (size_t i = 0; i < t->n_buckets; i++) {
		struct rxpeer_sess_entry *e = t->buckets[i];
		while (e) {
			struct rxpeer_sess_entry *n = e->next;
			free(e);
			e = n;
		}
		t->buckets[i] = NULL;
	}
	t->count = 0;
	pthread_mutex_unlock(&t->mu);
}

void rxpeer_sess_fini(struct rxpeer_sess *t)
{
	if (t->buckets == NULL)
		return;
	rxpeer_sess_clear(t);
	free(t->buckets);
	t->buckets = NULL;
	pthread_mutex_destroy(&t->mu);
}

/* Double the bucket array (mutex held). Failure just keeps the old size. */
static void rxpeer_sess_grow(struct rxpeer_sess *t)
{
	size_t nb = t->n_buckets * 2;
	struct rxpeer_sess_entry **b = calloc(nb, sizeof(*b));
	if (b == NULL)
		return;
	for (size_t i = 0; i < t->n_buckets; i++) {
		struct rxpeer_sess_entry *e = t->buckets[i];
		while (e) {
			struct rxpeer_sess_entry *n = e->next;
			size_t k = e->hash & (nb - 1);
			e->next = b[k];
			b[k] = e;
			e = n;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->n_buckets = nb;
}

static struct rxpeer_sess_entry **rxpeer_sess_slot(struct rxpeer_sess *t, const char *sid, uint64_t h)
{
	struct rxpeer_sess_entry **pp = &t->buckets[h & (t->n_buckets - 1)];
	while (*pp && ((*pp)->hash != h || strcmp((*pp)->sid, sid) != 0))
		pp = &(*pp)->next;
	return pp;
}

static size_t rxpeer_sess_len(const char *s, size_t max)
{
	return s ? strnlen(s, max) : 0;
}

/* Allocate an entry holding copies of all strings. */
static struct rxpeer_sess_entry *rxpeer_sess_new(const char *sid, uint64_t h, const char *host,
    const char *realm, const char *ue)
{
	size_t ls = strlen(sid), lh = rxpeer_sess_len(host, RXPEER_SESS_FIELD),
	       lr = rxpeer_sess_len(realm, RXPEER_SESS_FIELD), lu = rxpeer_sess_len(ue, 63);
	struct rxpeer_sess_entry *e = malloc(sizeof(*e) + ls + lh + lr + lu + 4);
	if (e == NULL)
		return NULL;
	e->next = NULL;
	e->hash = h;
	e->updates = 0;
	memcpy(e->sid, sid, ls + 1);
	e->host = e->sid + ls + 1;
	memcpy(e->host, host ? host : "", lh);
	e->host[lh] = '\0';
	e->realm = e->host + lh + 1;
	memcpy(e->realm, realm ? realm : "", lr);
	e->realm[lr] = '\0';
	e->ue = e->realm + lr + 1;
	memcpy(e->ue, ue ? ue : "", lu);
	e->ue[lu] = '\0';
	return e;
}

int rxpeer_sess_put(struct rxpeer_sess *t, const char *sid, const char *host, const char *realm,
    const char *ue, int *is_new)
{
	uint64_t h = rxpeer_sess_hash(sid);
	int ret = 0;

	pthread_mutex_lock(&t->mu);
	struct rxpeer_sess_entry **pp = rxpeer_sess_slot(t, sid, h);
	struct rxpeer_sess_entry *old = *pp;
	if (is_new)
		*is_new = (old == NULL);
	struct rxpeer_sess_entry *e = rxpeer_sess_new(sid, h,
	    host ? host : (old ? old->host : NULL),
	    realm ? realm : (old ? old->realm : NULL),
	    ue ? ue : (old ? old->ue : NULL));
	if (e == NULL) {
		ret = ENOMEM;
	} else if (old) {
		e->updates = old->updates + 1;
		e->next = old->next;
		*pp = e;
		free(old);
	} else {
		*pp = e;
		if (++t->count > t->n_buckets)
			rxpeer_sess_grow(t);
	}
	pthread_mutex_unlock(&t->mu);
	return ret;
}

static void rxpeer_sess_copy(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int rxpeer_sess_get(struct rxpeer_sess *t, const char *sid, struct rxpeer_sess_view *out)
{
	uint64_t h = rxpeer_sess_hash(sid);
	int ret = ENOENT;

	pthread_mutex_lock(&t->mu);
	struct rxpeer_sess_entry *e = *rxpeer_sess_slot(t, sid, h);
	if (e) {
		rxpeer_sess_copy(out->host, sizeof out->host, e->host);
		rxpeer_sess_copy(out->realm, sizeof out->realm, e->realm);
		rxpeer_sess_copy(out->ue, sizeof out->ue, e->ue);
		out->updates = e->updates;
		ret = 0;
	}
	pthread_mutex_unlock(&t->mu);
	return ret;
}

int rxpeer_sess_del(struct rxpeer_sess *t, const char *sid)
{
	uint64_t h = rxpeer_sess_hash(sid);
	int ret = ENOENT;

	pthread_mutex_lock(&t->mu);
	struct rxpeer_sess_entry **pp = rxpeer_sess_slot(t, sid, h);
	if (*pp) {
		struct rxpeer_sess_entry *e = *pp;
		*pp = e->next;
		free(e);
		t->count--;
		ret = 0;
	}
	pthread_mutex_unlock(&t->mu);
	return ret;
}

size_t rxpeer_sess_count(struct rxpeer_sess *t)
{
	pthread_mutex_lock(&t->mu);
	size_t n = t->count;
	pthread_mutex_unlock(&t->mu);
	return n;
}

void rxpeer_sess_json(struct rxpeer_sess *t, struct rxpeer_json *j, const char *key, size_t max)
{
	size_t n = 0;
	rxpeer_json_arr_begin(j, key);
	pthread_mutex_lock(&t->mu);
	for (size_t i = 0; i < t->n_buckets && n < max; i++) {
		for (struct rxpeer_sess_entry *e = t->buckets[i]; e && n < max; e = e->next, n++) {
			rxpeer_json_obj_begin(j, NULL);
			rxpeer_json_str(j, "session_id", e->sid);
			rxpeer_json_str(j, "host", e->host);
			rxpeer_json_str(j, "realm", e->realm);
			rxpeer_json_str(j, "ue", e->ue);
			rxpeer_json_u64(j, "updates", e->updates);
			rxpeer_json_obj_end(j);
		}
	}
	pthread_mutex_unlock(&t->mu);
	rxpeer_json_arr_end(j);
}
