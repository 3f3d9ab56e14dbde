/* The admission controller at run time (see admission.h): the sampling thread and the
 * lock-free decisions. */
#include "gateways/admission/admission.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/deadline.h"
#include "common/diag.h"
#include "common/metrics_text.h"
#include "common/worker_thread.h"

#define MAX_RESOURCES 8

typedef struct {
    const char *name;
    uint32_t thresholds[BSF_ADM_LEVELS]; /* under `mu` (runtime configuration changes them) */
    bsf_admission_count_fn count; /* NULL: the CPU use */
    void *ctx;
    atomic_int level;
} resource_t;

struct bsf_admission {
    bsf_admission_config_t cfg;
    unsigned cpus;        /* CPUs bsfd may run on: 100 % CPU use is all of them busy */
    uint64_t mem_limit;   /* bytes: the cgroup's memory.max, else the RAM */
    resource_t res[MAX_RESOURCES];
    atomic_int n_res;
    /* sampling thread only */
    bsf_adm_machine_t machine;
    unsigned ov_cpu, ov_pending, ov_memory; /* overload level per resource */
    uint64_t last_ns, last_cpu_ns;
    uint64_t ov_ended_ms; /* when the last overload ended (a 0 metric is sent a while) */
    /* shared */
    atomic_int state;
    atomic_uint cpu_pct, mem_pct;
    atomic_uint_fast64_t oci;  /* ts_ms << 16 | level << 8 | metric; 0: none */
    atomic_uint_fast64_t lci;  /* ts_ms << 8 | metric */
    atomic_uint_fast64_t discards[BSF_ADM_CONGESTED + 1];
    /* thread */
    bsf_worker_t worker; /* its stop flag is set under mu */
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* The memory bsfd may use: cgroup v2 memory.max when set, else the RAM. */
static uint64_t memory_limit(void)
{
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    unsigned long long v = 0;
    if (f) {
        if (fscanf(f, "%llu", &v) != 1)
            v = 0;
        fclose(f);
    }
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    uint64_t ram = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
    return v && (!ram || v < ram) ? v : ram;
}

bsf_admission_t *bsf_admission_new(const bsf_admission_config_t *cfg)
{
    bsf_admission_t *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->cfg = *cfg;
    if (!a->cfg.interval_ms)
        a->cfg.interval_ms = 200;
    cpu_set_t set;
    a->cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? (unsigned)CPU_COUNT(&set) : 1;
    if (!a->cpus)
        a->cpus = 1;
    a->mem_limit = memory_limit();
    pthread_mutex_init(&a->mu, NULL);
    if (bsf_cond_init_monotonic(&a->cv)) {
        pthread_mutex_destroy(&a->mu);
        free(a);
        return NULL;
    }
    return a;
}

int bsf_admission_add_resource(bsf_admission_t *a, const char *name,
                               const uint32_t thresholds[BSF_ADM_LEVELS],
                               bsf_admission_count_fn count, void *ctx)
{
    int n = atomic_load(&a->n_res);
    if (n == MAX_RESOURCES)
        return -1;
    resource_t *r = &a->res[n];
    r->name = name;
    memcpy(r->thresholds, thresholds, sizeof r->thresholds);
    r->count = count;
    r->ctx = ctx;
    atomic_store_explicit(&a->n_res, n + 1, memory_order_release); /* seen complete */
    return n;
}

static uint64_t process_cpu_ns(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000u +
           ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000u;
}

/* Resident memory as a percentage of the limit (/proc/self/statm). */
static uint32_t memory_pct(const bsf_admission_t *a)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size = 0, rss = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%llu %llu", &size, &rss) != 2)
        rss = 0;
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    if (!a->mem_limit || page <= 0)
        return 0;
    return (uint32_t)(rss * (uint64_t)page * 100u / a->mem_limit);
}

static void log_change(bsf_adm_state_t now, uint32_t cpu, uint64_t pending)
{
    /* No log per discarded request (seed §3.26): one line per change of state. */
    if (now == BSF_ADM_NORMAL)
        BSF_INFO("admission", "congestion state NORMAL (CPU %u %%, %llu pending)", cpu,
                 (unsigned long long)pending);
    else if (now == BSF_ADM_CONGESTED)
        BSF_ERROR("admission", "congestion state CONGESTED (CPU %u %%, %llu pending): "
                  "requests are being discarded, add capacity", cpu, (unsigned long long)pending);
    else
        BSF_WARN("admission", "congestion state %s (CPU %u %%, %llu pending)",
                 bsf_adm_state_name(now), cpu, (unsigned long long)pending);
}

/* Overload level and OCI (TS 29.500 §6.4.3.4): the timestamp changes with the metric, or
 * when half the validity passed (the OCI is renewed before consumers let it lapse). */
static void update_overload(bsf_admission_t *a, uint32_t cpu, uint64_t pending, uint32_t mem)
{
    const bsf_admission_config_t *c = &a->cfg;
    a->ov_cpu = bsf_adm_overload_level(&c->ov_cpu, a->ov_cpu, cpu);
    a->ov_pending = bsf_adm_overload_level(&c->ov_pending, a->ov_pending, pending);
    a->ov_memory = bsf_adm_overload_level(&c->ov_memory, a->ov_memory, mem);
    unsigned level = a->ov_cpu > a->ov_pending ? a->ov_cpu : a->ov_pending;
    if (a->ov_memory > level)
        level = a->ov_memory;
    uint64_t now = bsf_clock_wall_ms(), old = atomic_load(&a->oci);
    unsigned old_level = (unsigned)(old >> 8) & 0xff, old_metric = (unsigned)old & 0xff;
    uint64_t old_ts = old >> 16;
    unsigned metric = level ? c->reduction[level - 1] : 0;
    if (!level && old_level)
        a->ov_ended_ms = now;
    if (!level && (!old || now - a->ov_ended_ms > (uint64_t)c->validity_s * 1000u)) {
        atomic_store(&a->oci, 0); /* the 0 metric was advertised for one validity period */
    } else if (!old || metric != old_metric || level != old_level ||
               now - old_ts >= (uint64_t)c->validity_s * 500u) {
        if (level != old_level)
            BSF_WARN("admission", "overload level %u (reduction %u %%)", level, metric);
        atomic_store(&a->oci, now << 16 | (uint64_t)level << 8 | metric);
    }
    unsigned load = (cpu > 100 ? 100 : cpu) / 5 * 5, old_load = atomic_load(&a->lci) & 0xff;
    if (!atomic_load(&a->lci) || load != old_load)
        atomic_store(&a->lci, now << 8 | load);
}

int bsf_admission_set_thresholds(bsf_admission_t *a, int index,
                                 const uint32_t thresholds[BSF_ADM_LEVELS])
{
    if (!a || index < 0 || index >= atomic_load_explicit(&a->n_res, memory_order_acquire))
        return -1;
    pthread_mutex_lock(&a->mu);
    memcpy(a->res[index].thresholds, thresholds, sizeof a->res[index].thresholds);
    pthread_mutex_unlock(&a->mu);
    return 0;
}

static bsf_adm_state_t sample(bsf_admission_t *a, uint32_t cpu, uint32_t mem)
{
    bsf_adm_state_t candidate = BSF_ADM_NORMAL;
    uint64_t pending = 0;
    int n = atomic_load_explicit(&a->n_res, memory_order_acquire);
    uint32_t thr[MAX_RESOURCES][BSF_ADM_LEVELS];
    pthread_mutex_lock(&a->mu); /* one sample sees one set of thresholds per resource */
    for (int i = 0; i < n; i++)
        memcpy(thr[i], a->res[i].thresholds, sizeof thr[i]);
    pthread_mutex_unlock(&a->mu);
    for (int i = 0; i < n; i++) {
        resource_t *r = &a->res[i];
        uint64_t v = r->count ? r->count(r->ctx) : cpu;
        if (r->count && thr[i][0] != UINT32_MAX) /* watched counts make the load */
            pending += v;
        bsf_adm_state_t l = bsf_adm_level(thr[i], v);
        atomic_store(&r->level, l);
        if (l > candidate)
            candidate = l;
    }
    bsf_adm_state_t m = bsf_adm_level(a->cfg.memory, mem);
    if (a->cfg.sbi_enabled && m > candidate)
        candidate = m;
    atomic_store(&a->cpu_pct, cpu);
    atomic_store(&a->mem_pct, mem);
    bsf_adm_state_t before = a->machine.state;
    bsf_adm_state_t now = bsf_adm_machine_step(&a->machine, candidate, a->cfg.sample_count);
    if (now != before) {
        atomic_store(&a->state, now);
        log_change(now, cpu, pending);
    }
    if (a->cfg.sbi_enabled && a->cfg.overload_enabled)
        update_overload(a, cpu, pending, mem);
    return now;
}

bsf_adm_state_t bsf_admission_sample(bsf_admission_t *a, uint32_t cpu_pct, uint32_t mem_pct)
{
    return sample(a, cpu_pct, mem_pct);
}

static void *sampler(void *arg)
{
    bsf_admission_t *a = arg;
    a->last_ns = bsf_clock_mono_ns();
    a->last_cpu_ns = process_cpu_ns();
    pthread_mutex_lock(&a->mu);
    while (!bsf_worker_stopping(&a->worker)) {
        struct timespec next = bsf_deadline_after_ms(a->cfg.interval_ms);
        while (!bsf_worker_stopping(&a->worker) &&
               bsf_cond_wait_until(&a->cv, &a->mu, &next) != -ETIMEDOUT)
            ; /* woken early (spuriously): the interval is kept */
        if (bsf_worker_stopping(&a->worker))
            break;
        pthread_mutex_unlock(&a->mu);
        uint64_t now = bsf_clock_mono_ns(), cpu = process_cpu_ns(), wall = now - a->last_ns;
        uint32_t pct = wall ? (uint32_t)((cpu - a->last_cpu_ns) * 100u / (wall * a->cpus)) : 0;
        a->last_ns = now;
        a->last_cpu_ns = cpu;
        sample(a, pct, memory_pct(a));
        pthread_mutex_lock(&a->mu);
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

int bsf_admission_start(bsf_admission_t *a)
{
    int rc = bsf_worker_start(&a->worker, sampler, a, NULL);
    if (rc) {
        errno = -rc;
        return -1;
    }
    return 0;
}

void bsf_admission_stop(bsf_admission_t *a)
{
    if (a)
        bsf_worker_stop(&a->worker, &a->mu, &a->cv);
}

void bsf_admission_free(bsf_admission_t *a)
{
    if (!a)
        return;
    bsf_admission_stop(a);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    free(a);
}

bsf_adm_state_t bsf_admission_state(const bsf_admission_t *a)
{
    return (bsf_adm_state_t)atomic_load_explicit(&a->state, memory_order_relaxed);
}

bsf_adm_state_t bsf_admission_resource_level(const bsf_admission_t *a, int index)
{
    if (index < 0 || index >= atomic_load(&a->n_res))
        return BSF_ADM_NORMAL;
    return (bsf_adm_state_t)atomic_load_explicit(&a->res[index].level, memory_order_relaxed);
}

uint32_t bsf_admission_draw(void)
{
    static _Thread_local uint64_t x;
    if (!x) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        x = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)(uintptr_t)&x ^ 0x9e3779b97f4a7c15ull;
    }
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return (uint32_t)(x % 100u);
}

bool bsf_admission_sbi_admit(bsf_admission_t *a, uint32_t priority)
{
    bsf_adm_state_t s = bsf_admission_state(a);
    if (s == BSF_ADM_NORMAL || !a->cfg.sbi_enabled)
        return true;
    if (!bsf_adm_discard(&a->cfg.shedding, s, priority, bsf_admission_draw()))
        return true;
    atomic_fetch_add_explicit(&a->discards[s], 1, memory_order_relaxed);
    return false;
}

uint32_t bsf_admission_sbi_priority(const bsf_admission_t *a, const char *method,
                                    const char *header)
{
    int p = bsf_adm_priority_parse(header);
    return p >= 0 ? (uint32_t)p : a->cfg.op_priority[bsf_adm_op_of(method)];
}

bool bsf_admission_oci(const bsf_admission_t *a, unsigned *level, unsigned *metric,
                       uint64_t *ts_ms, uint32_t *validity_s)
{
    uint64_t v = atomic_load_explicit(&a->oci, memory_order_relaxed);
    if (!v)
        return false;
    *level = (unsigned)(v >> 8) & 0xff;
    *metric = (unsigned)v & 0xff;
    *ts_ms = v >> 16;
    *validity_s = a->cfg.validity_s;
    return true;
}

bool bsf_admission_lci(const bsf_admission_t *a, unsigned *metric, uint64_t *ts_ms)
{
    uint64_t v = atomic_load_explicit(&a->lci, memory_order_relaxed);
    if (!v || !a->cfg.sbi_enabled)
        return false;
    *metric = (unsigned)v & 0xff;
    *ts_ms = v >> 8;
    return true;
}

void bsf_admission_write_metrics(const bsf_admission_t *a, bsf_text_t *out)
{
    uint64_t oci = atomic_load(&a->oci);
    const bsf_metric_row_t rows[] = {
        {"ocbsf_admission_state", "gauge",
         "Congestion state shared by the SBI and Rx (0 NORMAL, 1 DOC, 2 L1, 3 L2, 4 CONGESTED).",
         (uint64_t)atomic_load(&a->state)},
        {"ocbsf_admission_overload_level", "gauge", "Overload level (0 none, 1-3).",
         (oci >> 8) & 0xff},
        {"ocbsf_admission_cpu_percent", "gauge", "CPU use at the last sample.",
         atomic_load(&a->cpu_pct)},
        {"ocbsf_admission_memory_percent", "gauge", "Memory use at the last sample.",
         atomic_load(&a->mem_pct)},
    };
    BSF_METRICS_ROWS(out, rows);
    bsf_metrics_family(out, "ocbsf_admission_resource_state", "gauge",
                       "Level each resource reached at the last sample.");
    int n = atomic_load(&a->n_res);
    for (int i = 0; i < n; i++) /* levels are states, 0 to 4 */
        bsf_metrics_u64_label(out, "ocbsf_admission_resource_state", "resource", a->res[i].name,
                              (uint64_t)atomic_load(&a->res[i].level));
    bsf_metrics_family(out, "ocbsf_http_congestion_message_reject_total", "counter",
                       "SBI requests discarded by congestion control, by state.");
    for (int s = BSF_ADM_DOC; s <= BSF_ADM_CONGESTED; s++)
        bsf_metrics_u64_label(out, "ocbsf_http_congestion_message_reject_total", "state",
                              bsf_adm_state_name((bsf_adm_state_t)s),
                              atomic_load(&a->discards[s]));
}
