/* Synchronous SBI calls of the unit tests (see sbi_call_fixtures.h). */
#include "tests/unit/sbi_call_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

void sc_call_init(sc_call_t *c)
{
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
}

static void copy_header(const bsf_sbi_response_t *rsp, const char *name, char *out, size_t cap)
{
    const char *v = bsf_sbi_response_header(rsp, name);
    snprintf(out, cap, "%s", v ? v : "");
}

void sc_call_done(void *arg, const bsf_sbi_response_t *rsp)
{
    sc_call_t *c = arg;
    char name[32] = "";
    pthread_getname_np(pthread_self(), name, sizeof name);
    pthread_mutex_lock(&c->mu);
    c->on_client_thread = strcmp(name, "bsf-sbi-client") == 0;
    c->calls++;
    c->result = rsp->result;
    c->status = rsp->status;
    snprintf(c->body, sizeof c->body, "%s", rsp->body);
    c->body_len = rsp->body_len;
    copy_header(rsp, "server", c->server, sizeof c->server);
    copy_header(rsp, "x-conn", c->conn, sizeof c->conn);
    snprintf(c->error, sizeof c->error, "%s", rsp->error ? rsp->error : "");
    c->has_problem = rsp->has_problem;
    c->problem = rsp->problem;
    c->attempts = rsp->attempts;
    c->redirects = rsp->redirects;
    c->alternates = rsp->alternates;
    c->done = 1;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

void sc_call_wait(sc_call_t *c)
{
    pthread_mutex_lock(&c->mu);
    while (!c->done)
        pthread_cond_wait(&c->cv, &c->mu);
    pthread_mutex_unlock(&c->mu);
}

void sc_call_submit(bsf_sbi_client_t *cl, const bsf_sbi_request_t *q, sc_call_t *c)
{
    char err[160];
    sc_call_init(c);
    if (bsf_sbi_client_submit(cl, q, sc_call_done, c, err, sizeof err))
        fail_msg("submit failed: %s", err);
}

void sc_call_run(bsf_sbi_client_t *cl, const bsf_sbi_request_t *q, sc_call_t *c)
{
    sc_call_submit(cl, q, c);
    sc_call_wait(c);
}
