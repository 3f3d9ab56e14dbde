/* af_load.c - see af_load.h */
#include "af_load.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "af_build.h"
#include "rxpeer_ctl.h"
#include "rxpeer_msg.h"
#include "rxpeer_msgjson.h"
#include "rxpeer_time.h"

enum af_load_kind { AFL_AAR_I = 0, AFL_AAR_U, AFL_STR, AFL_KINDS };
static const char *const af_load_kind_names[AFL_KINDS] = { "aar-i", "aar-u", "str" };

#define AFL_MAX_CODES 64

struct af_load;

/* One request chain: a session at a time, step 0/1/2 = AAR-I/AAR-U/STR. */
struct af_chain {
	struct af_load *L;
	int step;
	char sid[192];
	char ue[64];
	uint8_t addr[18];
	size_t addr_len;
};

struct af_load {
	struct af *af;
	const struct af_load_params *p;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int active;                          /* chains still running (mu) */
	uint64_t t_end;                      /* when the last chain finished (mu) */
	atomic_uint_fast64_t next_session;
	atomic_uint_fast64_t n_sent, n_answers, n_timeouts, n_dropped, n_lost, n_send_errors;
	uint32_t *lat[AFL_KINDS];            /* latencies in microseconds */
	atomic_uint_fast64_t n_lat[AFL_KINDS];
	struct { uint32_t code; uint64_t n; } codes[AFL_MAX_CODES]; /* mu */
	size_t n_codes;
	struct af_chain *chains;
};

/* UE address number i: base + i (IPv4), or base prefix + i in the 4th 16-bit group (IPv6 /64). */
static void af_load_address(const struct af_load_params *p, uint64_t i, struct af_chain *c)
{
	uint32_t k = (uint32_t)(i % (p->ip_count ? p->ip_count : 1));
	if (!p->v6) {
		uint32_t a;
		memcpy(&a, p->ip_base, 4);
		a = htonl(ntohl(a) + k);
		memcpy(c->addr, &a, 4);
		c->addr_len = 4;
		inet_ntop(AF_INET, c->addr, c->ue, sizeof c->ue);
		return;
	}
	uint8_t pfx[16];
	memset(pfx, 0, sizeof pfx);
	memcpy(pfx, p->ip_base, 8);
	uint64_t hi = 0;
	for (int b = 0; b < 8; b++)
		hi = (hi << 8) | pfx[b];
	hi += k;
	for (int b = 7; b >= 0; b--) {
		pfx[b] = (uint8_t)hi;
		hi >>= 8;
	}
	c->addr[0] = 0;
	c->addr[1] = 64;
	memcpy(c->addr + 2, pfx, 16);
	c->addr_len = 18;
	char t[INET6_ADDRSTRLEN];
	pfx[15] = 1; /* the UE's own address inside its /64, for the flow filters */
	inet_ntop(AF_INET6, pfx, t, sizeof t);
	snprintf(c->ue, sizeof c->ue, "%s", t);
}

static int af_load_build(struct af_chain *c, struct msg **m)
{
	const struct af_load_params *p = c->L->p;
	const bsf_rx_dict_t *rx = &c->L->af->app.rx;

	if (c->step == AFL_STR)
		return af_build_str(rx, c->sid, p->dest_realm, p->dest_host, 1 /* DIAMETER_LOGOUT */, m);

	struct af_aar q;
	memset(&q, 0, sizeof q);
	q.sid = c->sid;
	q.dest_realm = p->dest_realm;
	q.dest_host = p->dest_host;
	q.ue_text = c->ue;
	q.media = p->media;
	q.media_number = 1;
	q.app_hdr = BSF_RX_APP_ID;
	q.app_avp = BSF_RX_APP_ID;
	q.af_app_id = "IMS Services";
	if (c->step == AFL_AAR_I) {
		q.rx_request_type = 0;
		if (p->v6) {
			q.ipv6 = c->addr;
			q.ipv6_len = c->addr_len;
		} else {
			q.ipv4 = c->addr;
			q.ipv4_len = c->addr_len;
		}
	} else {
		q.rx_request_type = 1;
	}
	return af_build_aar(rx, &q, m);
}

static void af_load_done(void *arg, enum rxpeer_req_status st, struct msg *ans, uint64_t latency_ns);

/* Send the chain's current step. 0 or errno (nothing in flight then). */
static int af_load_send(struct af_chain *c)
{
	struct msg *m = NULL;
	int ret = af_load_build(c, &m);
	if (ret == 0)
		ret = rxpeer_req_send(&c->L->af->app.req, &m, c->L->p->timeout_ms, af_load_done, c);
	if (ret != 0) {
		if (m)
			fd_msg_free(m);
		atomic_fetch_add(&c->L->n_send_errors, 1);
		return ret;
	}
	atomic_fetch_add(&c->L->n_sent, 1);
	return 0;
}

/* Move the chain to its next session, or finish it. */
static void af_load_next_session(struct af_chain *c)
{
	struct af_load *L = c->L;
	for (;;) {
		uint64_t i = atomic_fetch_add(&L->next_session, 1);
		if (i >= L->p->sessions)
			break;
		c->step = AFL_AAR_I;
		af_sid_make(L->af, c->sid, sizeof c->sid);
		af_load_address(L->p, i, c);
		if (af_load_send(c) == 0)
			return;
	}
	pthread_mutex_lock(&L->mu);
	if (--L->active == 0) {
		L->t_end = rxpeer_mono_ns();
		pthread_cond_broadcast(&L->cv);
	}
	pthread_mutex_unlock(&L->mu);
}

static void af_load_count_code(struct af_load *L, uint32_t code)
{
	pthread_mutex_lock(&L->mu);
	size_t i;
	for (i = 0; i < L->n_codes && L->codes[i].code != code; i++)
		;
	if (i == L->n_codes && L->n_codes < AFL_MAX_CODES)
		L->codes[L->n_codes++].code = code;
	if (i < L->n_codes)
		L->codes[i].n++;
	pthread_mutex_unlock(&L->mu);
}

static void af_load_record(struct af_load *L, struct af_chain *c, enum rxpeer_req_status st,
    struct msg *ans, uint64_t latency_ns)
{
	struct rxpeer_json j;
	rxpeer_json_init(&j);
	rxpeer_json_obj_begin(&j, NULL);
	rxpeer_json_str(&j, "type", st == RXPEER_REQ_ANSWER ? "recv" : "no_answer");
	rxpeer_json_dbl(&j, "ts", rxpeer_wall_s(), 6);
	rxpeer_json_str(&j, "label", af_load_kind_names[c->step]);
	rxpeer_json_str(&j, "status", rxpeer_req_status_name(st));
	rxpeer_json_dbl(&j, "latency_ms", (double)latency_ns / 1e6, 3);
	if (ans && st == RXPEER_REQ_ANSWER)
		rxpeer_msgjson_fields(&j, ans);
	else
		rxpeer_json_str(&j, "session_id", c->sid);
	rxpeer_json_obj_end(&j);
	rxpeer_app_emit(&L->af->app, &j);
	rxpeer_json_free(&j);
}

static void af_load_done(void *arg, enum rxpeer_req_status st, struct msg *ans, uint64_t latency_ns)
{
	struct af_chain *c = arg;
	struct af_load *L = c->L;
	uint32_t code = 0;

	uint64_t k = atomic_fetch_add(&L->n_lat[c->step], 1);
	if (k < L->p->sessions) {
		uint64_t us = latency_ns / 1000;
		L->lat[c->step][k] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
	}
	switch (st) {
	case RXPEER_REQ_ANSWER: {
		struct rxpeer_result res;
		atomic_fetch_add(&L->n_answers, 1);
		if (rxpeer_msg_result(ans, &res) == 0)
			code = rxpeer_result_code(&res);
		af_load_count_code(L, code);
		break;
	}
	case RXPEER_REQ_TIMEOUT: atomic_fetch_add(&L->n_timeouts, 1); break;
	case RXPEER_REQ_DROPPED: atomic_fetch_add(&L->n_dropped, 1); break;
	case RXPEER_REQ_LOST: atomic_fetch_add(&L->n_lost, 1); break;
	}
	if (L->p->record || st != RXPEER_REQ_ANSWER)
		af_load_record(L, c, st, ans, latency_ns);

	if (L->p->mix && st == RXPEER_REQ_ANSWER && code == 2001 && c->step < AFL_STR) {
		c->step++;
		if (af_load_send(c) == 0)
			return;
	}
	af_load_next_session(c);
}

/* ---------------------------------------------------------------------------------------- */
/* Report                                                                                   */
/* ---------------------------------------------------------------------------------------- */

static int af_load_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static double af_load_pct(const uint32_t *v, size_t n, double q)
{
	if (n == 0)
		return 0;
	return v[(size_t)((double)(n - 1) * q + 0.5)] / 1000.0; /* ms */
}

struct af_load_cpu {
	double user_s, sys_s;
};

static struct af_load_cpu af_load_cpu_now(void)
{
	struct rusage ru;
	struct af_load_cpu c = { 0, 0 };
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		c.user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		c.sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
	return c;
}

static void af_load_report(struct af_load *L, uint64_t t0, struct af_load_cpu c0, struct af_load_cpu c1,
    struct rxpeer_json *j)
{
	double elapsed = (double)(L->t_end - t0) / 1e9;
	uint64_t answers = atomic_load(&L->n_answers);
	size_t n_all = 0;
	uint32_t *all = NULL;

	for (int k = 0; k < AFL_KINDS; k++) {
		size_t n = atomic_load(&L->n_lat[k]);
		if (n > L->p->sessions)
			n = L->p->sessions;
		L->n_lat[k] = n;
		qsort(L->lat[k], n, sizeof(uint32_t), af_load_cmp_u32);
		n_all += n;
	}
	all = malloc((n_all ? n_all : 1) * sizeof(uint32_t));
	double sum = 0;
	size_t pos = 0;
	for (int k = 0; all && k < AFL_KINDS; k++) {
		for (size_t i = 0; i < L->n_lat[k]; i++) {
			all[pos++] = L->lat[k][i];
			sum += L->lat[k][i];
		}
	}
	if (all)
		qsort(all, n_all, sizeof(uint32_t), af_load_cmp_u32);

	rxpeer_json_u64(j, "sessions", L->p->sessions);
	rxpeer_json_bool(j, "mix", L->p->mix);
	rxpeer_json_u64(j, "window", L->p->window);
	rxpeer_json_u64(j, "requests", atomic_load(&L->n_sent));
	rxpeer_json_u64(j, "answers", answers);
	rxpeer_json_u64(j, "timeouts", atomic_load(&L->n_timeouts));
	rxpeer_json_u64(j, "dropped", atomic_load(&L->n_dropped));
	rxpeer_json_u64(j, "lost", atomic_load(&L->n_lost));
	rxpeer_json_u64(j, "send_errors", atomic_load(&L->n_send_errors));
	rxpeer_json_dbl(j, "elapsed_s", elapsed, 3);
	rxpeer_json_dbl(j, "answers_per_s", elapsed > 0 ? answers / elapsed : 0, 1);
	rxpeer_json_obj_begin(j, "latency_ms");
	if (all) {
		rxpeer_json_dbl(j, "p50", af_load_pct(all, n_all, 0.50), 3);
		rxpeer_json_dbl(j, "p90", af_load_pct(all, n_all, 0.90), 3);
		rxpeer_json_dbl(j, "p99", af_load_pct(all, n_all, 0.99), 3);
		rxpeer_json_dbl(j, "max", n_all ? all[n_all - 1] / 1000.0 : 0, 3);
		rxpeer_json_dbl(j, "mean", n_all ? sum / n_all / 1000.0 : 0, 3);
	}
	rxpeer_json_obj_end(j);
	rxpeer_json_obj_begin(j, "by_cmd");
	for (int k = 0; k < AFL_KINDS; k++) {
		if (L->n_lat[k] == 0)
			continue;
		rxpeer_json_obj_begin(j, af_load_kind_names[k]);
		rxpeer_json_u64(j, "n", L->n_lat[k]);
		rxpeer_json_dbl(j, "p50", af_load_pct(L->lat[k], L->n_lat[k], 0.50), 3);
		rxpeer_json_dbl(j, "p99", af_load_pct(L->lat[k], L->n_lat[k], 0.99), 3);
		rxpeer_json_obj_end(j);
	}
	rxpeer_json_obj_end(j);
	rxpeer_json_obj_begin(j, "result_codes");
	for (size_t i = 0; i < L->n_codes; i++) {
		char k[16];
		snprintf(k, sizeof k, "%u", L->codes[i].code);
		rxpeer_json_u64(j, k, L->codes[i].n);
	}
	rxpeer_json_obj_end(j);
	rxpeer_json_obj_begin(j, "cpu");
	double cpu = (c1.user_s - c0.user_s) + (c1.sys_s - c0.sys_s);
	rxpeer_json_dbl(j, "user_s", c1.user_s - c0.user_s, 3);
	rxpeer_json_dbl(j, "sys_s", c1.sys_s - c0.sys_s, 3);
	rxpeer_json_dbl(j, "us_per_answer", answers ? cpu * 1e6 / answers : 0, 2);
	rxpeer_json_obj_end(j);
	free(all);
}

/* ---------------------------------------------------------------------------------------- */

void af_load_run(struct af *af, const struct af_load_params *p, struct rxpeer_json *reply)
{
	struct af_load L;
	int saved_record = atomic_load(&af->app.record);
	int ok = 1;

	memset(&L, 0, sizeof L);
	L.af = af;
	L.p = p;
	if (p->sessions == 0 || p->window == 0) {
		rxpeer_ctl_error(reply, "n and window must be > 0");
		return;
	}
	size_t chains = p->window < p->sessions ? p->window : (size_t)p->sessions;
	for (int k = 0; k < AFL_KINDS && ok; k++)
		ok = (L.lat[k] = calloc(p->sessions, sizeof(uint32_t))) != NULL;
	L.chains = ok ? calloc(chains, sizeof(*L.chains)) : NULL;
	if (!ok || L.chains == NULL) {
		for (int k = 0; k < AFL_KINDS; k++)
			free(L.lat[k]);
		rxpeer_ctl_error(reply, "out of memory for %llu sessions", (unsigned long long)p->sessions);
		return;
	}
	pthread_mutex_init(&L.mu, NULL);
	pthread_cond_init(&L.cv, NULL);
	atomic_store(&af->app.record, p->record);

	struct af_load_cpu c0 = af_load_cpu_now();
	uint64_t t0 = rxpeer_mono_ns();
	L.active = (int)chains;
	for (size_t i = 0; i < chains; i++) {
		L.chains[i].L = &L;
		af_load_next_session(&L.chains[i]);
	}
	pthread_mutex_lock(&L.mu);
	while (L.active > 0)
		pthread_cond_wait(&L.cv, &L.mu);
	pthread_mutex_unlock(&L.mu);
	struct af_load_cpu c1 = af_load_cpu_now();
	atomic_store(&af->app.record, saved_record);

	rxpeer_json_bool(reply, "ok", 1);
	af_load_report(&L, t0, c0, c1, reply);

	struct rxpeer_json ev;
	rxpeer_json_init(&ev);
	rxpeer_json_obj_begin(&ev, NULL);
	rxpeer_json_str(&ev, "type", "load_report");
	rxpeer_json_dbl(&ev, "ts", rxpeer_wall_s(), 6);
	af_load_report(&L, t0, c0, c1, &ev);
	rxpeer_json_obj_end(&ev);
	if (af->app.events != &af->app.stdout_sink) /* on stdout the reply already shows it */
		rxpeer_app_emit(&af->app, &ev);
	rxpeer_json_free(&ev);

	for (int k = 0; k < AFL_KINDS; k++)
		free(L.lat[k]);
	free(L.chains);
	pthread_mutex_destroy(&L.mu);
	pthread_cond_destroy(&L.cv);
}
