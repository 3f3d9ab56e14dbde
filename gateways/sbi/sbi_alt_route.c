/* Alternate routing of egress requests; see sbi_alt_route.h. */
#include "gateways/sbi/sbi_alt_route.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/metrics_text.h"
#include "common/str_pack.h"
#include "core/api_root.h"
#include "gateways/sbi/sbi_binding.h"
#include "gateways/sbi/status_list.h"
#include "gateways/sbi/sbi_uri.h"

#define TRIED_MAX (BSF_SBI_ALT_MAX + 1)

struct bsf_sbi_alt_route {
    bsf_sbi_client_t *sbi;
    bsf_nf_discovery_t *discovery;
    bool enabled, on_timeout, on_connect_error;
    unsigned max_alternates;
    uint8_t statuses[BSF_STATUS_LIST_SIZE]; /* 1: an answer with it leads to an alternate */
    atomic_uint_fast64_t sent, answered, exhausted, none;
};

typedef struct {
    bsf_sbi_response_t rsp; /* the last failure, its texts in `buf` */
    char *buf;
} saved_t;

typedef struct {
    bsf_sbi_alt_route_t *ar;
    bsf_sbi_done_fn done;
    void *arg;
    bsf_sbi_request_t req;   /* the copy: texts in `strings` */
    bsf_sbi_retry_profile_t retry;
    char *strings;
    char uri[BSF_SBI_URI_MAX];
    char api_root[BSF_SBI_URI_MAX]; /* of `uri` (with its apiPrefix); "": not known */
    const char *path;        /* below the original URI's apiRoot, into `strings` */
    char nf_type[32], set[200], service[64];
    bool can_alternate;
    uint64_t deadline_ms;
    char tried[TRIED_MAX][BSF_SBI_HOST_MAX + 8]; /* authorities */
    char tried_ids[TRIED_MAX + 1][64];            /* NF instance ids */
    size_t n_tried, n_ids;
    unsigned alternates;
    saved_t saved;
} alt_t;

static uint64_t now_ms(void)
{
    return bsf_clock_mono_ns() / 1000000u;
}

bsf_sbi_alt_route_t *bsf_sbi_alt_route_create(bsf_sbi_client_t *sbi, bsf_nf_discovery_t *discovery,
                                              const bsf_sbi_alt_config_t *cfg, char *err,
                                              size_t err_cap)
{
    bsf_sbi_alt_route_t *ar = calloc(1, sizeof *ar);
    if (!ar) {
        snprintf(err, err_cap, "out of memory");
        return NULL;
    }
    ar->sbi = sbi;
    ar->discovery = discovery;
    ar->enabled = cfg->enabled && bsf_nf_discovery_enabled(discovery);
    ar->on_timeout = cfg->on_timeout;
    ar->on_connect_error = cfg->on_connect_error;
    ar->max_alternates = cfg->max_alternates > BSF_SBI_ALT_MAX ? BSF_SBI_ALT_MAX
                                                               : cfg->max_alternates;
    if (bsf_status_list_parse(cfg->statuses ? cfg->statuses : "500,502,503,504",
                              ar->statuses)) {
        snprintf(err, err_cap, "alternate routing statuses: not a list of codes 300..599");
        free(ar);
        return NULL;
    }
    return ar;
}

void bsf_sbi_alt_route_free(bsf_sbi_alt_route_t *ar)
{
    free(ar);
}

/* ---- copies ------------------------------------------------------------------------ */

/* The request with every text and the body in one block owned by `a`. Returns 0 or -1. */
static int copy_request(alt_t *a, const bsf_sbi_request_t *r)
{
    size_t n = bsf_str_pack_size(r->method) + bsf_str_pack_size(r->uri) +
               bsf_str_pack_size(r->content_type) + r->body_len +
               bsf_str_pack_size(r->correlation_info) + bsf_str_pack_size(r->callback) +
               bsf_str_pack_size(r->routing_binding) + bsf_str_pack_size(r->binding) +
               bsf_str_pack_size(r->scp_uri) + bsf_str_pack_size(r->oauth_scope) +
               bsf_str_pack_size(r->target_nf_type) + bsf_str_pack_size(r->api_root) + 1;
    for (size_t i = 0; i < r->n_headers && i < BSF_SBI_MAX_EXTRA_HEADERS; i++)
        n += bsf_str_pack_size(r->headers[i].name) + bsf_str_pack_size(r->headers[i].value);
    char *at = a->strings = malloc(n);
    if (!at)
        return -1;
    a->req = *r;
    a->req.method = bsf_str_pack_put(&at, r->method);
    a->req.uri = bsf_str_pack_put(&at, r->uri);
    a->req.content_type = bsf_str_pack_put(&at, r->content_type);
    if (r->body_len) {
        memcpy(at, r->body, r->body_len);
        a->req.body = at;
        at += r->body_len;
    }
    a->req.correlation_info = bsf_str_pack_put(&at, r->correlation_info);
    a->req.callback = bsf_str_pack_put(&at, r->callback);
    a->req.routing_binding = bsf_str_pack_put(&at, r->routing_binding);
    a->req.binding = bsf_str_pack_put(&at, r->binding);
    a->req.scp_uri = bsf_str_pack_put(&at, r->scp_uri);
    a->req.oauth_scope = bsf_str_pack_put(&at, r->oauth_scope);
    a->req.target_nf_type = bsf_str_pack_put(&at, r->target_nf_type);
    a->req.api_root = bsf_str_pack_put(&at, r->api_root);
    for (size_t i = 0; i < a->req.n_headers; i++) {
        a->req.headers[i].name = bsf_str_pack_put(&at, r->headers[i].name);
        a->req.headers[i].value = bsf_str_pack_put(&at, r->headers[i].value);
    }
    if (r->retry) {
        a->retry = *r->retry;
        a->req.retry = &a->retry;
    }
    return 0;
}

/* Keeps the failure `rsp` for the caller in case no alternate answers. */
static void save_failure(alt_t *a, const bsf_sbi_response_t *rsp)
{
    free(a->saved.buf);
    a->saved.rsp = *rsp;
    size_t n = rsp->body_len + 1 + bsf_str_pack_size(rsp->error) + bsf_str_pack_size(rsp->uri) +
               bsf_str_pack_size(rsp->via_scp) + bsf_str_pack_size(rsp->content_type);
    for (size_t i = 0; i < rsp->n_headers; i++)
        n += bsf_str_pack_size(rsp->headers[i].name) + bsf_str_pack_size(rsp->headers[i].value);
    char *at = a->saved.buf = malloc(n);
    bsf_sbi_response_t *s = &a->saved.rsp;
    if (!at) { /* the caller still learns what happened, without the texts */
        s->body = "";
        s->body_len = 0;
        s->n_headers = 0;
        s->error = "out of memory";
        s->uri = s->via_scp = s->content_type = NULL;
        return;
    }
    memcpy(at, rsp->body ? rsp->body : "", rsp->body_len);
    at[rsp->body_len] = '\0';
    s->body = at;
    at += rsp->body_len + 1;
    s->error = bsf_str_pack_put(&at, rsp->error);
    s->uri = bsf_str_pack_put(&at, rsp->uri);
    s->via_scp = bsf_str_pack_put(&at, rsp->via_scp);
    for (size_t i = 0; i < rsp->n_headers; i++) {
        s->headers[i].name = bsf_str_pack_put(&at, rsp->headers[i].name);
        s->headers[i].value = bsf_str_pack_put(&at, rsp->headers[i].value);
    }
    s->content_type = bsf_sbi_response_header(s, "content-type");
}

/* ---- decisions ---------------------------------------------------------------------- */

/* "host:port" of an absolute URI (the port of its scheme when it has none). */
static void authority_of(const char *uri, char *out, size_t cap)
{
    const char *s = strstr(uri ? uri : "", "://");
    bool tls = uri && strncmp(uri, "https", 5) == 0;
    s = s ? s + 3 : "";
    size_t n = strcspn(s, "/?#");
    const char *close = memchr(s, ']', n);
    const char *colon = memchr(close ? close : s, ':', n - (size_t)((close ? close : s) - s));
    if (colon)
        snprintf(out, cap, "%.*s", (int)n, s);
    else
        snprintf(out, cap, "%.*s:%d", (int)n, s, tls ? 443 : 80);
}

static void note_tried(alt_t *a, const char *uri)
{
    if (a->n_tried < TRIED_MAX)
        authority_of(uri, a->tried[a->n_tried++], sizeof a->tried[0]);
}

static bool failed_over(const alt_t *a, const bsf_sbi_response_t *rsp)
{
    const bsf_sbi_alt_route_t *ar = a->ar;
    if (!a->can_alternate || rsp->from_scp)
        return false;
    switch (rsp->result) {
    case BSF_SBI_ERR_CONNECT:
        return ar->on_connect_error;
    case BSF_SBI_ERR_TIMEOUT:
        return ar->on_timeout;
    case BSF_SBI_OK:
        return rsp->status >= 300 && rsp->status < 600 && ar->statuses[rsp->status];
    default:
        return false;
    }
}

/* Where alternates come from: the binding's set, else the caller's, else the type. */
static void scope_alternates(alt_t *a, const bsf_sbi_alt_target_t *t)
{
    a->can_alternate = a->ar->enabled && t && t->nf_type && a->ar->max_alternates > 0;
    if (!a->can_alternate)
        return;
    snprintf(a->nf_type, sizeof a->nf_type, "%s", t->nf_type);
    snprintf(a->set, sizeof a->set, "%s", t->nf_set_id ? t->nf_set_id : "");
    snprintf(a->service, sizeof a->service, "%s", t->service_name ? t->service_name : "");
    const char *hdr = a->req.routing_binding ? a->req.routing_binding : a->req.binding;
    bsf_sbi_binding_t b;
    if (!hdr || bsf_sbi_binding_parse(hdr, strlen(hdr), &b))
        return;
    if (b.nf_instance[0])
        snprintf(a->tried_ids[a->n_ids++], sizeof a->tried_ids[0], "%s", b.nf_instance);
    const char *set = bsf_sbi_binding_reselect_set(&b);
    if (!set) {
        a->can_alternate = false; /* bound to that instance */
        return;
    }
    snprintf(a->set, sizeof a->set, "%s", set);
    if (b.service_name[0])
        snprintf(a->service, sizeof a->service, "%s", b.service_name);
}

static bool tried(const alt_t *a, const char *id, const char *authority)
{
    for (size_t i = 0; id && i < a->n_ids; i++)
        if (strcmp(a->tried_ids[i], id) == 0)
            return true;
    for (size_t i = 0; i < a->n_tried; i++)
        if (strcmp(a->tried[i], authority) == 0)
            return true;
    return false;
}

/* The URI of the best alternate in `list` (lowest priority, REGISTERED, not tried): the
 * apiRoot of its NFService (scheme, end point, apiPrefix) with the original request's path
 * below its apiRoot. Returns 0, or -1 when there is none. */
static int pick(alt_t *a, json_t *list, char *id_out, size_t id_cap)
{
    size_t i;
    json_t *p;
    json_int_t best = -1;
    json_array_foreach(list, i, p) {
        const char *id = json_string_value(json_object_get(p, "nfInstanceId"));
        const char *type = json_string_value(json_object_get(p, "nfType"));
        const char *status = json_string_value(json_object_get(p, "nfStatus"));
        json_t *prio = json_object_get(p, "priority");
        json_int_t pr = json_is_integer(prio) ? json_integer_value(prio) : 65536;
        char root[sizeof a->api_root], authority[BSF_SBI_HOST_MAX + 8];
        if ((type && strcmp(type, a->nf_type) != 0) ||
            (status && strcmp(status, "REGISTERED") != 0) || (best >= 0 && pr >= best) ||
            bsf_nf_profile_api_root(p, a->service[0] ? a->service : NULL, root, sizeof root,
                                    authority, sizeof authority) ||
            tried(a, id, authority))
            continue;
        char uri[sizeof a->uri];
        if (bsf_api_root_join(root, a->path, uri, sizeof uri) != BSF_API_ROOT_OK)
            continue;
        memcpy(a->uri, uri, strlen(uri) + 1);
        memcpy(a->api_root, root, strlen(root) + 1);
        best = pr;
        snprintf(id_out, id_cap, "%s", id ? id : "");
    }
    return best >= 0 ? 0 : -1;
}

/* ---- flow ---------------------------------------------------------------------------- */

static void finish(alt_t *a, const bsf_sbi_response_t *rsp, const char *error)
{
    bsf_sbi_response_t out = *rsp;
    out.alternates = a->alternates;
    if (error)
        out.error = error;
    if (a->alternates && rsp->result == BSF_SBI_OK && rsp->status < 300)
        atomic_fetch_add(&a->ar->answered, 1);
    a->done(a->arg, &out);
    free(a->saved.buf);
    free(a->strings);
    free(a);
}

/* The last failure goes to the caller, with why no alternate follows. */
static void give_up(alt_t *a, bool exhausted, const char *why)
{
    char error[600];
    const bsf_sbi_response_t *r = &a->saved.rsp;
    char last[200];
    if (r->result == BSF_SBI_OK)
        snprintf(last, sizeof last, "status %d%s%s", r->status, r->has_problem ? " " : "",
                 r->has_problem ? r->problem.cause : "");
    else
        snprintf(last, sizeof last, "%s", r->error ? r->error : "failed");
    if (exhausted) {
        atomic_fetch_add(&a->ar->exhausted, 1);
        snprintf(error, sizeof error,
                 "retry budget exhausted: the producer and %u alternate%s failed "
                 "(sbi_client.alternate_route.max_alternates = %u); last, %s: %s",
                 a->alternates, a->alternates == 1 ? "" : "s", a->ar->max_alternates,
                 r->uri ? r->uri : a->uri, last);
    } else {
        atomic_fetch_add(&a->ar->none, 1);
        snprintf(error, sizeof error, "%s: %s; no alternate producer: %s",
                 r->uri ? r->uri : a->uri, last, why);
    }
    finish(a, r, error);
}

static void on_answer(void *arg, const bsf_sbi_response_t *rsp);

static void on_discovered(void *arg, const bsf_nf_discovery_result_t *res)
{
    alt_t *a = arg;
    char id[64], why[300];
    if (!res->ok) {
        snprintf(why, sizeof why, "NF discovery failed: %s", res->error);
        give_up(a, false, why);
        return;
    }
    if (pick(a, res->nf_instances, id, sizeof id)) {
        snprintf(why, sizeof why, "none left among the %zu %s%s%s found",
                 json_array_size(res->nf_instances), a->nf_type, a->set[0] ? " of set " : "",
                 a->set);
        give_up(a, false, why);
        return;
    }
    int64_t left = (int64_t)a->deadline_ms - (int64_t)now_ms();
    if (left <= 0) {
        give_up(a, false, "the request's deadline passed during NF discovery");
        return;
    }
    if (id[0] && a->n_ids < TRIED_MAX + 1)
        snprintf(a->tried_ids[a->n_ids++], sizeof a->tried_ids[0], "%s", id);
    note_tried(a, a->uri);
    a->alternates++;
    atomic_fetch_add(&a->ar->sent, 1);
    a->req.uri = a->uri;
    a->req.api_root = a->api_root; /* Model C: the SCP is told the apiPrefix too */
    a->req.timeout_ms = (unsigned)left;
    char err[200];
    if (bsf_sbi_client_submit(a->ar->sbi, &a->req, on_answer, a, err, sizeof err)) {
        snprintf(why, sizeof why, "not sent to %s: %s", a->uri, err);
        give_up(a, false, why);
    }
}

static void on_answer(void *arg, const bsf_sbi_response_t *rsp)
{
    alt_t *a = arg;
    if (!failed_over(a, rsp)) {
        finish(a, rsp, NULL);
        return;
    }
    save_failure(a, rsp);
    if (rsp->uri)
        note_tried(a, rsp->uri); /* after a redirect: where it failed */
    if (a->alternates >= a->ar->max_alternates) {
        give_up(a, a->alternates > 0, "none allowed");
        return;
    }
    if (now_ms() >= a->deadline_ms) {
        give_up(a, false, "the request's deadline passed");
        return;
    }
    bsf_nf_discovery_query_t q = {a->nf_type, a->set[0] ? a->set : NULL,
                                  a->service[0] ? a->service : NULL};
    if (bsf_nf_discovery_search(a->ar->discovery, &q, on_discovered, a))
        give_up(a, false, "NF discovery not possible");
}

/* The path an alternate keeps: below the original URI's apiRoot, /{service}/{version}/...
 * (TS 29.501 §4.4.1), the apiRoot being known then; else everything after the authority. */
static void keep_path(alt_t *a)
{
    size_t at;
    const char *uri = a->req.uri ? a->req.uri : "";
    /* the service named, else the first /{name}/v{n} (the path may be another service's) */
    if ((a->service[0] && bsf_api_root_split(uri, a->service, a->api_root, sizeof a->api_root,
                                             &at) == BSF_API_ROOT_OK) ||
        bsf_api_root_split(uri, NULL, a->api_root, sizeof a->api_root, &at) ==
            BSF_API_ROOT_OK) {
        a->path = uri + at;
        if (!a->req.api_root)
            a->req.api_root = a->api_root;
        return;
    }
    a->api_root[0] = '\0';
    const char *s = strstr(uri, "://");
    a->path = s ? s + 3 + strcspn(s + 3, "/?#") : "";
}

int bsf_sbi_alt_route_submit(bsf_sbi_alt_route_t *ar, const bsf_sbi_request_t *req,
                             const bsf_sbi_alt_target_t *target, bsf_sbi_done_fn done,
                             void *arg, char *err, size_t err_cap)
{
    alt_t *a = calloc(1, sizeof *a);
    if (!a || copy_request(a, req)) {
        free(a);
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    a->ar = ar;
    a->done = done;
    a->arg = arg;
    a->deadline_ms = now_ms() + (req->timeout_ms ? req->timeout_ms : 5000);
    scope_alternates(a, target);
    keep_path(a);
    note_tried(a, a->req.uri);
    if (bsf_sbi_client_submit(ar->sbi, &a->req, on_answer, a, err, err_cap)) {
        free(a->strings);
        free(a);
        return -1;
    }
    return 0;
}

void bsf_sbi_alt_route_stats(bsf_sbi_alt_route_t *ar, bsf_sbi_alt_route_stats_t *out)
{
    *out = (bsf_sbi_alt_route_stats_t){atomic_load(&ar->sent), atomic_load(&ar->answered),
                                       atomic_load(&ar->exhausted), atomic_load(&ar->none)};
}

void bsf_sbi_alt_route_write_metrics(void *ctx, bsf_text_t *out)
{
    bsf_sbi_alt_route_stats_t s;
    bsf_sbi_alt_route_stats(ctx, &s);
    static const char *const outcomes[] = {"sent", "answered", "exhausted", "no_alternate"};
    const uint64_t counts[] = {s.alternates_sent, s.answered_by_alternate, s.exhausted,
                               s.no_alternate};
    BSF_METRICS_LABELLED_FAMILY(out, "bsf_sbi_alternate_route_total", "counter",
                                "Egress requests sent again to an alternate producer, and how "
                                "those ended.",
                                "outcome", outcomes, counts);
}
