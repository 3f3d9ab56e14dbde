/* feed/feed_queue: the bounded lock-free queue (FIFO, concurrent producers). */
#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "feed/feed_queue.h"

static bool push(bsf_feed_queue_t *q, void *item)
{
    bsf_feed_ticket_t t;
    if (!bsf_feed_queue_reserve(q, &t))
        return false;
    bsf_feed_queue_publish(q, &t, item);
    return true;
}

static void *pop(bsf_feed_queue_t *q)
{
    void *item;
    if (!bsf_feed_queue_peek(q, &item))
        return NULL;
    bsf_feed_queue_release(q);
    return item;
}

static void queue_bounded_fifo(void **state)
{
    (void)state;
    bsf_feed_queue_t q;
    int items[64];
    assert_int_equal(bsf_feed_queue_init(&q, 5, 100), 0); /* not a power of two on purpose */
    assert_int_equal(q.cell_bytes, 128);
    size_t next_in = 0, next_out = 0;
    for (int lap = 0; lap < 7; lap++) {
        while (push(&q, &items[next_in % 64]))
            next_in++;
        assert_int_equal(bsf_feed_queue_depth(&q), 5);
        for (int k = 0; k < 3; k++) {
            assert_ptr_equal(pop(&q), &items[next_out % 64]);
            next_out++;
        }
        assert_int_equal(bsf_feed_queue_depth(&q), 2);
    }
    while (pop(&q))
        next_out++;
    assert_int_equal(next_in, next_out);
    assert_null(pop(&q));
    assert_int_equal(bsf_feed_queue_depth(&q), 0);

    /* Cells: each reserved position has its own; a reserved, unpublished position holds the
     * consumer back; a NULL item is still a position. */
    bsf_feed_ticket_t a, b;
    assert_true(bsf_feed_queue_reserve(&q, &a));
    assert_true(bsf_feed_queue_reserve(&q, &b));
    assert_ptr_not_equal(a.cell, b.cell);
    assert_true(bsf_feed_queue_owns(&q, a.cell) && bsf_feed_queue_owns(&q, b.cell));
    assert_false(bsf_feed_queue_owns(&q, items));
    memset(a.cell, 'a', q.cell_bytes);
    memset(b.cell, 'b', q.cell_bytes);
    bsf_feed_queue_publish(&q, &b, b.cell);
    void *item;
    assert_false(bsf_feed_queue_peek(&q, &item)); /* a comes first and is not published */
    bsf_feed_queue_publish(&q, &a, NULL);
    assert_true(bsf_feed_queue_peek(&q, &item));
    assert_null(item);
    bsf_feed_queue_release(&q);
    assert_true(bsf_feed_queue_peek(&q, &item));
    assert_ptr_equal(item, b.cell);
    assert_int_equal(((char *)item)[q.cell_bytes - 1], 'b');
    bsf_feed_queue_release(&q);
    assert_false(bsf_feed_queue_peek(&q, &item));
    bsf_feed_queue_destroy(&q);
    assert_int_equal(bsf_feed_queue_init(&q, 0, 64), -1);
}

#define PRODUCERS 4

#define PER_PRODUCER 50000

typedef struct {
    bsf_feed_queue_t *q;
    uintptr_t base;
    size_t pushed;
} producer_arg_t;

static void *producer(void *p)
{
    producer_arg_t *a = p;
    for (uintptr_t i = 1; i <= PER_PRODUCER; i++)
        if (push(a->q, (void *)(a->base + i)))
            a->pushed++;
    return NULL;
}

typedef struct {
    bsf_feed_queue_t *q;
    atomic_bool done;
    size_t popped;
    bool in_order;
} consumer_arg_t;

/* Each producer's items must come out in its order; nothing lost, nothing twice. */
static void *consumer(void *p)
{
    consumer_arg_t *a = p;
    uintptr_t last[PRODUCERS] = {0};
    for (;;) {
        bool done = atomic_load(&a->done); /* read before the pop: no item is missed */
        void *item = pop(a->q);
        if (!item) {
            if (done)
                return NULL;
            continue;
        }
        uintptr_t v = (uintptr_t)item;
        int t = (int)(v >> 32) - 1;
        if (t < 0 || t >= PRODUCERS || (v & 0xffffffffu) <= last[t])
            a->in_order = false;
        else
            last[t] = v & 0xffffffffu;
        a->popped++;
    }
}

static void queue_concurrent(void **state)
{
    (void)state;
    bsf_feed_queue_t q;
    assert_int_equal(bsf_feed_queue_init(&q, 1000, 0), 0);
    consumer_arg_t c = {&q, false, 0, true};
    pthread_t consumer_thread, threads[PRODUCERS];
    producer_arg_t args[PRODUCERS];
    assert_int_equal(pthread_create(&consumer_thread, NULL, consumer, &c), 0);
    for (int t = 0; t < PRODUCERS; t++) {
        args[t] = (producer_arg_t){&q, (uintptr_t)(t + 1) << 32, 0};
        assert_int_equal(pthread_create(&threads[t], NULL, producer, &args[t]), 0);
    }
    size_t pushed = 0;
    for (int t = 0; t < PRODUCERS; t++) {
        pthread_join(threads[t], NULL);
        pushed += args[t].pushed;
    }
    atomic_store(&c.done, true);
    pthread_join(consumer_thread, NULL);
    assert_true(c.in_order);
    assert_int_equal(c.popped, pushed);
    assert_true(pushed > 0);
    assert_int_equal(bsf_feed_queue_depth(&q), 0);
    bsf_feed_queue_destroy(&q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(queue_bounded_fifo),
        cmocka_unit_test(queue_concurrent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
