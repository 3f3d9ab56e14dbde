/*
 * rxpeer_app.h - what pcf_peer and af_peer share: command-line options, freeDiameter start-up,
 * the event stream, the control channel, sending requests with records, and the main loop.
 *
 * Event stream (--events, default stdout): one JSON object per line --
 *   {"type":"ready",...}                       after start-up
 *   {"type":"recv",...msg fields...}           every request or answer received (see rxpeer_msgjson.h);
 *                                              answers also carry "label", "status", "latency_ms"
 *   {"type":"no_answer","status":"timeout"|"lost"|"dropped",...}  a request of ours got no answer
 *   {"type":"fd_event","event":"parsing_error"|"dropped"|...}      libfdcore reported a problem
 *   {"type":"sent_answer",...}                  what we answered (cmd, session_id, result)
 * Replies to stdin commands go to stdout as well (the same sink when --events is stdout).
 */
#ifndef RXPEER_APP_H
#define RXPEER_APP_H

#include <getopt.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "gateways/diameter/rx_dict.h"
#include "rxpeer_behav.h"
#include "rxpeer_ctl.h"
#include "rxpeer_delay.h"
#include "rxpeer_fd.h"
#include "rxpeer_json.h"
#include "rxpeer_out.h"
#include "rxpeer_req.h"
#include "rxpeer_route.h"
#include "rxpeer_sess.h"

#define RXPEER_MAX_PEERS 16 /* --connect / --accept / --default-route entries */
#define RXPEER_MAX_EXEC 32  /* --exec commands */
/* The OC-Message-Priority code (vendor BSF_RX_COOKIE_VENDOR) the test peers send: Oracle
 * publishes none, bsfd reads the one it is configured with. */
#define RXPEER_OC_PRIORITY_CODE 3020u

struct rxpeer_app_opts {
	struct rxpeer_fd_opts fd;
	struct rxpeer_fd_peer connect[RXPEER_MAX_PEERS];
	const char *accept[RXPEER_MAX_PEERS + 1];
	size_t n_accept;
	const char *routes[RXPEER_MAX_PEERS];
	size_t n_routes;
	const char *ctl_path;
	int no_stdin;
	const char *events_path;
	int no_record;
	uint32_t timeout_ms;       /* default request timeout */
	int fd_dumps;
	int strict_dict;
	int nasreq_rules;          /* debug: keep the NASREQ rules (BSF_RX_DICT_F_KEEP_NASREQ_RULES) */
	const char *exec[RXPEER_MAX_EXEC];
	size_t n_exec;
	int exit_after_exec;
	const char *wait_peer;     /* before --exec: wait until this peer is open */
	uint32_t wait_peer_ms;
};

struct rxpeer_app {
	const char *name;
	struct rxpeer_app_opts opts;
	bsf_rx_dict_t rx;
	struct rxpeer_out stdout_sink;
	struct rxpeer_out file_sink;
	struct rxpeer_out *events;   /* &stdout_sink or &file_sink */
	struct rxpeer_req req;
	struct rxpeer_delay delay;
	struct rxpeer_behav behav;
	struct rxpeer_sess sess;
	struct rxpeer_ctl ctl;
	struct rxpeer_route route;
	atomic_int record;           /* write "recv"/"sent_answer" records */
	atomic_int quit;
	atomic_ullong n_recv_req, n_recv_ans, n_sent_ans, n_no_answer, n_fd_events;
	void *user;                  /* the program's own context */
};

/* Program-specific options: extra getopt entries and their handler (return 0 or print + EINVAL). */
struct rxpeer_app_extra_opts {
	const struct option *options; /* terminated by a zero entry */
	int (*handle)(void *user, int opt, const char *arg);
	void *user;
	const char *usage;            /* extra usage text */
};

/* Parse argv (--port defaults to default_port); exits with usage on --help or errors. */
void rxpeer_app_parse(struct rxpeer_app *a, const char *name, uint16_t default_port, int argc, char **argv,
    const struct rxpeer_app_extra_opts *extra);

/*
 * Start libfdcore, the Rx dictionary, hooks, routing and the helpers. `behav_kinds` names the
 * request kinds for the answer behaviours. `setup` (may be NULL) runs before fd_core_start(), to
 * register dispatch callbacks. 0 or exits with a message.
 */
int rxpeer_app_start(struct rxpeer_app *a, const char *const *behav_kinds, int n_kinds,
    int (*setup)(struct rxpeer_app *a));

/* Serve the control channel, run --exec, wait for quit/SIGINT/SIGTERM, shut down. Returns exit code. */
int rxpeer_app_run(struct rxpeer_app *a, rxpeer_ctl_fn handler);

/* Open a record object: {"type":<type>,"ts":<wall clock>, ... (caller adds members and closes it). */
void rxpeer_app_record_begin(struct rxpeer_json *j, const char *type);
/* Write one JSON line to the event stream. */
void rxpeer_app_emit(struct rxpeer_app *a, const struct rxpeer_json *j);
/* Record a received request ({"type":"recv",...}), adding "kind" when non-NULL. */
void rxpeer_app_record_request(struct rxpeer_app *a, struct msg *req, const char *kind);

/* Fill an answer: Result-Code (E bit for 3xxx) or Experimental-Result, plus Origin-Host/Realm. */
int rxpeer_app_set_result(struct rxpeer_app *a, struct msg *ans, const struct rxpeer_behav_rule *rule,
    uint32_t default_rc);
/*
 * Answer request *req (set to NULL) following `rule` (DROP frees it). `fill` adds
 * command-specific AVPs (may be NULL). Records {"type":"sent_answer"}.
 */
int rxpeer_app_answer(struct rxpeer_app *a, struct msg **req, const struct rxpeer_behav_rule *rule,
    uint32_t default_rc, int (*fill)(struct rxpeer_app *a, struct msg *ans, void *arg), void *arg,
    const char *kind);

/*
 * Send request *req (set to NULL on success) labelled `label` ("aar-i", "rar", ...).
 * wait != 0: block until the outcome and add "status", "latency_ms", "code" and "record" (the
 *           {"type":"recv"} or {"type":"no_answer"} record of the outcome) to reply.
 * wait == 0: return at once; the outcome appears on the event stream.
 * Always adds "ok", "session_id", "e2e" to reply.
 * Returns the answer's result code (Experimental-Result-Code if present) when waited for and
 * answered, else 0.
 */
uint32_t rxpeer_app_send(struct rxpeer_app *a, struct msg **req, const char *label, uint32_t timeout_ms,
    int wait, struct rxpeer_json *reply);

/* Common control commands: status, record, answer, wait-peer, sessions, quit. 1 if handled. */
int rxpeer_app_common_cmd(struct rxpeer_app *a, const struct rxpeer_args *args, struct rxpeer_json *reply);

/* Parse `answer cmd=<kind|all> [ok|rc=N|exp=N [vendor=V]|drop] [delay=MS] [count=N]` into the table. */
void rxpeer_app_cmd_answer(struct rxpeer_app *a, const struct rxpeer_args *args, struct rxpeer_json *reply);

#endif /* RXPEER_APP_H */
