/* rxpeer_app.c - see rxpeer_app.h */
#include "rxpeer_app.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "rxpeer_build.h"
#include "rxpeer_hooks.h"
#include "rxpeer_msg.h"
#include "rxpeer_msgjson.h"
#include "rxpeer_time.h"

/* ---------------------------------------------------------------------------------------- */
/* Command line                                                                             */
/* ---------------------------------------------------------------------------------------- */

enum {
	OPT_IDENTITY = 1000, OPT_REALM, OPT_LISTEN, OPT_PORT, OPT_CONNECT, OPT_ACCEPT, OPT_ACCEPT_ANY,
	OPT_ROUTE, OPT_CTL, OPT_NO_STDIN, OPT_EVENTS, OPT_NO_RECORD, OPT_TIMEOUT, OPT_THREADS,
	OPT_EXT_DIR, OPT_FD_LOG, OPT_FD_DUMPS, OPT_STRICT, OPT_LENIENT, OPT_EXEC, OPT_EXIT,
	OPT_WAIT_PEER, OPT_WAIT_PEER_MS, OPT_TC, OPT_NASREQ_RULES, OPT_HELP,
};

static const struct option rxpeer_app_options[] = {
	{ "identity", required_argument, NULL, OPT_IDENTITY },
	{ "realm", required_argument, NULL, OPT_REALM },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "connect", required_argument, NULL, OPT_CONNECT },
	{ "accept", required_argument, NULL, OPT_ACCEPT },
	{ "accept-any", no_argument, NULL, OPT_ACCEPT_ANY },
	{ "default-route", required_argument, NULL, OPT_ROUTE },
	{ "ctl", required_argument, NULL, OPT_CTL },
	{ "no-stdin", no_argument, NULL, OPT_NO_STDIN },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "no-record", no_argument, NULL, OPT_NO_RECORD },
	{ "timeout-ms", required_argument, NULL, OPT_TIMEOUT },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "ext-dir", required_argument, NULL, OPT_EXT_DIR },
	{ "fd-log", required_argument, NULL, OPT_FD_LOG },
	{ "fd-dumps", no_argument, NULL, OPT_FD_DUMPS },
	{ "strict-dict", no_argument, NULL, OPT_STRICT },
	{ "lenient-dict", no_argument, NULL, OPT_LENIENT },
	{ "exec", required_argument, NULL, OPT_EXEC },
	{ "exit", no_argument, NULL, OPT_EXIT },
	{ "wait-peer", required_argument, NULL, OPT_WAIT_PEER },
	{ "wait-peer-ms", required_argument, NULL, OPT_WAIT_PEER_MS },
	{ "tc-timer", required_argument, NULL, OPT_TC },
	{ "nasreq-rules", no_argument, NULL, OPT_NASREQ_RULES },
	{ "help", no_argument, NULL, OPT_HELP },
};

static const char rxpeer_app_usage[] =
    "Common options:\n"
    "  --identity ID          Diameter identity (Origin-Host)                 [required]\n"
    "  --realm REALM          Diameter realm (Origin-Realm)                   [required]\n"
    "  --listen ADDR          address to listen on and advertise   (127.0.0.1)\n"
    "  --port N               TCP port to listen on; 0 = do not listen\n"
    "  --connect ID@HOST:PORT connect to this peer (repeatable)\n"
    "  --accept ID            accept incoming connections from ID (repeatable)\n"
    "  --accept-any           accept any incoming peer\n"
    "  --default-route ID     send requests to neighbour ID whatever their destination (repeatable)\n"
    "  --ctl PATH             also serve the control protocol on a UNIX socket\n"
    "  --no-stdin             do not read commands from stdin\n"
    "  --events FILE          JSON event stream (default: stdout)\n"
    "  --no-record            start with per-message records off (command: record on)\n"
    "  --timeout-ms N         default request timeout                          (5000)\n"
    "  --threads N            freeDiameter dispatch threads                    (4)\n"
    "  --ext-dir DIR          freeDiameter extension directory     (/usr/lib/freeDiameter)\n"
    "  --fd-log LEVEL         freeDiameter log to stderr: debug|notice|error|none (error)\n"
    "  --fd-dumps             keep libfdcore's default per-message dumps (slow, debug)\n"
    "  --strict-dict          enforce Rx-mandatory Specific-Action (RAR) and Abort-Cause (ASR) (default)\n"
    "  --lenient-dict         do not enforce them\n"
    "  --tc-timer S           reconnect interval in seconds                     (5)\n"
    "  --nasreq-rules         debug: keep dict_nasreq's AAR/AAA rules (reproduces the Rx breakage)\n"
    "  --exec CMD             run a control command after start (repeatable, in order)\n"
    "  --wait-peer ID         before --exec, wait until peer ID is connected\n"
    "  --wait-peer-ms N       how long to wait for it                          (10000)\n"
    "  --exit                 exit after the --exec commands\n";

static void rxpeer_app_usage_exit(const char *name, const struct rxpeer_app_extra_opts *extra, int code)
{
	FILE *f = code ? stderr : stdout;
	fprintf(f, "usage: %s [options]\n\n%s", name, rxpeer_app_usage);
	if (extra && extra->usage)
		fprintf(f, "\n%s", extra->usage);
	exit(code);
}

static int rxpeer_app_parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	char *e = NULL;
	errno = 0;
	unsigned long v = strtoul(s, &e, 10);
	if (*s == '\0' || *s == '-' || errno != 0 || *e != '\0' || v > max)
		return EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* ID@HOST:PORT (HOST may be [v6]). */
static int rxpeer_app_parse_connect(struct rxpeer_app_opts *o, const char *arg)
{
	if (o->fd.n_connect == RXPEER_MAX_PEERS)
		return E2BIG;
	char *s = strdup(arg);
	if (s == NULL)
		return ENOMEM;
	char *at = strchr(s, '@');
	char *colon = strrchr(s, ':');
	uint32_t port;
	if (at == NULL || colon == NULL || colon < at || rxpeer_app_parse_u32(colon + 1, 65535, &port) != 0 || port == 0) {
		free(s);
		return EINVAL;
	}
	*at = '\0';
	*colon = '\0';
	char *host = at + 1;
	if (*host == '[' && colon[-1] == ']') {
		host++;
		colon[-1] = '\0';
	}
	struct rxpeer_fd_peer *p = &o->connect[o->fd.n_connect];
	p->id = s; /* id, host and port all point into s */
	p->host = host;
	p->port = (uint16_t)port;
	o->fd.n_connect++; /* s stays allocated: the strings live as long as the process */
	return 0;
}

static int rxpeer_app_log_level(const char *s, int *lvl)
{
	if (!strcmp(s, "debug")) *lvl = FD_LOG_DEBUG;
	else if (!strcmp(s, "notice")) *lvl = FD_LOG_NOTICE;
	else if (!strcmp(s, "error")) *lvl = FD_LOG_ERROR;
	else if (!strcmp(s, "none")) *lvl = FD_LOG_FATAL + 1;
	else return EINVAL;
	return 0;
}

void rxpeer_app_parse(struct rxpeer_app *a, const char *name, uint16_t default_port, int argc, char **argv,
    const struct rxpeer_app_extra_opts *extra)
{
	struct rxpeer_app_opts *o = &a->opts;
	size_t n_base = sizeof(rxpeer_app_options) / sizeof(rxpeer_app_options[0]), n_extra = 0;
	uint32_t v;

	memset(a, 0, sizeof(*a));
	a->name = name;
	o->fd.port = default_port;
	o->fd.log_level = FD_LOG_ERROR;
	o->fd.tc_timer = 5;
	o->fd.connect = o->connect;
	o->fd.accept = o->accept;
	o->timeout_ms = 5000;
	o->strict_dict = 1;
	o->wait_peer_ms = 10000;

	while (extra && extra->options && extra->options[n_extra].name)
		n_extra++;
	struct option *all = calloc(n_base + n_extra + 1, sizeof(*all));
	if (all == NULL) {
		fprintf(stderr, "%s: out of memory\n", name);
		exit(1);
	}
	memcpy(all, rxpeer_app_options, sizeof(rxpeer_app_options));
	if (n_extra)
		memcpy(all + n_base, extra->options, n_extra * sizeof(*all));

	int c;
	while ((c = getopt_long(argc, argv, "", all, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case OPT_IDENTITY: o->fd.identity = optarg; break;
		case OPT_REALM: o->fd.realm = optarg; break;
		case OPT_LISTEN: o->fd.listen = optarg; break;
		case OPT_PORT: bad = rxpeer_app_parse_u32(optarg, 65535, &v); o->fd.port = (uint16_t)v; break;
		case OPT_CONNECT: bad = rxpeer_app_parse_connect(o, optarg); break;
		case OPT_ACCEPT:
			if (o->n_accept == RXPEER_MAX_PEERS) bad = E2BIG;
			else o->accept[o->n_accept++] = optarg;
			break;
		case OPT_ACCEPT_ANY: o->fd.accept_any = 1; break;
		case OPT_ROUTE:
			if (o->n_routes == RXPEER_MAX_PEERS) bad = E2BIG;
			else o->routes[o->n_routes++] = optarg;
			break;
		case OPT_CTL: o->ctl_path = optarg; break;
		case OPT_NO_STDIN: o->no_stdin = 1; break;
		case OPT_EVENTS: o->events_path = optarg; break;
		case OPT_NO_RECORD: o->no_record = 1; break;
		case OPT_TIMEOUT: bad = rxpeer_app_parse_u32(optarg, 3600000, &o->timeout_ms) || o->timeout_ms == 0; break;
		case OPT_THREADS: bad = rxpeer_app_parse_u32(optarg, 255, &v) || v == 0; o->fd.app_threads = v; break;
		case OPT_EXT_DIR: o->fd.ext_dir = optarg; break;
		case OPT_FD_LOG: bad = rxpeer_app_log_level(optarg, &o->fd.log_level); break;
		case OPT_FD_DUMPS: o->fd_dumps = 1; break;
		case OPT_STRICT: o->strict_dict = 1; break;
		case OPT_LENIENT: o->strict_dict = 0; break;
		case OPT_NASREQ_RULES: o->nasreq_rules = 1; break;
		case OPT_TC: bad = rxpeer_app_parse_u32(optarg, 3600, &v) || v == 0; o->fd.tc_timer = v; break;
		case OPT_EXEC:
			if (o->n_exec == RXPEER_MAX_EXEC) bad = E2BIG;
			else o->exec[o->n_exec++] = optarg;
			break;
		case OPT_EXIT: o->exit_after_exec = 1; break;
		case OPT_WAIT_PEER: o->wait_peer = optarg; break;
		case OPT_WAIT_PEER_MS: bad = rxpeer_app_parse_u32(optarg, 3600000, &o->wait_peer_ms); break;
		case OPT_HELP: rxpeer_app_usage_exit(name, extra, 0); break;
		case '?': rxpeer_app_usage_exit(name, extra, 2); break;
		default:
			if (extra && extra->handle)
				bad = extra->handle(extra->user, c, optarg);
			else
				bad = EINVAL;
		}
		if (bad) {
			fprintf(stderr, "%s: bad value for option: %s\n", name, argv[optind - 1]);
			exit(2);
		}
	}
	free(all);
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", name, argv[optind]);
		exit(2);
	}
	if (o->fd.identity == NULL || o->fd.realm == NULL) {
		fprintf(stderr, "%s: --identity and --realm are required\n", name);
		exit(2);
	}
	o->accept[o->n_accept] = NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Events                                                                                   */
/* ---------------------------------------------------------------------------------------- */

void rxpeer_app_emit(struct rxpeer_app *a, const struct rxpeer_json *j)
{
	if (rxpeer_json_failed(j)) {
		fprintf(stderr, "%s: could not build a JSON record (out of memory?)\n", a->name);
		return;
	}
	int ret = rxpeer_out_line(a->events, j->buf, j->len);
	if (ret != 0)
		fprintf(stderr, "%s: writing the event stream failed: %s\n", a->name, strerror(ret));
}

static void rxpeer_app_begin_record(struct rxpeer_json *j, const char *type)
{
	rxpeer_json_obj_begin(j, NULL);
	rxpeer_json_str(j, "type", type);
	rxpeer_json_dbl(j, "ts", rxpeer_wall_s(), 6);
}

void rxpeer_app_record_request(struct rxpeer_app *a, struct msg *req, const char *kind)
{
	atomic_fetch_add(&a->n_recv_req, 1);
	if (!atomic_load(&a->record))
		return;
	struct rxpeer_json j;
	rxpeer_json_init(&j);
	rxpeer_app_begin_record(&j, "recv");
	if (kind)
		rxpeer_json_str(&j, "kind", kind);
	rxpeer_msgjson_fields(&j, req);
	rxpeer_json_obj_end(&j);
	rxpeer_app_emit(a, &j);
	rxpeer_json_free(&j);
}

/* libfdcore reported an error or a peer state change. */
static void rxpeer_app_on_hook(void *ctx, enum fd_hook_type type, struct msg *msg, const char *peer_id,
    const char *text)
{
	struct rxpeer_app *a = ctx;
	struct rxpeer_json j;

	atomic_fetch_add(&a->n_fd_events, 1);
	rxpeer_json_init(&j);
	rxpeer_app_begin_record(&j, "fd_event");
	rxpeer_json_str(&j, "event", rxpeer_hook_name(type));
	if (peer_id)
		rxpeer_json_str(&j, "peer_id", peer_id);
	if (text)
		rxpeer_json_str(&j, "reason", text);
	if (msg) {
		rxpeer_json_obj_begin(&j, "msg");
		rxpeer_msgjson_fields(&j, msg);
		rxpeer_json_obj_end(&j);
	}
	rxpeer_json_obj_end(&j);
	rxpeer_app_emit(a, &j);
	rxpeer_json_free(&j);

	/* An answer libfdcore throws away never reaches our callbacks: complete the request now. */
	if (type == HOOK_MESSAGE_DROPPED && msg)
		rxpeer_req_answer_dropped(&a->req, msg);
}

/* ---------------------------------------------------------------------------------------- */
/* Start-up                                                                                 */
/* ---------------------------------------------------------------------------------------- */

static void rxpeer_app_die(struct rxpeer_app *a, const char *what, const char *detail)
{
	fprintf(stderr, "%s: %s: %s\n", a->name, what, detail);
	exit(1);
}

int rxpeer_app_start(struct rxpeer_app *a, const char *const *behav_kinds, int n_kinds,
    int (*setup)(struct rxpeer_app *a))
{
	struct rxpeer_app_opts *o = &a->opts;
	char err[512];
	sigset_t set;
	int ret;

	/* Signals are taken synchronously by rxpeer_app_run(): block them before any thread starts. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	if ((ret = rxpeer_out_open(&a->stdout_sink, NULL)) != 0)
		rxpeer_app_die(a, "stdout", strerror(ret));
	a->events = &a->stdout_sink;
	if (o->events_path && strcmp(o->events_path, "-") != 0) {
		if ((ret = rxpeer_out_open(&a->file_sink, o->events_path)) != 0)
			rxpeer_app_die(a, o->events_path, strerror(ret));
		a->events = &a->file_sink;
	}
	atomic_store(&a->record, !o->no_record);

	o->fd.accept = o->accept;
	if ((ret = rxpeer_fd_init(&o->fd, err, sizeof err)) != 0)
		rxpeer_app_die(a, "freeDiameter", err);
	unsigned dflags = (o->strict_dict ? RX_DICT_F_STRICT : 0) | (o->nasreq_rules ? RX_DICT_F_KEEP_NASREQ_RULES : 0);
	if ((ret = rx_dict_init(&a->rx, fd_g_config->cnf_dict, dflags, err, sizeof err)) != 0)
		rxpeer_app_die(a, "Rx dictionary", err);
	if ((ret = rx_dict_advertise(&a->rx, err, sizeof err)) != 0)
		rxpeer_app_die(a, "Rx dictionary", err);
	if ((ret = rxpeer_hooks_install(rxpeer_app_on_hook, a, o->fd_dumps)) != 0)
		rxpeer_app_die(a, "fd_hook_register", strerror(ret));
	a->route.ids = o->routes;
	a->route.n = o->n_routes;
	if ((ret = rxpeer_route_install(&a->route)) != 0)
		rxpeer_app_die(a, "fd_rt_out_register", strerror(ret));
	if ((ret = rxpeer_req_init(&a->req, 65536, 1000)) != 0)
		rxpeer_app_die(a, "request table", strerror(ret));
	if ((ret = rxpeer_delay_init(&a->delay)) != 0)
		rxpeer_app_die(a, "delay thread", strerror(ret));
	if ((ret = rxpeer_behav_init(&a->behav, behav_kinds, n_kinds)) != 0)
		rxpeer_app_die(a, "behaviours", strerror(ret));
	if ((ret = rxpeer_sess_init(&a->sess)) != 0)
		rxpeer_app_die(a, "session table", strerror(ret));
	if (setup && (ret = setup(a)) != 0)
		rxpeer_app_die(a, "setup", strerror(ret));
	if ((ret = rxpeer_fd_start(err, sizeof err)) != 0)
		rxpeer_app_die(a, "freeDiameter", err);

	struct rxpeer_json j;
	rxpeer_json_init(&j);
	rxpeer_app_begin_record(&j, "ready");
	rxpeer_json_str(&j, "name", a->name);
	rxpeer_json_str(&j, "identity", o->fd.identity);
	rxpeer_json_str(&j, "realm", o->fd.realm);
	rxpeer_json_str(&j, "listen", o->fd.listen ? o->fd.listen : "127.0.0.1");
	rxpeer_json_u64(&j, "port", o->fd.port);
	rxpeer_json_u64(&j, "pid", (uint64_t)getpid());
	if (o->ctl_path)
		rxpeer_json_str(&j, "ctl", o->ctl_path);
	rxpeer_json_obj_end(&j);
	rxpeer_app_emit(a, &j);
	rxpeer_json_free(&j);
	return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Answering                                                                                */
/* ---------------------------------------------------------------------------------------- */

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
	rxpeer_app_begin_record(&j, "sent_answer");
	if (fd_msg_hdr(ans_or_req, &h) == 0)
		rxpeer_json_str(&j, "cmd", rx_dict_cmd_name(h->msg_code, 0));
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

/* ---------------------------------------------------------------------------------------- */
/* Sending requests                                                                         */
/* ---------------------------------------------------------------------------------------- */

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
		rxpeer_app_begin_record(&j, "recv");
	} else {
		atomic_fetch_add(&a->n_no_answer, 1);
		rxpeer_app_begin_record(&j, "no_answer");
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
		snprintf(x->cmd, sizeof x->cmd, "%s", rx_dict_cmd_name(h->msg_code, 1));
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

/* ---------------------------------------------------------------------------------------- */
/* Common control commands                                                                  */
/* ---------------------------------------------------------------------------------------- */

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
	rule.vendor = RX_VENDOR_3GPP;
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
		    rxpeer_args_u32(args, "vendor", RX_VENDOR_3GPP, &rule.vendor, err, sizeof err) != 0)
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

/* ---------------------------------------------------------------------------------------- */
/* Main loop                                                                                */
/* ---------------------------------------------------------------------------------------- */

static void rxpeer_app_on_stdin_eof(void *ctx)
{
	struct rxpeer_app *a = ctx;
	/* Without a control socket nobody could talk to us any more. */
	if (a->opts.ctl_path == NULL)
		atomic_store(&a->quit, 1);
}

int rxpeer_app_run(struct rxpeer_app *a, rxpeer_ctl_fn handler)
{
	struct rxpeer_app_opts *o = &a->opts;
	int ret, code = 0;

	rxpeer_ctl_init(&a->ctl, handler, a->user ? a->user : a, &a->stdout_sink);
	if (o->ctl_path && (ret = rxpeer_ctl_serve_unix(&a->ctl, o->ctl_path)) != 0)
		rxpeer_app_die(a, o->ctl_path, strerror(ret));

	if (o->n_exec) {
		if (o->wait_peer && rxpeer_fd_wait_open(o->wait_peer, o->wait_peer_ms) != 0) {
			fprintf(stderr, "%s: peer %s not connected after %u ms (state %s)\n", a->name,
			    o->wait_peer, o->wait_peer_ms, rxpeer_fd_peer_state(o->wait_peer));
			code = 3;
			atomic_store(&a->quit, 1);
		}
		for (size_t i = 0; i < o->n_exec && !atomic_load(&a->quit); i++) {
			char *reply = rxpeer_ctl_exec(&a->ctl, o->exec[i]);
			if (reply) {
				rxpeer_out_line(&a->stdout_sink, reply, strlen(reply));
				free(reply);
			}
		}
		if (o->exit_after_exec)
			atomic_store(&a->quit, 1);
	}
	if (!o->no_stdin && !atomic_load(&a->quit) && (ret = rxpeer_ctl_serve_stdin(&a->ctl, rxpeer_app_on_stdin_eof)) != 0)
		rxpeer_app_die(a, "stdin thread", strerror(ret));
	if (o->no_stdin && o->ctl_path == NULL && !o->exit_after_exec)
		fprintf(stderr, "%s: no control channel (--no-stdin without --ctl): stop with SIGTERM\n", a->name);

	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	while (!atomic_load(&a->quit) && !rxpeer_fd_is_down()) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		if (sigtimedwait(&set, NULL, &ts) > 0)
			break;
	}
	if (rxpeer_fd_is_down() && !atomic_load(&a->quit)) {
		/* libfdcore stopped by itself (internal fatal error): do not linger as a zombie peer */
		struct rxpeer_json j;
		rxpeer_json_init(&j);
		rxpeer_app_begin_record(&j, "fd_down");
		rxpeer_json_str(&j, "reason", "freeDiameter core stopped by itself (see stderr)");
		rxpeer_json_obj_end(&j);
		rxpeer_app_emit(a, &j);
		rxpeer_json_free(&j);
		fprintf(stderr, "%s: the freeDiameter core stopped by itself (see the fd log above)\n", a->name);
		code = 4;
	}

	rxpeer_ctl_stop(&a->ctl);
	rxpeer_fd_stop();
	rxpeer_delay_fini(&a->delay);
	rxpeer_req_fini(&a->req);
	fflush(stdout); /* the stdout sink stays: the detached stdin thread may still use it */
	if (a->events == &a->file_sink)
		rxpeer_out_close(&a->file_sink);
	return code;
}
