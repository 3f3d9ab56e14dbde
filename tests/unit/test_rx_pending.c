/* gateways/diameter/rx_pending: the pending-request table (handles that go stale, deadlines). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/diameter/rx_pending.h"

static void collect(void *tx, void *ctx)
{
    *(void **)ctx = tx;
}

static void pending_handles(void **state)
{
    (void)state;
    bsf_rx_pending_t p;
    int a = 1, b = 2, c = 3;
    assert_int_equal(bsf_rx_pending_init(&p, 2), 0);
    uintptr_t ha = bsf_rx_pending_add(&p, &a, 100);
    uintptr_t hb = bsf_rx_pending_add(&p, &b, 200);
    assert_true(ha && hb && ha != hb);
    assert_int_equal(bsf_rx_pending_add(&p, &c, 300), 0); /* full */
    void *seen = NULL;
    assert_int_equal(bsf_rx_pending_peek(&p, ha, collect, &seen), 1);
    assert_ptr_equal(seen, &a);
    assert_ptr_equal(bsf_rx_pending_take(&p, ha), &a);
    assert_null(bsf_rx_pending_take(&p, ha)); /* completed once only */
    /* the slot is reused: the old handle stays stale */
    uintptr_t hc = bsf_rx_pending_add(&p, &c, 300);
    assert_true(hc != 0 && hc != ha);
    assert_null(bsf_rx_pending_take(&p, ha));
    assert_int_equal(bsf_rx_pending_peek(&p, ha, collect, &seen), 0);
    assert_null(bsf_rx_pending_take(&p, 0));
    assert_null(bsf_rx_pending_take(&p, (uintptr_t)-1));
    /* deadlines */
    void *out[4];
    assert_int_equal(bsf_rx_pending_take_expired(&p, 250, out, 4), 1);
    assert_ptr_equal(out[0], &b);
    assert_int_equal(bsf_rx_pending_count(&p), 1);
    assert_int_equal(bsf_rx_pending_take_expired(&p, UINT64_MAX, out, 4), 1);
    assert_int_equal(bsf_rx_pending_count(&p), 0);
    bsf_rx_pending_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pending_handles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
