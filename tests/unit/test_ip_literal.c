/* IP literals as socket addresses (common/ip_literal.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common/ip_literal.h"

static void literals_of_both_families(void **state)
{
    (void)state;
    const struct {
        const char *text;
        int family;
        socklen_t len;
    } cases[] = {{"127.0.0.1", AF_INET, sizeof(struct sockaddr_in)},
                 {"10.1.2.3", AF_INET, sizeof(struct sockaddr_in)},
                 {"::1", AF_INET6, sizeof(struct sockaddr_in6)},
                 {"fd00::3:4", AF_INET6, sizeof(struct sockaddr_in6)}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct sockaddr_storage ss;
        assert_int_equal(bsf_ip_literal_parse(cases[i].text, &ss), cases[i].len);
        assert_int_equal(ss.ss_family, cases[i].family);
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)&ss;
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)&ss;
        assert_int_equal(cases[i].family == AF_INET ? v4->sin_port : v6->sin6_port, 0);
        char back[INET6_ADDRSTRLEN];
        const void *addr = cases[i].family == AF_INET ? (const void *)&v4->sin_addr
                                                      : (const void *)&v6->sin6_addr;
        assert_non_null(inet_ntop(cases[i].family, addr, back, sizeof back));
        assert_string_equal(back, cases[i].text); /* the address itself, read back */
    }
}

static void not_a_literal_gives_zero_and_a_zeroed_address(void **state)
{
    (void)state;
    const char *bad[] = {"", "localhost", "127.0.0.1:3868", "[::1]", "1.2.3", "::g", " 1.2.3.4"};
    struct sockaddr_storage zero;
    memset(&zero, 0, sizeof zero);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct sockaddr_storage ss;
        memset(&ss, 0xab, sizeof ss);
        assert_int_equal(bsf_ip_literal_parse(bad[i], &ss), 0);
        assert_memory_equal(&ss, &zero, sizeof ss);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(literals_of_both_families),
        cmocka_unit_test(not_a_literal_gives_zero_and_a_zeroed_address),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
