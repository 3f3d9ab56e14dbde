/* bsfd/config: lists as one text (',' and ';'), YAML text from memory, and the typed writes of
 * each key type (bool, uint widths, enum as index and as text). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bsfd/config.h"

static bsf_config_t cfg;
static char err[512];

static void set_ok(const char *assignment)
{
    if (bsf_config_set(&cfg, assignment, err, sizeof err))
        fail_msg("--set %s: %s", assignment, err);
}

/* --set `assignment`, after which the list or text `field` of cfg reads `want`. */
static void set_gives(const char *assignment, const char *field, const char *want)
{
    set_ok(assignment);
    assert_string_equal(field, want);
}

static void test_list_takes_commas(void **state)
{
    (void)state;
    bsf_config_defaults(&cfg);
    set_gives("diameter.retry=aar,str", cfg.diameter.retry, "aar\nstr");
    set_gives("diameter.retry= aar , rar ,, asr ", cfg.diameter.retry, "aar\nrar\nasr");
    set_gives("diameter.retry=", cfg.diameter.retry, "");
    set_gives("diameter.congestion.cpu_thresholds=10,20,30,40", cfg.diameter.congestion_cpu,
              "10\n20\n30\n40");
    assert_int_equal(bsf_config_finish(&cfg, err, sizeof err), 0);
}

static void test_list_takes_semicolons_and_commas_inside_items(void **state)
{
    (void)state;
    bsf_config_defaults(&cfg);
    /* the defaults are written with ';' */
    assert_string_equal(cfg.diameter.retry_codes, "3***\n4***\n5***");
    set_gives("diameter.retry=aar;str", cfg.diameter.retry, "aar\nstr");
    /* a ';' makes it the only separator: one item holding a comma */
    char *props = cfg.replication.client_properties;
    set_gives("kafka.client_properties=debug=broker,topic;", props, "debug=broker,topic");
    set_gives("kafka.client_properties=debug=broker,topic;linger.ms=5", props,
              "debug=broker,topic\nlinger.ms=5");
    /* without a ';' the comma splits, and the half item is refused by name at the finish */
    set_ok("log.backend=kafka");
    set_ok("kafka.brokers=127.0.0.1:9092");
    set_gives("kafka.client_properties=debug=broker,topic", props, "debug=broker\ntopic");
    assert_int_equal(bsf_config_finish(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "kafka.client_properties: 'topic'"));
}

static void test_list_too_long_is_refused(void **state)
{
    (void)state;
    bsf_config_defaults(&cfg);
    char big[200] = "diameter.retry=";
    for (int i = 0; i < 20; i++)
        strcat(big, "aar,");
    assert_int_equal(bsf_config_set(&cfg, big, err, sizeof err), -1);
    assert_non_null(strstr(err, "diameter.retry: the list is longer than 63"));
}

static void test_yaml_text(void **state)
{
    (void)state;
    static const char yaml[] = "site:\n  id: 7\n"
                               "diameter:\n  retry: [aar, str]\n  retry_codes: 3002,5***\n"
                               "log:\n  level: debug\n";
    bsf_config_defaults(&cfg);
    assert_int_equal(bsf_config_load_text(&cfg, "mem", yaml, strlen(yaml), err, sizeof err), 0);
    assert_int_equal(cfg.site_id, 7);
    assert_string_equal(cfg.diameter.retry, "aar\nstr");
    assert_string_equal(cfg.diameter.retry_codes, "3002\n5***");
    assert_string_equal(cfg.log_level, "debug");
    /* not NUL-terminated: only `len` bytes are read */
    static const char cut[] = "site:\n  id: 9\nsite:\n  id: x\n";
    assert_int_equal(bsf_config_load_text(&cfg, "mem", cut, 14, err, sizeof err), 0);
    assert_int_equal(cfg.site_id, 9);
    assert_int_equal(bsf_config_load_text(&cfg, "mem", cut, strlen(cut), err, sizeof err), -1);
    assert_non_null(strstr(err, "mem:3: site: given twice (first at line 1)"));
    static const char bad[] = "site:\n  id: \"7\n";
    assert_int_equal(bsf_config_load_text(&cfg, "mem", bad, strlen(bad), err, sizeof err), -1);
    assert_non_null(strstr(err, "mem:"));
}

/* Keys join with '.' at any depth; dotted keys and nesting mix. */
static void test_yaml_nesting(void **state)
{
    (void)state;
    static const char yaml[] = "nf:\n"
                               "  bsf_info:\n"
                               "    dnn_list: [internet, ims]\n"
                               "    group_id: g1\n"
                               "diameter.congestion:\n"
                               "  enabled: true\n"
                               "diameter:\n"
                               "  congestion: {interval_ms: 50}\n"
                               "sbi.listen: 127.0.0.1:9999\n";
    bsf_config_defaults(&cfg);
    assert_int_equal(bsf_config_load_text(&cfg, "n.yaml", yaml, strlen(yaml), err, sizeof err), 0);
    assert_string_equal(cfg.nrf.bsf_dnn_list, "internet\nims");
    assert_string_equal(cfg.nrf.bsf_group_id, "g1");
    assert_true(cfg.diameter.congestion);
    assert_int_equal(cfg.diameter.congestion_interval_ms, 50);
    assert_string_equal(cfg.sbi_listen, "127.0.0.1:9999");
}

/* Errors name the file and the line; a key given twice (one way or two) is refused. */
static void test_yaml_errors_name_the_line(void **state)
{
    (void)state;
    static const struct {
        const char *yaml, *want;
    } cases[] = {
        {"site:\n  id: 7\nsbi:\n  workers: 2\n  workers: 3\n",
         "f.yaml:5: sbi.workers: given twice (first at line 4)"},
        {"sbi:\n  listen: 127.0.0.1:1\nsbi.listen: 127.0.0.1:2\n",
         "f.yaml:3: sbi.listen: given twice (first at line 2)"},
        {"log:\n  level: loud\n", "f.yaml:2: log.level:"},
        {"site:\n  id: 7\n  nosuch: 1\n", "f.yaml:3: site.nosuch: unknown configuration key"},
        {"site:\n  id: [1, 2]\n", "f.yaml:2: site.id: this key does not take a list"},
        {"nrf:\n  uri: [{a: b}]\n", "f.yaml:2: nrf.uri: a list holds scalars only"},
        {"- a\n- b\n", "f.yaml:1: document: unknown configuration key or misplaced list"},
        {"7\n", "f.yaml:1: the document must be a mapping of keys"},
        {"site:\n  id: &x 1\nsbi:\n  workers: *x\n", "f.yaml:4: aliases (*name) are not supported"},
        {"diameter.congestion:\n  enabled: true\ndiameter:\n  congestion:\n    enabled: false\n",
         "f.yaml:5: diameter.congestion.enabled: given twice (first at line 2)"},
        {"site:\n  id: \"7\n", "f.yaml:"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bsf_config_defaults(&cfg);
        err[0] = '\0';
        assert_int_equal(bsf_config_load_text(&cfg, "f.yaml", cases[i].yaml,
                                              strlen(cases[i].yaml), err, sizeof err),
                         -1);
        if (!strstr(err, cases[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, err, cases[i].want);
    }
}

static void test_typed_writes(void **state)
{
    (void)state;
    bsf_config_defaults(&cfg);
    set_ok("sbi.late_arrival=true");
    assert_true(cfg.sbi_late_arrival);
    set_ok("site.id=65535"); /* uint16_t */
    assert_int_equal(cfg.site_id, 65535);
    set_ok("diameter.cookie_avp_vendor=4294967295"); /* uint32_t */
    assert_int_equal(cfg.diameter.cookie_avp_vendor, 4294967295u);
    set_ok("store.map_size_mb=1048576"); /* uint64_t */
    assert_int_equal(cfg.store_map_size_mb, 1048576);
    set_ok("discovery.multiple_match=reject"); /* enum as index */
    assert_int_equal(cfg.discovery_multiple_match, BSF_MULTIPLE_MATCH_REJECT);
    set_ok("log.backend=kafka");
    assert_int_equal(cfg.replication.backend, BSF_LOG_BACKEND_KAFKA);
    set_ok("log.level=warn"); /* enum as text */
    assert_string_equal(cfg.log_level, "warn");
    assert_int_equal(bsf_config_set(&cfg, "log.level=loud", err, sizeof err), -1);
    assert_string_equal(cfg.log_level, "warn");
    assert_int_equal(bsf_config_set(&cfg, "site.id=65536", err, sizeof err), -1);
    assert_int_equal(cfg.site_id, 65535);
}

/* Issue 13 §5: off loopback the admin listener needs mTLS or a token; TLS files in pairs. */
static void test_admin_listener_rules(void **state)
{
    (void)state;
    static const struct {
        const char *const set[4];
        int rc;
        const char *key; /* named in the message */
    } cases[] = {
        {{"ops.admin_listen=127.0.0.1:9091"}, 0, NULL},
        {{"ops.admin_listen=127.8.9.10:9091"}, 0, NULL},
        {{"ops.admin_listen=[::1]:9091"}, 0, NULL},
        {{"ops.admin_listen="}, 0, NULL},
        {{"ops.admin_listen=0.0.0.0:9091"}, -1, "ops.admin_listen"},
        {{"ops.admin_listen=[::]:9091"}, -1, "ops.admin_listen"},
        {{"ops.admin_listen=[::ffff:127.0.0.1]:9091"}, -1, "ops.admin_listen"},
        {{"ops.admin_listen=10.0.0.1:9091", "ops.admin_token_file=/etc/bsf/token"}, 0, NULL},
        {{"ops.admin_listen=10.0.0.1:9091", "ops.admin_tls.cert=/c", "ops.admin_tls.key=/k"},
         -1, "ops.admin_listen"}, /* TLS without client certificates is no credential */
        {{"ops.admin_listen=10.0.0.1:9091", "ops.admin_tls.cert=/c", "ops.admin_tls.key=/k",
          "ops.admin_tls.ca=/ca"}, 0, NULL},
        {{"ops.admin_tls.cert=/c"}, -1, "ops.admin_tls.key"},
        {{"ops.admin_tls.key=/k"}, -1, "ops.admin_tls.cert"},
        {{"ops.admin_tls.ca=/ca"}, -1, "ops.admin_tls.ca"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bsf_config_defaults(&cfg);
        for (size_t j = 0; j < 4 && cases[i].set[j]; j++)
            set_ok(cases[i].set[j]);
        err[0] = '\0';
        int rc = bsf_config_finish(&cfg, err, sizeof err);
        if (rc != cases[i].rc || (cases[i].key && !strstr(err, cases[i].key)))
            fail_msg("case %zu (%s): rc %d, '%s'", i, cases[i].set[0], rc, err);
    }
    bsf_config_defaults(&cfg);
    assert_int_equal(bsf_config_finish(&cfg, err, sizeof err), 0);
    assert_string_equal(cfg.ops_admin_host, "127.0.0.1");
    assert_int_equal(cfg.ops_admin_port, 9091);
}

static void test_durations(void **state)
{
    (void)state;
    bsf_config_defaults(&cfg);
    assert_int_equal(cfg.store_tombstone_horizon_ms, 7ull * 86400000);
    assert_int_equal(cfg.log_retention_ms, 86400000);
    set_ok("log.retention=30s");
    assert_int_equal(cfg.log_retention_ms, 30000);
    set_ok("log.retention=12h");
    assert_int_equal(cfg.log_retention_ms, 12ull * 3600000);
    set_ok("log.retention=0");
    assert_int_equal(cfg.log_retention_ms, 0);
    /* no unit, an unknown one, out of range: refused by name, the value unchanged */
    assert_int_equal(bsf_config_set(&cfg, "log.retention=30", err, sizeof err), -1);
    assert_non_null(strstr(err, "log.retention: '30' is not a duration"));
    assert_int_equal(bsf_config_set(&cfg, "log.retention=3w", err, sizeof err), -1);
    assert_int_equal(bsf_config_set(&cfg, "log.retention=3651d", err, sizeof err), -1);
    assert_int_equal(cfg.log_retention_ms, 0);
    static const char yaml[] = "store:\n  tombstone_horizon: 90m\n";
    assert_int_equal(bsf_config_load_text(&cfg, "t.yaml", yaml, sizeof yaml - 1, err, sizeof err),
                     0);
    assert_int_equal(bsf_config_finish(&cfg, err, sizeof err), 0);
    assert_int_equal(cfg.store_tombstone_horizon_ms, 90ull * 60000);
}

static void test_tombstone_horizon_alias(void **state)
{
    (void)state;
    bsf_config_defaults(&cfg);
    set_ok("store.tombstone_horizon_h=2"); /* hours, as before */
    assert_int_equal(bsf_config_finish(&cfg, err, sizeof err), 0);
    assert_int_equal(cfg.store_tombstone_horizon_ms, 2ull * 3600000);
    set_ok("store.tombstone_horizon=1d");
    assert_int_equal(bsf_config_finish(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "store.tombstone_horizon and store.tombstone_horizon_h"));
    bsf_config_defaults(&cfg); /* the defaults of both are not "set" */
    assert_int_equal(bsf_config_finish(&cfg, err, sizeof err), 0);
    assert_int_equal(cfg.store_tombstone_horizon_ms, 7ull * 86400000);
}

/* sbi.tls.*: the listener needs a certificate and key, modes other than none need a CA, an
 * empty sbi.listen makes the apiRoot https, and the SBI client gets the same identity. */
static void test_sbi_tls_rules(void **state)
{
    (void)state;
    bsf_config_defaults(&cfg);
    set_ok("sbi.tls.listen=127.0.0.1:8443");
    assert_int_equal(bsf_config_finish(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "sbi.tls.cert: required"));
    set_ok("sbi.tls.cert=/c.pem");
    assert_int_equal(bsf_config_finish(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "sbi.tls.key: required"));
    set_ok("sbi.tls.key=/k.pem");
    set_ok("sbi.tls.client_cert=optional");
    assert_int_equal(bsf_config_finish(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "sbi.tls.ca: required"));
    set_ok("sbi.tls.ca=/ca.pem");
    set_ok("sbi.listen=");
    set_ok("sbi.api_root="); /* the failed finishes above derived one from sbi.listen */
    assert_int_equal(bsf_config_finish(&cfg, err, sizeof err), 0);
    assert_string_equal(cfg.sbi_api_root, "https://127.0.0.1:8443");
    assert_int_equal(cfg.sbi_tls_port, 8443);
    assert_int_equal(cfg.sbi_tls_client_cert, 1);
    assert_string_equal(cfg.nrf.client_tls_cert_file, "/c.pem");
    assert_string_equal(cfg.nrf.client_tls_key_file, "/k.pem");
    assert_string_equal(cfg.nrf.client_tls_groups, "X25519:P-256:P-384");
    assert_string_equal(cfg.nrf.client_tls_ciphers, cfg.sbi_tls_ciphers);
    set_ok("sbi.tls.listen=");
    assert_int_equal(bsf_config_finish(&cfg, err, sizeof err), -1);
    assert_non_null(strstr(err, "sbi.listen and sbi.tls.listen are both empty"));
    assert_int_equal(bsf_config_set(&cfg, "sbi.tls.client_cert=sometimes", err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_takes_commas),
        cmocka_unit_test(test_list_takes_semicolons_and_commas_inside_items),
        cmocka_unit_test(test_list_too_long_is_refused),
        cmocka_unit_test(test_yaml_text),
        cmocka_unit_test(test_yaml_nesting),
        cmocka_unit_test(test_yaml_errors_name_the_line),
        cmocka_unit_test(test_typed_writes),
        cmocka_unit_test(test_admin_listener_rules),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_tombstone_horizon_alias),
        cmocka_unit_test(test_sbi_tls_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
