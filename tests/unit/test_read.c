/* engine/read.h on a real LMDB store: discovery, a binding by id, counters and the store's
 * size through pooled read handles; snapshots are consistent and renewed; handles are
 * reused and freed with the store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/error.h"
#include "engine/engine.h"
#include "engine/read.h"
#include "engine/store.h"
#include "tests/unit/test_util.h"

typedef struct {
    char dir[64];
    bsf_store_t store;
    bsf_engine_t *engine;
    msgpack_sbuffer json;
} fx_t;

static int setup(void **state)
{
    fx_t *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/bsf-test-read-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    msgpack_sbuffer_init(&f->json);
    tu_store_open(&f->store, f->dir, 64);
    bsf_engine_config_t ec = {.site_id = 1, .collision_detection = true, .max_batch = 64,
                              .queue_capacity = 1024};
    tu_engine_start(&f->store, &ec, &f->engine);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx_t *f = *state;
    /* closing the store frees the idle handles: ASan's leak check sees the rest */
    tu_engine_close(f->engine, &f->store, f->dir);
    msgpack_sbuffer_destroy(&f->json);
    free(f);
    return 0;
}

static bsf_binding_id_t register_binding(fx_t *f, const char *ipv4, const char *pcf)
{
    bsf_command_t *cmd = tu_engine_register(f->engine, &f->json, pcf, ipv4);
    assert_int_equal(cmd->status, BSF_CMD_OK);
    bsf_binding_id_t id = cmd->id;
    bsf_command_free(cmd);
    return id;
}

static bsf_discovery_query_t by_ipv4(const char *a)
{
    bsf_discovery_query_t q = {.kind = BSF_UE_ADDR_IPV4};
    assert_true(bsf_ipv4_parse(a, strlen(a), &q.ipv4));
    return q;
}

static void count_visit(void *ctx, const char *name, uint64_t value)
{
    uint64_t *sum = ctx;
    assert_string_equal(name, "dnn/internet");
    *sum += value;
}

static void lookups_through_a_handle(void **state)
{
    fx_t *f = *state;
    bsf_binding_id_t id = register_binding(f, "10.1.0.1", "pcf1.example.com");
    register_binding(f, "10.1.0.2", "pcf2.example.com");
    bsf_read_t *r;
    assert_int_equal(bsf_read_acquire(&f->store, &r), 0);
    assert_int_equal(bsf_read_begin(r), 0);

    bsf_discovery_query_t q = by_ipv4("10.1.0.1");
    bsf_match_t m;
    size_t n = 99;
    assert_int_equal(bsf_read_discover(r, &q, bsf_read_zone(r), &m, &n), 0);
    assert_int_equal(n, 1);
    assert_memory_equal(m.id.b, id.b, 16);
    /* discovery decodes what its filters read; the rest on demand */
    assert_true(m.binding.has_ipv4);
    assert_int_equal(m.binding.ipv4.b[3], 1);
    assert_null(m.binding.pcf_fqdn);
    assert_int_equal(bsf_read_match_complete(&m, bsf_read_zone(r)), 0);
    assert_string_equal(m.binding.pcf_fqdn, "pcf1.example.com");
    q = by_ipv4("10.1.0.3");
    assert_int_equal(bsf_read_discover(r, &q, bsf_read_zone(r), &m, &n), 0);
    assert_int_equal(n, 0);

    bsf_match_t b;
    assert_int_equal(bsf_read_binding(r, &id, bsf_read_zone(r), &b), 0);
    assert_string_equal(b.binding.pcf_fqdn, "pcf1.example.com");
    bsf_binding_id_t unknown = {{0}};
    assert_int_equal(bsf_read_binding(r, &unknown, bsf_read_zone(r), &b), BSF_ENOTFOUND);

    assert_int_equal(bsf_read_counter(r, "total"), 2);
    assert_int_equal(bsf_read_counter(r, "dnn/none"), 0);
    uint64_t sum = 0;
    assert_int_equal(bsf_read_counters_each(r, "dnn/", count_visit, &sum), 0);
    assert_int_equal(sum, 2);
    bsf_read_end(r);
    bsf_read_release(r);

    bsf_read_space_t sp;
    assert_int_equal(bsf_read_space(&f->store, &sp), 0);
    assert_int_equal(sp.map, 64u << 20);
    assert_true(sp.total > 0 && sp.total <= sp.map);
    assert_true(bsf_read_file_bytes(&f->store) > 0);
}

static void snapshots_are_consistent_and_renewed(void **state)
{
    fx_t *f = *state;
    register_binding(f, "10.2.0.1", "pcf1.example.com");
    bsf_read_t *r;
    assert_int_equal(bsf_read_acquire(&f->store, &r), 0);
    assert_int_equal(bsf_read_begin(r), 0);
    assert_int_equal(bsf_read_counter(r, "total"), 1);
    register_binding(f, "10.2.0.2", "pcf1.example.com"); /* committed meanwhile */
    assert_int_equal(bsf_read_counter(r, "total"), 1); /* the snapshot does not move */
    bsf_read_end(r);
    assert_int_equal(bsf_read_begin(r), 0); /* renewed: sees the latest commit */
    assert_int_equal(bsf_read_counter(r, "total"), 2);
    bsf_read_release(r); /* with the snapshot still open: ended by release */
}

static void handles_are_pooled(void **state)
{
    fx_t *f = *state;
    bsf_read_t *a, *b, *c;
    assert_int_equal(bsf_read_acquire(&f->store, &a), 0);
    assert_int_equal(bsf_read_acquire(&f->store, &b), 0);
    assert_ptr_not_equal(a, b);
    assert_int_equal(bsf_read_begin(a), 0);
    assert_int_equal(bsf_read_begin(b), 0); /* two snapshots at once */
    bsf_read_release(a);
    assert_int_equal(bsf_read_acquire(&f->store, &c), 0);
    assert_ptr_equal(c, a); /* the idle one, not a new one */
    assert_int_equal(bsf_read_begin(c), 0);
    bsf_read_end(c);
    bsf_read_release(c);
    bsf_read_release(b);
    bsf_read_release(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(lookups_through_a_handle, setup, teardown),
        cmocka_unit_test_setup_teardown(snapshots_are_consistent_and_renewed, setup, teardown),
        cmocka_unit_test_setup_teardown(handles_are_pooled, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
