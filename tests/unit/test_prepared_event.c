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

static void prepared_events_give_the_same_store(void **state)
{
    hf_history_t *f = *state;
    uint8_t reference[32], digest[32];
    hf_reference_digest(f, reference);
    char err[256];
    hf_writer_t w;
    hf_writer_begin(&w);
    bsf_store_t *s = &w.s;
    MDB_txn *txn = w.txn;
    msgpack_sbuffer raw, tmp;
    msgpack_sbuffer_init(&raw);
    msgpack_sbuffer_init(&tmp);
    msgpack_zone zone;
    msgpack_zone_init(&zone, 4096);
    for (size_t i = 0; i < f->n; i++) {
        hf_encode_event(f, i, &raw);
        bsf_prepared_event_t pe;
        /* binding frames made by the preparing side for even events, by the writer for odd */
        if (bsf_prepared_event_make(raw.data, raw.size, NULL, 0, i % 2 == 0, &zone, &tmp, &pe,
                                    err, sizeof err))
            fail_msg("event %zu: %s", i, err);
        msgpack_sbuffer_clear(&raw); /* the prepared event keeps its own copy */
        assert_int_equal(pe.ev.type, f->events[i].type);
        /* (UE bindings are framed by the writer: they are few and small) */
        assert_true((pe.binding_frame != NULL) ==
                    (i % 2 == 0 && bsf_event_has_binding(pe.ev.type) &&
                     !bsf_event_is_ue(pe.ev.type) && !bsf_event_is_mbs(pe.ev.type)));
        assert_int_equal(bsf_store_write_prepared(s, txn, &pe, &w.scratch, NULL), 0);
        msgpack_zone_clear(&zone);
    }
    assert_int_equal(bsf_projection_digest(&s->proj, txn, digest), 0);
    assert_memory_equal(digest, reference, 32);
    assert_int_equal(s->log.last, f->n);
    /* not an event: refused with a reason, nothing allocated outside the zone */
    bsf_prepared_event_t pe;
    err[0] = '\0';
    assert_int_equal(bsf_prepared_event_make("\x93\x01", 2, NULL, 0, true, &zone, &tmp, &pe, err,
                                             sizeof err),
                     -1);
    assert_true(err[0] != '\0');
    msgpack_zone_destroy(&zone);
    msgpack_sbuffer_destroy(&raw);
    msgpack_sbuffer_destroy(&tmp);
    hf_writer_end(&w, false);
}

/* An event given with its stored form (bsfctl rebuild copying a live log) keeps that form
 * byte for byte as its log frame, and the store it gives is the same. */
static void stored_forms_are_copied_as_they_are(void **state)
{
    hf_history_t *f = *state;
    uint8_t reference[32], digest[32];
    hf_reference_digest(f, reference);
    char err[256];
    hf_writer_t w;
    hf_writer_begin(&w);
    msgpack_sbuffer raw, tmp;
    msgpack_sbuffer_init(&raw);
    msgpack_sbuffer_init(&tmp);
    msgpack_zone zone;
    msgpack_zone_init(&zone, 4096);
    for (size_t i = 0; i < f->n; i++) {
        hf_encode_event(f, i, &raw);
        bsf_prepared_event_t made, copied;
        if (bsf_prepared_event_make(raw.data, raw.size, NULL, 0, true, &zone, &tmp, &made, err,
                                    sizeof err) ||
            bsf_prepared_event_make(raw.data, raw.size, made.log_frame, made.log_frame_len,
                                    true, &zone, &tmp, &copied, err, sizeof err))
            fail_msg("event %zu: %s", i, err);
        assert_ptr_not_equal(copied.log_frame, made.log_frame); /* a copy in the zone */
        assert_int_equal(copied.log_frame_len, made.log_frame_len);
        assert_memory_equal(copied.log_frame, made.log_frame, made.log_frame_len);
        assert_int_equal(bsf_store_write_prepared(&w.s, w.txn, &copied, &w.scratch, NULL), 0);
        msgpack_sbuffer_clear(&raw);
        msgpack_zone_clear(&zone);
    }
    assert_int_equal(bsf_projection_digest(&w.s.proj, w.txn, digest), 0);
    assert_memory_equal(digest, reference, 32);
    msgpack_zone_destroy(&zone);
    msgpack_sbuffer_destroy(&raw);
    msgpack_sbuffer_destroy(&tmp);
    hf_writer_end(&w, false);
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
