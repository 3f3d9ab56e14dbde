/*
 * pcf_peer - a fake PCF for Rx (TS 29.214) tests: answers AAR and STR, sends RAR and ASR on
 * command.  See README.md for the command line, the control protocol and the JSON records.
 *
 * Default answers (changeable per request kind with `answer`):
 *   AAR for a new Session-Id      = AAR-I: 2001 and the session is remembered
 *   AAR for a known Session-Id    = AAR-U: 2001
 *   STR for a known Session-Id    : 2001 and the session is forgotten
 * With validation on (default), like a real PCF:
 *   AAR-I without Framed-IP-Address / Framed-IPv6-Prefix  -> Experimental-Result 5065
 *                                                            IP-CAN_SESSION_NOT_AVAILABLE
 *   Framed-IP-Address not 4 octets                        -> 5014 DIAMETER_INVALID_AVP_LENGTH + Failed-AVP
 *   Framed-IPv6-Prefix malformed                          -> 5004 DIAMETER_INVALID_AVP_VALUE + Failed-AVP
 *   Auth-Application-Id AVP not 16777236                  -> 5004 + Failed-AVP
 *   STR for an unknown Session-Id                         -> 5002 DIAMETER_UNKNOWN_SESSION_ID
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/diameter/rx_dict.h"
#include "rxpeer_app.h"
#include "rxpeer_build.h"
#include "rxpeer_msg.h"

enum pcf_kind { PCF_AAR_I = 0, PCF_AAR_U, PCF_STR, PCF_N_KINDS };
static const char *const pcf_kind_names[PCF_N_KINDS] = { "aar-i", "aar-u", "str" };

struct pcf {
	struct rxpeer_app app;
	atomic_int validate; /* real-PCF checks, see top of file */
	atomic_int track;    /* keep the session table (AAR-I/U classification, STR 5002, RAR/ASR defaults) */
};

/* ---------------------------------------------------------------------------------------- */
/* Incoming requests                                                                        */
/* ---------------------------------------------------------------------------------------- */

/* What the answer must carry beyond Result-Code: Auth-Application-Id, maybe a Failed-AVP. */
struct pcf_fill {
	int auth_app;             /* add Auth-Application-Id (AAA) */
	struct avp *failed_src;   /* AVP of the request to copy into Failed-AVP, or NULL */
};

static int pcf_fill_answer(struct rxpeer_app *a, struct msg *ans, void *arg)
{
	struct pcf_fill *f = arg;
	int ret;

	if (f->auth_app && (ret = rxpeer_add_u32(ans, a->rx.auth_application_id, BSF_RX_APP_ID)) != 0)
		return ret;
	if (f->failed_src) {
		struct avp_hdr *h = NULL;
		struct avp *g = NULL;
		struct dict_object *model = NULL;
		if ((ret = fd_msg_avp_hdr(f->failed_src, &h)) != 0 || (ret = fd_msg_model(f->failed_src, &model)) != 0)
			return ret;
		if (model == NULL || h->avp_value == NULL)
			return 0; /* unknown AVP: nothing sensible to copy */
		if ((ret = rxpeer_add_grouped(ans, a->rx.failed_avp, &g)) != 0)
			return ret;
		return rxpeer_add_os(g, model, h->avp_value->os.data, h->avp_value->os.len);
	}
	return 0;
}

/* Text form of the UE address of an AAR, for the session table. */
static void pcf_ue_text(struct msg *req, char *buf, size_t size)
{
	const uint8_t *d;
	size_t n;
	buf[0] = '\0';
	if (rxpeer_avp_os(rxpeer_msg_find(req, 8, 0), &d, &n) == 0 && n == 4)
		snprintf(buf, size, "%u.%u.%u.%u", d[0], d[1], d[2], d[3]);
	else if (rxpeer_avp_os(rxpeer_msg_find(req, 97, 0), &d, &n) == 0)
		rxpeer_ipv6_prefix_format(d, n, buf, size);
}

/* Real-PCF checks of an AAR. Returns the rule to use (mode DEFAULT when all is fine). */
static struct rxpeer_behav_rule pcf_validate_aar(struct msg *req, int initial, struct pcf_fill *fill)
{
	struct rxpeer_behav_rule r;
	const uint8_t *d;
	size_t n;
	uint32_t app;
	struct avp *ip4 = rxpeer_msg_find(req, 8, 0);
	struct avp *ip6 = rxpeer_msg_find(req, 97, 0);
	struct avp *aai = rxpeer_msg_find(req, AC_AUTH_APPLICATION_ID, 0);
	char tmp[64];

	memset(&r, 0, sizeof r);
	if (rxpeer_avp_u32(aai, &app) == 0 && app != BSF_RX_APP_ID) {
		r.mode = RXPEER_BEHAV_RC;
		r.code = 5004; /* DIAMETER_INVALID_AVP_VALUE */
		fill->failed_src = aai;
	} else if (ip4 && rxpeer_avp_os(ip4, &d, &n) == 0 && n != 4) {
		r.mode = RXPEER_BEHAV_RC;
		r.code = 5014; /* DIAMETER_INVALID_AVP_LENGTH */
		fill->failed_src = ip4;
	} else if (ip6 && rxpeer_avp_os(ip6, &d, &n) == 0 && rxpeer_ipv6_prefix_format(d, n, tmp, sizeof tmp) != 0) {
		r.mode = RXPEER_BEHAV_RC;
		r.code = 5004;
		fill->failed_src = ip6;
	} else if (initial && ip4 == NULL && ip6 == NULL) {
		r.mode = RXPEER_BEHAV_EXP;
		r.vendor = BSF_RX_VENDOR_3GPP;
		r.code = BSF_RX_EXP_IP_CAN_SESSION_NOT_AVAILABLE;
	}
	return r;
}

static void pcf_copy_os(struct msg *m, uint32_t code, char *buf, size_t size)
{
	const uint8_t *d;
	size_t n;
	buf[0] = '\0';
	if (rxpeer_avp_os(rxpeer_msg_find(m, code, 0), &d, &n) == 0) {
		if (n >= size)
			n = size - 1;
		memcpy(buf, d, n);
		buf[n] = '\0';
	}
}

static int pcf_on_aar(struct msg **msg, struct avp *avp, struct session *sess, void *opaque, enum disp_action *act)
{
	struct pcf *p = opaque;
	struct rxpeer_app *a = &p->app;
	struct pcf_fill fill = { .auth_app = 1, .failed_src = NULL };
	char sid[256], host[256], realm[256], ue[64];
	int initial;
	(void)avp;
	(void)sess;

	*act = DISP_ACT_CONT;
	rxpeer_msg_session_id(*msg, sid, sizeof sid);
	if (atomic_load(&p->track)) {
		struct rxpeer_sess_view v;
		initial = rxpeer_sess_get(&a->sess, sid, &v) != 0;
	} else {
		uint32_t rt = 0;
		initial = !(rxpeer_avp_u32(rxpeer_msg_find(*msg, 533, BSF_RX_VENDOR_3GPP), &rt) == 0 && rt == 1);
	}
	int kind = initial ? PCF_AAR_I : PCF_AAR_U;
	rxpeer_app_record_request(a, *msg, pcf_kind_names[kind]);

	struct rxpeer_behav_rule rule = rxpeer_behav_take(&a->behav, kind);
	if (rule.mode == RXPEER_BEHAV_DEFAULT && atomic_load(&p->validate)) {
		uint32_t delay = rule.delay_ms;
		rule = pcf_validate_aar(*msg, initial, &fill);
		rule.delay_ms = delay;
	}
	int success = rule.mode == RXPEER_BEHAV_DEFAULT || (rule.mode == RXPEER_BEHAV_RC && rule.code == 2001);
	if (success && atomic_load(&p->track)) {
		pcf_copy_os(*msg, AC_ORIGIN_HOST, host, sizeof host);
		pcf_copy_os(*msg, AC_ORIGIN_REALM, realm, sizeof realm);
		pcf_ue_text(*msg, ue, sizeof ue);
		int ret = rxpeer_sess_put(&a->sess, sid, host, realm, ue[0] ? ue : NULL, NULL);
		if (ret != 0)
			fprintf(stderr, "pcf_peer: session table: %s\n", strerror(ret));
	}
	int ret = rxpeer_app_answer(a, msg, &rule, 2001, pcf_fill_answer, &fill, pcf_kind_names[kind]);
	if (ret != 0)
		fprintf(stderr, "pcf_peer: answering AAR failed: %s\n", strerror(ret));
	return 0;
}

static int pcf_on_str(struct msg **msg, struct avp *avp, struct session *sess, void *opaque, enum disp_action *act)
{
	struct pcf *p = opaque;
	struct rxpeer_app *a = &p->app;
	char sid[256];
	(void)avp;
	(void)sess;

	*act = DISP_ACT_CONT;
	rxpeer_msg_session_id(*msg, sid, sizeof sid);
	rxpeer_app_record_request(a, *msg, "str");

	struct rxpeer_behav_rule rule = rxpeer_behav_take(&a->behav, PCF_STR);
	if (atomic_load(&p->track)) {
		int known = rxpeer_sess_del(&a->sess, sid) == 0;
		if (!known && rule.mode == RXPEER_BEHAV_DEFAULT && atomic_load(&p->validate)) {
			rule.mode = RXPEER_BEHAV_RC;
			rule.code = 5002; /* DIAMETER_UNKNOWN_SESSION_ID */
		}
	}
	int ret = rxpeer_app_answer(a, msg, &rule, 2001, NULL, NULL, "str");
	if (ret != 0)
		fprintf(stderr, "pcf_peer: answering STR failed: %s\n", strerror(ret));
	return 0;
}

static int pcf_setup(struct rxpeer_app *a)
{
	struct pcf *p = a->user;
	struct disp_when when;
	int ret;

	memset(&when, 0, sizeof when);
	when.app = a->rx.app;
	when.command = a->rx.cmd_aar;
	if ((ret = fd_disp_register(pcf_on_aar, DISP_HOW_CC, &when, p, NULL)) != 0)
		return ret;
	when.command = a->rx.cmd_str;
	return fd_disp_register(pcf_on_str, DISP_HOW_CC, &when, p, NULL);
}

/* ---------------------------------------------------------------------------------------- */
/* Control commands                                                                         */
/* ---------------------------------------------------------------------------------------- */

/* Resolve destination of a PCF-initiated request: explicit values, else the session's AF. */
static int pcf_destination(struct pcf *p, const struct rxpeer_args *args, const char *sid,
    char *host, size_t hsize, char *realm, size_t rsize, struct rxpeer_json *reply)
{
	struct rxpeer_sess_view v;
	const char *h = rxpeer_args_get(args, "dest-host");
	const char *r = rxpeer_args_get(args, "dest-realm");
	int known = rxpeer_sess_get(&p->app.sess, sid, &v) == 0;

	snprintf(host, hsize, "%s", h ? h : (known ? v.host : ""));
	snprintf(realm, rsize, "%s", r ? r : (known ? v.realm : ""));
	if (host[0] == '\0' || realm[0] == '\0') {
		rxpeer_ctl_error(reply, "unknown session: give dest-host= and dest-realm=");
		return EINVAL;
	}
	return 0;
}

/* rar session=SID [dest-host=] [dest-realm=] [action=4,..] [abort-cause=N] [reauth-type=N] [timeout=] [wait=] */
static void pcf_cmd_rar_asr(struct pcf *p, const struct rxpeer_args *args, struct rxpeer_json *reply, int is_rar)
{
	static const char *const allowed[] = { "session", "dest-host", "dest-realm", "action", "abort-cause",
		"reauth-type", "timeout", "wait", NULL };
	struct rxpeer_app *a = &p->app;
	const char *sid = rxpeer_args_get(args, "session");
	char err[256], host[256], realm[256];
	uint32_t actions[16], timeout, v;
	size_t n_actions = 0;
	int wait, ret;
	struct msg *m = NULL;

	if (rxpeer_args_check(args, allowed, err, sizeof err) != 0) {
		rxpeer_ctl_error(reply, "%s", err);
		return;
	}
	if (sid == NULL || *sid == '\0') {
		rxpeer_ctl_error(reply, "session=<Session-Id> is required");
		return;
	}
	if (rxpeer_args_u32(args, "timeout", a->opts.timeout_ms, &timeout, err, sizeof err) != 0 ||
	    rxpeer_args_bool(args, "wait", 1, &wait, err, sizeof err) != 0 ||
	    rxpeer_args_u32_list(args, "action", actions, 16, &n_actions, err, sizeof err) != 0) {
		rxpeer_ctl_error(reply, "%s", err);
		return;
	}
	if (timeout == 0) {
		rxpeer_ctl_error(reply, "timeout must be > 0");
		return;
	}
	if (pcf_destination(p, args, sid, host, sizeof host, realm, sizeof realm, reply) != 0)
		return;
	if (is_rar && n_actions == 0 && rxpeer_args_get(args, "action") == NULL)
		actions[n_actions++] = 4; /* INDICATION_OF_RELEASE_OF_BEARER */

	ret = bsf_rx_dict_new_request(&a->rx, is_rar ? a->rx.cmd_rar : a->rx.cmd_asr, &m);
	if (ret == 0) ret = rxpeer_add_session_id(m, &a->rx, sid);
	if (ret == 0) ret = fd_msg_add_origin(m, 0);
	if (ret == 0) ret = rxpeer_add_destination(m, &a->rx, host, realm);
	if (ret == 0) ret = rxpeer_add_u32(m, a->rx.auth_application_id, BSF_RX_APP_ID);
	for (size_t i = 0; ret == 0 && is_rar && i < n_actions; i++)
		ret = rxpeer_add_i32(m, a->rx.specific_action, (int32_t)actions[i]);
	if (ret == 0 && (rxpeer_args_get(args, "abort-cause") || !is_rar)) {
		if (rxpeer_args_u32(args, "abort-cause", 0 /* BEARER_RELEASED */, &v, err, sizeof err) != 0) {
			fd_msg_free(m);
			rxpeer_ctl_error(reply, "%s", err);
			return;
		}
		ret = rxpeer_add_i32(m, a->rx.abort_cause, (int32_t)v);
	}
	if (ret == 0 && is_rar && rxpeer_args_get(args, "reauth-type")) {
		if (rxpeer_args_u32(args, "reauth-type", 0, &v, err, sizeof err) != 0) {
			fd_msg_free(m);
			rxpeer_ctl_error(reply, "%s", err);
			return;
		}
		ret = rxpeer_add_i32(m, a->rx.re_auth_request_type, (int32_t)v);
	}
	if (ret != 0) {
		if (m)
			fd_msg_free(m);
		rxpeer_ctl_error(reply, "building the request failed: %s", strerror(ret));
		return;
	}
	rxpeer_app_send(a, &m, is_rar ? "rar" : "asr", timeout, wait, reply);
}

/* set [validate=0|1] [sessions=0|1] */
static void pcf_cmd_set(struct pcf *p, const struct rxpeer_args *args, struct rxpeer_json *reply)
{
	static const char *const allowed[] = { "validate", "sessions", NULL };
	char err[256];
	int v;

	if (rxpeer_args_check(args, allowed, err, sizeof err) != 0) {
		rxpeer_ctl_error(reply, "%s", err);
		return;
	}
	if (rxpeer_args_bool(args, "validate", atomic_load(&p->validate), &v, err, sizeof err) != 0) {
		rxpeer_ctl_error(reply, "%s", err);
		return;
	}
	atomic_store(&p->validate, v);
	if (rxpeer_args_bool(args, "sessions", atomic_load(&p->track), &v, err, sizeof err) != 0) {
		rxpeer_ctl_error(reply, "%s", err);
		return;
	}
	atomic_store(&p->track, v);
	rxpeer_json_bool(reply, "ok", 1);
	rxpeer_json_bool(reply, "validate", atomic_load(&p->validate));
	rxpeer_json_bool(reply, "sessions", atomic_load(&p->track));
}

static void pcf_command(void *ctx, const struct rxpeer_args *args, struct rxpeer_json *reply)
{
	struct pcf *p = ctx;
	const char *verb = rxpeer_args_verb(args);

	if (!strcmp(verb, "rar"))
		pcf_cmd_rar_asr(p, args, reply, 1);
	else if (!strcmp(verb, "asr"))
		pcf_cmd_rar_asr(p, args, reply, 0);
	else if (!strcmp(verb, "set"))
		pcf_cmd_set(p, args, reply);
	else if (!rxpeer_app_common_cmd(&p->app, args, reply))
		rxpeer_ctl_error(reply, "unknown command '%s' (try: status, answer, rar, asr, set, sessions, "
		    "record, wait-peer, quit)", verb);
}

/* ---------------------------------------------------------------------------------------- */

enum { OPT_NO_VALIDATE = 2000, OPT_NO_SESSIONS };

static const struct option pcf_options[] = {
	{ "no-validate", no_argument, NULL, OPT_NO_VALIDATE },
	{ "no-sessions", no_argument, NULL, OPT_NO_SESSIONS },
	{ NULL, 0, NULL, 0 },
};

static int pcf_option(void *user, int opt, const char *arg)
{
	struct pcf *p = user;
	(void)arg;
	switch (opt) {
	case OPT_NO_VALIDATE: atomic_store(&p->validate, 0); return 0;
	case OPT_NO_SESSIONS: atomic_store(&p->track, 0); return 0;
	default: return EINVAL;
	}
}

int main(int argc, char **argv)
{
	static struct pcf p; /* large; and libfdcore callbacks may outlive main's frame at exit */
	struct rxpeer_app_extra_opts extra = {
		.options = pcf_options,
		.handle = pcf_option,
		.user = &p,
		.usage = "pcf_peer options:\n"
			 "  --no-validate          answer 2001 without the real-PCF checks (command: set validate=0)\n"
			 "  --no-sessions          do not keep a session table (command: set sessions=0)\n",
	};

	atomic_store(&p.validate, 1);
	atomic_store(&p.track, 1);
	/* rxpeer_app_parse() clears p.app only; the options above write p.validate / p.track. */
	rxpeer_app_parse(&p.app, "pcf_peer", 3868, argc, argv, &extra);
	p.app.user = &p;
	rxpeer_app_start(&p.app, pcf_kind_names, PCF_N_KINDS, pcf_setup);
	return rxpeer_app_run(&p.app, pcf_command);
}
