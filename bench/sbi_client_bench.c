/* Egress benchmark of the SBI client (issue 10 §6): N GET requests against a trivial HTTP/2
 * server, W in flight, each completion submitting the next (on the client thread, as a
 * notification fan-out would). Prints requests/s, the process's CPU per request (getrusage)
 * and the client thread's own CPU per request.
 *   sbi-client-bench --uri http://127.0.0.1:PORT/x --count N --inflight W
 *                    [--connections C] [--streams S] [--ca FILE] */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "gateways/sbi/sbi_client.h"

typedef struct {
    bsf_sbi_client_t *c;
    const char *uri;
    long count;
    atomic_long submitted, done, failed;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct timespec thread_cpu;
} bench_t;

static void on_done(void *arg, const bsf_sbi_response_t *rsp);

static int submit_one(bench_t *b)
{
    if (atomic_fetch_add(&b->submitted, 1) >= b->count)
        return 0;
    bsf_sbi_request_t q = {.method = "GET", .uri = b->uri, .timeout_ms = 10000,
                           .priority = -1};
    char err[128];
    if (bsf_sbi_client_submit(b->c, &q, on_done, b, err, sizeof err)) {
        fprintf(stderr, "submit: %s\n", err);
        atomic_fetch_add(&b->failed, 1);
        atomic_fetch_add(&b->done, 1);
    }
    return 1;
}

static void on_done(void *arg, const bsf_sbi_response_t *rsp)
{
    bench_t *b = arg;
    if (rsp->result != BSF_SBI_OK || rsp->status != 200)
        atomic_fetch_add(&b->failed, 1);
    submit_one(b);
    if (atomic_fetch_add(&b->done, 1) + 1 == b->count) {
        pthread_mutex_lock(&b->mu);
        pthread_cond_signal(&b->cv);
        pthread_mutex_unlock(&b->mu);
    }
}

static void read_thread_cpu(void *arg, bool stopped)
{
    (void)stopped;
    bench_t *b = arg;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b->thread_cpu);
    pthread_mutex_lock(&b->mu);
    pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

static double thread_cpu_s(bench_t *b)
{
    b->thread_cpu.tv_sec = -1;
    pthread_mutex_lock(&b->mu);
    bsf_sbi_client_post(b->c, 0, read_thread_cpu, b);
    while (b->thread_cpu.tv_sec < 0)
        pthread_cond_wait(&b->cv, &b->mu);
    pthread_mutex_unlock(&b->mu);
    return (double)b->thread_cpu.tv_sec + (double)b->thread_cpu.tv_nsec / 1e9;
}

static double process_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void run(bench_t *b, long inflight)
{
    atomic_store(&b->submitted, 0);
    atomic_store(&b->done, 0);
    atomic_store(&b->failed, 0);
    for (long i = 0; i < inflight && submit_one(b); i++)
        ;
    pthread_mutex_lock(&b->mu);
    while (atomic_load(&b->done) < b->count)
        pthread_cond_wait(&b->cv, &b->mu);
    pthread_mutex_unlock(&b->mu);
}

int main(int argc, char **argv)
{
    bench_t b = {.count = 100000};
    long inflight = 256;
    bsf_sbi_client_config_t cfg = {.nf_instance_id = "54804518-4191-46b3-955c-ac631f953ed8",
                                   .max_connections = 1, .max_streams = 128,
                                   .tls_verify = true};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--uri"))
            b.uri = argv[i + 1];
        else if (!strcmp(argv[i], "--count"))
            b.count = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--inflight"))
            inflight = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--connections"))
            cfg.max_connections = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--streams"))
            cfg.max_streams = (uint32_t)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ca"))
            cfg.tls_ca_file = argv[i + 1];
    }
    if (!b.uri || b.count <= 0) {
        fprintf(stderr, "usage: %s --uri URI --count N --inflight W [--connections C] "
                        "[--streams S] [--ca FILE]\n", argv[0]);
        return 2;
    }
    pthread_mutex_init(&b.mu, NULL);
    pthread_cond_init(&b.cv, NULL);
    char err[256];
    if (bsf_sbi_client_start(&cfg, &b.c, err, sizeof err)) {
        fprintf(stderr, "start: %s\n", err);
        return 1;
    }
    long total = b.count;
    b.count = total / 10 > 1000 ? 1000 : (total / 10 ? total / 10 : 1); /* warm-up */
    run(&b, inflight);
    b.count = total;
    double cpu0 = process_cpu_s(), tcpu0 = thread_cpu_s(&b), t0 = now_s();
    run(&b, inflight);
    double t1 = now_s(), cpu1 = process_cpu_s(), tcpu1 = thread_cpu_s(&b);
    long failed = atomic_load(&b.failed);
    printf("requests %ld  failed %ld  in flight %ld  connections %u x %u streams\n", total,
           failed, inflight, cfg.max_connections, cfg.max_streams);
    printf("rate %.0f req/s  process CPU %.2f us/req  client thread CPU %.2f us/req\n",
           (double)total / (t1 - t0), (cpu1 - cpu0) * 1e6 / (double)total,
           (tcpu1 - tcpu0) * 1e6 / (double)total);
    bsf_sbi_client_stop(b.c);
    return failed ? 1 : 0;
}
