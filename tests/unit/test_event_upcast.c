/* core/event_upcast (through core/event): an event written in version 1 (the previous
 * release's form) and the same event in version 2 decode to the same in-memory event; a
 * version this build does not know is refused with a message that names it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/event.h"
#include "core/hlc.h"
#include "core/event_upcast.h"
#include "tests/unit/test_util.h"

static void encode_v(const bsf_event_t *ev, unsigned v, msgpack_sbuffer *out)
{
    msgpack_packer pk;
    msgpack_sbuffer_clear(out);
    msgpack_packer_init(&pk, out, msgpack_sbuffer_write);
    assert_int_equal(bsf_event_encode_version(ev, v, &pk), 0);
}

static int decode(const msgpack_sbuffer *in, bsf_event_t *ev, bsf_pcf_binding_t *storage,
                  char *err)
{
    return bsf_event_decode(in->data, in->size, tu_scratch_zone(), ev, storage, err, 160);
}

static bool has_key(const msgpack_sbuffer *b, const char *key)
{
    return memmem(b->data, b->size, key, strlen(key)) != NULL;
}

static bsf_event_t registration(void)
{
    static const uint8_t rnd[8] = {9, 8, 7, 6, 5, 4, 3, 2};
    bsf_event_t ev = {.type = BSF_EVENT_BINDING_REGISTERED, .site = 2, .seq = 77,
                      .hlc = BSF_HLC_FROM_MS(1764473537845ULL) + 3,
                      .binding = tu_bind("{\"supi\":\"imsi-001010000000001\",\"ipv4Addr\":"
                                         "\"10.0.0.1\",\"dnn\":\"internet\",\"snssai\":{\"sst\":1,"
                                         "\"sd\":\"000001\"},\"pcfFqdn\":\"pcf1.example.com\"}"),
                      .origin_ts_ms = 1764473537845LL, .sender_ts_ms = -1};
    ev.created_hlc = ev.hlc;
    bsf_binding_id_make(2, 77, rnd, &ev.binding_id);
    return ev;
}

/* The decoded events are the same: envelope, timestamps, and the binding re-encoded. */
static void assert_same_event(const bsf_event_t *a, const bsf_event_t *b)
{
    tu_assert_same_envelope(a, b);
    assert_int_equal(a->created_hlc, b->created_hlc);
    assert_int_equal(a->origin_ts_ms, b->origin_ts_ms);
    assert_int_equal(a->sender_ts_ms, b->sender_ts_ms);
    assert_int_equal(a->cookie_len, b->cookie_len);
    msgpack_sbuffer x, y;
    msgpack_sbuffer_init(&x);
    msgpack_sbuffer_init(&y);
    encode_v(a, BSF_EVENT_VERSION, &x);
    encode_v(b, BSF_EVENT_VERSION, &y);
    assert_int_equal(x.size, y.size);
    assert_memory_equal(x.data, y.data, x.size);
    msgpack_sbuffer_destroy(&x);
    msgpack_sbuffer_destroy(&y);
}

static void v1_and_v2_decode_the_same(void **state)
{
    (void)state;
    bsf_event_t ev = registration(), d1, d2;
    bsf_pcf_binding_t s1, s2;
    char err[160];
    msgpack_sbuffer v1, v2;
    msgpack_sbuffer_init(&v1);
    msgpack_sbuffer_init(&v2);
    encode_v(&ev, 1, &v1);
    encode_v(&ev, 2, &v2);
    /* v2 leaves out the registration's createdHlc and the absent senderTs */
    assert_true(has_key(&v1, "createdHlc") && has_key(&v1, "senderTs"));
    assert_false(has_key(&v2, "createdHlc") || has_key(&v2, "senderTs"));
    assert_true(v2.size + 20 <= v1.size);
    assert_int_equal(decode(&v1, &d1, &s1, err), 0);
    assert_int_equal(decode(&v2, &d2, &s2, err), 0);
    assert_same_event(&d1, &d2);
    assert_int_equal(d2.created_hlc, ev.hlc);
    assert_int_equal(d2.sender_ts_ms, -1);
    assert_int_equal(d2.origin_ts_ms, 1764473537845LL);
    assert_string_equal(d2.binding->supi, "imsi-001010000000001");
    /* the default writer is still version 1 (what the previous release reads) */
    msgpack_sbuffer def;
    msgpack_sbuffer_init(&def);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &def, msgpack_sbuffer_write);
    assert_int_equal(bsf_event_encode(&ev, &pk), 0);
    assert_int_equal(def.size, v1.size);
    assert_memory_equal(def.data, v1.data, v1.size);
    /* an update keeps its createdHlc in both */
    ev.type = BSF_EVENT_BINDING_UPDATED;
    ev.hlc += 100;
    encode_v(&ev, 1, &v1);
    encode_v(&ev, 2, &v2);
    assert_true(has_key(&v2, "createdHlc"));
    assert_int_equal(decode(&v1, &d1, &s1, err), 0);
    assert_int_equal(decode(&v2, &d2, &s2, err), 0);
    assert_same_event(&d1, &d2);
    assert_int_equal(d2.created_hlc, ev.created_hlc);
    msgpack_sbuffer_destroy(&def);
    msgpack_sbuffer_destroy(&v1);
    msgpack_sbuffer_destroy(&v2);
}

/* Writes a map of `n` members whose first is `v`: the caller packs the n - 1 others. */
static void start_map(msgpack_packer *pk, uint32_t n, bool v_is_text, uint64_t v)
{
    msgpack_pack_map(pk, n);
    msgpack_pack_str_with_body(pk, "v", 1);
    if (v_is_text)
        msgpack_pack_str_with_body(pk, "2", 1);
    else
        msgpack_pack_uint64(pk, v);
}

static void pack_kv_str(msgpack_packer *pk, const char *k, const char *v)
{
    msgpack_pack_str_with_body(pk, k, strlen(k));
    msgpack_pack_str_with_body(pk, v, strlen(v));
}

static void pack_kv_uint(msgpack_packer *pk, const char *k, uint64_t v)
{
    msgpack_pack_str_with_body(pk, k, strlen(k));
    msgpack_pack_uint64(pk, v);
}

/* An update without createdHlc, hand-written: v1 read it as created 0, v2 refuses it. */
static void update_without_created(msgpack_sbuffer *b, uint64_t version, bool nil_sender)
{
    msgpack_packer pk;
    msgpack_sbuffer_clear(b);
    msgpack_packer_init(&pk, b, msgpack_sbuffer_write);
    start_map(&pk, 7 + nil_sender, false, version);
    pack_kv_str(&pk, "type", "BindingUpdated");
    pack_kv_uint(&pk, "site", 1);
    pack_kv_uint(&pk, "seq", 5);
    pack_kv_uint(&pk, "hlc", 1000);
    pack_kv_str(&pk, "bindingId", "0001000000000005c1a3f0e2d4b5a697");
    msgpack_pack_str_with_body(&pk, "binding", 7);
    msgpack_pack_map(&pk, 4);
    pack_kv_str(&pk, "ipv4Addr", "10.0.0.2");
    pack_kv_str(&pk, "dnn", "internet");
    msgpack_pack_str_with_body(&pk, "snssai", 6);
    msgpack_pack_map(&pk, 1);
    pack_kv_uint(&pk, "sst", 1);
    pack_kv_str(&pk, "pcfFqdn", "pcf1.example.com");
    if (nil_sender) {
        msgpack_pack_str_with_body(&pk, "senderTs", 8);
        msgpack_pack_nil(&pk);
    }
}

static void old_meanings_kept(void **state)
{
    (void)state;
    bsf_event_t d;
    bsf_pcf_binding_t s;
    char err[160];
    msgpack_sbuffer b;
    msgpack_sbuffer_init(&b);
    update_without_created(&b, 1, true);
    assert_int_equal(decode(&b, &d, &s, err), 0);
    assert_int_equal(d.created_hlc, 0); /* v1's reading of an absent createdHlc */
    assert_int_equal(d.sender_ts_ms, -1);
    update_without_created(&b, 2, true); /* v2: nil is no form, an update names its creation */
    assert_int_equal(decode(&b, &d, &s, err), -1);
    assert_string_equal(err, "member senderTs has a wrong value");
    update_without_created(&b, 2, false);
    assert_int_equal(decode(&b, &d, &s, err), -1);
    assert_string_equal(err, "missing member createdHlc");
    msgpack_sbuffer_destroy(&b);
}

static void unknown_versions_refused(void **state)
{
    (void)state;
    bsf_event_t ev = registration(), d;
    bsf_pcf_binding_t s;
    char err[160];
    msgpack_sbuffer b;
    msgpack_sbuffer_init(&b);
    encode_v(&ev, 2, &b);
    assert_int_equal(bsf_event_decode_envelope(b.data, b.size, &d), 0);
    uint64_t version = 0;
    assert_int_equal(bsf_event_peek_version(b.data, b.size, &version), 0);
    assert_int_equal(version, 2);
    ((char *)b.data)[3] = 3; /* `v` first: the map, 0xa1 'v', then the fixint */
    assert_int_equal(decode(&b, &d, &s, err), -1);
    assert_string_equal(err, "unsupported event version 3 (this build reads versions 1 to 2)");
    assert_int_equal(bsf_event_decode_envelope(b.data, b.size, &d), -1);
    /* the applier's test of a newer version (replication/applier.c holds the topic) */
    assert_int_equal(bsf_event_peek_version(b.data, b.size, &version), 0);
    assert_int_equal(version, 3);
    assert_true(version > bsf_event_newest_read());
    assert_int_equal(bsf_event_peek_version(b.data, 3, &version), -1); /* cut before `v`'s value */
    assert_int_equal(bsf_event_peek_version("\x91\x01", 2, &version), -1); /* no map */
    ((char *)b.data)[3] = 0x7f;
    assert_int_equal(decode(&b, &d, &s, err), -1);
    assert_string_equal(err, "unsupported event version 127 (this build reads versions 1 to 2)");
    ((char *)b.data)[3] = 0;
    assert_int_equal(decode(&b, &d, &s, err), -1);
    assert_string_equal(err, "unsupported event version 0 (this build reads versions 1 to 2)");
    /* a `v` that is not a number */
    msgpack_packer pk;
    msgpack_sbuffer_clear(&b);
    msgpack_packer_init(&pk, &b, msgpack_sbuffer_write);
    start_map(&pk, 2, true, 0);
    pack_kv_str(&pk, "type", "BindingRegistered");
    assert_int_equal(decode(&b, &d, &s, err), -1);
    assert_string_equal(err, "member v has a wrong value");
    assert_int_equal(bsf_event_peek_version(b.data, b.size, &version), -1);
    /* a map without `v`, its other member stepped over */
    msgpack_sbuffer_clear(&b);
    msgpack_pack_map(&pk, 1);
    pack_kv_str(&pk, "type", "BindingRegistered");
    assert_int_equal(bsf_event_peek_version(b.data, b.size, &version), -1);
    /* the writer refuses a version it cannot write */
    msgpack_sbuffer_clear(&b);
    assert_int_equal(bsf_event_encode_version(&ev, 3, &pk), -1);
    assert_int_equal(bsf_event_encode_version(&ev, 0, &pk), -1);
    assert_int_equal(b.size, 0);
    msgpack_sbuffer_destroy(&b);
}

/* BSF_TEST_EVENT_NEXT_VERSION=1 plays the next release (tests only): version 3, in version
 * 2's form, decodes like version 2, version 4 is still refused. The switch is read once per
 * process, so this runs in a fresh one (this program again, with --next-release). */
static int next_release_child(void)
{
    if (tu_scratch_setup(NULL))
        return 1;
    bsf_event_t ev = registration(), d2, d3;
    bsf_pcf_binding_t s2, s3;
    char err[160];
    msgpack_zone *zone = tu_scratch_zone();
    msgpack_sbuffer b;
    msgpack_sbuffer_init(&b);
    encode_v(&ev, 2, &b);
    bool ok = bsf_event_newest_read() == 3 &&
              bsf_event_decode(b.data, b.size, zone, &d2, &s2, err, sizeof err) == 0;
    ((char *)b.data)[3] = 3;
    ok = ok && bsf_event_decode(b.data, b.size, zone, &d3, &s3, err, sizeof err) == 0 &&
         d3.hlc == d2.hlc && d3.created_hlc == d2.created_hlc && d3.seq == d2.seq &&
         bsf_event_decode_envelope(b.data, b.size, &d3) == 0;
    ((char *)b.data)[3] = 4;
    ok = ok && bsf_event_decode(b.data, b.size, zone, &d3, &s3, err, sizeof err) == -1 &&
         strcmp(err, "unsupported event version 4 (this build reads versions 1 to 3)") == 0;
    msgpack_sbuffer_destroy(&b);
    tu_scratch_teardown(NULL);
    return ok ? 0 : 1;
}

static void next_release_switch(void **state)
{
    (void)state;
    assert_int_equal(bsf_event_newest_read(), 2); /* unset here */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("BSF_TEST_EVENT_NEXT_VERSION", "1", 1);
        execl("/proc/self/exe", "test_event_upcast", "--next-release", (char *)NULL);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* The upcaster alone: a version it has no step from leaves the map as it was. */
static void upcast_direct(void **state)
{
    (void)state;
    bsf_event_t ev = registration();
    msgpack_sbuffer b;
    msgpack_sbuffer_init(&b);
    encode_v(&ev, 1, &b);
    msgpack_zone *zone = tu_scratch_zone();
    msgpack_object root;
    size_t off = 0;
    assert_int_equal(msgpack_unpack(b.data, b.size, &off, zone, &root), MSGPACK_UNPACK_SUCCESS);
    msgpack_object before = root;
    char err[160];
    assert_int_equal(bsf_event_upcast(&root, 3, zone, err, sizeof err), -1);
    assert_string_equal(err, "unsupported event version 3 (this build reads versions 1 to 2)");
    assert_memory_equal(&root, &before, sizeof root);
    assert_int_equal(bsf_event_upcast(&root, 1, zone, err, sizeof err), 0);
    assert_int_equal(root.via.map.size, before.via.map.size - 1); /* nil senderTs dropped */
    assert_int_equal(root.via.map.ptr[0].val.via.u64, 2);
    msgpack_sbuffer_destroy(&b);
}

/* The other kinds that carry createdHlc: a subscription's creation, a UE binding's. */
static void other_kinds(void **state)
{
    (void)state;
    static const uint8_t rnd[8] = {1};
    msgpack_sbuffer buf, v1, v2;
    msgpack_sbuffer_init(&buf);
    msgpack_sbuffer_init(&v1);
    msgpack_sbuffer_init(&v2);
    msgpack_object o = tu_json("{\"supi\":\"imsi-001010000000002\",\"pcfForUeFqdn\":"
                               "\"pcf-ue1.example.com\",\"pcfId\":"
                               "\"b5b4b5c2-7f2a-4a4e-9b0e-2b8f1c3d4e5f\"}",
                               &buf, tu_scratch_zone());
    bsf_pcf_ue_binding_t ub;
    bsf_problem_t problem;
    assert_int_equal(bsf_pcf_ue_binding_decode(&o, tu_scratch_zone(), &ub, &problem), 0);
    bsf_event_t ev = {.type = BSF_EVENT_UE_BINDING_REGISTERED, .site = 1, .seq = 3, .hlc = 5000,
                      .created_hlc = 5000, .ue_binding = &ub, .origin_ts_ms = -1,
                      .sender_ts_ms = -1}, d1, d2;
    bsf_binding_id_make(1, 3, rnd, &ev.binding_id);
    bsf_pcf_binding_t s;
    char err[160];
    encode_v(&ev, 1, &v1);
    encode_v(&ev, 2, &v2);
    assert_true(v2.size < v1.size);
    assert_int_equal(decode(&v1, &d1, &s, err), 0);
    assert_int_equal(decode(&v2, &d2, &s, err), 0);
    assert_int_equal(d1.created_hlc, 5000);
    assert_int_equal(d2.created_hlc, 5000);
    assert_string_equal(d2.ue_binding->supi, "imsi-001010000000002");
    assert_same_event(&d1, &d2);
    msgpack_sbuffer_destroy(&buf);
    msgpack_sbuffer_destroy(&v1);
    msgpack_sbuffer_destroy(&v2);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--next-release") == 0)
        return next_release_child();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(v1_and_v2_decode_the_same, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(old_meanings_kept, tu_scratch_setup, tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(unknown_versions_refused, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(upcast_direct, tu_scratch_setup, tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(next_release_switch, tu_scratch_setup,
                                        tu_scratch_teardown),
        cmocka_unit_test_setup_teardown(other_kinds, tu_scratch_setup, tu_scratch_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
