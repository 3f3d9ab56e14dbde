/* rxpeer_req.c - see rxpeer_req.h */
#include "rxpeer_req.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxpeer_thread.h"
#include "rxpeer_time.h"

#define RXPEER_REAPER_PERIOD_MS 100

struct rxpeer_req_slot {
	struct rxpeer_req *owner;
	uint32_t index;
	int in_use;
	uint32_t eteid;
	uint64_t sent_ns;
	uint64_t reap_ns;          /* monotonic time after which the reaper completes it as LOST */
	rxpeer_req_done_fn done;
	void *arg;
};

/* What a claimed slot carried, copied out so the slot can be reused at once. */
struct rxpeer_req_claim {
	uint64_t sent_ns;
	rxpeer_req_done_fn done;
	void *arg;
};

const char *rxpeer_req_status_name(enum rxpeer_req_status st)
{
	switch (st) {
	case RXPEER_REQ_ANSWER: return "answer";
	case RXPEER_REQ_TIMEOUT: return "timeout";
	case RXPEER_REQ_DROPPED: return "dropped";
	case RXPEER_REQ_LOST: return "lost";
	}
	return "unknown";
}

/* Release slot s (mutex held) and copy what the completion needs. */
static void rxpeer_req_release_locked(struct rxpeer_req *r, struct rxpeer_req_slot *s, struct rxpeer_req_claim *c)
{
	c->sent_ns = s->sent_ns;
	c->done = s->done;
	c->arg = s->arg;
	s->in_use = 0;
	s->done = NULL;
	s->arg = NULL;
	r->free_idx[r->n_free++] = s->index;
}

/* Claim slot s if it still holds the request with this End-to-End id. 0 or ENOENT. */
static int rxpeer_req_claim_slot(struct rxpeer_req_slot *s, uint32_t eteid, struct rxpeer_req_claim *c)
{
	struct rxpeer_req *r = s->owner;
	int ret = ENOENT;
	pthread_mutex_lock(&r->mu);
	if (s->in_use && s->eteid == eteid) {
		rxpeer_req_release_locked(r, s, c);
		ret = 0;
	}
	pthread_mutex_unlock(&r->mu);
	return ret;
}

static void rxpeer_req_complete(const struct rxpeer_req_claim *c, enum rxpeer_req_status st, struct msg *answer)
{
	uint64_t now = rxpeer_mono_ns();
	c->done(c->arg, st, answer, now > c->sent_ns ? now - c->sent_ns : 0);
}

static uint32_t rxpeer_msg_eteid(struct msg *m)
{
	struct msg_hdr *h = NULL;
	if (m == NULL || fd_msg_hdr(m, &h) != 0)
		return 0;
	return h->msg_eteid;
}

/* fd_msg_send_timeout answer callback: data is the slot. */
static void rxpeer_req_on_answer(void *data, struct msg **answer)
{
	struct rxpeer_req_slot *s = data;
	struct rxpeer_req_claim c;

	if (answer == NULL || *answer == NULL)
		return;
	if (rxpeer_req_claim_slot(s, rxpeer_msg_eteid(*answer), &c) == 0)
		rxpeer_req_complete(&c, RXPEER_REQ_ANSWER, *answer);
	/* We consumed the answer either way (a stale one came after the reaper gave up). */
	fd_msg_free(*answer);
	*answer = NULL;
}

/* fd_msg_send_timeout expiry callback: data is the slot. freeDiameter frees *request after us. */
static void rxpeer_req_on_expire(void *data, DiamId_t sentto, size_t sentto_len, struct msg **request)
{
	struct rxpeer_req_slot *s = data;
	struct rxpeer_req_claim c;
	(void)sentto;
	(void)sentto_len;

	if (request == NULL || *request == NULL)
		return;
	if (rxpeer_req_claim_slot(s, rxpeer_msg_eteid(*request), &c) == 0)
		rxpeer_req_complete(&c, RXPEER_REQ_TIMEOUT, NULL);
}

/* Reaper: complete as LOST what no callback completed in time. */
static void *rxpeer_req_reaper(void *arg)
{
	struct rxpeer_req *r = arg;
	struct rxpeer_req_claim *batch = calloc(r->cap, sizeof(*batch));

	if (batch == NULL)
		return NULL; /* without memory we cannot reap; requests still complete normally */
	pthread_mutex_lock(&r->mu);
	while (!r->stop) {
		struct timespec until = rxpeer_mono_in_ms(RXPEER_REAPER_PERIOD_MS);
		int rc = pthread_cond_timedwait(&r->cv, &r->mu, &until);
		if (rc != 0 && rc != ETIMEDOUT)
			break;
		if (r->stop)
			break;
		uint64_t now = rxpeer_mono_ns();
		size_t n = 0;
		if (r->n_free < r->cap) {
			for (size_t i = 0; i < r->cap; i++) {
				struct rxpeer_req_slot *s = &r->slots[i];
				if (s->in_use && s->reap_ns <= now)
					rxpeer_req_release_locked(r, s, &batch[n++]);
			}
		}
		if (n == 0)
			continue;
		pthread_mutex_unlock(&r->mu); /* completions may send new requests */
		for (size_t i = 0; i < n; i++)
			rxpeer_req_complete(&batch[i], RXPEER_REQ_LOST, NULL);
		pthread_mutex_lock(&r->mu);
	}
	pthread_mutex_unlock(&r->mu);
	free(batch);
	return NULL;
}

int rxpeer_req_init(struct rxpeer_req *r, size_t capacity, uint32_t grace_ms)
{
	int ret;

	memset(r, 0, sizeof(*r));
	if (capacity == 0 || capacity > UINT32_MAX)
		return EINVAL;
	r->slots = calloc(capacity, sizeof(*r->slots));
	r->free_idx = calloc(capacity, sizeof(*r->free_idx));
	if (r->slots == NULL || r->free_idx == NULL) {
		free(r->slots);
		free(r->free_idx);
		return ENOMEM;
	}
	r->cap = capacity;
	r->grace_ms = grace_ms;
	for (size_t i = 0; i < capacity; i++) {
		r->slots[i].owner = r;
		r->slots[i].index = (uint32_t)i;
		r->free_idx[i] = (uint32_t)(capacity - 1 - i);
	}
	r->n_free = capacity;

	if ((ret = rxpeer_thread_start(&r->mu, &r->cv, &r->reaper, rxpeer_req_reaper, r)) != 0)
		goto fail;
	r->reaper_started = 1;
	return 0;
fail:
	free(r->slots);
	free(r->free_idx);
	r->slots = NULL;
	r->free_idx = NULL;
	return ret;
}

void rxpeer_req_fini(struct rxpeer_req *r)
{
	if (r->slots == NULL)
		return;
	if (r->reaper_started) {
		rxpeer_thread_stop(&r->mu, &r->cv, r->reaper, &r->stop);
		r->reaper_started = 0;
	}
	/* Slots are deliberately not freed: a late libfdcore callback may still dereference one
	 * while the process exits. The memory goes away with the process. */
}

int rxpeer_req_send(struct rxpeer_req *r, struct msg **req, uint32_t timeout_ms,
    rxpeer_req_done_fn done, void *arg)
{
	struct rxpeer_req_slot *s;
	struct rxpeer_req_claim c;
	uint32_t eteid;
	int ret;

	if (r == NULL || req == NULL || *req == NULL || done == NULL || timeout_ms == 0)
		return EINVAL;
	eteid = rxpeer_msg_eteid(*req);

	pthread_mutex_lock(&r->mu);
	if (r->n_free == 0) {
		pthread_mutex_unlock(&r->mu);
		return EAGAIN;
	}
	s = &r->slots[r->free_idx[--r->n_free]];
	s->in_use = 1;
	s->eteid = eteid;
	s->sent_ns = rxpeer_mono_ns();
	s->reap_ns = s->sent_ns + ((uint64_t)timeout_ms + r->grace_ms) * 1000000u;
	s->done = done;
	s->arg = arg;
	pthread_mutex_unlock(&r->mu);

	struct timespec deadline = rxpeer_realtime_in_ms(timeout_ms);
	ret = fd_msg_send_timeout(req, rxpeer_req_on_answer, s, rxpeer_req_on_expire, &deadline);
	if (ret != 0) {
		/* Not queued, so no callback will come: take the slot back. */
		(void)rxpeer_req_claim_slot(s, eteid, &c);
		return ret;
	}
	return 0;
}

void rxpeer_req_answer_dropped(struct rxpeer_req *r, struct msg *msg)
{
	struct msg_hdr *h = NULL;
	struct rxpeer_req_claim c;
	int found = 0;

	if (r == NULL || r->slots == NULL || msg == NULL || fd_msg_hdr(msg, &h) != 0)
		return;
	if (h->msg_flags & CMD_FLAG_REQUEST)
		return;
	pthread_mutex_lock(&r->mu);
	for (size_t i = 0; i < r->cap && r->n_free < r->cap; i++) {
		struct rxpeer_req_slot *s = &r->slots[i];
		if (s->in_use && s->eteid == h->msg_eteid) {
			rxpeer_req_release_locked(r, s, &c);
			found = 1;
			break;
		}
	}
	pthread_mutex_unlock(&r->mu);
	if (found)
		rxpeer_req_complete(&c, RXPEER_REQ_DROPPED, msg);
}

size_t rxpeer_req_outstanding(struct rxpeer_req *r)
{
	pthread_mutex_lock(&r->mu);
	size_t n = r->cap - r->n_free;
	pthread_mutex_unlock(&r->mu);
	return n;
}
