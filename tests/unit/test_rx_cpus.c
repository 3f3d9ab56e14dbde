/* gateways/diameter/rx_cpus: CPU lists of diameter.cpus. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/diameter/rx_cpus.h"

static void cpu_lists(void **state)
{
    (void)state;
    cpu_set_t set;
    char err[128];
    assert_int_equal(bsf_rx_cpus_parse("", &set, err, sizeof err), 0);
    assert_int_equal(bsf_rx_cpus_parse("0", &set, err, sizeof err), 1);
    assert_true(CPU_ISSET(0, &set));
    assert_int_equal(bsf_rx_cpus_parse("2-4\n7", &set, err, sizeof err), 4);
    assert_true(CPU_ISSET(2, &set) && CPU_ISSET(4, &set) && CPU_ISSET(7, &set));
    assert_false(CPU_ISSET(5, &set));
    assert_int_equal(bsf_rx_cpus_parse("1\n1-2", &set, err, sizeof err), 2); /* overlaps */
    const char *bad[] = {"x", "-1", "1-", "3-1", "1 ", "1,2", "99999", "0-1024", "\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(bsf_rx_cpus_parse(bad[i], &set, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
