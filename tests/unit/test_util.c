#include "tests/unit/test_util.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/hlc.h"
#include "gateways/sbi/json_codec.h"

msgpack_object tu_json(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone)
{
    msgpack_object obj;
    bsf_problem_t p;
    int rc = bsf_json_to_msgpack(json, strlen(json), buf, zone, &obj, &p);
    if (rc)
        fail_msg("bad test JSON: %s (%s)", json, p.detail);
    return obj;
}

bsf_pcf_binding_t *tu_binding(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone)
{
    bsf_pcf_binding_t *b = msgpack_zone_malloc(zone, sizeof *b);
    bsf_problem_t p;
    msgpack_object o = tu_json(json, buf, zone);
    if (!b || bsf_pcf_binding_decode(&o, zone, b, &p) || bsf_pcf_binding_check_rules(b, &p))
        fail_msg("bad test binding: %s (%s)", json, b ? p.detail : "out of memory");
    return b;
}

void tu_store_open(bsf_store_t *store, const char *dir, size_t map_mb)
{
    char err[256];
    bsf_store_options_t so = {dir, map_mb, false, 16, 0};
    if (bsf_store_open(store, &so, err, sizeof err))
        fail_msg("%s", err);
}

void tu_engine_start(bsf_store_t *store, const bsf_engine_config_t *ec, bsf_engine_t **engine)
{
    char err[256];
    if (bsf_engine_create(store, ec, engine, err, sizeof err) || bsf_engine_start(*engine))
        fail_msg("%s", err);
}

void tu_waiter_init(tu_waiter_t *w)
{
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    w->done = 0;
}

static void on_done(bsf_command_t *cmd)
{
    tu_waiter_t *w = cmd->owner;
    pthread_mutex_lock(&w->mu);
    w->done++;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void tu_waiter_wait(tu_waiter_t *w, int n)
{
    pthread_mutex_lock(&w->mu);
    while (w->done < n)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

void tu_engine_submit(bsf_engine_t *engine, bsf_command_t *cmd, tu_waiter_t *w)
{
    cmd->owner = w;
    cmd->done = on_done;
    assert_int_equal(bsf_engine_submit(engine, cmd), 0);
}

void tu_engine_run(bsf_engine_t *engine, bsf_command_t *cmd)
{
    tu_waiter_t w;
    tu_waiter_init(&w);
    tu_engine_submit(engine, cmd, &w);
    tu_waiter_wait(&w, 1);
}

bsf_command_t *tu_engine_register(bsf_engine_t *engine, msgpack_sbuffer *json, const char *pcf,
                                  const char *ipv4)
{
    bsf_command_t *cmd = bsf_command_new(BSF_CMD_REGISTER);
    if (!cmd)
        fail_msg("out of memory");
    char doc[512];
    snprintf(doc, sizeof doc,
             "{\"supi\":\"imsi-001010000000009\",\"ipv4Addr\":\"%s\",\"dnn\":\"internet\","
             "\"snssai\":{\"sst\":1,\"sd\":\"000001\"},\"pcfFqdn\":\"%s\"}",
             ipv4, pcf);
    msgpack_object o = tu_json(doc, json, &cmd->zone);
    bsf_problem_t p;
    assert_int_equal(bsf_pcf_binding_decode(&o, &cmd->zone, &cmd->binding, &p), 0);
    tu_engine_run(engine, cmd);
    return cmd;
}

int tu_doc_setup(void **state)
{
    tu_doc_t *f = calloc(1, sizeof *f);
    if (!f || !msgpack_zone_init(&f->zone, 4096))
        fail_msg("out of memory");
    msgpack_sbuffer_init(&f->buf);
    msgpack_sbuffer_init(&f->out);
    *state = f;
    return 0;
}

int tu_doc_teardown(void **state)
{
    tu_doc_t *f = *state;
    msgpack_sbuffer_destroy(&f->buf);
    msgpack_sbuffer_destroy(&f->out);
    msgpack_zone_destroy(&f->zone);
    free(f);
    return 0;
}

bsf_cause_t tu_check(tu_doc_t *f, const char *json)
{
    msgpack_object o = tu_json(json, &f->buf, &f->zone);
    memset(&f->problem, 0, sizeof f->problem);
    if (bsf_pcf_binding_decode(&o, &f->zone, &f->b, &f->problem) ||
        bsf_pcf_binding_check_rules(&f->b, &f->problem))
        return f->problem.cause;
    return BSF_CAUSE_NONE;
}

const char *tu_doc_to_json(tu_doc_t *f)
{
    msgpack_sbuffer mp;
    msgpack_sbuffer_init(&mp);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &mp, msgpack_sbuffer_write);
    assert_int_equal(bsf_pcf_binding_encode(&f->b, &pk), 0);
    msgpack_object o;
    size_t off = 0;
    assert_int_equal(msgpack_unpack(mp.data, mp.size, &off, &f->zone, &o),
                     MSGPACK_UNPACK_SUCCESS);
    msgpack_sbuffer_clear(&f->out);
    assert_int_equal(bsf_json_write(&o, &f->out, NULL, NULL), 0);
    msgpack_sbuffer_write(&f->out, "", 1);
    msgpack_sbuffer_destroy(&mp);
    return f->out.data;
}

static tu_doc_t *scratch;

int tu_scratch_setup(void **state)
{
    (void)state;
    void *f;
    tu_doc_setup(&f);
    scratch = f;
    return 0;
}

int tu_scratch_teardown(void **state)
{
    (void)state;
    void *f = scratch;
    scratch = NULL;
    return tu_doc_teardown(&f);
}

bsf_pcf_binding_t *tu_bind(const char *json)
{
    return tu_binding(json, &scratch->buf, &scratch->zone);
}

msgpack_zone *tu_scratch_zone(void)
{
    return &scratch->zone;
}

tu_doc_t *tu_scratch(void)
{
    return scratch;
}

bsf_pcf_binding_t *tu_site_binding(tu_doc_t *c, const char *pcf_fqdn)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"supi\":\"imsi-001010000000001\",\"ipv4Addr\":\"10.1.2.3\",\"dnn\":\"internet\","
             "\"snssai\":{\"sst\":1,\"sd\":\"000001\"},\"pcfFqdn\":\"%s\"}",
             pcf_fqdn);
    return tu_binding(json, &c->buf, &c->zone);
}

bsf_binding_view_t tu_site_view(const bsf_pcf_binding_t *b, uint16_t site, uint64_t seq,
                                uint64_t created_ms, int64_t origin, int64_t sender)
{
    bsf_binding_view_t v = {.binding = b, .created_hlc = BSF_HLC_FROM_MS(created_ms),
                            .origin_ts_ms = origin, .sender_ts_ms = sender};
    uint8_t rnd[8] = {1, 2, 3, 4, 5, 6, 7, (uint8_t)seq};
    bsf_binding_id_make(site, seq, rnd, &v.id);
    return v;
}

const char *const tu_full_binding =
    "{\"supi\":\"imsi-001010000000001\",\"gpsi\":\"msisdn-491700000001\","
    "\"ipv4Addr\":\"10.1.2.3\",\"ipv6Prefix\":\"2001:DB8:1::/64\","
    "\"addIpv6Prefixes\":[\"2001:db8:2::/64\"],\"ipDomain\":\"corp\","
    "\"dnn\":\"internet\",\"pcfFqdn\":\"pcf.example.com\","
    "\"pcfIpEndPoints\":[{\"ipv4Address\":\"192.0.2.1\",\"transport\":\"TCP\",\"port\":8080}],"
    "\"pcfDiamHost\":\"pcf.diam.example.com\",\"pcfDiamRealm\":\"example.com\","
    "\"pcfSmFqdn\":\"pcf-sm.example.com\",\"pcfSmIpEndPoints\":[{\"ipv6Address\":\"2001:db8::5\"}],"
    "\"snssai\":{\"sst\":1,\"sd\":\"abcdef\"},\"suppFeat\":\"7\","
    "\"pcfId\":\"c1d2e3f4-0000-4000-8000-000000000001\",\"pcfSetId\":\"setxyz.pcfset.5gc.mnc001."
    "mcc001\",\"recoveryTime\":\"2026-11-30T01:02:03.5Z\","
    "\"paraCom\":{\"supi\":\"imsi-001010000000001\",\"dnn\":\"internet\",\"snssai\":{\"sst\":1}},"
    "\"bindLevel\":\"NF_INSTANCE\",\"ipv4FrameRouteList\":[\"198.51.0.0/16\"],"
    "\"ipv6FrameRouteList\":[\"2001:db8:99::/48\"],\"unknownMember\":{\"x\":[1,2]}}";

pid_t tu_peer_start(const char *script, const char *dir, const char *port_name,
                    const char *const opts[], int tries, int *port)
{
    char port_file[256];
    snprintf(port_file, sizeof port_file, "%s/%s", dir, port_name);
    char *argv[16] = {"/usr/bin/python3", (char *)script, "--port-file", port_file};
    for (size_t i = 0; opts && opts[i]; i++) {
        assert_true(i < 12); /* argv keeps its NULL */
        argv[4 + i] = (char *)opts[i];
    }
    pid_t pid = fork();
    if (pid == 0) {
        execv(argv[0], argv);
        _exit(127);
    }
    if (pid < 0)
        return -1;
    for (int i = 0; i < tries; i++) {
        FILE *f = fopen(port_file, "r");
        if (f) {
            int ok = fscanf(f, "%d", port);
            fclose(f);
            if (ok == 1)
                return pid;
        }
        usleep(50000);
    }
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    return -1;
}

int tu_peers_stop(const pid_t *peers, size_t n, const char *dir)
{
    for (size_t i = 0; i < n; i++)
        if (peers[i] > 0) {
            kill(peers[i], SIGTERM);
            waitpid(peers[i], NULL, 0);
        }
    return tu_dir_remove(dir);
}

void tu_temp_dir(char *dir, size_t cap, const char *name)
{
    snprintf(dir, cap, "/tmp/%s.XXXXXX", name);
    assert_non_null(mkdtemp(dir));
}

int tu_dir_remove(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

void tu_engine_close(bsf_engine_t *engine, bsf_store_t *store, const char *dir)
{
    bsf_engine_destroy(engine);
    bsf_store_close(store);
    assert_int_equal(tu_dir_remove(dir), 0);
}

void tu_assert_same_envelope(const bsf_event_t *a, const bsf_event_t *b)
{
    assert_int_equal(a->type, b->type);
    assert_int_equal(a->site, b->site);
    assert_int_equal(a->seq, b->seq);
    assert_int_equal(a->hlc, b->hlc);
    assert_memory_equal(a->binding_id.b, b->binding_id.b, 16);
}

void tu_event_round_trip(const bsf_event_t *ev, msgpack_sbuffer *out, msgpack_zone *zone,
                         bsf_event_t *back)
{
    msgpack_packer pk;
    msgpack_sbuffer_clear(out);
    msgpack_packer_init(&pk, out, msgpack_sbuffer_write);
    assert_int_equal(bsf_event_encode(ev, &pk), 0);
    bsf_pcf_binding_t unused;
    char err[128];
    if (bsf_event_decode(out->data, out->size, zone, back, &unused, err, sizeof err))
        fail_msg("the event does not decode: %s", err);
}
