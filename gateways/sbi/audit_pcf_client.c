#include "gateways/sbi/audit_pcf_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/admission/message_profile.h"

struct bsf_audit_pcf_client {
    bsf_sbi_client_t *sbi;
    char nrf[512];
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

static int query(void *ctx, const char *url, unsigned timeout_ms, bsf_audit_answer_fn done,
                 void *arg)
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
                             .callback = "Nbsf_Management_myNotification"};
    char err[256];
    if (bsf_sbi_client_submit(c->sbi, &req, on_query, q, err, sizeof err)) {
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

/* The API root of one NF profile: its first service's scheme, first end point (or FQDN) and
 * port. Returns 0 or -1. */
static int api_root_of(json_t *p, char *out, size_t cap, char *authority, size_t acap)
{
    json_t *svc = json_array_get(json_object_get(p, "nfServices"), 0);
    const char *scheme = json_string_value(json_object_get(svc, "scheme"));
    json_t *ep = json_array_get(json_object_get(svc, "ipEndPoints"), 0);
    const char *host = json_string_value(json_object_get(ep, "ipv4Address"));
    if (!host)
        host = json_string_value(json_object_get(svc, "fqdn"));
    if (!host)
        host = json_string_value(json_object_get(p, "fqdn"));
    if (!host)
        host = json_string_value(json_array_get(json_object_get(p, "ipv4Addresses"), 0));
    if (!host)
        return -1;
    scheme = scheme && strcmp(scheme, "https") == 0 ? "https" : "http";
    json_int_t port = json_integer_value(json_object_get(ep, "port"));
    if (port <= 0 || port > 65535)
        port = strcmp(scheme, "https") == 0 ? 443 : 80;
    snprintf(authority, acap, "%s:%d", host, (int)port);
    int n = snprintf(out, cap, "%s://%s", scheme, authority);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

int bsf_audit_pick_alternate(const char *body, size_t len, const char *const *exclude, size_t n,
                             char *out, size_t cap)
{
    json_t *root = json_loadb(body, len, 0, NULL);
    json_t *list = json_object_get(root, "nfInstances");
    size_t i;
    json_t *p;
    int rc = -1;
    json_array_foreach(list, i, p) {
        const char *id = json_string_value(json_object_get(p, "nfInstanceId"));
        const char *type = json_string_value(json_object_get(p, "nfType"));
        char who[128], authority[300];
        if (!id || (type && strcmp(type, "PCF") != 0) ||
            api_root_of(p, out, cap, authority, sizeof authority))
            continue;
        snprintf(who, sizeof who, "PCF-%s", id);
        if (!excluded(exclude, n, who, authority)) {
            rc = 0;
            break;
        }
    }
    json_decref(root);
    return rc;
}

static void on_discovery(void *arg, const bsf_sbi_response_t *rsp)
{
    discovery_t *d = arg;
    const char *ex[16];
    for (size_t i = 0; i < d->n; i++)
        ex[i] = d->exclude[i];
    char root[512];
    bool ok = rsp->result == BSF_SBI_OK && rsp->status == 200 &&
              bsf_audit_pick_alternate(rsp->body, rsp->body_len, ex, d->n, root,
                                       sizeof root) == 0;
    d->done(d->arg, ok ? root : NULL); /* a failed discovery: the 404s so far are final */
    free(d);
}

static int alternate(void *ctx, const char *set_id, const char *const *exclude, size_t n,
                     bsf_audit_alternate_fn done, void *arg)
{
    bsf_audit_pcf_client_t *c = ctx;
    if (!c->nrf[0] || n > 16)
        return -1;
    /* An NfSetId (TS 29.571 §5.4.2: "set<id>.pcfset.5gc.mnc<MNC>.mcc<MCC>") needs no
     * percent-encoding; another text is not looked up. */
    if (!set_id[0] || strspn(set_id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                     "0123456789.-_~") != strlen(set_id))
        return -1;
    char uri[1024];
    int len = snprintf(uri, sizeof uri,
                       "%s/nnrf-disc/v1/nf-instances?target-nf-type=PCF&requester-nf-type=BSF"
                       "&target-nf-set-id=%s",
                       c->nrf, set_id);
    discovery_t *d = len > 0 && (size_t)len < sizeof uri ? calloc(1, sizeof *d) : NULL;
    if (!d)
        return -1;
    d->done = done;
    d->arg = arg;
    d->n = n;
    for (size_t i = 0; i < n; i++)
        snprintf(d->exclude[i], sizeof d->exclude[i], "%s", exclude[i]);
    bsf_sbi_request_t req = {.method = "GET", .uri = uri, .timeout_ms = 2000, .priority = -1};
    char err[256];
    if (bsf_sbi_client_submit(c->sbi, &req, on_discovery, d, err, sizeof err)) {
        free(d);
        return -1;
    }
    return 0;
}

bsf_audit_pcf_client_t *bsf_audit_pcf_client_create(bsf_sbi_client_t *sbi,
                                                    const char *nrf_api_root)
{
    bsf_audit_pcf_client_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->sbi = sbi;
    if (nrf_api_root)
        snprintf(c->nrf, sizeof c->nrf, "%.*s", (int)strcspn(nrf_api_root, "\n"), nrf_api_root);
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
