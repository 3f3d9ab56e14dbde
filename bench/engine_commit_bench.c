/* The engine's commit alone (issue 16): durable registrations submitted at a fixed rate from
 * one thread, straight to the engine (no HTTP), on a real LMDB store of PRELOAD bindings, once
 * per commit window. Prints the process's CPU (utime + stime: the engine thread's LMDB work,
 * pwrite and fsync kernel time; the submitter's share is small) per registration, the
 * registrations per transaction and the mean latency submit -> done.
 *
 *   engine-commit-bench DIR PRELOAD RATE COUNT WINDOW_US...
 *
 * DIR must not exist (it is created, and removed at the end). */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "common/clock.h"
#include "common/error.h"
#include "engine/engine.h"
#include "engine/store.h"
#include "gateways/sbi/json_codec.h"

static atomic_uint_fast64_t done_count, latency_ns;

static void on_done(bsf_command_t *cmd)
{
    if (cmd->status != BSF_CMD_OK) {
        fprintf(stderr, "a registration failed: %s\n", cmd->problem.detail);
        exit(1);
    }
    atomic_fetch_add(&latency_ns, bsf_clock_mono_ns() - cmd->submitted_ns);
    atomic_fetch_add(&done_count, 1);
    bsf_command_free(cmd);
}

static bsf_command_t *registration(uint64_t i)
{
    bsf_command_t *cmd = bsf_command_new(BSF_CMD_REGISTER);
    char doc[512];
    uint32_t a = 0x0a000000u + (uint32_t)i;
    int n = snprintf(doc, sizeof doc,
                     "{\"supi\":\"imsi-00101%010" PRIu64 "\",\"gpsi\":\"msisdn-4670%08" PRIu64
                     "\",\"ipv4Addr\":\"%u.%u.%u.%u\",\"dnn\":\"internet\",\"snssai\":{\"sst\":1,"
                     "\"sd\":\"000001\"},\"pcfFqdn\":\"pcf1.example.com\"}",
                     i, i, a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
    msgpack_sbuffer buf;
    msgpack_sbuffer_init(&buf);
    msgpack_object o;
    bsf_problem_t p;
    if (!cmd || bsf_json_to_msgpack(doc, (size_t)n, &buf, &cmd->zone, &o, &p) ||
        bsf_pcf_binding_decode(&o, &cmd->zone, &cmd->binding, &p)) {
        fprintf(stderr, "cannot make registration %" PRIu64 "\n", i);
        exit(1);
    }
    msgpack_sbuffer_destroy(&buf);
    cmd->done = on_done;
    return cmd;
}

static uint64_t cpu_us(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
           (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static void wait_for(uint64_t n)
{
    while (atomic_load(&done_count) < n) {
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
}

/* Submits `count` registrations from `first`, `rate` per second (0: all at once). */
static void submit(bsf_engine_t *e, uint64_t first, uint64_t count, uint64_t rate)
{
    uint64_t t0 = bsf_clock_mono_ns();
    for (uint64_t i = 0; i < count; i++) {
        if (rate) {
            uint64_t at = t0 + i * 1000000000u / rate;
            struct timespec ts = {(time_t)(at / 1000000000u), (long)(at % 1000000000u)};
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
        }
        bsf_command_t *cmd = registration(first + i);
        while (bsf_engine_submit(e, cmd) == BSF_EBUSY) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
    }
}

static bsf_engine_t *start(bsf_store_t *s, unsigned window_us)
{
    char err[256];
    bsf_engine_config_t ec = {.site_id = 1, .max_batch = 512, .queue_capacity = 65536,
                              .commit_window_us = window_us, .commit_window_batch = 64};
    bsf_engine_t *e;
    if (bsf_engine_create(s, &ec, &e, err, sizeof err) || bsf_engine_start(e)) {
        fprintf(stderr, "engine: %s\n", err);
        exit(1);
    }
    return e;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: %s DIR PRELOAD RATE COUNT WINDOW_US...\n", argv[0]);
        return 2;
    }
    uint64_t preload = strtoull(argv[2], NULL, 10), rate = strtoull(argv[3], NULL, 10);
    uint64_t count = strtoull(argv[4], NULL, 10);
    bsf_store_t s;
    char err[256];
    bsf_store_options_t so = {argv[1], 65536, false, 16, 0};
    if (bsf_store_open(&s, &so, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    bsf_engine_t *e = start(&s, 0);
    submit(e, 0, preload, 0);
    wait_for(preload);
    bsf_engine_destroy(e);
    uint64_t next = preload, target = preload;
    for (int a = 5; a < argc; a++) {
        unsigned window = (unsigned)strtoul(argv[a], NULL, 10);
        e = start(&s, window);
        atomic_store(&latency_ns, 0);
        uint64_t c0 = cpu_us();
        submit(e, next, count, rate);
        target += count;
        wait_for(target);
        uint64_t c1 = cpu_us();
        bsf_engine_stats_t st;
        bsf_engine_stats(e, &st);
        printf("window %6u us: %.1f us CPU per registration, %.2f registrations per "
               "transaction, mean latency %.2f ms (%" PRIu64 " at %" PRIu64 "/s)\n",
               window, (double)(c1 - c0) / (double)count,
               (double)st.commands / (double)(st.batches ? st.batches : 1),
               (double)atomic_load(&latency_ns) / (double)count / 1e6, count, rate);
        fflush(stdout);
        bsf_engine_destroy(e);
        next += count;
    }
    bsf_store_close(&s);
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", argv[1]);
    return system(cmd) == 0 ? 0 : 1;
}
