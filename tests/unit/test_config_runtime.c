/* bsfd/config_json and config_runtime: every BSF_CFG_LIVE key has an applier, every key nests
 * into the JSON document without clashing with another, the document goes back in through
 * bsf_config_set to the same configuration (finish run twice changes nothing), and bad JSON
 * values are refused naming the key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bsfd/config_json.h"
#include "bsfd/config_runtime.h"

static bsf_config_t a, b;
static char err[512];

static void test_runtime_keys_and_appliers_are_in_step(void **state)
{
    (void)state;
    if (bsf_config_runtime_check(err, sizeof err))
        fail_msg("%s", err);
    assert_true(bsf_config_find_key("log.level")->runtime);
    assert_false(bsf_config_find_key("sbi.listen")->runtime);
}

static int count_leaf(void *ctx, const char *name, json_t *value)
{
    (void)value;
    assert_non_null(bsf_config_find_key(name));
    (*(size_t *)ctx)++;
    return 0;
}

static void test_every_key_nests_once(void **state)
{
    (void)state;
    bsf_config_defaults(&a);
    assert_int_equal(bsf_config_finish(&a, err, sizeof err), 0);
    json_t *doc = bsf_config_to_json(&a);
    assert_non_null(doc); /* NULL when a key clashed with another's prefix */
    size_t n = 0, keys = 0;
    assert_int_equal(bsf_config_json_walk(doc, count_leaf, &n, err, sizeof err), 0);
    while (bsf_config_key_at(keys))
        keys++;
    assert_int_equal(n, keys);
    assert_true(json_is_object(json_object_get(json_object_get(doc, "diameter"), "congestion")));
    assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "shutdown"),
                                                          "grace_period")),
                        "30s");
    json_decref(doc);
}

static int set_leaf(void *ctx, const char *name, json_t *value)
{
    bsf_config_t *cfg = ctx;
    /* an alias set with its key is refused by finish: only what differs goes back */
    json_t *now = bsf_config_key_json(cfg, bsf_config_find_key(name));
    int same = json_equal(now, value);
    json_decref(now);
    if (!same && bsf_config_set_json(cfg, name, value, err, sizeof err))
        fail_msg("%s", err);
    return 0;
}

static void test_the_document_goes_back_to_the_same_configuration(void **state)
{
    (void)state;
    bsf_config_defaults(&a);
    const char *sets[] = {"log.level=debug", "diameter.retry=aar,str", "shutdown.grace_period=90s",
                          "controlled_shutdown.sbi_status=429", "feed.client_properties=debug=broker,topic;linger.ms=5"};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
        assert_int_equal(bsf_config_set(&a, sets[i], err, sizeof err), 0);
    if (bsf_config_finish(&a, err, sizeof err))
        fail_msg("%s", err);
    json_t *doc = bsf_config_to_json(&a);
    bsf_config_defaults(&b);
    assert_int_equal(bsf_config_finish(&b, err, sizeof err), 0);
    assert_int_equal(bsf_config_json_walk(doc, set_leaf, &b, err, sizeof err), 0);
    assert_int_equal(bsf_config_finish(&b, err, sizeof err), 0);
    assert_int_equal(bsf_config_finish(&b, err, sizeof err), 0); /* twice: no change */
    json_t *again = bsf_config_to_json(&b);
    assert_true(json_equal(doc, again));
    const bsf_config_key_t *k;
    for (size_t i = 0; (k = bsf_config_key_at(i)); i++)
        assert_false(bsf_config_runtime_differs(&a, &b, k));
    json_decref(doc);
    json_decref(again);
}

static void test_credentials_are_hidden(void **state)
{
    (void)state;
    bsf_config_defaults(&a);
    assert_int_equal(bsf_config_set(&a, "kafka.client_properties=sasl.password=hunter2;"
                                        "linger.ms=5;SSL.Key.Password=k",
                                    err, sizeof err),
                     0);
    json_t *v = bsf_config_key_json(&a, bsf_config_find_key("kafka.client_properties"));
    char *text = json_dumps(v, JSON_COMPACT);
    assert_string_equal(text, "[\"sasl.password=(hidden)\",\"linger.ms=5\","
                              "\"SSL.Key.Password=(hidden)\"]");
    free(text);
    json_decref(v);
}

static void refused(const char *name, json_t *value, const char *why)
{
    bsf_config_defaults(&a);
    assert_int_equal(bsf_config_set_json(&a, name, value, err, sizeof err), -1);
    assert_non_null(strstr(err, name));
    assert_non_null(strstr(err, why));
    json_decref(value);
}

static void test_bad_values_name_the_key(void **state)
{
    (void)state;
    refused("log.level", json_integer(3), "a string");
    refused("log.level", json_string("loud"), "not one of");
    refused("controlled_shutdown.sbi_status", json_integer(600), "400..599");
    refused("controlled_shutdown.sbi_status", json_integer(-1), "not an integer");
    refused("controlled_shutdown.sbi_status", json_real(503.5), "an integer");
    refused("shutdown.grace_period", json_string("30"), "not a duration");
    refused("diameter.retry", json_pack("[i]", 1), "every item");
    refused("sbi.oauth2.required", json_string("yes"), "true or false");
    refused("no.such.key", json_true(), "unknown configuration key");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runtime_keys_and_appliers_are_in_step),
        cmocka_unit_test(test_every_key_nests_once),
        cmocka_unit_test(test_the_document_goes_back_to_the_same_configuration),
        cmocka_unit_test(test_bad_values_name_the_key),
        cmocka_unit_test(test_credentials_are_hidden),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
