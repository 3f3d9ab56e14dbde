/*
 * rxpeer_ctl.h - line-based control channel: stdin and/or a UNIX stream socket.
 *
 * Each input line is one command (rxpeer_args syntax).  Each command gets exactly one reply
 * line, a JSON object {"type":"reply","cmd":<verb>,"ok":true|false,...}, written back where the
 * command came from (stdin commands: the stdout sink; socket commands: the same connection).
 * Commands from one source run one after the other; several socket clients run in parallel.
 */
#ifndef RXPEER_CTL_H
#define RXPEER_CTL_H

#include <pthread.h>
#include <stddef.h>

#include "rxpeer_args.h"
#include "rxpeer_json.h"
#include "rxpeer_out.h"

/*
 * Handler: append the reply members (at least "ok") to the open object `reply`.
 * Called from the stdin thread or a client thread; must be thread-safe.
 */
typedef void (*rxpeer_ctl_fn)(void *ctx, const struct rxpeer_args *args, struct rxpeer_json *reply);

struct rxpeer_ctl {
	rxpeer_ctl_fn fn;
	void *ctx;
	struct rxpeer_out *stdout_sink;  /* where replies to stdin commands go */
	void (*on_stdin_eof)(void *ctx); /* optional */
	int listen_fd;
	char path[108];
	int accept_started;
	pthread_t accept_thr;
};

/* Set "ok":false and "error" (printf format). */
void rxpeer_ctl_error(struct rxpeer_json *reply, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void rxpeer_ctl_init(struct rxpeer_ctl *c, rxpeer_ctl_fn fn, void *ctx, struct rxpeer_out *stdout_sink);
/* Serve commands from stdin (detached thread). 0 or errno. */
int rxpeer_ctl_serve_stdin(struct rxpeer_ctl *c, void (*on_eof)(void *ctx));
/* Listen on a UNIX socket at path (an existing socket file is replaced). 0 or errno. */
int rxpeer_ctl_serve_unix(struct rxpeer_ctl *c, const char *path);
/* Stop accepting and remove the socket file. */
void rxpeer_ctl_stop(struct rxpeer_ctl *c);

/* Run one command line and return its reply line (malloc'd, no newline), or NULL on ENOMEM. */
char *rxpeer_ctl_exec(struct rxpeer_ctl *c, const char *line);

#endif /* RXPEER_CTL_H */
