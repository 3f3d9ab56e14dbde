/* rxpeer_ctl.c - see rxpeer_ctl.h */
#include "rxpeer_ctl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

void rxpeer_ctl_error(struct rxpeer_json *reply, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	rxpeer_json_bool(reply, "ok", 0);
	rxpeer_json_str(reply, "error", msg);
}

void rxpeer_ctl_init(struct rxpeer_ctl *c, rxpeer_ctl_fn fn, void *ctx, struct rxpeer_out *stdout_sink)
{
	memset(c, 0, sizeof(*c));
	c->fn = fn;
	c->ctx = ctx;
	c->stdout_sink = stdout_sink;
	c->listen_fd = -1;
}

char *rxpeer_ctl_exec(struct rxpeer_ctl *c, const char *line)
{
	struct rxpeer_args *args = malloc(sizeof(*args));
	struct rxpeer_json j;
	char *out = NULL;

	if (args == NULL)
		return NULL;
	rxpeer_json_init(&j);
	rxpeer_json_obj_begin(&j, NULL);
	rxpeer_json_str(&j, "type", "reply");
	int ret = rxpeer_args_parse(args, line);
	if (ret == 0) {
		rxpeer_json_str(&j, "cmd", rxpeer_args_verb(args));
		c->fn(c->ctx, args, &j);
	} else {
		rxpeer_json_null(&j, "cmd");
		rxpeer_ctl_error(&j, "%s", ret == ENODATA ? "empty command" :
		    ret == EINVAL ? "unterminated quote" : "command too long");
	}
	rxpeer_json_obj_end(&j);
	if (!rxpeer_json_failed(&j))
		out = strdup(j.buf);
	rxpeer_json_free(&j);
	free(args);
	return out;
}

/* Comments and blank lines get no reply. */
static int rxpeer_ctl_is_blank(const char *line)
{
	while (*line == ' ' || *line == '\t' || *line == '\r' || *line == '\n')
		line++;
	return *line == '\0' || *line == '#';
}

static void *rxpeer_ctl_stdin_thread(void *arg)
{
	struct rxpeer_ctl *c = arg;
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, stdin) >= 0) {
		if (rxpeer_ctl_is_blank(line))
			continue;
		char *reply = rxpeer_ctl_exec(c, line);
		if (reply) {
			rxpeer_out_line(c->stdout_sink, reply, strlen(reply));
			free(reply);
		}
	}
	free(line);
	if (c->on_stdin_eof)
		c->on_stdin_eof(c->ctx);
	return NULL;
}

int rxpeer_ctl_serve_stdin(struct rxpeer_ctl *c, void (*on_eof)(void *ctx))
{
	pthread_t t;
	pthread_attr_t at;
	int ret;

	c->on_stdin_eof = on_eof;
	if ((ret = pthread_attr_init(&at)) != 0)
		return ret;
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	ret = pthread_create(&t, &at, rxpeer_ctl_stdin_thread, c);
	pthread_attr_destroy(&at);
	return ret;
}

struct rxpeer_ctl_client {
	struct rxpeer_ctl *ctl;
	int fd;
};

static int rxpeer_ctl_write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* One connection: read lines, answer each. */
static void *rxpeer_ctl_client_thread(void *arg)
{
	struct rxpeer_ctl_client *cl = arg;
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap);

	while (buf != NULL) {
		if (len == cap) {
			if (cap >= 1u << 20)
				break; /* no newline in 1 MiB: drop the client */
			char *nb = realloc(buf, cap * 2);
			if (nb == NULL)
				break;
			buf = nb;
			cap *= 2;
		}
		ssize_t r = recv(cl->fd, buf + len, cap - len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		char *nl;
		while ((nl = memchr(buf, '\n', len)) != NULL) {
			*nl = '\0';
			if (!rxpeer_ctl_is_blank(buf)) {
				char *reply = rxpeer_ctl_exec(cl->ctl, buf);
				if (reply) {
					size_t rl = strlen(reply);
					reply[rl] = '\n'; /* overwrite NUL: send reply + newline */
					int werr = rxpeer_ctl_write_all(cl->fd, reply, rl + 1);
					free(reply);
					if (werr)
						goto out;
				}
			}
			size_t used = (size_t)(nl - buf) + 1;
			memmove(buf, nl + 1, len - used);
			len -= used;
		}
	}
out:
	free(buf);
	close(cl->fd);
	free(cl);
	return NULL;
}

static void *rxpeer_ctl_accept_thread(void *arg)
{
	struct rxpeer_ctl *c = arg;
	for (;;) {
		int fd = accept(c->listen_fd, NULL, NULL);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			break; /* listening socket closed: stop */
		}
		struct rxpeer_ctl_client *cl = malloc(sizeof(*cl));
		pthread_t t;
		pthread_attr_t at;
		if (cl == NULL) {
			close(fd);
			continue;
		}
		cl->ctl = c;
		cl->fd = fd;
		pthread_attr_init(&at);
		pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &at, rxpeer_ctl_client_thread, cl) != 0) {
			close(fd);
			free(cl);
		}
		pthread_attr_destroy(&at);
	}
	return NULL;
}

int rxpeer_ctl_serve_unix(struct rxpeer_ctl *c, const char *path)
{
	struct sockaddr_un sa;
	struct stat st;
	int ret;

	if (strlen(path) >= sizeof(sa.sun_path))
		return ENAMETOOLONG;
	if (stat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return EEXIST; /* never remove a regular file */
		unlink(path);
	}
	c->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->listen_fd < 0)
		return errno;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	strcpy(sa.sun_path, path);
	if (bind(c->listen_fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(c->listen_fd, 16) != 0) {
		ret = errno;
		close(c->listen_fd);
		c->listen_fd = -1;
		return ret;
	}
	snprintf(c->path, sizeof c->path, "%s", path);
	if ((ret = pthread_create(&c->accept_thr, NULL, rxpeer_ctl_accept_thread, c)) != 0) {
		close(c->listen_fd);
		c->listen_fd = -1;
		unlink(path);
		return ret;
	}
	c->accept_started = 1;
	return 0;
}

void rxpeer_ctl_stop(struct rxpeer_ctl *c)
{
	if (c->listen_fd >= 0) {
		shutdown(c->listen_fd, SHUT_RDWR); /* wakes accept() */
		if (c->accept_started)
			pthread_join(c->accept_thr, NULL);
		close(c->listen_fd);
		c->listen_fd = -1;
		c->accept_started = 0;
	}
	if (c->path[0]) {
		unlink(c->path);
		c->path[0] = '\0';
	}
}
