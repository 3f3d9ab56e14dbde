/* log/log_archive: segments written and read back in order, from a position; names and
 * headers checked; a damaged segment is reported, never half-visited silently. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/error.h"
#include "log/log_archive.h"
#include "tests/unit/test_util.h"

typedef struct {
    uint64_t pos[64];
    char text[64][16];
    size_t n;
    size_t stop_after;
} seen_t;

static int note(void *ctx, uint64_t position, const void *event, size_t len)
{
    seen_t *s = ctx;
    s->pos[s->n] = position;
    snprintf(s->text[s->n], sizeof s->text[0], "%.*s", (int)len, (const char *)event);
    s->n++;
    return s->stop_after && s->n >= s->stop_after;
}

static void write_segment(const char *dir, uint64_t first, uint64_t last,
                          bsf_log_archive_stat_t *st)
{
    bsf_log_segment_t seg;
    bsf_log_segment_init(&seg);
    for (uint64_t p = first; p <= last; p++) {
        char ev[16];
        int n = snprintf(ev, sizeof ev, "event-%llu", (unsigned long long)p);
        assert_int_equal(bsf_log_segment_add(&seg, p, ev, (size_t)n), 0);
    }
    assert_int_equal(bsf_log_segment_write(&seg, dir, st), 0);
    bsf_log_segment_free(&seg);
}

static void test_write_and_scan(void **state)
{
    (void)state;
    char dir[64] = "/tmp/bsf-test-archive-XXXXXX", err[256];
    assert_non_null(mkdtemp(dir));
    bsf_log_archive_stat_t st;
    assert_int_equal(bsf_log_archive_open(dir, &st, err, sizeof err), 0);
    assert_int_equal(st.segments, 0);
    write_segment(dir, 11, 20, &st); /* written out of order: read by position */
    write_segment(dir, 1, 10, &st);
    assert_int_equal(st.segments, 2);
    bsf_log_archive_stat_t again;
    assert_int_equal(bsf_log_archive_stat(dir, &again), 0);
    assert_int_equal(again.first, 1);
    assert_int_equal(again.last, 20);
    assert_int_equal(again.bytes, st.bytes);

    seen_t s = {0};
    uint64_t last;
    int stopped;
    assert_int_equal(bsf_log_archive_scan(dir, 5, note, &s, &last, &stopped), 0);
    assert_int_equal(s.n, 16);
    assert_int_equal(s.pos[0], 5);
    assert_string_equal(s.text[0], "event-5");
    assert_int_equal(s.pos[15], 20);
    assert_int_equal(last, 20);
    assert_false(stopped);

    seen_t t = {.stop_after = 3};
    assert_int_equal(bsf_log_archive_scan(dir, 1, note, &t, &last, &stopped), 0);
    assert_int_equal(t.n, 3);
    assert_true(stopped);
    assert_int_equal(last, 3);

    /* a damaged segment: reported */
    char path[256];
    snprintf(path, sizeof path, "%s/log-00000000000000000011-00000000000000000020.zst", dir);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 6, SEEK_SET);
    fputc(0x5a, f);
    fputc(0x5a, f);
    fclose(f);
    seen_t u = {0};
    int rc = bsf_log_archive_scan(dir, 1, note, &u, &last, &stopped);
    assert_int_equal(rc, BSF_ECORRUPT);
    assert_int_equal(u.n, 10); /* the first segment, then the report */

    assert_int_equal(bsf_log_archive_scan("/nonexistent/bsf", 1, note, &u, &last, NULL),
                     -ENOENT);
    assert_int_equal(tu_dir_remove(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_and_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
