#include "gateways/sbi/sbi_feed.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/str_pack.h"
#include "core/binding_id.h"

#define API_PATH "/nbsf-management/v1/"
/* The collections whose members are bindings (PDU session, UE, MBS session). */
static const char *const binding_collections[] = {"pcfBindings/", "pcf-ue-bindings/",
                                                   "pcf-mbs-bindings/"};

struct bsf_sbi_feed_txn {
    bsf_feed_t *feed;
    uint64_t id;
    uint64_t received_ms;
    const char *method, *path, *correlation; /* into data; NULL when absent */
    char binding_id[BSF_BINDING_ID_TEXT_LEN + 1]; /* "" when the request names none */
    char local[64], peer[64];
    char data[];
};

/* True when s[0..n) is a binding id in its text form (32 lowercase hex digits). */
static bool is_binding_id(const char *s, size_t n)
{
    return n == BSF_BINDING_ID_TEXT_LEN && strspn(s, "0123456789abcdef") >= n;
}

/* The binding id of an individual resource path "…/pcfBindings/{id}[?query]" (or of the
 * pcf-ue-bindings and pcf-mbs-bindings collections), or "". */
static void binding_of_path(const char *path, char out[BSF_BINDING_ID_TEXT_LEN + 1])
{
    out[0] = '\0';
    if (!path || strncmp(path, API_PATH, strlen(API_PATH)) != 0)
        return;
    const char *id = NULL, *rest = path + strlen(API_PATH);
    for (size_t i = 0; !id && i < sizeof binding_collections / sizeof *binding_collections; i++)
        if (strncmp(rest, binding_collections[i], strlen(binding_collections[i])) == 0)
            id = rest + strlen(binding_collections[i]);
    if (!id)
        return;
    size_t n = strcspn(id, "?");
    if (is_binding_id(id, n))
        snprintf(out, BSF_BINDING_ID_TEXT_LEN + 1, "%.*s", (int)n, id);
}

static bsf_sbi_feed_txn_t *txn_new(bsf_feed_t *feed, bsf_h2_stream_t *s, const char *method,
                                   const char *path, const char *correlation)
{
    bsf_sbi_feed_txn_t *t = malloc(sizeof *t + bsf_str_pack_size(method) +
                                   bsf_str_pack_size(path) + bsf_str_pack_size(correlation));
    if (!t)
        return NULL;
    bsf_h2_stream_info_t info;
    bsf_h2_stream_info(s, &info);
    char *cursor = t->data;
    t->feed = feed;
    t->id = bsf_feed_transaction_id(feed);
    t->received_ms = bsf_clock_wall_ms();
    t->method = bsf_str_pack_put(&cursor, method);
    t->path = bsf_str_pack_put(&cursor, path);
    t->correlation = bsf_str_pack_put(&cursor, correlation);
    binding_of_path(path, t->binding_id);
    snprintf(t->local, sizeof t->local, "%s", info.local);
    snprintf(t->peer, sizeof t->peer, "%s", info.peer);
    return t;
}

/* The record of `t` with the members both of its records share. */
static bsf_feed_record_t record_of(const bsf_sbi_feed_txn_t *t, bsf_feed_kind_t kind)
{
    return (bsf_feed_record_t){
        .protocol = BSF_FEED_SBI,
        .direction = BSF_FEED_INGRESS,
        .kind = kind,
        .transaction_id = t->id,
        .local = t->local[0] ? t->local : NULL,
        .peer = t->peer[0] ? t->peer : NULL,
        .received_ms = t->received_ms,
        .correlation_info = t->correlation,
        .binding_id = t->binding_id[0] ? t->binding_id : NULL,
        .method = t->method,
        .path = t->path,
    };
}

static const char *header(const bsf_h2_request_t *r, const char *name)
{
    for (size_t i = 0; i < r->n_headers; i++)
        if (strcmp(r->headers[i].name, name) == 0)
            return r->headers[i].value;
    return NULL;
}

bsf_sbi_feed_txn_t *bsf_sbi_feed_request(bsf_feed_t *feed, bsf_h2_stream_t *s,
                                         const bsf_h2_request_t *r)
{
    bsf_sbi_feed_txn_t *t =
        txn_new(feed, s, r->method, r->path, header(r, "3gpp-sbi-correlation-info"));
    if (!t)
        return NULL;
    bsf_feed_header_t headers[BSF_H2_MAX_HEADERS + 3];
    size_t n = 0;
    char length[24];
    if (r->authority)
        headers[n++] = (bsf_feed_header_t){":authority", r->authority};
    if (r->content_type)
        headers[n++] = (bsf_feed_header_t){"content-type", r->content_type};
    if (r->content_length >= 0) {
        snprintf(length, sizeof length, "%" PRId64, r->content_length);
        headers[n++] = (bsf_feed_header_t){"content-length", length};
    }
    /* The copy keeps the first BSF_H2_MAX_HEADERS other headers (a request may carry more). */
    for (size_t i = 0; i < r->n_headers && i < BSF_H2_MAX_HEADERS; i++)
        headers[n++] = (bsf_feed_header_t){r->headers[i].name, r->headers[i].value};
    bsf_feed_record_t rec = record_of(t, BSF_FEED_REQUEST);
    rec.headers = headers;
    rec.n_headers = n;
    rec.payload = r->body;
    rec.payload_len = r->body ? r->body_len : 0;
    bsf_feed_offer(feed, &rec);
    return t;
}

bsf_sbi_feed_txn_t *bsf_sbi_feed_refused(bsf_feed_t *feed, bsf_h2_stream_t *s)
{
    bsf_h2_stream_info_t info;
    bsf_h2_stream_info(s, &info);
    bsf_sbi_feed_txn_t *t = txn_new(feed, s, info.method, info.path, NULL);
    if (!t)
        return NULL;
    bsf_feed_record_t rec = record_of(t, BSF_FEED_REQUEST);
    bsf_feed_offer(feed, &rec);
    return t;
}

void bsf_sbi_feed_response(bsf_sbi_feed_txn_t *t, int status, const char *content_type,
                           const bsf_h2_header_t *headers, size_t n_headers, const void *body,
                           size_t body_len)
{
    bsf_feed_header_t h[BSF_H2_MAX_HEADERS + 1];
    size_t n = 0;
    char location_id[BSF_BINDING_ID_TEXT_LEN + 1] = "";
    if (content_type && body_len)
        h[n++] = (bsf_feed_header_t){"content-type", content_type};
    for (size_t i = 0; i < n_headers && n < sizeof h / sizeof h[0]; i++) {
        h[n++] = (bsf_feed_header_t){headers[i].name, headers[i].value};
        const char *slash = strcmp(headers[i].name, "location") == 0
                                ? strrchr(headers[i].value, '/')
                                : NULL;
        if (slash && is_binding_id(slash + 1, strlen(slash + 1)))
            snprintf(location_id, sizeof location_id, "%s", slash + 1);
    }
    bsf_feed_record_t rec = record_of(t, BSF_FEED_RESPONSE);
    if (location_id[0])
        rec.binding_id = location_id; /* a registration: the id the BSF gave */
    rec.status = status;
    rec.sent_ms = bsf_clock_wall_ms();
    rec.headers = n ? h : NULL;
    rec.n_headers = n;
    rec.payload = body_len ? body : NULL;
    rec.payload_len = body_len;
    bsf_feed_offer(t->feed, &rec);
    free(t);
}

void bsf_sbi_feed_txn_free(bsf_sbi_feed_txn_t *t)
{
    free(t);
}
