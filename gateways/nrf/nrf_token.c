/* OAuth2 access tokens from the NRF; see nrf_token.h. */
#include "gateways/nrf/nrf_token.h"

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/diag.h"
#include "gateways/admission/message_profile.h"

/* Refresh when less than this share of the lifetime is left. */
#define REFRESH_PERCENT 10

typedef struct waiter {
    struct waiter *next;
    bsf_sbi_token_done_fn done;
    void *req;
} waiter_t;

typedef struct entry {
    struct entry *next;
    bsf_nrf_tokens_t *owner;
    char scope[256], nf_type[32];
    char *token;
    int64_t refresh_at_ms;
    bool fetching;
    uint32_t tried;          /* NRFs asked in this fetch (a bit per index) */
    int target;              /* the NRF asked now */
    waiter_t *waiters;
} entry_t;

struct bsf_nrf_tokens {
    bsf_sbi_client_t *sbi;
    char instance_id[64];
    bsf_nrf_health_t *nrfs;
    unsigned timeout_ms;
    entry_t *entries;
};

static int64_t mono_ms(void)
{
    return (int64_t)(bsf_clock_mono_ns() / 1000000u);
}

/* application/x-www-form-urlencoded value */
static void form_escape(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (; *in && o + 4 < cap; in++) {
        unsigned char ch = (unsigned char)*in;
        if (isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '~')
            out[o++] = (char)ch;
        else
            o += (size_t)snprintf(out + o, cap - o, "%%%02X", ch);
    }
    out[o] = '\0';
}

static void complete(entry_t *e, const char *token, const char *why)
{
    waiter_t *w = e->waiters;
    e->waiters = NULL;
    e->fetching = false;
    while (w) {
        waiter_t *next = w->next;
        w->done(w->req, token, why);
        free(w);
        w = next;
    }
}

static int fetch(bsf_nrf_tokens_t *t, entry_t *e, char *why, size_t cap);

/* The NRF failed (nrf_health.h): the next one, when there is one. Returns true when asked. */
static bool next_nrf(entry_t *e, const bsf_sbi_response_t *rsp)
{
    bsf_nrf_tokens_t *t = e->owner;
    if (!bsf_nrf_health_report(t->nrfs, e->target, rsp))
        return false;
    char why[200];
    BSF_WARN("nrf", "token request to %s failed (%s): the next NRF",
             bsf_nrf_health_uri(t->nrfs, e->target),
             rsp->result == BSF_SBI_OK ? "an NRF failure status" : rsp->error);
    return fetch(t, e, why, sizeof why) == 0;
}

static void on_token_answer(void *arg, const bsf_sbi_response_t *rsp)
{
    entry_t *e = arg;
    if (next_nrf(e, rsp))
        return;
    char why[200];
    json_t *root = rsp->result == BSF_SBI_OK ? json_loadb(rsp->body, rsp->body_len, 0, NULL)
                                             : NULL;
    const char *tok = json_string_value(json_object_get(root, "access_token"));
    const char *type = json_string_value(json_object_get(root, "token_type"));
    if (rsp->result != BSF_SBI_OK) {
        snprintf(why, sizeof why, "token request: %s", rsp->error);
    } else if (rsp->status != 200 || !tok || !type || strcmp(type, "Bearer") != 0) {
        const char *err = json_string_value(json_object_get(root, "error"));
        snprintf(why, sizeof why, "token request: %d %s", rsp->status, err ? err : "");
        tok = NULL;
    }
    if (tok) {
        json_t *exp = json_object_get(root, "expires_in");
        int64_t life = json_is_integer(exp) && json_integer_value(exp) > 0
                           ? json_integer_value(exp) * 1000
                           : 3600000;
        free(e->token);
        e->token = strdup(tok);
        e->refresh_at_ms = mono_ms() + life - life * REFRESH_PERCENT / 100;
    } else {
        BSF_WARN("nrf", "%s (scope %s)", why, e->scope);
    }
    complete(e, e->token && tok ? e->token : NULL, why);
    json_decref(root);
}

static int fetch(bsf_nrf_tokens_t *t, entry_t *e, char *why, size_t cap)
{
    char uri[320], scope[512], body[1024];
    unsigned asked = (unsigned)__builtin_popcount(e->tried);
    int i = bsf_nrf_health_pick(t->nrfs, e->tried);
    if (i < 0 || !bsf_nrf_health_may_try(t->nrfs, asked)) {
        snprintf(why, cap, asked ? "token request: no other NRF to ask"
                                 : "no NRF for the token request");
        return -1;
    }
    e->tried |= 1u << i;
    e->target = i;
    snprintf(uri, sizeof uri, "%s/oauth2/token", bsf_nrf_health_uri(t->nrfs, i));
    form_escape(e->scope, scope, sizeof scope);
    int n = snprintf(body, sizeof body,
                     "grant_type=client_credentials&nfInstanceId=%s&nfType=BSF&scope=%s",
                     t->instance_id, scope);
    if (e->nf_type[0] && n > 0 && (size_t)n < sizeof body)
        snprintf(body + n, sizeof body - (size_t)n, "&targetNfType=%s", e->nf_type);
    bsf_sbi_retry_profile_t retry;
    bsf_nrf_health_retry_profile(t->nrfs, i, t->timeout_ms, &retry);
    bsf_sbi_request_t q = {.method = "POST", .uri = uri,
                           .content_type = "application/x-www-form-urlencoded",
                           .body = body, .body_len = strlen(body), .timeout_ms = t->timeout_ms,
                           .priority = bsf_message_profile_nrf(BSF_MP_ACCESS_TOKEN),
                           .metric = {BSF_MP_EGRESS_ACCESS_TOKEN, -1},
                           .retry = &retry};
    return bsf_sbi_client_submit(t->sbi, &q, on_token_answer, e, why, cap);
}

static entry_t *entry_for(bsf_nrf_tokens_t *t, const char *scope, const char *nf_type)
{
    for (entry_t *e = t->entries; e; e = e->next)
        if (strcmp(e->scope, scope) == 0 && strcmp(e->nf_type, nf_type) == 0)
            return e;
    entry_t *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->owner = t;
    snprintf(e->scope, sizeof e->scope, "%s", scope);
    snprintf(e->nf_type, sizeof e->nf_type, "%s", nf_type);
    e->next = t->entries;
    t->entries = e;
    return e;
}

static void get(void *ctx, const char *scope, const char *nf_type, bsf_sbi_token_done_fn done,
                void *req)
{
    bsf_nrf_tokens_t *t = ctx;
    entry_t *e = entry_for(t, scope, nf_type ? nf_type : "");
    if (!e) {
        done(req, NULL, "out of memory");
        return;
    }
    if (e->token && mono_ms() < e->refresh_at_ms) {
        done(req, e->token, NULL);
        return;
    }
    waiter_t *w = malloc(sizeof *w);
    if (!w) {
        done(req, NULL, "out of memory");
        return;
    }
    *w = (waiter_t){e->waiters, done, req};
    e->waiters = w;
    char why[200];
    if (!e->fetching) {
        e->fetching = true;
        e->tried = 0;
        if (fetch(t, e, why, sizeof why))
            complete(e, NULL, why);
    }
}

static void invalidate(void *ctx, const char *scope, const char *nf_type, const char *token)
{
    bsf_nrf_tokens_t *t = ctx;
    entry_t *e = entry_for(t, scope, nf_type ? nf_type : "");
    if (e && e->token && strcmp(e->token, token) == 0)
        e->refresh_at_ms = 0;
}

bsf_nrf_tokens_t *bsf_nrf_tokens_new(bsf_sbi_client_t *sbi, const char *nf_instance_id,
                                     bsf_nrf_health_t *nrfs, unsigned timeout_ms)
{
    bsf_nrf_tokens_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->sbi = sbi;
    snprintf(t->instance_id, sizeof t->instance_id, "%s", nf_instance_id);
    t->nrfs = nrfs;
    t->timeout_ms = timeout_ms;
    return t;
}

void bsf_nrf_tokens_install(bsf_nrf_tokens_t *t)
{
    bsf_sbi_token_provider_t p = {get, invalidate, t};
    bsf_sbi_client_set_token_provider(t->sbi, &p);
}

void bsf_nrf_tokens_free(bsf_nrf_tokens_t *t)
{
    if (!t)
        return;
    while (t->entries) {
        entry_t *e = t->entries;
        t->entries = e->next;
        complete(e, NULL, "stopped");
        free(e->token);
        free(e);
    }
    free(t);
}
