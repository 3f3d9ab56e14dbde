/*
 * rxpeer_delay.h - send answers later (the "delay" behaviour).
 *
 * One thread holds answers ordered by due time and hands each to fd_msg_send() when due.
 */
#ifndef RXPEER_DELAY_H
#define RXPEER_DELAY_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <freeDiameter/freeDiameter-host.h>
#include <freeDiameter/libfdcore.h>

struct rxpeer_delay_item;

struct rxpeer_delay {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct rxpeer_delay_item *head, *tail; /* ordered by due time */
	size_t count;
	int stop;
	int started;
	pthread_t thr;
};

int rxpeer_delay_init(struct rxpeer_delay *d);
/* Stop the thread; answers still waiting are freed unsent. */
void rxpeer_delay_fini(struct rxpeer_delay *d);

/* Take ownership of *answer (set to NULL) and send it after delay_ms. 0 or errno. */
int rxpeer_delay_send(struct rxpeer_delay *d, struct msg **answer, uint32_t delay_ms);

#endif /* RXPEER_DELAY_H */
