/* rxpeer_answer.c - answering incoming requests following the behaviour table (see rxpeer_app.h). */
#include "rxpeer_app.h"

#include <string.h>

#include "rxpeer_build.h"
#include "rxpeer_msg.h"

int rxpeer_app_set_result(struct rxpeer_app *a, struct msg *ans, const struct rxpeer_behav_rule *rule,
    uint32_t default_rc)
{
	int ret = fd_msg_add_origin(ans, 0);
	if (ret != 0)
		return ret;
	if (rule->mode == RXPEER_BEHAV_EXP)
		return rxpeer_add_exp_result(ans, &a->rx, rule->vendor, rule->code);
	return rxpeer_add_u32(ans, a->rx.result_code, rule->mode == RXPEER_BEHAV_RC ? rule->code : default_rc);
}

static void rxpeer_app_record_sent(struct rxpeer_app *a, struct msg *ans_or_req, const char *kind,
    const struct rxpeer_behav_rule *rule, uint32_t rc, int dropped)
{
	if (!atomic_load(&a->record))
		return;
	struct rxpeer_json j;
	struct msg_hdr *h = NULL;
	char sid[256];

	rxpeer_json_init(&j);
	rxpeer_app_record_begin(&j, "sent_answer");
	if (fd_msg_hdr(ans_or_req, &h) == 0)
		rxpeer_json_str(&j, "cmd", bsf_rx_dict_cmd_name(h->msg_code, 0));
	if (kind)
		rxpeer_json_str(&j, "kind", kind);
	if (rxpeer_msg_session_id(ans_or_req, sid, sizeof sid) == 0)
		rxpeer_json_str(&j, "session_id", sid);
	if (dropped) {
		rxpeer_json_bool(&j, "dropped", 1);
	} else if (rule->mode == RXPEER_BEHAV_EXP) {
		rxpeer_json_obj_begin(&j, "experimental_result");
		rxpeer_json_u64(&j, "vendor_id", rule->vendor);
		rxpeer_json_u64(&j, "code", rule->code);
		rxpeer_json_obj_end(&j);
	} else {
		rxpeer_json_u64(&j, "result_code", rc);
	}
	rxpeer_json_u64(&j, "delay_ms", rule->delay_ms);
	rxpeer_json_obj_end(&j);
	rxpeer_app_emit(a, &j);
	rxpeer_json_free(&j);
}

int rxpeer_app_answer(struct rxpeer_app *a, struct msg **req, const struct rxpeer_behav_rule *rule,
    uint32_t default_rc, int (*fill)(struct rxpeer_app *a, struct msg *ans, void *arg), void *arg,
    const char *kind)
{
	uint32_t rc = rule->mode == RXPEER_BEHAV_RC ? rule->code : default_rc;
	int is_error = rule->mode != RXPEER_BEHAV_EXP && rc >= 3000 && rc < 4000; /* protocol error: E bit */
	int ret;

	if (rule->mode == RXPEER_BEHAV_DROP) {
		rxpeer_app_record_sent(a, *req, kind, rule, 0, 1);
		fd_msg_free(*req);
		*req = NULL;
		return 0;
	}
	if ((ret = fd_msg_new_answer_from_req(a->rx.dict, req, is_error ? MSGFL_ANSW_ERROR : 0)) != 0)
		return ret;
	struct msg *ans = *req; /* now the answer (the request hangs off it) */
	struct msg_hdr *ah = NULL, *qh = NULL;
	struct msg *q = NULL;
	/* RFC 6733 6.2: the answer's P bit is the request's (libfdcore clears it on E-bit answers). */
	if (fd_msg_hdr(ans, &ah) == 0 && fd_msg_answ_getq(ans, &q) == 0 && q && fd_msg_hdr(q, &qh) == 0)
		ah->msg_flags = (uint8_t)((ah->msg_flags & ~CMD_FLAG_PROXIABLE) | (qh->msg_flags & CMD_FLAG_PROXIABLE));
	if ((ret = rxpeer_app_set_result(a, ans, rule, default_rc)) != 0 ||
	    (!is_error && fill && (ret = fill(a, ans, arg)) != 0)) {
		fd_msg_free(ans);
		*req = NULL;
		return ret;
	}
	rxpeer_app_record_sent(a, ans, kind, rule, rc, 0);
	*req = NULL;
	atomic_fetch_add(&a->n_sent_ans, 1);
	if (rule->delay_ms)
		ret = rxpeer_delay_send(&a->delay, &ans, rule->delay_ms);
	else
		ret = fd_msg_send(&ans, NULL, NULL);
	if (ret != 0 && ans)
		fd_msg_free(ans);
	return ret;
}
