/* rxpeer_app.c - start-up, event stream and main loop of a test peer (see rxpeer_app.h). */
#include "rxpeer_app.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rxpeer_hooks.h"
#include "rxpeer_msgjson.h"
#include "rxpeer_time.h"

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

void rxpeer_app_record_begin(struct rxpeer_json *j, const char *type)
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
	rxpeer_app_record_begin(&j, "recv");
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
	rxpeer_app_record_begin(&j, "fd_event");
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
	unsigned dflags = (o->strict_dict ? BSF_RX_DICT_F_STRICT : 0) | (o->nasreq_rules ? BSF_RX_DICT_F_KEEP_NASREQ_RULES : 0);
	if ((ret = bsf_rx_dict_init(&a->rx, fd_g_config->cnf_dict, dflags, err, sizeof err)) != 0)
		rxpeer_app_die(a, "Rx dictionary", err);
	if ((ret = bsf_rx_dict_advertise(&a->rx, err, sizeof err)) != 0)
		rxpeer_app_die(a, "Rx dictionary", err);
	/* The BSF's OCNF-SERVICE-COOKIE (default code/vendor), so records can show its value. */
	if ((ret = bsf_rx_dict_define_cookie(&a->rx, BSF_RX_COOKIE_CODE, BSF_RX_COOKIE_VENDOR, err, sizeof err)) != 0)
		rxpeer_app_die(a, "Rx dictionary", err);
	/* The priority AVPs an AF may send (seed §3.26). */
	if ((ret = bsf_rx_dict_define_drmp(&a->rx, err, sizeof err)) != 0 ||
	    (ret = bsf_rx_dict_define_oc_priority(&a->rx, RXPEER_OC_PRIORITY_CODE, BSF_RX_COOKIE_VENDOR, err,
	        sizeof err)) != 0)
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
	rxpeer_app_record_begin(&j, "ready");
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
		rxpeer_app_record_begin(&j, "fd_down");
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
