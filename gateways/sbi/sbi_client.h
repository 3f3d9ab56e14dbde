/* The SBI client: every outbound HTTP/2 request of bsfd (NRF, notifications, audits).
 *
 * It runs on its own thread with its own libuv loop, so it never blocks an SBI worker or
 * the engine. Any thread submits a request (copied, queued, handed over with uv_async);
 * the completion callback runs later on the client's thread, exactly once per accepted
 * request. As in libuv, a callback is never called when the submit function returned an
 * error.
 *
 * Per request: a deadline (covering retries), a retry profile, 307/308 redirects followed
 * (bounded), ProblemDetails decoded, and the TS 29.500 headers: User-Agent, Sender-
 * Timestamp, Max-Rsp-Time, Message-Priority, Correlation-Info, Callback, Routing-Binding,
 * Binding, and Target-apiRoot when routed through an SCP. */
#ifndef BSF_GATEWAYS_SBI_SBI_CLIENT_H
#define BSF_GATEWAYS_SBI_SBI_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "common/text.h"
#include "gateways/admission/priority_metrics.h"
#include "gateways/sbi/addr_select.h"
#include "gateways/sbi/problem_decode.h"
#include "gateways/sbi/sbi_headers.h"
#include "gateways/sbi/sbi_retry.h"

typedef struct bsf_sbi_client bsf_sbi_client_t;

typedef struct {
    const char *nf_instance_id;     /* for User-Agent "BSF-<id>"; required */
    const char *fqdn;               /* appended to User-Agent when set */
    unsigned max_connections;       /* per authority; default 4 */
    uint32_t max_streams;           /* per connection; default 128 */
    unsigned max_pending;           /* requests accepted and not completed; default 100000 */
    unsigned connect_timeout_ms;    /* default 2000 */
    bsf_family_pref_t family;       /* of the addresses connected to; default any */
    unsigned idle_timeout_ms;       /* default 60000 */
    unsigned max_redirects;         /* default 3 */
    size_t max_body_bytes;          /* of an answer; default 1 MiB */
    bool tls_verify;                /* verify servers' certificates (https) */
    const char *tls_ca_file;        /* NULL: the system's trust store */
    const char *tls_cert_file;      /* client certificate (mutual TLS), may be NULL */
    const char *tls_key_file;
    /* TLS 1.2 cipher list, TLS 1.3 suites, groups (OpenSSL syntax; NULL or "": OpenSSL's) */
    const char *tls_ciphers, *tls_ciphersuites, *tls_groups;
    /* Model C: SCP apiRoots by preference, '\n'-separated; requests go through the first
     * available one (sbi_client_scp.h) unless they ask to go `direct`. NULL/empty: none. */
    const char *scp_uris;
    unsigned scp_temp_unavailable_ms; /* an SCP that failed a request; default 30000 */
    unsigned scp_health_interval_ms;  /* OPTIONS probes of every SCP; 0: none */
    const char *scp_health_path;      /* appended to the SCP's apiRoot; default "/" */
    unsigned scp_health_failures;     /* failed probes in a row: unhealthy; default 3 */
    unsigned scp_health_successes;    /* good probes in a row: healthy again; default 1 */
    bool ignore_oci; /* do not honour the 3gpp-Sbi-Oci of producers (overload.honour_oci) */
} bsf_sbi_client_config_t;

#define BSF_SBI_MAX_EXTRA_HEADERS 8

typedef struct {
    const char *method;          /* "GET", "PUT", ... */
    const char *uri;             /* absolute http:// or https:// URI of the target */
    const char *content_type;    /* NULL without a body */
    const void *body;
    size_t body_len;
    unsigned timeout_ms;         /* deadline of the whole request, retries included; sent as
                                    3gpp-Sbi-Max-Rsp-Time; 0: 5000 */
    int priority;                /* 3gpp-Sbi-Message-Priority 0..31; -1: none */
    bsf_mp_egress_tag_t metric;  /* seed §3.1's series of each attempt sent and each answer
                                    (priority_metrics.h); kind NONE: not counted */
    const char *correlation_info;/* 3gpp-Sbi-Correlation-Info of the causing request */
    const char *callback;        /* 3gpp-Sbi-Callback (notifications) */
    const char *routing_binding; /* 3gpp-Sbi-Routing-Binding */
    const char *binding;         /* 3gpp-Sbi-Binding */
    const char *scp_uri;         /* send through this SCP (its apiRoot); NULL: the configured
                                    SCPs, if any */
    bool direct;                 /* never through an SCP */
    const char *api_root;        /* the target's apiRoot when it has an apiPrefix (TS 29.501
                                    §4.4.1: scheme://authority/prefix): `uri` begins with it
                                    (else submit fails). Through an SCP the
                                    3gpp-Sbi-Target-apiRoot carries it and the SCP's path is
                                    the one below it. NULL: scheme://authority */
    const char *oauth_scope;     /* the producer requires OAuth2 (TS 33.501 §13.4.1): send
                                    `Authorization: Bearer` with a token for this scope from
                                    the token provider; NULL: no token */
    const char *target_nf_type;  /* with oauth_scope: the producer's NF type (e.g. "PCF") */
    const bsf_sbi_retry_profile_t *retry; /* NULL: bsf_sbi_retry_default */
    size_t n_headers;            /* more headers, lowercase names */
    bsf_sbi_header_t headers[BSF_SBI_MAX_EXTRA_HEADERS];
} bsf_sbi_request_t;

typedef enum {
    BSF_SBI_OK = 0,           /* an HTTP answer: see status */
    BSF_SBI_ERR_TIMEOUT,      /* no answer before the deadline */
    BSF_SBI_ERR_CONNECT,      /* no connection, or it was lost before the answer */
    BSF_SBI_ERR_PROTOCOL,     /* stream reset, answer too large, bad redirect */
    BSF_SBI_ERR_REDIRECTS,    /* more redirects than max_redirects */
    BSF_SBI_ERR_STOPPED,      /* the client stopped first */
    BSF_SBI_ERR_TOKEN,        /* no access token could be had for the request's scope */
    BSF_SBI_ERR_OVERLOAD,     /* dropped before sending: the producer's OCI asks for a
                                 reduction (TS 29.500 §6.4.3.5, Loss); as if it refused */
} bsf_sbi_result_t;

#define BSF_SBI_MAX_RSP_HEADERS 32

typedef struct {
    bsf_sbi_result_t result;
    const char *error;           /* a short text when result != OK */
    int status;                  /* HTTP status when result == OK */
    const char *content_type;    /* NULL when absent */
    const char *body;            /* NUL-terminated, "" when none */
    size_t body_len;
    size_t n_headers;
    bsf_sbi_header_t headers[BSF_SBI_MAX_RSP_HEADERS];
    bool has_problem;            /* body was application/problem+json and decoded */
    bsf_sbi_problem_t problem;
    unsigned attempts;           /* sent attempts, redirects included */
    unsigned redirects;
    unsigned alternates;         /* alternate producers tried (sbi_alt_route.h); 0 here */
    const char *uri;             /* the URI that gave this answer (after redirects) */
    const char *via_scp;         /* the SCP used for the last attempt, NULL: direct */
    bool from_scp;               /* a failure of the SCP itself (its Server header; seed 001),
                                    not an answer of the target */
} bsf_sbi_response_t;

/* Everything in `rsp` lives until the callback returns. Runs on the client's thread; it may
 * submit more requests, and must not block. */
typedef void (*bsf_sbi_done_fn)(void *arg, const bsf_sbi_response_t *rsp);

/* Starts the client thread. Returns 0, or -1 with a message (e.g. TLS files). */
int bsf_sbi_client_start(const bsf_sbi_client_config_t *cfg, bsf_sbi_client_t **out,
                         char *err, size_t err_cap);

/* Submits a request (everything copied). Any thread. Returns 0: `done` will be called
 * exactly once, on the client's thread. Returns -1 with a reason in err (stopped, too many
 * pending, bad URI or header value, out of memory): `done` is never called. */
int bsf_sbi_client_submit(bsf_sbi_client_t *c, const bsf_sbi_request_t *req,
                          bsf_sbi_done_fn done, void *arg, char *err, size_t err_cap);

/* Runs fn(arg, stopped) on the client's thread after delay_ms (0: soon), for work that
 * belongs with the client's requests (timers of the NRF client). Any thread. Returns 0: fn
 * is called exactly once, with stopped = true when the client stopped first. Returns -1
 * (stopping, out of memory): fn is never called. */
typedef void (*bsf_sbi_post_fn)(void *arg, bool stopped);
int bsf_sbi_client_post(bsf_sbi_client_t *c, unsigned delay_ms, bsf_sbi_post_fn fn, void *arg);

/* OAuth2 access tokens for requests with an oauth_scope (the NRF client provides them,
 * gateways/nrf/nrf_token.h). `get` runs on the client thread and must call done(req, token,
 * why) exactly once, maybe at once: token NULL when none could be had (the request then
 * completes with BSF_SBI_ERR_TOKEN). `invalidate` forgets a token a producer refused (401),
 * before the one retry with a fresh token. */
typedef void (*bsf_sbi_token_done_fn)(void *req, const char *token, const char *why);
typedef struct {
    void (*get)(void *ctx, const char *scope, const char *target_nf_type,
                bsf_sbi_token_done_fn done, void *req);
    void (*invalidate)(void *ctx, const char *scope, const char *target_nf_type,
                       const char *token);
    void *ctx;
} bsf_sbi_token_provider_t;
/* Sets the provider (copied) before any request with an oauth_scope is submitted. Any
 * thread, once. */
void bsf_sbi_client_set_token_provider(bsf_sbi_client_t *c, const bsf_sbi_token_provider_t *p);

/* A header of an answer (name lowercase), NULL when absent. */
const char *bsf_sbi_response_header(const bsf_sbi_response_t *rsp, const char *name);

/* Counters since start (any thread, approximate while running). */
typedef struct {
    uint64_t submitted, completed, answers, timeouts, connect_errors, retries, redirects;
    uint64_t throttled; /* dropped by a producer's OCI (BSF_SBI_ERR_OVERLOAD) */
    uint64_t connections_opened;
    unsigned pending;
} bsf_sbi_client_stats_t;
void bsf_sbi_client_stats(const bsf_sbi_client_t *c, bsf_sbi_client_stats_t *out);

/* The SCPs and their state as JSON (caller owns): {"scps":[{"uri","priority","status",...}]}.
 * Any thread. */
json_t *bsf_sbi_client_scp_status(bsf_sbi_client_t *c);
/* Prometheus text of the client (bsf_ops_metrics_fn): requests, SCP availability. Any
 * thread. */
void bsf_sbi_client_write_metrics(void *ctx, bsf_text_t *out);

/* Stops: requests not yet completed complete with BSF_SBI_ERR_STOPPED (callbacks on the
 * client thread), connections close, the thread is joined. Not from the client's thread.
 * Then frees the client. NULL is a no-op. */
void bsf_sbi_client_stop(bsf_sbi_client_t *c);

#endif
