/* rxpeer_fd.c - see rxpeer_fd.h */
#include "rxpeer_fd.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err_format.h"
#include "common/ip_literal.h"
#include "gateways/diameter/rx_dict.h"
#include "rxpeer_time.h"

/*
 * libfdcore's logger and peer-validation callbacks take no user pointer, so their settings live
 * here (written once in rxpeer_fd_init(), before any libfdcore thread runs).
 */
static int rxpeer_fd_log_level = FD_LOG_NOTICE;
static const char *const *rxpeer_fd_accept_ids;
static int rxpeer_fd_accept_all;

/* libfdcore can stop on its own (a fatal error in one of its routing or dispatch threads calls
 * fd_core_shutdown()): a watchdog thread joins the core and raises this flag. */
static atomic_int rxpeer_fd_down;
static pthread_t rxpeer_fd_watch;
static int rxpeer_fd_watch_started;

static void *rxpeer_fd_watchdog(void *arg)
{
	(void)arg;
	fd_core_wait_shutdown_complete();
	atomic_store(&rxpeer_fd_down, 1);
	return NULL;
}

/* freeDiameter log lines go to stderr, never stdout (stdout carries JSON). */
static void rxpeer_fd_logger(int level, const char *format, va_list args)
{
	static const char *names[] = { "ANNOY", "DEBUG", "2", "NOTI", "4", "ERROR", "FATAL" };
	if (level < rxpeer_fd_log_level)
		return;
	char line[2048];
	vsnprintf(line, sizeof line, format, args);
	/* libfdcore announces every normal shutdown at FATAL level: do not alarm readers of stderr */
	if (level == FD_LOG_FATAL && strncmp(line, "Initiating freeDiameter shutdown", 32) == 0) {
		if (rxpeer_fd_log_level > FD_LOG_NOTICE)
			return;
		level = FD_LOG_NOTICE;
	}
	fprintf(stderr, "fd %s: %s\n", (level >= 0 && level <= 6) ? names[level] : "?", line);
}

/* Incoming connection from a peer not declared with ConnectPeer. */
static int rxpeer_fd_validate(struct peer_info *info, int *auth, int (**cb2)(struct peer_info *))
{
	(void)cb2;
	*auth = 0; /* no opinion: libfdcore rejects unknown peers by default */
	int ok = rxpeer_fd_accept_all;
	for (const char *const *id = rxpeer_fd_accept_ids; !ok && id && *id; id++)
		ok = strcasecmp(*id, info->pi_diamid) == 0;
	if (ok) {
		*auth = 1;
		info->config.pic_flags.sec = PI_SEC_NONE; /* plain TCP: TLS is disabled on test peers */
	}
	return 0;
}

/* Write the configuration file. */
static int rxpeer_fd_write_conf(FILE *f, const struct rxpeer_fd_opts *o, int v6)
{
	static const char *const exts[] = BSF_RX_DICT_EXTENSIONS;

	fprintf(f, "Identity = \"%s\";\nRealm = \"%s\";\n", o->identity, o->realm);
	fprintf(f, "Port = %u;\nSecPort = %u;\nNo_SCTP;\nNoRelay;\n", (unsigned)o->port,
	    o->tls_cert ? (unsigned)o->tls_port : 0u);
	if (o->tls_cert) {
		fprintf(f, "TLS_Cred = \"%s\", \"%s\";\nTLS_CA = \"%s\";\n", o->tls_cert,
		    o->tls_key ? o->tls_key : "", o->tls_ca ? o->tls_ca : o->tls_cert);
		if (o->tls_priority)
			fprintf(f, "TLS_Prio = \"%s\";\n", o->tls_priority);
	}
	fprintf(f, v6 ? "No_IP;\n" : "No_IPv6;\n");
	if (o->app_threads)
		fprintf(f, "AppServThreads = %u;\n", o->app_threads);
	if (o->tc_timer)
		fprintf(f, "TcTimer = %u;\n", o->tc_timer);
	for (const char *const *e = exts; *e; e++) {
		if (o->ext_dir)
			fprintf(f, "LoadExtension = \"%s/%s\";\n", o->ext_dir, *e);
		else
			fprintf(f, "LoadExtension = \"%s\";\n", *e);
	}
	for (size_t i = 0; i < o->n_connect; i++) {
		const struct rxpeer_fd_peer *p = &o->connect[i];
		fprintf(f, "ConnectPeer = \"%s\" { ConnectTo = \"%s\"; Port = %u; %sNo_SCTP; };\n",
		    p->id, p->host, (unsigned)p->port, o->tls_connect ? "" : "No_TLS; ");
	}
	return ferror(f) ? EIO : 0;
}

/* Replace whatever the configuration produced by exactly the listen address (EP_ACCEPTALL). */
static int rxpeer_fd_set_listen(const char *addr, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl = bsf_ip_literal_parse(addr, &ss);
	if (!sl)
		return bsf_err_format(err, errlen, EINVAL, "listen address '%s' is not an IP literal", addr);
	int ret = fd_ep_filter(&fd_g_config->cnf_endpoints, 0); /* empties the list */
	if (ret == 0)
		ret = fd_ep_add_merge(&fd_g_config->cnf_endpoints, (sSA *)&ss, sl, EP_FL_CONF | EP_ACCEPTALL);
	if (ret != 0)
		return bsf_err_format(err, errlen, ret, "cannot set listen address %s: %s", addr, strerror(ret));
	return 0;
}

int rxpeer_fd_init(const struct rxpeer_fd_opts *o, char *err, size_t errlen)
{
	char path[] = "/tmp/rxpeer-XXXXXX";
	const char *listen = o->listen ? o->listen : "127.0.0.1";
	int v6 = strchr(listen, ':') != NULL;
	int ret, fd;
	FILE *f;

	if (o->identity == NULL || o->realm == NULL)
		return bsf_err_format(err, errlen, EINVAL, "identity and realm are required");
	rxpeer_fd_log_level = o->log_level;
	rxpeer_fd_accept_ids = o->accept;
	rxpeer_fd_accept_all = o->accept_any;

	if ((ret = fd_log_handler_register(rxpeer_fd_logger)) != 0)
		return bsf_err_format(err, errlen, ret, "fd_log_handler_register: %s", strerror(ret));
	if ((ret = fd_core_initialize()) != 0)
		return bsf_err_format(err, errlen, ret, "fd_core_initialize: %s", strerror(ret));

	if ((fd = mkstemp(path)) < 0)
		return bsf_err_format(err, errlen, errno, "mkstemp: %s", strerror(errno));
	if ((f = fdopen(fd, "w")) == NULL) {
		ret = errno;
		close(fd);
		unlink(path);
		return bsf_err_format(err, errlen, ret, "fdopen: %s", strerror(ret));
	}
	ret = rxpeer_fd_write_conf(f, o, v6);
	if (fclose(f) != 0 && ret == 0)
		ret = errno;
	if (ret == 0)
		ret = fd_core_parseconf(path);
	unlink(path);
	if (ret != 0)
		return bsf_err_format(err, errlen, ret, "freeDiameter configuration rejected: %s (see stderr)",
		    strerror(ret));

	if ((ret = rxpeer_fd_set_listen(listen, err, errlen)) != 0)
		return ret;
	if ((ret = fd_peer_validate_register(rxpeer_fd_validate)) != 0)
		return bsf_err_format(err, errlen, ret, "fd_peer_validate_register: %s", strerror(ret));
	return 0;
}

int rxpeer_fd_start(char *err, size_t errlen)
{
	int ret;
	if ((ret = fd_core_start()) != 0)
		return bsf_err_format(err, errlen, ret, "fd_core_start: %s (port in use?)", strerror(ret));
	if ((ret = fd_core_waitstartcomplete()) != 0)
		return bsf_err_format(err, errlen, ret, "fd_core_waitstartcomplete: %s", strerror(ret));
	if ((ret = pthread_create(&rxpeer_fd_watch, NULL, rxpeer_fd_watchdog, NULL)) != 0)
		return bsf_err_format(err, errlen, ret, "watchdog thread: %s", strerror(ret));
	rxpeer_fd_watch_started = 1;
	return 0;
}

int rxpeer_fd_is_down(void)
{
	return atomic_load(&rxpeer_fd_down);
}

void rxpeer_fd_stop(void)
{
	if (!atomic_load(&rxpeer_fd_down))
		fd_core_shutdown();
	if (rxpeer_fd_watch_started) {
		pthread_join(rxpeer_fd_watch, NULL);
		rxpeer_fd_watch_started = 0;
	}
}

const char *rxpeer_fd_peer_state(const char *id)
{
	struct peer_hdr *p = NULL;
	if (fd_peer_getbyid((DiamId_t)id, strlen(id), 1, &p) != 0 || p == NULL)
		return "unknown";
	return STATE_STR(fd_peer_get_state(p));
}

int rxpeer_fd_wait_open(const char *id, uint32_t timeout_ms)
{
	uint64_t until = rxpeer_mono_ns() + (uint64_t)timeout_ms * 1000000u;
	do {
		struct peer_hdr *p = NULL;
		if (fd_peer_getbyid((DiamId_t)id, strlen(id), 1, &p) == 0 && p != NULL &&
		    fd_peer_get_state(p) == STATE_OPEN)
			return 0;
		if (atomic_load(&rxpeer_fd_down))
			return ECONNABORTED;
		usleep(20000);
	} while (rxpeer_mono_ns() < until);
	return ETIMEDOUT;
}

void rxpeer_fd_peers_json(struct rxpeer_json *j, const char *key)
{
	rxpeer_json_arr_begin(j, key);
	if (pthread_rwlock_rdlock(&fd_g_peers_rw) == 0) {
		for (struct fd_list *li = fd_g_peers.next; li != &fd_g_peers; li = li->next) {
			struct peer_hdr *p = (struct peer_hdr *)li;
			rxpeer_json_obj_begin(j, NULL);
			rxpeer_json_str(j, "id", p->info.pi_diamid);
			if (p->info.runtime.pir_realm)
				rxpeer_json_str(j, "realm", p->info.runtime.pir_realm);
			rxpeer_json_str(j, "state", STATE_STR(fd_peer_get_state(p)));
			rxpeer_json_obj_end(j);
		}
		pthread_rwlock_unlock(&fd_g_peers_rw);
	}
	rxpeer_json_arr_end(j);
}
