/* Shared between the SBI client's thread (sbi_client.c) and its request life cycle
 * (sbi_client_request.c). Not for other modules. */
#ifndef BSF_GATEWAYS_SBI_SBI_CLIENT_INTERNAL_H
#define BSF_GATEWAYS_SBI_SBI_CLIENT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <uv.h>

#include "gateways/sbi/h2_client.h"
#include "gateways/sbi/sbi_client.h"
#include "gateways/sbi/sbi_client_oci.h"
#include "gateways/sbi/sbi_client_pool.h"
#include "gateways/sbi/sbi_client_scp.h"
#include "gateways/sbi/sbi_uri.h"

typedef enum { REQ_QUEUED, REQ_WAITING, REQ_IN_FLIGHT, REQ_BACKOFF, REQ_DONE } req_state_t;

typedef struct req {
    struct req *next_submitted;      /* the submit queue */
    struct req *prev, *next;         /* the active list (client thread) */
    bsf_sbi_client_t *client;
    bsf_sbi_done_fn done;
    void *arg;
    req_state_t state;
    /* the request, copied: strings point into `strings` */
    const char *method, *content_type, *correlation_info, *callback, *routing_binding,
        *binding, *oauth_scope, *target_nf_type;
    char *token;                     /* the access token of this request (owned) */
    bool token_pending, token_refreshed, timer_closed;
    const void *body;
    size_t body_len;
    size_t n_headers;
    bsf_sbi_header_t headers[BSF_SBI_MAX_EXTRA_HEADERS];
    int priority;
    bsf_mp_egress_tag_t metric;
    unsigned timeout_ms;
    bsf_sbi_retry_profile_t retry;
    bool via_scp;
    bool scp_auto;                   /* through the configured SCPs */
    int scp_index;
    uint32_t scp_tried;
    unsigned reselections;
    size_t api_prefix_len;           /* target.path's first bytes that are the apiPrefix */
    char *strings;
    /* life cycle */
    uint64_t deadline_ms, attempt_deadline_ms; /* monotonic ms */
    uv_timer_t timer;
    bsf_sbi_pool_waiter_t waiter;
    bsf_h2c_t *conn;
    int32_t stream;
    unsigned attempts, retries, redirects;
    char last_error[160];
    bsf_sbi_result_t last_result;
    /* Last and not zeroed at submit (5 KB of a request's 6): the URI parser writes target,
     * and scp is written (parse or choose_scp) before via_scp is set. */
    bsf_sbi_uri_t target;            /* after redirects */
    bsf_sbi_uri_t scp;
} req_t;

typedef struct post {
    struct post *next_submitted;
    struct post *prev, *next; /* the timers started (client thread) */
    bsf_sbi_client_t *client;
    uv_timer_t timer;
    unsigned delay_ms;
    bsf_sbi_post_fn fn;
    void *arg;
} post_t;

struct bsf_sbi_client {
    bsf_sbi_client_config_t cfg;
    char nf_instance_id[64], fqdn[256];
    char user_agent[360];
    SSL_CTX *tls;
    uv_loop_t loop;
    uv_async_t async;
    uv_timer_t sweep;
    pthread_t thread;
    bsf_scp_table_t scp;
    bsf_sbi_token_provider_t tokens;
    uv_timer_t probe_timer;
    char scp_health_path[128];
    struct probe {
        bsf_sbi_client_t *c;
        int i;
        bool pending;
    } probes[BSF_SCP_MAX];
    bsf_sbi_pool_t *pool;
    pthread_mutex_t mu;
    req_t *queue_head, *queue_tail;  /* under mu */
    post_t *posts_head, *posts_tail; /* under mu */
    bool stopping;                   /* under mu */
    post_t *timers;                  /* client thread */
    bool stopped_loop;               /* client thread: the stop was handled */
    req_t *active;                   /* client thread */
    bsf_sbi_oci_table_t oci;         /* client thread: producers' overload control */
    atomic_uint_fast64_t throttled;  /* requests dropped by an OCI */
    atomic_uint pending;
    atomic_uint_fast64_t submitted, completed, answers, timeouts, connect_errors, retries,
        redirects;
};

/* Client thread: starts a submitted request. */
void bsf_sbi_req_start(req_t *r);
/* Client thread: completes a request with BSF_SBI_ERR_STOPPED (or whatever it has). */
void bsf_sbi_req_abort(req_t *r, const char *why);
/* Frees a request that was never started (submit failed before it was queued). */
void bsf_sbi_req_free(req_t *r);

#endif
