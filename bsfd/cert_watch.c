/* Certificate and key reload, expiry gauges and warnings; see cert_watch.h. */
#include "bsfd/cert_watch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <uv.h>

#include "common/diag.h"
#include "common/file_stamp.h"
#include "common/metrics_text.h"

#define DAY_S 86400
#define EXPIRY_CHECK_MS 60000 /* without reload, expiry is still looked at every minute */

enum { F_SBI, F_OAUTH2, F_DIAMETER, F_COUNT };
enum { RES_OK, RES_REFUSED, RES_COUNT };

static const char *const file_names[F_COUNT] = {"sbi", "oauth2_keys", "diameter"};
static const char *const result_names[RES_COUNT] = {"ok", "refused"};

struct bsf_cert_watch {
    bsf_cert_watch_config_t cfg;
    char diameter_cert[1024];
    bsf_file_stamp_t diameter_seen;
    atomic_int_fast64_t diameter_not_after; /* of the certificate libfdcore loaded */
    atomic_uint_fast64_t reloads[F_COUNT][RES_COUNT];
    int64_t last_warn[F_COUNT];
    uv_loop_t loop;
    uv_timer_t timer;
    uv_async_t stop;
    pthread_t thread;
    bool started;
};

static int64_t now_s(void)
{
    return (int64_t)time(NULL);
}

static void count(bsf_cert_watch_t *w, int file, int result)
{
    atomic_fetch_add_explicit(&w->reloads[file][result], 1, memory_order_relaxed);
}

/* At most once a day per certificate, or at once when the certificate changed. */
static void warn_expiry(bsf_cert_watch_t *w, int file, int64_t not_after, bool changed)
{
    int64_t left = not_after - now_s();
    if (!w->cfg.warning_days || !not_after || left > (int64_t)w->cfg.warning_days * DAY_S)
        return;
    if (!changed && w->last_warn[file] && now_s() - w->last_warn[file] < DAY_S)
        return;
    w->last_warn[file] = now_s();
    if (left <= 0)
        BSF_WARN("tls", "the %s certificate expired %lld s ago", file_names[file],
                 (long long)-left);
    else
        BSF_WARN("tls", "the %s certificate expires in %lld s (%.1f days)", file_names[file],
                 (long long)left, (double)left / DAY_S);
}

static void check_sbi(bsf_cert_watch_t *w, bool reload)
{
    if (!w->cfg.sbi_tls)
        return;
    char err[512];
    int rc = reload ? bsf_sbi_tls_reload(w->cfg.sbi_tls, err, sizeof err) : 0;
    if (rc > 0) {
        count(w, F_SBI, RES_OK);
        BSF_INFO("tls", "sbi.tls: certificate and key reloaded (new connections use them)");
    } else if (rc < 0) {
        count(w, F_SBI, RES_REFUSED);
        BSF_WARN("tls", "sbi.tls: new files refused, the old certificate stays: %s", err);
    }
    warn_expiry(w, F_SBI, bsf_sbi_tls_not_after(w->cfg.sbi_tls), rc > 0);
}

static void check_oauth2(bsf_cert_watch_t *w)
{
    if (!w->cfg.oauth2)
        return;
    char err[512];
    int rc = bsf_oauth2_reload(w->cfg.oauth2, err, sizeof err);
    if (rc > 0) {
        count(w, F_OAUTH2, RES_OK);
        BSF_INFO("tls", "sbi.oauth2.keys reloaded: %zu keys", bsf_oauth2_key_count(w->cfg.oauth2));
    } else if (rc < 0) {
        count(w, F_OAUTH2, RES_REFUSED);
        BSF_WARN("tls", "sbi.oauth2.keys: new file refused, the old keys stay: %s", err);
    }
}

/* libfdcore reads its certificate once (TLS_Cred at fd_core_parseconf) and keeps it in
 * credentials every connection shares: it cannot be swapped while it runs. */
static void check_diameter(bsf_cert_watch_t *w, bool reload)
{
    if (!w->diameter_cert[0])
        return;
    bsf_file_stamp_t now;
    bsf_file_stamp_take(w->diameter_cert, &now);
    if (reload && bsf_file_stamp_differs(&now, &w->diameter_seen)) {
        w->diameter_seen = now;
        count(w, F_DIAMETER, RES_REFUSED);
        BSF_WARN("tls", "diameter.tls.cert %s changed: libfdcore loads its certificate at start "
                 "only, restart bsfd to use the new one (the old one stays in use)",
                 w->diameter_cert);
    }
    warn_expiry(w, F_DIAMETER, atomic_load(&w->diameter_not_after), false);
}

static void on_tick(uv_timer_t *t)
{
    bsf_cert_watch_t *w = t->data;
    bool reload = w->cfg.interval_s != 0;
    check_sbi(w, reload);
    if (reload)
        check_oauth2(w);
    check_diameter(w, reload);
}

static void on_stop(uv_async_t *a)
{
    bsf_cert_watch_t *w = a->data;
    uv_close((uv_handle_t *)&w->timer, NULL);
    uv_close((uv_handle_t *)&w->stop, NULL);
}

static void *watch_main(void *arg)
{
    bsf_cert_watch_t *w = arg;
    uv_run(&w->loop, UV_RUN_DEFAULT);
    return NULL;
}

bsf_cert_watch_t *bsf_cert_watch_create(const bsf_cert_watch_config_t *cfg)
{
    bsf_cert_watch_t *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->cfg = *cfg;
    snprintf(w->diameter_cert, sizeof w->diameter_cert, "%s",
             cfg->diameter_cert ? cfg->diameter_cert : "");
    w->cfg.diameter_cert = w->diameter_cert;
    int64_t na = 0;
    if (w->diameter_cert[0]) {
        bsf_file_stamp_take(w->diameter_cert, &w->diameter_seen);
        if (bsf_tls_cert_file_not_after(w->diameter_cert, &na))
            na = 0;
    }
    atomic_init(&w->diameter_not_after, na);
    return w;
}

int bsf_cert_watch_start(bsf_cert_watch_t *w)
{
    if (uv_loop_init(&w->loop))
        return -1;
    uv_timer_init(&w->loop, &w->timer);
    w->timer.data = w;
    uv_async_init(&w->loop, &w->stop, on_stop);
    w->stop.data = w;
    uint64_t every = w->cfg.interval_s ? (uint64_t)w->cfg.interval_s * 1000u : EXPIRY_CHECK_MS;
    uv_timer_start(&w->timer, on_tick, 0, every);
    if (pthread_create(&w->thread, NULL, watch_main, w)) {
        uv_close((uv_handle_t *)&w->timer, NULL);
        uv_close((uv_handle_t *)&w->stop, NULL);
        uv_run(&w->loop, UV_RUN_DEFAULT);
        uv_loop_close(&w->loop);
        return -1;
    }
    w->started = true;
    return 0;
}

void bsf_cert_watch_stop(bsf_cert_watch_t *w)
{
    if (!w || !w->started)
        return;
    uv_async_send(&w->stop);
    pthread_join(w->thread, NULL);
    uv_loop_close(&w->loop);
    w->started = false;
}

void bsf_cert_watch_free(bsf_cert_watch_t *w)
{
    bsf_cert_watch_stop(w);
    free(w);
}

void bsf_cert_watch_write_metrics(void *arg, bsf_text_t *out)
{
    bsf_cert_watch_t *w = arg;
    int64_t now = now_s();
    bsf_metrics_family(out, "bsf_tls_cert_expiry_seconds", "gauge",
                       "Seconds until the notAfter of the certificate in use (negative: "
                       "expired).");
    if (w->cfg.sbi_tls)
        bsf_metrics_i64(out, "bsf_tls_cert_expiry_seconds", "cert=\"sbi\"",
                        bsf_sbi_tls_not_after(w->cfg.sbi_tls) - now);
    int64_t dna = atomic_load(&w->diameter_not_after);
    if (dna)
        bsf_metrics_i64(out, "bsf_tls_cert_expiry_seconds", "cert=\"diameter\"", dna - now);
    bsf_metrics_family(out, "bsf_tls_reloads_total", "counter",
                       "Certificate and key files reloaded after a change, or refused (the old "
                       "ones stay; diameter: restart needed).");
    for (int f = 0; f < F_COUNT; f++)
        for (int r = 0; r < RES_COUNT; r++)
            bsf_metrics_u64_label2(out, "bsf_tls_reloads_total", "file", file_names[f], "result",
                                   result_names[r],
                                   atomic_load_explicit(&w->reloads[f][r], memory_order_relaxed));
}
