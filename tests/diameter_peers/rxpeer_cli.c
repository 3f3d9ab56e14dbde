/* rxpeer_cli.c - command-line options shared by pcf_peer and af_peer (see rxpeer_app.h). */
#include "rxpeer_app.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	OPT_IDENTITY = 1000, OPT_REALM, OPT_LISTEN, OPT_PORT, OPT_CONNECT, OPT_ACCEPT, OPT_ACCEPT_ANY,
	OPT_ROUTE, OPT_CTL, OPT_NO_STDIN, OPT_EVENTS, OPT_NO_RECORD, OPT_TIMEOUT, OPT_THREADS,
	OPT_EXT_DIR, OPT_FD_LOG, OPT_FD_DUMPS, OPT_STRICT, OPT_LENIENT, OPT_EXEC, OPT_EXIT,
	OPT_WAIT_PEER, OPT_WAIT_PEER_MS, OPT_TC, OPT_NASREQ_RULES, OPT_HELP, OPT_TLS_CERT, OPT_TLS_KEY,
	OPT_TLS_CA, OPT_TLS_PORT, OPT_TLS_CONNECT, OPT_TLS_PRIORITY,
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
	{ "tls-cert", required_argument, NULL, OPT_TLS_CERT },
	{ "tls-key", required_argument, NULL, OPT_TLS_KEY },
	{ "tls-ca", required_argument, NULL, OPT_TLS_CA },
	{ "tls-port", required_argument, NULL, OPT_TLS_PORT },
	{ "tls-connect", no_argument, NULL, OPT_TLS_CONNECT },
	{ "tls-priority", required_argument, NULL, OPT_TLS_PRIORITY },
};

static const char rxpeer_app_usage[] =
    "Common options:\n"
    "  --identity ID          Diameter identity (Origin-Host)                 [required]\n"
    "  --realm REALM          Diameter realm (Origin-Realm)                   [required]\n"
    "  --listen ADDR          address to listen on and advertise   (127.0.0.1)\n"
    "  --port N               TCP port to listen on; 0 = do not listen (pcf_peer 3868, af_peer 0)\n"
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
    "  --tls-cert PEM --tls-key PEM --tls-ca PEM   TLS credentials (off without --tls-cert)\n"
    "  --tls-port N           listen for TLS from the connection's start on N      (0: no)\n"
    "  --tls-connect          connect to the --connect / --peer peers with TLS\n"
    "  --tls-priority S       GnuTLS priority string (versions, ciphers)\n"
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
	uint32_t v = 0; /* set by every successful rxpeer_app_parse_u32 before it is read */

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
		case OPT_TLS_CERT: o->fd.tls_cert = optarg; break;
		case OPT_TLS_KEY: o->fd.tls_key = optarg; break;
		case OPT_TLS_CA: o->fd.tls_ca = optarg; break;
		case OPT_TLS_PORT: bad = rxpeer_app_parse_u32(optarg, 65535, &v); o->fd.tls_port = (uint16_t)v; break;
		case OPT_TLS_CONNECT: o->fd.tls_connect = 1; break;
		case OPT_TLS_PRIORITY: o->fd.tls_priority = optarg; break;
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
