/* Events prepared on another thread (engine/prepared_event.c: decoded and framed apart from
 * the writer, as bsfctl's apply pipeline does) give the same store as events applied
 * directly; what is not an event is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/prepared_event.h"
#include "tests/unit/history_fixtures.h"

/* A run of the history through prepared events into a fresh store: the reference digest
 * of the history applied directly, the writer, and the buffers and zone of the preparing. */
typedef struct {
    uint8_t reference[32];
    hf_writer_t w;
    msgpack_sbuffer raw, tmp;
    msgpack_zone zone;
} run_t;

static void run_begin(hf_history_t *f, run_t *r)
{
    hf_reference_digest(f, r->reference);
    hf_writer_begin(&r->w);
    msgpack_sbuffer_init(&r->raw);
    msgpack_sbuffer_init(&r->tmp);
    msgpack_zone_init(&r->zone, 4096);
}

/* Checks that the store holds what the direct application gave, then frees the run. */
static void run_end(run_t *r)
{
    uint8_t digest[32];
    assert_int_equal(bsf_projection_digest(&r->w.s.proj, r->w.txn, digest), 0);
    assert_memory_equal(digest, r->reference, 32);
    msgpack_zone_destroy(&r->zone);
    msgpack_sbuffer_destroy(&r->raw);
    msgpack_sbuffer_destroy(&r->tmp);
    hf_writer_end(&r->w, false);
}

/* Prepares event `i` of the run's history, encoded into r->raw (with its stored form when
 * `stored` is not NULL); fails the test when it is refused. */
static void prepare(run_t *r, size_t i, const void *stored, size_t stored_len, bool frame_binding,
                    bsf_prepared_event_t *pe)
{
    char err[256];
    if (bsf_prepared_event_make(r->raw.data, r->raw.size, stored, stored_len, frame_binding,
                                &r->zone, &r->tmp, pe, err, sizeof err))
        fail_msg("event %zu: %s", i, err);
}

static void prepared_events_give_the_same_store(void **state)
{
    hf_history_t *f = *state;
    char err[256];
    run_t r;
    run_begin(f, &r);
    for (size_t i = 0; i < f->n; i++) {
        hf_encode_event(f, i, &r.raw);
        bsf_prepared_event_t pe;
        /* binding frames made by the preparing side for even events, by the writer for odd */
        prepare(&r, i, NULL, 0, i % 2 == 0, &pe);
        msgpack_sbuffer_clear(&r.raw); /* the prepared event keeps its own copy */
        assert_int_equal(pe.ev.type, f->events[i].type);
        /* (UE bindings are framed by the writer: they are few and small) */
        assert_true((pe.binding_frame != NULL) ==
                    (i % 2 == 0 && bsf_event_has_binding(pe.ev.type) &&
                     !bsf_event_is_ue(pe.ev.type) && !bsf_event_is_mbs(pe.ev.type)));
        assert_int_equal(bsf_store_write_prepared(&r.w.s, r.w.txn, &pe, &r.w.scratch, NULL), 0);
        msgpack_zone_clear(&r.zone);
    }
    assert_int_equal(r.w.s.log.last, f->n);
    /* not an event: refused with a reason, nothing allocated outside the zone */
    bsf_prepared_event_t pe;
    err[0] = '\0';
    assert_int_equal(bsf_prepared_event_make("\x93\x01", 2, NULL, 0, true, &r.zone, &r.tmp, &pe,
                                             err, sizeof err),
                     -1);
    assert_true(err[0] != '\0');
    run_end(&r);
}

/* An event given with its stored form (bsfctl rebuild copying a live log) keeps that form
 * byte for byte as its log frame, and the store it gives is the same. */
static void stored_forms_are_copied_as_they_are(void **state)
{
    hf_history_t *f = *state;
    run_t r;
    run_begin(f, &r);
    for (size_t i = 0; i < f->n; i++) {
        hf_encode_event(f, i, &r.raw);
        bsf_prepared_event_t made, copied;
        prepare(&r, i, NULL, 0, true, &made);
        prepare(&r, i, made.log_frame, made.log_frame_len, true, &copied);
        assert_ptr_not_equal(copied.log_frame, made.log_frame); /* a copy in the zone */
        assert_int_equal(copied.log_frame_len, made.log_frame_len);
        assert_memory_equal(copied.log_frame, made.log_frame, made.log_frame_len);
        assert_int_equal(bsf_store_write_prepared(&r.w.s, r.w.txn, &copied, &r.w.scratch, NULL),
                         0);
        msgpack_sbuffer_clear(&r.raw);
        msgpack_zone_clear(&r.zone);
    }
    run_end(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(prepared_events_give_the_same_store, hf_setup,
                                        hf_teardown),
        cmocka_unit_test_setup_teardown(stored_forms_are_copied_as_they_are, hf_setup,
                                        hf_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
