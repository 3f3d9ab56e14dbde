/*
 * rxpeer_req.h - sending requests and getting exactly one completion for each.
 *
 * freeDiameter 1.2.1 calls the answer callback or the expiry callback of fd_msg_send_timeout()
 * -- except when it discards an answer that fails the dictionary rules: then neither runs and
 * the request would stay pending forever (README, pitfall 4).  This module guarantees one and
 * only one completion per request:
 *
 *   RXPEER_REQ_ANSWER   the answer arrived (a local error answer such as 3002 counts too);
 *   RXPEER_REQ_TIMEOUT  freeDiameter's timer expired (fd_msg_send_timeout);
 *   RXPEER_REQ_DROPPED  freeDiameter discarded the answer (reported through
 *                       rxpeer_req_answer_dropped() from a HOOK_MESSAGE_DROPPED hook);
 *   RXPEER_REQ_LOST     none of the above within timeout + grace: our own reaper gave up.
 *
 * Outstanding requests live in a fixed table; the answer/expiry callbacks get a pointer to the
 * table slot and recognise stale calls by the End-to-End id, so a late callback after the reaper
 * completed a request is harmless.
 */
#ifndef RXPEER_REQ_H
#define RXPEER_REQ_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <freeDiameter/freeDiameter-host.h>
#include <freeDiameter/libfdcore.h>

enum rxpeer_req_status {
	RXPEER_REQ_ANSWER = 0,
	RXPEER_REQ_TIMEOUT,
	RXPEER_REQ_DROPPED,
	RXPEER_REQ_LOST,
};

const char *rxpeer_req_status_name(enum rxpeer_req_status st);

/*
 * Completion callback, called from a freeDiameter thread or the reaper thread.
 * `answer` is the answer for ANSWER (and the discarded answer for DROPPED when known), else
 * NULL; it is only valid during the call.  `latency_ns` is measured from rxpeer_req_send().
 */
typedef void (*rxpeer_req_done_fn)(void *arg, enum rxpeer_req_status st, struct msg *answer,
    uint64_t latency_ns);

struct rxpeer_req_slot; /* internal */

struct rxpeer_req {
	pthread_mutex_t mu;
	pthread_cond_t cv;             /* reaper sleep / stop */
	struct rxpeer_req_slot *slots;
	uint32_t *free_idx;            /* stack of free slot indexes */
	size_t n_free;
	size_t cap;
	uint32_t grace_ms;             /* reaper waits timeout + grace */
	int stop;
	int reaper_started;
	pthread_t reaper;
};

/* capacity: maximum outstanding requests. grace_ms: extra wait before LOST. 0 or errno. */
int rxpeer_req_init(struct rxpeer_req *r, size_t capacity, uint32_t grace_ms);
/* Stop the reaper. Call after fd_core_shutdown() completed. */
void rxpeer_req_fini(struct rxpeer_req *r);

/*
 * Send *req (a request) with a timeout. On success *req is NULL and `done` will be called once.
 * On failure (EAGAIN: table full; other: libfdcore error) *req is left to the caller and `done`
 * is not called.
 */
int rxpeer_req_send(struct rxpeer_req *r, struct msg **req, uint32_t timeout_ms,
    rxpeer_req_done_fn done, void *arg);

/* Report an answer that freeDiameter discarded (HOOK_MESSAGE_DROPPED). Non-answers are ignored. */
void rxpeer_req_answer_dropped(struct rxpeer_req *r, struct msg *msg);

/* Number of outstanding requests. */
size_t rxpeer_req_outstanding(struct rxpeer_req *r);

#endif /* RXPEER_REQ_H */
