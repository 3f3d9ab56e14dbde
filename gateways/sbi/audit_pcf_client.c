#include "gateways/sbi/audit_pcf_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/admission/message_profile.h"

struct bsf_audit_pcf_client {
    bsf_sbi_client_t *sbi;
    bsf_nf_discovery_t *discovery;
    bsf_sbi_alt_route_t *alt;
};

typedef struct {
    bsf_audit_answer_fn done;
    void *arg;
    char authority[256];
} query_t;

typedef struct {
    bsf_audit_alternate_fn done;
    void *arg;
    size_t n;
    char exclude[16][BSF_AUDIT_RESPONDER_MAX];
} discovery_t;

/* "host:port" of an http(s) URI. */
static void authority_of(const char *uri, char *out, size_t cap)
{
    const char *s = strstr(uri ? uri : "", "://");
    s = s ? s + 3 : "";
    size_t n = strcspn(s, "/?#");
    snprintf(out, cap, "%.*s", (int)n, s);
}

static void on_query(void *arg, const bsf_sbi_response_t *rsp)
{
    query_t *q = arg;
    if (rsp->alternates && rsp->uri) /* an alternate PCF answered (or failed last) */
        authority_of(rsp->uri, q->authority, sizeof q->authority);
    bsf_audit_answer_t a = {BSF_AUDIT_ANSWER_FAILED, 0, q->authority, rsp->error};
    const char *server = bsf_sbi_response_header(rsp, "server");
    char who[BSF_AUDIT_RESPONDER_MAX];
    if (server && server[0]) { /* "PCF-<id>" and maybe more tokens: the first names the NF */
        snprintf(who, sizeof who, "%.*s", (int)strcspn(server, " "), server);
        a.responder = who;
    }
    if (rsp->result == BSF_SBI_OK) {
        a.status = rsp->status;
        if (rsp->status >= 200 && rsp->status < 300)
            a.kind = BSF_AUDIT_ANSWER_FOUND;
        else if (rsp->status == 404 && !rsp->from_scp) /* an SCP's 404 says nothing of PCFs */
            a.kind = BSF_AUDIT_ANSWER_NOT_FOUND;
    }
    q->done(q->arg, &a);
    free(q);
}

static int query(void *ctx, const char *url, const char *set_id, unsigned timeout_ms,
                 bsf_audit_answer_fn done, void *arg)
{
    bsf_audit_pcf_client_t *c = ctx;
    query_t *q = calloc(1, sizeof *q);
    if (!q)
        return -1;
    q->done = done;
    q->arg = arg;
    authority_of(url, q->authority, sizeof q->authority);
    bsf_sbi_request_t req = {.method = "GET", .uri = url, .timeout_ms = timeout_ms,
                             .priority = bsf_message_profile_egress(BSF_MP_NPCF_BINDING_AUDIT,
                                                                    BSF_MP_AUDIT_NOTIFY, -1),
                             .metric = {BSF_MP_EGRESS_AUDIT_NOTIFY, -1},
                             .callback = "Nbsf_Management_myNotification"};
    /* a PCF that fails is replaced by another of its set (seed §3.23) */
    bsf_sbi_alt_target_t alt = {.nf_type = "PCF",
                                .nf_set_id = set_id && set_id[0] ? set_id : NULL};
    char err[256];
    int rc = c->alt ? bsf_sbi_alt_route_submit(c->alt, &req, set_id && set_id[0] ? &alt : NULL,
                                               on_query, q, err, sizeof err)
                    : bsf_sbi_client_submit(c->sbi, &req, on_query, q, err, sizeof err);
    if (rc) {
        free(q);
        return -1;
    }
    return 0;
}

static bool excluded(const char *const *ex, size_t n, const char *a, const char *b)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(ex[i], a) == 0 || strcmp(ex[i], b) == 0)
            return true;
    return false;
}

/* The first PCF of an nfInstances array not excluded. Returns 0 or -1. */
static int pick_from(json_t *list, const char *const *exclude, size_t n, char *out, size_t cap)
{
    size_t i;
    json_t *p;
    int rc = -1;
    json_array_foreach(list, i, p) {
        const char *id = json_string_value(json_object_get(p, "nfInstanceId"));
        const char *type = json_string_value(json_object_get(p, "nfType"));
        char who[128], authority[300];
        if (!id || (type && strcmp(type, "PCF") != 0) ||
            bsf_nf_profile_api_root(p, NULL, out, cap, authority, sizeof authority))
            continue;
        snprintf(who, sizeof who, "PCF-%s", id);
        if (!excluded(exclude, n, who, authority)) {
            rc = 0;
            break;
        }
    }
    return rc;
}

int bsf_audit_pick_alternate(const char *body, size_t len, const char *const *exclude, size_t n,
                             char *out, size_t cap)
{
    json_t *root = json_loadb(body, len, 0, NULL);
    int rc = pick_from(json_object_get(root, "nfInstances"), exclude, n, out, cap);
    json_decref(root);
    return rc;
}

static void on_discovery(void *arg, const bsf_nf_discovery_result_t *r)
{
    discovery_t *d = arg;
    const char *ex[16];
    for (size_t i = 0; i < d->n; i++)
        ex[i] = d->exclude[i];
    char root[512];
    bool ok = r->ok && pick_from(r->nf_instances, ex, d->n, root, sizeof root) == 0;
    d->done(d->arg, ok ? root : NULL); /* a failed discovery: the 404s so far are final */
    free(d);
}

static int alternate(void *ctx, const char *set_id, const char *const *exclude, size_t n,
                     bsf_audit_alternate_fn done, void *arg)
{
    bsf_audit_pcf_client_t *c = ctx;
    if (!bsf_nf_discovery_enabled(c->discovery) || n > 16 || !set_id[0])
        return -1;
    discovery_t *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    d->done = done;
    d->arg = arg;
    d->n = n;
    for (size_t i = 0; i < n; i++)
        snprintf(d->exclude[i], sizeof d->exclude[i], "%s", exclude[i]);
    /* the NRFs in order, and the cached SearchResult within its validityPeriod; a set id
     * that is not a plain token is not looked up */
    bsf_nf_discovery_query_t q = {.target_nf_type = "PCF", .target_nf_set_id = set_id};
    if (bsf_nf_discovery_search(c->discovery, &q, on_discovery, d)) {
        free(d);
        return -1;
    }
    return 0;
}

bsf_audit_pcf_client_t *bsf_audit_pcf_client_create(bsf_sbi_client_t *sbi,
                                                    bsf_nf_discovery_t *discovery,
                                                    bsf_sbi_alt_route_t *alt)
{
    bsf_audit_pcf_client_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->sbi = sbi;
    c->discovery = discovery;
    c->alt = alt;
    return c;
}

void bsf_audit_pcf_client_bind(bsf_audit_pcf_client_t *c, bsf_audit_pcf_t *out)
{
    *out = (bsf_audit_pcf_t){.ctx = c, .query = query, .alternate = alternate};
}

void bsf_audit_pcf_client_free(bsf_audit_pcf_client_t *c)
{
    free(c);
}
