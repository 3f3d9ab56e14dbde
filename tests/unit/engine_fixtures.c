/* The store-and-engine fixture of the engine command tests. */
#include "tests/unit/engine_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "tests/unit/test_util.h"

void ef_open(ef_store_t *f)
{
    tu_store_open(&f->store, f->dir, 64);
    bsf_engine_config_t ec = {.site_id = 1, .collision_detection = f->collision_detection,
                              .max_batch = 64, .queue_capacity = 64, .notify = f->notify,
                              .hooks = f->hooks,
                              .notify_cache_bytes = f->notify_cache_bytes};
    tu_engine_start(&f->store, &ec, &f->engine);
}

void ef_close(ef_store_t *f)
{
    bsf_engine_destroy(f->engine);
    bsf_store_close(&f->store);
}

ef_store_t *ef_create(const char *dir_template, bool collision_detection)
{
    ef_store_t *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "%s", dir_template);
    assert_non_null(mkdtemp(f->dir));
    f->collision_detection = collision_detection;
    msgpack_sbuffer_init(&f->json);
    msgpack_sbuffer_init(&f->enc);
    msgpack_zone_init(&f->zone, 8192);
    ef_open(f);
    return f;
}

void ef_destroy(ef_store_t *f)
{
    ef_close(f);
    assert_int_equal(tu_dir_remove(f->dir), 0);
    msgpack_sbuffer_destroy(&f->json);
    msgpack_sbuffer_destroy(&f->enc);
    msgpack_zone_destroy(&f->zone);
    free(f);
}

int ef_teardown(void **state)
{
    ef_destroy(*state);
    return 0;
}

bsf_read_t *ef_read(ef_store_t *f)
{
    bsf_read_t *r;
    assert_int_equal(bsf_read_acquire(&f->store, &r), 0);
    assert_int_equal(bsf_read_begin(r), 0);
    return r;
}

uint64_t ef_counter(ef_store_t *f, const char *name)
{
    bsf_read_t *r = ef_read(f);
    uint64_t n = bsf_read_counter(r, name);
    bsf_read_release(r);
    return n;
}

size_t ef_apply_remote(ef_store_t *f, bsf_event_t ev)
{
    msgpack_packer pk;
    msgpack_sbuffer_clear(&f->enc);
    msgpack_packer_init(&pk, &f->enc, msgpack_sbuffer_write);
    assert_int_equal(bsf_event_encode(&ev, &pk), 0);
    bsf_apply_event_t a = {.raw = f->enc.data, .len = f->enc.size, .ev = ev};
    bsf_apply_batch_t batch = {.events = &a, .n_events = 1};
    bsf_command_t *cmd = bsf_command_new(BSF_CMD_APPLY);
    cmd->apply = &batch;
    tu_engine_run(f->engine, cmd);
    assert_int_equal(cmd->status, BSF_CMD_OK);
    assert_int_equal(batch.applied, 1);
    bsf_command_free(cmd);
    return batch.replaced;
}
