/* Certificates and keys that change (issue 13 §3): a thread with its own libuv loop checks
 * the files every tls.reload_interval_s (stat) and reloads what can be reloaded without a
 * restart and without touching established connections: the SBI server's TLS context and
 * the OAuth2 key set. The Diameter certificate is loaded by libfdcore at start only: a
 * change is logged (restart needed) and its expiry still measured. Every certificate's
 * time left is a gauge, and a warning is logged (once a day) before it expires.
 *
 * Main thread: create, start, stop, free. The metrics writer may run on any thread. */
#ifndef BSF_BSFD_CERT_WATCH_H
#define BSF_BSFD_CERT_WATCH_H

#include <stdint.h>

#include "common/text.h"
#include "gateways/sbi/sbi_oauth2.h"
#include "gateways/sbi/sbi_tls.h"

typedef struct bsf_cert_watch bsf_cert_watch_t;

typedef struct {
    unsigned interval_s;          /* tls.reload_interval_s; 0: no reload (metrics still) */
    unsigned warning_days;        /* tls.expiry_warning_days; 0: no warning */
    bsf_sbi_tls_t *sbi_tls;       /* NULL: no SBI TLS */
    bsf_oauth2_t *oauth2;         /* NULL: no access tokens */
    const char *diameter_cert;    /* diameter.tls.cert; NULL or "": none */
} bsf_cert_watch_config_t;

/* Returns NULL when out of memory. Reads the Diameter certificate's notAfter now. */
bsf_cert_watch_t *bsf_cert_watch_create(const bsf_cert_watch_config_t *cfg);
/* Starts the thread (a first check at once). Returns 0 or -1. */
int bsf_cert_watch_start(bsf_cert_watch_t *w);
void bsf_cert_watch_stop(bsf_cert_watch_t *w);
void bsf_cert_watch_free(bsf_cert_watch_t *w);

/* bsf_tls_cert_expiry_seconds{cert}, bsf_tls_reloads_total{file,result}: a
 * bsf_ops_metrics_fn. Any thread. */
void bsf_cert_watch_write_metrics(void *w, bsf_text_t *out);

#endif
