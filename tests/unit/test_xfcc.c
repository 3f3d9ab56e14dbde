/* gateways/sbi/xfcc.c: the x-forwarded-client-cert parser and the SCP check (seed §3.24). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/sbi/xfcc.h"

static int parse(bsf_xfcc_t *x, const char *v)
{
    bsf_xfcc_init(x);
    return bsf_xfcc_parse(x, v, strlen(v));
}

static bool field_is(const bsf_xfcc_t *x, size_t i, const char *key, const char *value,
                     unsigned element)
{
    const bsf_xfcc_field_t *f = &x->fields[i];
    return f->key_len == strlen(key) && memcmp(f->key, key, f->key_len) == 0 &&
           bsf_xfcc_value_is(f, value, strlen(value)) && f->element == element;
}

static void parses_elements_pairs_and_quotes(void **state)
{
    (void)state;
    bsf_xfcc_t x;
    assert_int_equal(parse(&x, "By=http://scp1.example;Hash=ab12;"
                               "Subject=\"/C=US/CN=scp1.example\";URI=spiffe://a/b;DNS=scp1.example,"
                               " By=http://r2;DNS=nf2.example;DNS=\"scp2.example\""),
                     0);
    assert_int_equal(x.n_elements, 2);
    assert_int_equal(x.n_fields, 8);
    assert_true(field_is(&x, 0, "By", "http://scp1.example", 0));
    assert_true(field_is(&x, 2, "Subject", "/C=US/CN=scp1.example", 0));
    assert_true(field_is(&x, 4, "DNS", "SCP1.example", 0)); /* FQDNs: case-insensitive */
    assert_true(field_is(&x, 5, "By", "http://r2", 1));
    assert_true(field_is(&x, 7, "DNS", "scp2.example", 1));
    /* escapes inside quotes; separators inside quotes are text */
    assert_int_equal(parse(&x, "Subject=\"a\\\"b,c;d=e\";DNS=x"), 0);
    assert_int_equal(x.n_elements, 1);
    assert_true(field_is(&x, 0, "Subject", "a\"b,c;d=e", 0));
    assert_false(bsf_xfcc_value_is(&x.fields[0], "a\"b,c;d=", 8));
    /* an empty value is a value */
    assert_int_equal(parse(&x, "By=;DNS=x"), 0);
    assert_true(field_is(&x, 0, "By", "", 0));
    /* several header fields are one list */
    bsf_xfcc_init(&x);
    assert_int_equal(bsf_xfcc_parse(&x, "DNS=a", 5), 0);
    assert_int_equal(bsf_xfcc_parse(&x, "DNS=b,DNS=c", 11), 0);
    assert_int_equal(x.n_elements, 3);
    assert_true(field_is(&x, 2, "DNS", "c", 2));
}

static void refuses_malformed_values(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", "DNS", "=x", "DNS=x,", ",DNS=x", "DNS=x;;DNS=y", "DNS=x,,DNS=y", "DNS=\"x",
        "DNS=\"x\"y", "DNS=x\"y", "DNS=\"x\\", "DN S=x", "DNS=a\rb", "DNS=\"a\nb\"", "DNS=x;",
        "DNS\"=x",
    };
    bsf_xfcc_t x;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (parse(&x, bad[i]) != -1)
            fail_msg("accepted '%s'", bad[i]);
    }
    /* the bounds: 16 elements, 64 fields */
    char v[2048] = "";
    for (int i = 0; i < BSF_XFCC_MAX_ELEMENTS; i++)
        strcat(v, i ? ",DNS=a" : "DNS=a");
    assert_int_equal(parse(&x, v), 0);
    strcat(v, ",DNS=a");
    assert_int_equal(parse(&x, v), -1);
    strcpy(v, "DNS=a");
    for (int i = 1; i < BSF_XFCC_MAX_FIELDS; i++)
        strcat(v, ";DNS=a");
    assert_int_equal(parse(&x, v), 0);
    strcat(v, ";DNS=a");
    assert_int_equal(parse(&x, v), -1);
}

static bsf_xfcc_settings_t settings(unsigned match_certs, const char *field)
{
    bsf_xfcc_settings_t s = {.enabled = true, .match_certs = match_certs, .error_status = 400};
    snprintf(s.peers, sizeof s.peers, "scp1.example.com\nscp2.example.com");
    snprintf(s.match_field, sizeof s.match_field, "%s", field);
    snprintf(s.error_cause, sizeof s.error_cause, "UNSPECIFIED_MSG_FAILURE");
    return s;
}

static bsf_xfcc_verdict_t check(const bsf_xfcc_settings_t *s, const char *value)
{
    char why[192];
    const char *values[] = {value};
    return bsf_xfcc_check(s, values, value ? 1 : 0, why, sizeof why);
}

/* The seed's acceptance tests 1-4 and matchCerts counted from the right-most element. */
static void checks_the_right_most_elements(void **state)
{
    (void)state;
    bsf_xfcc_settings_t one = settings(1, "DNS");
    assert_int_equal(check(&one, "By=http://scp1;DNS=scp1.example.com"), BSF_XFCC_OK);
    assert_int_equal(check(&one, "By=http://x;DNS=rogue.example.com"), BSF_XFCC_NO_MATCH);
    assert_int_equal(check(&one, NULL), BSF_XFCC_NOT_PRESENT_OR_EMPTY);
    assert_int_equal(check(&one, "  "), BSF_XFCC_NOT_PRESENT_OR_EMPTY);
    assert_int_equal(check(&one, "DNS=\"scp1"), BSF_XFCC_INVALID);
    bsf_xfcc_settings_t three = settings(3, "DNS");
    assert_int_equal(check(&three, "DNS=scp1.example.com"), BSF_XFCC_MATCH_CERTS_GREATER);
    /* the peer in the left-most of three elements: seen with matchCerts 3 or all, not 2 */
    const char *hdr = "DNS=scp2.example.com,DNS=nf8.com;DNS=nf9.com,DNS=nf4.com";
    assert_int_equal(check(&three, hdr), BSF_XFCC_OK);
    bsf_xfcc_settings_t two = settings(2, "DNS"), all = settings(0, "DNS");
    assert_int_equal(check(&two, hdr), BSF_XFCC_NO_MATCH);
    assert_int_equal(check(&all, hdr), BSF_XFCC_OK);
    /* only the configured field counts */
    bsf_xfcc_settings_t by = settings(1, "By");
    assert_int_equal(check(&by, "By=scp1.example.com;DNS=x"), BSF_XFCC_OK);
    assert_int_equal(check(&by, "By=x;DNS=scp1.example.com"), BSF_XFCC_NO_MATCH);
    assert_int_equal(check(&one, "URI=scp1.example.com"), BSF_XFCC_NO_MATCH);
    /* a peer is a whole value, not a prefix or a suffix */
    assert_int_equal(check(&one, "DNS=scp1.example.com.evil"), BSF_XFCC_NO_MATCH);
    assert_int_equal(check(&one, "DNS=xscp1.example.com"), BSF_XFCC_NO_MATCH);
    /* several header fields: the right-most element is in the last one */
    char why[192];
    const char *values[] = {"DNS=scp1.example.com", "DNS=rogue"};
    assert_int_equal(bsf_xfcc_check(&one, values, 2, why, sizeof why), BSF_XFCC_NO_MATCH);
    assert_non_null(strstr(why, "right-most 1"));
    assert_string_equal(bsf_xfcc_verdict_name(BSF_XFCC_INVALID), "XFCC_HEADER_INVALID");
}

static void settings_are_checked(void **state)
{
    (void)state;
    char err[160];
    bsf_xfcc_settings_t s = settings(1, "DNS");
    assert_int_equal(bsf_xfcc_settings_check(&s, err, sizeof err), 0);
    s.peers[0] = '\0';
    assert_int_equal(bsf_xfcc_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "sbi.xfcc.peers"));
    s = settings(1, "DNS");
    snprintf(s.error_cause, sizeof s.error_cause, "not a cause");
    assert_int_equal(bsf_xfcc_settings_check(&s, err, sizeof err), -1);
    assert_non_null(strstr(err, "sbi.xfcc.error_cause"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_elements_pairs_and_quotes),
        cmocka_unit_test(refuses_malformed_values),
        cmocka_unit_test(checks_the_right_most_elements),
        cmocka_unit_test(settings_are_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
