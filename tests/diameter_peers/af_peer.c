/*
 * af_peer - a fake AF (P-CSCF) for Rx (TS 29.214) tests: sends AAR (initial / update) and STR
 * to its peer (the BSF, or a PCF directly), answers RAR and ASR, sends malformed requests on
 * purpose, and has a load mode for benchmarks.  See README.md.
 *
 * Default answers to incoming requests (changeable with `answer cmd=rar|asr ...`):
 *   RAR / ASR for a session this AF opened: 2001;  for an unknown Session-Id: 5002.
 *   With `set auto-str=1`, an ASR is followed by an STR for that session (TS 29.214 4.4.4).
 */
#include "af_peer.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "af_build.h"
#include "af_load.h"
#include "rxpeer_msg.h"

enum af_kind { AF_RAR = 0, AF_ASR, AF_N_KINDS };
static const char *const af_kind_names[AF_N_KINDS] = { "rar", "asr" };

void af_sid_make(struct af *af, char *buf, size_t size)
{
	uint64_t n = atomic_fetch_add(&af->sid_counter, 1) + 1;
	snprintf(buf, size, "%s;%u;%llu", af->app.opts.fd.identity, af->boot, (unsigned long long)n);
}

/* ---------------------------------------------------------------------------------------- */
/* Incoming RAR / ASR                                                                       */
/* ---------------------------------------------------------------------------------------- */

/* Send an STR for sid without waiting (after an ASR). */
static void af_auto_str(struct af *af, const char *sid)
{
	struct rxpeer_sess_view v;
	struct rxpeer_json scratch;
	struct msg *m = NULL;
	const char *realm = af->dest_realm, *host = af->dest_host;

	if (rxpeer_sess_get(&af->app.sess, sid, &v) == 0) {
		realm = v.realm[0] ? v.realm : realm;
		host = v.host[0] ? v.host : host;
	}
	int ret = af_build_str(&af->app.rx, sid, realm, host, 4 /* DIAMETER_ADMINISTRATIVE */, &m);
	if (ret != 0) {
		fprintf(stderr, "af_peer: building the STR after ASR failed: %s\n", strerror(ret));
		return;
	}
	rxpeer_sess_del(&af->app.sess, sid);
	rxpeer_json_init(&scratch);
	rxpeer_json_obj_begin(&scratch, NULL);
	rxpeer_app_send(&af->app, &m, "str-after-asr", af->app.opts.timeout_ms, 0, &scratch);
	rxpeer_json_obj_end(&scratch);
	rxpeer_json_free(&scratch);
}

static int af_on_request(struct msg **msg, int kind, struct af *af)
{
	struct rxpeer_app *a = &af->app;
	char sid[256];

	rxpeer_msg_session_id(*msg, sid, sizeof sid);
	rxpeer_app_record_request(a, *msg, af_kind_names[kind]);
	struct rxpeer_sess_view v;
	int known = rxpeer_sess_get(&a->sess, sid, &v) == 0;
	struct rxpeer_behav_rule rule = rxpeer_behav_take(&a->behav, kind);
	int ret = rxpeer_app_answer(a, msg, &rule, known ? 2001 : 5002 /* DIAMETER_UNKNOWN_SESSION_ID */,
	    NULL, NULL, af_kind_names[kind]);
	if (ret != 0)
		fprintf(stderr, "af_peer: answering %s failed: %s\n", af_kind_names[kind], strerror(ret));
	if (kind == AF_ASR && known && atomic_load(&af->auto_str) && rule.mode != RXPEER_BEHAV_DROP)
		af_auto_str(af, sid);
	return 0;
}

static int af_on_rar(struct msg **msg, struct avp *avp, struct session *sess, void *opaque, enum disp_action *act)
{
	(void)avp;
	(void)sess;
	*act = DISP_ACT_CONT;
	return af_on_request(msg, AF_RAR, opaque);
}

static int af_on_asr(struct msg **msg, struct avp *avp, struct session *sess, void *opaque, enum disp_action *act)
{
	(void)avp;
	(void)sess;
	*act = DISP_ACT_CONT;
	return af_on_request(msg, AF_ASR, opaque);
}

static int af_setup(struct rxpeer_app *a)
{
	struct disp_when when;
	int ret;

	memset(&when, 0, sizeof when);
	when.app = a->rx.app;
	when.command = a->rx.cmd_rar;
	if ((ret = fd_disp_register(af_on_rar, DISP_HOW_CC, &when, a->user, NULL)) != 0)
		return ret;
	when.command = a->rx.cmd_asr;
	return fd_disp_register(af_on_asr, DISP_HOW_CC, &when, a->user, NULL);
}

/* ---------------------------------------------------------------------------------------- */
/* Control commands                                                                         */
/* ---------------------------------------------------------------------------------------- */

/* Arguments common to aar-i, aar-u, str and bad. */
struct af_cmd {
	char err[256];
	uint32_t timeout;
	int wait;
	const char *dest_realm;
	const char *dest_host;
};

static int af_cmd_common(struct af *af, const struct rxpeer_args *args, struct af_cmd *c,
    const struct rxpeer_sess_view *sess, struct rxpeer_json *reply)
{
	if (rxpeer_args_u32(args, "timeout", af->app.opts.timeout_ms, &c->timeout, c->err, sizeof c->err) != 0 ||
	    rxpeer_args_bool(args, "wait", 1, &c->wait, c->err, sizeof c->err) != 0) {
		rxpeer_ctl_error(reply, "%s", c->err);
		return EINVAL;
	}
	if (c->timeout == 0) {
		rxpeer_ctl_error(reply, "timeout must be > 0");
		return EINVAL;
	}
	c->dest_realm = rxpeer_args_get(args, "dest-realm");
	if (c->dest_realm == NULL)
		c->dest_realm = (sess && sess->realm[0]) ? sess->realm : af->dest_realm;
	c->dest_host = rxpeer_args_get(args, "dest-host");
	if (c->dest_host == NULL)
		c->dest_host = (sess && sess->host[0]) ? sess->host : af->dest_host;
	else if (!strcmp(c->dest_host, "-") || !strcmp(c->dest_host, "none"))
		c->dest_host = NULL;
	if (c->dest_realm == NULL || *c->dest_realm == '\0') {
		rxpeer_ctl_error(reply, "no Destination-Realm: give dest-realm= or --dest-realm");
		return EINVAL;
	}
	return 0;
}

/* Fill the optional AAR content from the arguments (addresses are stored in the caller's buffers). */
static int af_cmd_aar_fields(const struct rxpeer_args *args, struct af_aar *q, uint8_t ip4[4], uint8_t ip6[18],
    char *ue, size_t ue_size, uint32_t *actions, struct af_cmd *c, struct rxpeer_json *reply)
{
	const char *ip = rxpeer_args_get(args, "ip");
	const char *ipv6 = rxpeer_args_get(args, "ipv6");
	int compact = 0, media;
	uint32_t rxt;

	if (rxpeer_args_bool(args, "v6-compact", 0, &compact, c->err, sizeof c->err) != 0 ||
	    rxpeer_args_bool(args, "media", 1, &media, c->err, sizeof c->err) != 0 ||
	    rxpeer_args_u32_list(args, "actions", actions, 16, &q->n_actions, c->err, sizeof c->err) != 0) {
		rxpeer_ctl_error(reply, "%s", c->err);
		return EINVAL;
	}
	if (ip) {
		if (rxpeer_ipv4_parse(ip, ip4) != 0) {
			rxpeer_ctl_error(reply, "ip: not an IPv4 address: '%s'", ip);
			return EINVAL;
		}
		q->ipv4 = ip4;
		q->ipv4_len = 4;
		snprintf(ue, ue_size, "%s", ip);
	}
	if (ipv6) {
		if (rxpeer_ipv6_prefix_parse(ipv6, compact, ip6, &q->ipv6_len) != 0) {
			rxpeer_ctl_error(reply, "ipv6: not an IPv6 prefix: '%s'", ipv6);
			return EINVAL;
		}
		q->ipv6 = ip6;
		if (!ip) { /* a host address inside the prefix (::1) for the flow filters */
			uint8_t host[16];
			memset(host, 0, sizeof host);
			memcpy(host, ip6 + 2, q->ipv6_len - 2);
			host[15] |= 1;
			inet_ntop(AF_INET6, host, ue, (socklen_t)ue_size);
		}
	}
	q->ue_text = ue[0] ? ue : NULL;
	q->media = media;
	q->actions = actions;
	q->called_station_id = rxpeer_args_get(args, "called-station");
	q->ip_domain_id = rxpeer_args_get(args, "ip-domain");
	q->subscription = rxpeer_args_get(args, "sub");
	const char *afapp = rxpeer_args_get(args, "af-app");
	if (afapp)
		q->af_app_id = *afapp ? afapp : NULL; /* af-app= (empty) omits the AVP */
	q->has_drmp = rxpeer_args_get(args, "drmp") != NULL;
	q->has_oc_priority = rxpeer_args_get(args, "oc-priority") != NULL;
	if (rxpeer_args_u32(args, "drmp", 0, &q->drmp, c->err, sizeof c->err) != 0 ||
	    rxpeer_args_u32(args, "oc-priority", 0, &q->oc_priority, c->err, sizeof c->err) != 0) {
		rxpeer_ctl_error(reply, "%s", c->err);
		return EINVAL;
	}
	const char *rt = rxpeer_args_get(args, "rx-type");
	if (rt && !strcmp(rt, "none")) {
		q->rx_request_type = -1;
	} else if (rt) {
		if (rxpeer_args_u32(args, "rx-type", 0, &rxt, c->err, sizeof c->err) != 0) {
			rxpeer_ctl_error(reply, "%s", c->err);
			return EINVAL;
		}
		q->rx_request_type = (int)rxt;
	}
	return 0;
}

#define AF_AAR_ARGS "ip", "ipv6", "v6-compact", "media", "actions", "called-station", "ip-domain", "af-app", \
	"sub", "rx-type", "dest-realm", "dest-host", "timeout", "wait", "drmp", "oc-priority"
static const char *const af_aar_i_args[] = { AF_AAR_ARGS, "sid", NULL };
static const char *const af_aar_u_args[] = { AF_AAR_ARGS, "session", NULL };
static const char *const af_bad_args[] = { AF_AAR_ARGS, "kind", "len", "app", NULL };

/* Builds the AAR `q` to c's destination into *m; 0, or -1 after an error reply. */
static int af_build_to(struct rxpeer_app *a, struct af_aar *q, const struct af_cmd *c, struct msg **m,
		       struct rxpeer_json *reply)
{
	q->dest_realm = c->dest_realm;
	q->dest_host = c->dest_host;
	int ret = af_build_aar(&a->rx, q, m);
	if (ret != 0)
		rxpeer_ctl_error(reply, "building the AAR failed: %s", strerror(ret));
	return ret != 0 ? -1 : 0;
}

/* aar-i / aar-u / bad: build and send an AAR. */
static void af_cmd_aar(struct af *af, const struct rxpeer_args *args, struct rxpeer_json *reply, int initial)
{
	struct rxpeer_app *a = &af->app;
	struct af_cmd c;
	struct af_aar q;
	struct rxpeer_sess_view v, *sv = NULL;
	uint8_t ip4[4], ip6[18];
	uint32_t actions[16];
	char ue[64] = "", sid[256];
	struct msg *m = NULL;

	if (rxpeer_args_check(args, initial ? af_aar_i_args : af_aar_u_args, c.err, sizeof c.err) != 0) {
		rxpeer_ctl_error(reply, "%s", c.err);
		return;
	}
	memset(&q, 0, sizeof q);
	q.app_hdr = q.app_avp = BSF_RX_APP_ID;
	q.rx_request_type = initial ? 0 : 1;
	q.media_number = 1;
	q.af_app_id = "IMS Services";

	if (initial) {
		const char *given = rxpeer_args_get(args, "sid");
		if (given && *given)
			snprintf(sid, sizeof sid, "%s", given);
		else
			af_sid_make(af, sid, sizeof sid);
	} else {
		const char *s = rxpeer_args_get(args, "session");
		if (s == NULL || *s == '\0') {
			rxpeer_ctl_error(reply, "session=<Session-Id> is required");
			return;
		}
		snprintf(sid, sizeof sid, "%s", s);
		if (rxpeer_sess_get(&a->sess, sid, &v) == 0)
			sv = &v;
	}
	q.sid = sid;
	if (af_cmd_common(af, args, &c, sv, reply) != 0 ||
	    af_cmd_aar_fields(args, &q, ip4, ip6, ue, sizeof ue, actions, &c, reply) != 0)
		return;
	if (af_build_to(a, &q, &c, &m, reply) != 0)
		return;
	if (initial)
		rxpeer_sess_put(&a->sess, sid, c.dest_host, c.dest_realm, ue[0] ? ue : NULL, NULL);
	uint32_t code = rxpeer_app_send(a, &m, initial ? "aar-i" : "aar-u", c.timeout, c.wait, reply);
	/* A failed AAR-I leaves no session behind (known only when waiting). */
	if (initial && c.wait && code != 2001)
		rxpeer_sess_del(&a->sess, sid);
}

/* str session=SID [cause=1] ... */
static void af_cmd_str(struct af *af, const struct rxpeer_args *args, struct rxpeer_json *reply)
{
	static const char *const allowed[] = { "session", "cause", "dest-realm", "dest-host", "timeout", "wait", NULL };
	struct rxpeer_app *a = &af->app;
	struct rxpeer_sess_view v;
	struct af_cmd c;
	uint32_t cause;
	struct msg *m = NULL;
	const char *sid = rxpeer_args_get(args, "session");

	if (rxpeer_args_check(args, allowed, c.err, sizeof c.err) != 0) {
		rxpeer_ctl_error(reply, "%s", c.err);
		return;
	}
	if (sid == NULL || *sid == '\0') {
		rxpeer_ctl_error(reply, "session=<Session-Id> is required");
		return;
	}
	int known = rxpeer_sess_get(&a->sess, sid, &v) == 0;
	if (af_cmd_common(af, args, &c, known ? &v : NULL, reply) != 0)
		return;
	if (rxpeer_args_u32(args, "cause", 1 /* DIAMETER_LOGOUT */, &cause, c.err, sizeof c.err) != 0) {
		rxpeer_ctl_error(reply, "%s", c.err);
		return;
	}
	int ret = af_build_str(&a->rx, sid, c.dest_realm, c.dest_host, cause, &m);
	if (ret != 0) {
		rxpeer_ctl_error(reply, "building the STR failed: %s", strerror(ret));
		return;
	}
	rxpeer_sess_del(&a->sess, sid);
	rxpeer_app_send(a, &m, "str", c.timeout, c.wait, reply);
}

/*
 * bad kind=no-session|no-framed|unknown-app|app-avp-mismatch|ip-len [len=N] [app=N] + aar-i arguments.
 * Sends a deliberately malformed AAR-I.
 */
static void af_cmd_bad(struct af *af, const struct rxpeer_args *args, struct rxpeer_json *reply)
{
	struct rxpeer_app *a = &af->app;
	const char *kind = rxpeer_args_get(args, "kind");
	struct af_cmd c;
	struct af_aar q;
	uint8_t ip4[4], ip6[18], bad_ip[16];
	uint32_t actions[16], len, app;
	char ue[64] = "", sid[256];
	struct msg *m = NULL;

	if (rxpeer_args_check(args, af_bad_args, c.err, sizeof c.err) != 0) {
		rxpeer_ctl_error(reply, "%s", c.err);
		return;
	}
	if (kind == NULL) {
		rxpeer_ctl_error(reply, "kind=no-session|no-framed|unknown-app|app-avp-mismatch|ip-len is required");
		return;
	}
	memset(&q, 0, sizeof q);
	q.app_hdr = q.app_avp = BSF_RX_APP_ID;
	q.rx_request_type = 0;
	q.af_app_id = "IMS Services";
	af_sid_make(af, sid, sizeof sid);
	q.sid = sid;
	if (af_cmd_common(af, args, &c, NULL, reply) != 0 ||
	    af_cmd_aar_fields(args, &q, ip4, ip6, ue, sizeof ue, actions, &c, reply) != 0)
		return;
	if (rxpeer_args_u32(args, "len", 3, &len, c.err, sizeof c.err) != 0 ||
	    rxpeer_args_u32(args, "app", 4294967294u /* unassigned */, &app, c.err, sizeof c.err) != 0) {
		rxpeer_ctl_error(reply, "%s", c.err);
		return;
	}
	if (q.ipv4 == NULL && q.ipv6 == NULL && strcmp(kind, "no-framed") != 0) {
		static const uint8_t def_ip[4] = { 10, 45, 0, 99 };
		memcpy(ip4, def_ip, 4);
		q.ipv4 = ip4;
		q.ipv4_len = 4;
	}
	if (!strcmp(kind, "no-session")) {
		q.sid = NULL;
	} else if (!strcmp(kind, "no-framed")) {
		q.ipv4 = NULL;
		q.ipv6 = NULL;
	} else if (!strcmp(kind, "unknown-app")) {
		q.app_hdr = q.app_avp = app;
	} else if (!strcmp(kind, "app-avp-mismatch")) {
		q.app_avp = app;
	} else if (!strcmp(kind, "ip-len")) {
		if (len > sizeof bad_ip || len == 4) {
			rxpeer_ctl_error(reply, "len must be 0..16 and not 4");
			return;
		}
		for (uint32_t i = 0; i < len; i++)
			bad_ip[i] = (uint8_t)(10 + i);
		q.ipv4 = bad_ip;
		q.ipv4_len = len;
		q.ipv6 = NULL;
	} else {
		rxpeer_ctl_error(reply, "unknown kind '%s'", kind);
		return;
	}
	if (af_build_to(a, &q, &c, &m, reply) != 0)
		return;
	char label[48];
	snprintf(label, sizeof label, "bad:%s", kind);
	rxpeer_app_send(a, &m, label, c.timeout, c.wait, reply);
}

/* load n=N [mix=0|1] [window=W] [ip=A.B.C.D | ipv6=P::/64] [count=K] [timeout=ms] [media=0|1] [record=0|1] */
static void af_cmd_load(struct af *af, const struct rxpeer_args *args, struct rxpeer_json *reply)
{
	static const char *const allowed[] = { "n", "mix", "window", "ip", "ipv6", "count", "timeout", "media",
		"record", "dest-realm", "dest-host", NULL };
	struct af_load_params p;
	struct af_cmd c;
	const char *ip = rxpeer_args_get(args, "ip"), *ipv6 = rxpeer_args_get(args, "ipv6");

	if (rxpeer_args_check(args, allowed, c.err, sizeof c.err) != 0) {
		rxpeer_ctl_error(reply, "%s", c.err);
		return;
	}
	memset(&p, 0, sizeof p);
	if (rxpeer_args_u64(args, "n", 10000, &p.sessions, c.err, sizeof c.err) != 0 ||
	    rxpeer_args_bool(args, "mix", 0, &p.mix, c.err, sizeof c.err) != 0 ||
	    rxpeer_args_u32(args, "window", 64, &p.window, c.err, sizeof c.err) != 0 ||
	    rxpeer_args_u32(args, "count", 65536, &p.ip_count, c.err, sizeof c.err) != 0 ||
	    rxpeer_args_u32(args, "timeout", af->app.opts.timeout_ms, &p.timeout_ms, c.err, sizeof c.err) != 0 ||
	    rxpeer_args_bool(args, "media", 1, &p.media, c.err, sizeof c.err) != 0 ||
	    rxpeer_args_bool(args, "record", 0, &p.record, c.err, sizeof c.err) != 0) {
		rxpeer_ctl_error(reply, "%s", c.err);
		return;
	}
	if (p.window > 60000 || p.timeout_ms == 0) {
		rxpeer_ctl_error(reply, "window must be <= 60000 and timeout > 0");
		return;
	}
	if (ipv6) {
		uint8_t v[18];
		size_t vl;
		if (rxpeer_ipv6_prefix_parse(ipv6, 0, v, &vl) != 0) {
			rxpeer_ctl_error(reply, "ipv6: not an IPv6 prefix: '%s'", ipv6);
			return;
		}
		p.v6 = 1;
		memcpy(p.ip_base, v + 2, 16);
	} else if (rxpeer_ipv4_parse(ip ? ip : "10.45.0.1", p.ip_base) != 0) {
		rxpeer_ctl_error(reply, "ip: not an IPv4 address: '%s'", ip);
		return;
	}
	struct rxpeer_sess_view none;
	memset(&none, 0, sizeof none);
	if (af_cmd_common(af, args, &c, &none, reply) != 0)
		return;
	p.dest_realm = c.dest_realm;
	p.dest_host = c.dest_host;
	if (atomic_exchange(&af->load_running, 1)) {
		rxpeer_ctl_error(reply, "a load run is already in progress");
		return;
	}
	af_load_run(af, &p, reply);
	atomic_store(&af->load_running, 0);
}

/* set auto-str=0|1 */
static void af_cmd_set(struct af *af, const struct rxpeer_args *args, struct rxpeer_json *reply)
{
	static const char *const allowed[] = { "auto-str", NULL };
	char err[256];
	int v;
	if (rxpeer_args_check(args, allowed, err, sizeof err) != 0 ||
	    rxpeer_args_bool(args, "auto-str", atomic_load(&af->auto_str), &v, err, sizeof err) != 0) {
		rxpeer_ctl_error(reply, "%s", err);
		return;
	}
	atomic_store(&af->auto_str, v);
	rxpeer_json_bool(reply, "ok", 1);
	rxpeer_json_bool(reply, "auto_str", v);
}

static void af_command(void *ctx, const struct rxpeer_args *args, struct rxpeer_json *reply)
{
	struct af *af = ctx;
	const char *verb = rxpeer_args_verb(args);

	if (!strcmp(verb, "aar-i"))
		af_cmd_aar(af, args, reply, 1);
	else if (!strcmp(verb, "aar-u"))
		af_cmd_aar(af, args, reply, 0);
	else if (!strcmp(verb, "str"))
		af_cmd_str(af, args, reply);
	else if (!strcmp(verb, "bad"))
		af_cmd_bad(af, args, reply);
	else if (!strcmp(verb, "load"))
		af_cmd_load(af, args, reply);
	else if (!strcmp(verb, "set"))
		af_cmd_set(af, args, reply);
	else if (!rxpeer_app_common_cmd(&af->app, args, reply))
		rxpeer_ctl_error(reply, "unknown command '%s' (try: aar-i, aar-u, str, bad, load, answer, set, "
		    "status, sessions, record, wait-peer, quit)", verb);
}

/* ---------------------------------------------------------------------------------------- */

enum { OPT_PEER = 3000, OPT_PEER_HOST, OPT_PEER_PORT, OPT_DEST_REALM, OPT_DEST_HOST };

static const struct option af_options[] = {
	{ "peer", required_argument, NULL, OPT_PEER },
	{ "peer-host", required_argument, NULL, OPT_PEER_HOST },
	{ "peer-port", required_argument, NULL, OPT_PEER_PORT },
	{ "dest-realm", required_argument, NULL, OPT_DEST_REALM },
	{ "dest-host", required_argument, NULL, OPT_DEST_HOST },
	{ NULL, 0, NULL, 0 },
};

struct af_cli {
	struct af *af;
	const char *peer, *peer_host;
	uint32_t peer_port;
};

static int af_option(void *user, int opt, const char *arg)
{
	struct af_cli *cli = user;
	char *e = NULL;
	switch (opt) {
	case OPT_PEER: cli->peer = arg; return 0;
	case OPT_PEER_HOST: cli->peer_host = arg; return 0;
	case OPT_PEER_PORT:
		errno = 0;
		cli->peer_port = (uint32_t)strtoul(arg, &e, 10);
		return (errno || *e || cli->peer_port == 0 || cli->peer_port > 65535) ? EINVAL : 0;
	case OPT_DEST_REALM: cli->af->dest_realm = arg; return 0;
	case OPT_DEST_HOST: cli->af->dest_host = arg; return 0;
	default: return EINVAL;
	}
}

int main(int argc, char **argv)
{
	static struct af af; /* large; and libfdcore callbacks may outlive main's frame at exit */
	struct af_cli cli = { .af = &af, .peer = NULL, .peer_host = "127.0.0.1", .peer_port = 3868 };
	struct rxpeer_app_extra_opts extra = {
		.options = af_options,
		.handle = af_option,
		.user = &cli,
		.usage = "af_peer options:\n"
			 "  --peer ID              the peer to connect to (BSF or PCF); also the default route\n"
			 "  --peer-host ADDR       its address                                    (127.0.0.1)\n"
			 "  --peer-port N          its port                                       (3868)\n"
			 "  --dest-realm REALM     default Destination-Realm          (default: our realm)\n"
			 "  --dest-host HOST       default Destination-Host           (default: none)\n",
	};

	rxpeer_app_parse(&af.app, "af_peer", 0, argc, argv, &extra);
	struct rxpeer_app_opts *o = &af.app.opts;
	if (cli.peer) {
		/* same as --connect ID@HOST:PORT --default-route ID */
		if (o->fd.n_connect == RXPEER_MAX_PEERS || o->n_routes == RXPEER_MAX_PEERS) {
			fprintf(stderr, "af_peer: too many peers\n");
			return 2;
		}
		struct rxpeer_fd_peer *p = &o->connect[o->fd.n_connect++];
		p->id = cli.peer;
		p->host = cli.peer_host;
		p->port = (uint16_t)cli.peer_port;
		o->routes[o->n_routes++] = cli.peer;
		if (o->wait_peer == NULL)
			o->wait_peer = cli.peer;
	}
	if (af.dest_realm == NULL)
		af.dest_realm = o->fd.realm;
	af.boot = (uint32_t)time(NULL);
	af.app.user = &af;
	rxpeer_app_start(&af.app, af_kind_names, AF_N_KINDS, af_setup);
	return rxpeer_app_run(&af.app, af_command);
}
