/* rxpeer_delay.c - see rxpeer_delay.h */
#include "rxpeer_delay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rxpeer_thread.h"
#include "rxpeer_time.h"

struct rxpeer_delay_item {
	struct rxpeer_delay_item *prev, *next;
	uint64_t due_ns;
	struct msg *msg;
};

static void *rxpeer_delay_thread(void *arg)
{
	struct rxpeer_delay *d = arg;

	pthread_mutex_lock(&d->mu);
	while (!d->stop) {
		if (d->head == NULL) {
			pthread_cond_wait(&d->cv, &d->mu);
			continue;
		}
		uint64_t now = rxpeer_mono_ns();
		if (d->head->due_ns > now) {
			uint64_t wait_ns = d->head->due_ns - now;
			struct timespec until;
			clock_gettime(CLOCK_MONOTONIC, &until);
			until.tv_sec += (time_t)(wait_ns / 1000000000u);
			until.tv_nsec += (long)(wait_ns % 1000000000u);
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&d->cv, &d->mu, &until);
			continue;
		}
		struct rxpeer_delay_item *it = d->head;
		d->head = it->next;
		if (d->head)
			d->head->prev = NULL;
		else
			d->tail = NULL;
		d->count--;
		pthread_mutex_unlock(&d->mu);

		int ret = fd_msg_send(&it->msg, NULL, NULL);
		if (ret != 0) {
			fd_log(FD_LOG_ERROR, "rxpeer: sending a delayed answer failed: %s", strerror(ret));
			if (it->msg)
				fd_msg_free(it->msg);
		}
		free(it);
		pthread_mutex_lock(&d->mu);
	}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

int rxpeer_delay_init(struct rxpeer_delay *d)
{
	int ret;

	memset(d, 0, sizeof(*d));
	if ((ret = rxpeer_thread_start(&d->mu, &d->cv, &d->thr, rxpeer_delay_thread, d)) != 0)
		return ret;
	d->started = 1;
	return 0;
}

void rxpeer_delay_fini(struct rxpeer_delay *d)
{
	if (!d->started)
		return;
	rxpeer_thread_stop(&d->mu, &d->cv, d->thr, &d->stop);
	d->started = 0;
	while (d->head) {
		struct rxpeer_delay_item *it = d->head;
		d->head = it->next;
		fd_msg_free(it->msg);
		free(it);
	}
	d->tail = NULL;
	d->count = 0;
}

int rxpeer_delay_send(struct rxpeer_delay *d, struct msg **answer, uint32_t delay_ms)
{
	struct rxpeer_delay_item *it;

	if (answer == NULL || *answer == NULL)
		return EINVAL;
	if ((it = calloc(1, sizeof(*it))) == NULL)
		return ENOMEM;
	it->msg = *answer;
	it->due_ns = rxpeer_mono_ns() + (uint64_t)delay_ms * 1000000u;

	pthread_mutex_lock(&d->mu);
	if (d->stop) {
		pthread_mutex_unlock(&d->mu);
		free(it);
		return ECANCELED;
	}
	/* Insert from the tail: with one delay value, items arrive in due order. */
	struct rxpeer_delay_item *p = d->tail;
	while (p && p->due_ns > it->due_ns)
		p = p->prev;
	it->prev = p;
	it->next = p ? p->next : d->head;
	if (it->next)
		it->next->prev = it;
	else
		d->tail = it;
	if (p)
		p->next = it;
	else
		d->head = it;
	d->count++;
	if (d->head == it)
		pthread_cond_signal(&d->cv);
	pthread_mutex_unlock(&d->mu);
	*answer = NULL;
	return 0;
}
