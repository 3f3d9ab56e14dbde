/* rxpeer_send.c - sending requests from control commands and reporting the outcome (see rxpeer_app.h). */
#include "rxpeer_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rxpeer_msg.h"
#include "rxpeer_msgjson.h"

struct rxpeer_exchange {
	struct rxpeer_app *app;
	char label[32];
	char cmd[8];
	char sid[256];
	uint32_t e2e;
	int wait;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	enum rxpeer_req_status status;
	uint64_t latency_ns;
	int has_code;
	uint32_t code;
	char *record; /* JSON of the outcome (owned) */
};

static void rxpeer_exchange_free(struct rxpeer_exchange *x)
{
	pthread_mutex_destroy(&x->mu);
	pthread_cond_destroy(&x->cv);
	free(x->record);
	free(x);
}

static void rxpeer_app_exchange_done(void *arg, enum rxpeer_req_status st, struct msg *ans, uint64_t latency_ns)
{
	struct rxpeer_exchange *x = arg;
	struct rxpeer_app *a = x->app;
	struct rxpeer_result res;
	struct rxpeer_json j;

	memset(&res, 0, sizeof res);
	rxpeer_json_init(&j);
	if (st == RXPEER_REQ_ANSWER) {
		atomic_fetch_add(&a->n_recv_ans, 1);
		rxpeer_app_record_begin(&j, "recv");
	} else {
		atomic_fetch_add(&a->n_no_answer, 1);
		rxpeer_app_record_begin(&j, "no_answer");
	}
	rxpeer_json_str(&j, "label", x->label);
	rxpeer_json_str(&j, "status", rxpeer_req_status_name(st));
	rxpeer_json_dbl(&j, "latency_ms", (double)latency_ns / 1e6, 3);
	if (st == RXPEER_REQ_ANSWER && ans) {
		rxpeer_msgjson_fields(&j, ans);
	} else {
		rxpeer_json_str(&j, "cmd", x->cmd);
		rxpeer_json_str(&j, "session_id", x->sid);
		rxpeer_json_u64(&j, "e2e", x->e2e);
		if (ans) { /* the answer libfdcore discarded */
			rxpeer_json_obj_begin(&j, "discarded_answer");
			rxpeer_msgjson_fields(&j, ans);
			rxpeer_json_obj_end(&j);
		}
	}
	rxpeer_json_obj_end(&j);
	if (atomic_load(&a->record) || st != RXPEER_REQ_ANSWER)
		rxpeer_app_emit(a, &j);

	int has_code = ans && rxpeer_msg_result(ans, &res) == 0;
	if (!x->wait) {
		rxpeer_json_free(&j);
		rxpeer_exchange_free(x);
		return;
	}
	pthread_mutex_lock(&x->mu);
	x->status = st;
	x->latency_ns = latency_ns;
	x->has_code = has_code && st == RXPEER_REQ_ANSWER;
	x->code = x->has_code ? rxpeer_result_code(&res) : 0;
	x->record = rxpeer_json_failed(&j) ? NULL : strdup(j.buf);
	x->done = 1;
	pthread_cond_signal(&x->cv);
	pthread_mutex_unlock(&x->mu);
	rxpeer_json_free(&j);
}

uint32_t rxpeer_app_send(struct rxpeer_app *a, struct msg **req, const char *label, uint32_t timeout_ms,
    int wait, struct rxpeer_json *reply)
{
	uint32_t code = 0;
	struct rxpeer_exchange *x = calloc(1, sizeof(*x));
	struct msg_hdr *h = NULL;
	int ret;

	if (x == NULL) {
		fd_msg_free(*req);
		*req = NULL;
		rxpeer_ctl_error(reply, "out of memory");
		return 0;
	}
	x->app = a;
	x->wait = wait;
	snprintf(x->label, sizeof x->label, "%s", label);
	if (fd_msg_hdr(*req, &h) == 0) {
		snprintf(x->cmd, sizeof x->cmd, "%s", bsf_rx_dict_cmd_name(h->msg_code, 1));
		x->e2e = h->msg_eteid;
	}
	rxpeer_msg_session_id(*req, x->sid, sizeof x->sid);
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->cv, NULL);

	/* Copy what the reply needs now: after a successful send x belongs to the completion path
	 * when wait == 0. */
	char sid[256];
	uint32_t e2e = x->e2e;
	memcpy(sid, x->sid, sizeof sid);

	ret = rxpeer_req_send(&a->req, req, timeout_ms, rxpeer_app_exchange_done, x);
	if (ret != 0) {
		if (*req) {
			fd_msg_free(*req);
			*req = NULL;
		}
		rxpeer_exchange_free(x);
		rxpeer_ctl_error(reply, "sending failed: %s", strerror(ret));
		return 0;
	}
	rxpeer_json_bool(reply, "ok", 1);
	rxpeer_json_str(reply, "session_id", sid);
	rxpeer_json_u64(reply, "e2e", e2e);
	if (!wait) {
		rxpeer_json_str(reply, "status", "sent");
		return 0;
	}
	pthread_mutex_lock(&x->mu);
	while (!x->done)
		pthread_cond_wait(&x->cv, &x->mu);
	pthread_mutex_unlock(&x->mu);
	rxpeer_json_str(reply, "status", rxpeer_req_status_name(x->status));
	rxpeer_json_dbl(reply, "latency_ms", (double)x->latency_ns / 1e6, 3);
	if (x->has_code) {
		code = x->code;
		rxpeer_json_u64(reply, "code", x->code);
	}
	if (x->record)
		rxpeer_json_raw(reply, "record", x->record, strlen(x->record));
	rxpeer_exchange_free(x);
	return code;
}
