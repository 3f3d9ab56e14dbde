/* The intrusive FIFO (common/fifo.h): order, pop to empty, take-all, entries from links. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "common/fifo.h"

typedef struct {
    int value;
    bsf_fifo_link_t link; /* not the first member: BSF_FIFO_ENTRY must subtract its offset */
} item_t;

static int value_of(bsf_fifo_link_t *l)
{
    return BSF_FIFO_ENTRY(l, item_t, link)->value;
}

static void pops_in_push_order_then_empty(void **state)
{
    (void)state;
    bsf_fifo_t q = {0};
    item_t items[3] = {{.value = 1}, {.value = 2}, {.value = 3}};
    assert_true(bsf_fifo_empty(&q));
    assert_null(bsf_fifo_pop(&q));
    for (int i = 0; i < 3; i++)
        bsf_fifo_push(&q, &items[i].link);
    assert_false(bsf_fifo_empty(&q));
    for (int i = 0; i < 3; i++)
        assert_int_equal(value_of(bsf_fifo_pop(&q)), i + 1);
    assert_true(bsf_fifo_empty(&q));
    assert_null(bsf_fifo_pop(&q));
    assert_null(q.tail); /* the last pop leaves no stale tail: a push after it is the head */
    bsf_fifo_push(&q, &items[1].link);
    assert_ptr_equal(bsf_fifo_pop(&q), &items[1].link);
}

static void take_all_gives_the_chain_and_empties(void **state)
{
    (void)state;
    bsf_fifo_t q = {0};
    assert_null(bsf_fifo_take_all(&q));
    item_t items[3] = {{.value = 10}, {.value = 20}, {.value = 30}};
    for (int i = 0; i < 3; i++)
        bsf_fifo_push(&q, &items[i].link);
    bsf_fifo_link_t *l = bsf_fifo_take_all(&q);
    assert_true(bsf_fifo_empty(&q));
    assert_null(q.tail);
    for (int i = 0; i < 3; i++, l = l->next)
        assert_int_equal(value_of(l), (i + 1) * 10);
    assert_null(l); /* NULL-terminated */
}

static void a_link_popped_can_be_queued_again(void **state)
{
    (void)state;
    bsf_fifo_t q = {0};
    item_t a = {.value = 1}, b = {.value = 2};
    bsf_fifo_push(&q, &a.link);
    bsf_fifo_push(&q, &b.link);
    bsf_fifo_push(&q, bsf_fifo_pop(&q)); /* a goes behind b */
    assert_int_equal(value_of(bsf_fifo_pop(&q)), 2);
    assert_int_equal(value_of(bsf_fifo_pop(&q)), 1);
    assert_true(bsf_fifo_empty(&q));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pops_in_push_order_then_empty),
        cmocka_unit_test(take_all_gives_the_chain_and_empties),
        cmocka_unit_test(a_link_popped_can_be_queued_again),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
