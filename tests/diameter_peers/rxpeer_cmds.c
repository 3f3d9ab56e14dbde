/* rxpeer_cmds.c - control commands common to both peers (see rxpeer_app.h). */
#include "rxpeer_app.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>

static void rxpeer_app_cmd_status(struct rxpeer_app *a, struct rxpeer_json *r)
{
	struct rusage ru;
	rxpeer_json_bool(r, "ok", 1);
	rxpeer_json_str(r, "name", a->name);
	rxpeer_json_str(r, "identity", a->opts.fd.identity);
	rxpeer_json_str(r, "realm", a->opts.fd.realm);
	rxpeer_fd_peers_json(r, "peers");
	rxpeer_json_bool(r, "record", atomic_load(&a->record));
	rxpeer_json_u64(r, "sessions", rxpeer_sess_count(&a->sess));
	rxpeer_json_u64(r, "outstanding", rxpeer_req_outstanding(&a->req));
	rxpeer_json_obj_begin(r, "counters");
	rxpeer_json_u64(r, "recv_requests", atomic_load(&a->n_recv_req));
	rxpeer_json_u64(r, "recv_answers", atomic_load(&a->n_recv_ans));
	rxpeer_json_u64(r, "sent_answers", atomic_load(&a->n_sent_ans));
	rxpeer_json_u64(r, "no_answer", atomic_load(&a->n_no_answer));
	rxpeer_json_u64(r, "fd_events", atomic_load(&a->n_fd_events));
	rxpeer_json_obj_end(r);
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		rxpeer_json_obj_begin(r, "cpu");
		rxpeer_json_dbl(r, "user_s", (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6, 3);
		rxpeer_json_dbl(r, "sys_s", (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, 3);
		rxpeer_json_obj_end(r);
	}
	rxpeer_behav_json(&a->behav, r, "answer");
}

void rxpeer_app_cmd_answer(struct rxpeer_app *a, const struct rxpeer_args *args, struct rxpeer_json *reply)
{
	static const char *const allowed[] = { "cmd", "ok", "rc", "exp", "vendor", "drop", "delay", "count", "reset", NULL };
	struct rxpeer_behav_rule rule;
	char err[256];
	const char *cmd = rxpeer_args_get(args, "cmd");
	int n_modes = 0;

	if (rxpeer_args_check(args, allowed, err, sizeof err) != 0)
		{ rxpeer_ctl_error(reply, "%s", err); return; }
	if (rxpeer_args_get(args, "reset")) {
		rxpeer_behav_reset(&a->behav);
		rxpeer_json_bool(reply, "ok", 1);
		rxpeer_behav_json(&a->behav, reply, "answer");
		return;
	}
	if (cmd == NULL || *cmd == '\0')
		{ rxpeer_ctl_error(reply, "cmd=<kind|all> is required"); return; }
	/* "all", an exact kind ("aar-i"), or a family prefix ("aar" = "aar-i" and "aar-u") */
	size_t cl = strlen(cmd);
	int matched = 0;
	for (int k = 0; k < a->behav.n_kinds; k++) {
		const char *kn = a->behav.names[k];
		if (!strcmp(cmd, "all") || !strcmp(cmd, kn) || (!strncmp(cmd, kn, cl) && kn[cl] == '-'))
			matched |= 1 << k;
	}
	if (matched == 0)
		{ rxpeer_ctl_error(reply, "unknown kind '%s'", cmd); return; }

	memset(&rule, 0, sizeof rule);
	rule.vendor = BSF_RX_VENDOR_3GPP;
	if (rxpeer_args_get(args, "rc")) {
		n_modes++;
		rule.mode = RXPEER_BEHAV_RC;
		if (rxpeer_args_u32(args, "rc", 0, &rule.code, err, sizeof err) != 0)
			{ rxpeer_ctl_error(reply, "%s", err); return; }
	}
	if (rxpeer_args_get(args, "exp")) {
		n_modes++;
		rule.mode = RXPEER_BEHAV_EXP;
		if (rxpeer_args_u32(args, "exp", 0, &rule.code, err, sizeof err) != 0 ||
		    rxpeer_args_u32(args, "vendor", BSF_RX_VENDOR_3GPP, &rule.vendor, err, sizeof err) != 0)
			{ rxpeer_ctl_error(reply, "%s", err); return; }
	}
	if (rxpeer_args_get(args, "drop")) {
		n_modes++;
		rule.mode = RXPEER_BEHAV_DROP;
	}
	if (rxpeer_args_get(args, "ok"))
		n_modes++;
	if (n_modes > 1)
		{ rxpeer_ctl_error(reply, "give only one of ok, rc=, exp=, drop"); return; }
	if (rxpeer_args_u32(args, "delay", 0, &rule.delay_ms, err, sizeof err) != 0 ||
	    rxpeer_args_u32(args, "count", 0, &rule.count, err, sizeof err) != 0)
		{ rxpeer_ctl_error(reply, "%s", err); return; }
	if ((rule.mode == RXPEER_BEHAV_RC || rule.mode == RXPEER_BEHAV_EXP) && rule.code == 0)
		{ rxpeer_ctl_error(reply, "result code 0 is not valid"); return; }

	for (int k = 0; k < a->behav.n_kinds; k++)
		if (matched & (1 << k))
			rxpeer_behav_set(&a->behav, k, &rule);
	rxpeer_json_bool(reply, "ok", 1);
	rxpeer_behav_json(&a->behav, reply, "answer");
}

static void rxpeer_app_cmd_wait_peer(struct rxpeer_app *a, const struct rxpeer_args *args, struct rxpeer_json *reply)
{
	char err[256];
	uint32_t ms;
	const char *id = rxpeer_args_get(args, "id");
	if (id == NULL)
		id = a->opts.fd.n_connect ? a->opts.connect[0].id : (a->opts.n_routes ? a->opts.routes[0] : NULL);
	if (id == NULL || *id == '\0')
		{ rxpeer_ctl_error(reply, "id=<peer identity> is required"); return; }
	if (rxpeer_args_u32(args, "timeout", 10000, &ms, err, sizeof err) != 0)
		{ rxpeer_ctl_error(reply, "%s", err); return; }
	int ret = rxpeer_fd_wait_open(id, ms);
	rxpeer_json_bool(reply, "ok", ret == 0);
	rxpeer_json_str(reply, "peer_id", id);
	rxpeer_json_str(reply, "state", rxpeer_fd_peer_state(id));
	if (ret != 0)
		rxpeer_json_str(reply, "error", ret == ETIMEDOUT ? "timeout waiting for the peer" :
		    "the freeDiameter core stopped");
}

static void rxpeer_app_cmd_sessions(struct rxpeer_app *a, const struct rxpeer_args *args, struct rxpeer_json *reply)
{
	char err[256];
	uint32_t max;
	if (rxpeer_args_u32(args, "max", 100, &max, err, sizeof err) != 0)
		{ rxpeer_ctl_error(reply, "%s", err); return; }
	if (rxpeer_args_get(args, "clear"))
		rxpeer_sess_clear(&a->sess);
	rxpeer_json_bool(reply, "ok", 1);
	rxpeer_json_u64(reply, "count", rxpeer_sess_count(&a->sess));
	rxpeer_sess_json(&a->sess, reply, "sessions", max);
}

int rxpeer_app_common_cmd(struct rxpeer_app *a, const struct rxpeer_args *args, struct rxpeer_json *reply)
{
	const char *verb = rxpeer_args_verb(args);

	if (!strcmp(verb, "status")) {
		rxpeer_app_cmd_status(a, reply);
	} else if (!strcmp(verb, "record")) {
		const char *v = args->argc > 1 ? args->argv[1] : "";
		if (strcmp(v, "on") && strcmp(v, "off"))
			rxpeer_ctl_error(reply, "usage: record on|off");
		else {
			atomic_store(&a->record, strcmp(v, "on") == 0);
			rxpeer_json_bool(reply, "ok", 1);
			rxpeer_json_bool(reply, "record", atomic_load(&a->record));
		}
	} else if (!strcmp(verb, "answer")) {
		rxpeer_app_cmd_answer(a, args, reply);
	} else if (!strcmp(verb, "wait-peer")) {
		rxpeer_app_cmd_wait_peer(a, args, reply);
	} else if (!strcmp(verb, "sessions")) {
		rxpeer_app_cmd_sessions(a, args, reply);
	} else if (!strcmp(verb, "quit")) {
		atomic_store(&a->quit, 1);
		rxpeer_json_bool(reply, "ok", 1);
	} else {
		return 0;
	}
	return 1;
}
