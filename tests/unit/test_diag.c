/* common/diag: text and JSON lines, the correlation, per-module levels and their checks. The
 * lines are read back from a file that stderr is redirected to. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/diag.h"
#include "common/error.h"

static char captured[8192];

/* Runs the log calls of `fn` with stderr sent to a file; the lines are in `captured`. */
static void capture(void (*fn)(void))
{
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    FILE *f = tmpfile();
    assert_non_null(f);
    dup2(fileno(f), STDERR_FILENO);
    fn();
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(f);
    size_t n = fread(captured, 1, sizeof captured - 1, f);
    captured[n] = '\0';
    fclose(f);
}

static void reset(void)
{
    bsf_log_set_level(BSF_LOG_INFO);
    bsf_log_set_format(BSF_LOG_TEXT);
    assert_int_equal(bsf_log_set_module_levels("", NULL, 0), 0);
    bsf_log_set_correlation(NULL);
}

static void write_text(void)
{
    BSF_INFO("sbi", "hello %d", 42);
    bsf_log_set_correlation("imsi-001010000000001");
    BSF_WARN("sbi", "with a request");
    bsf_log_set_correlation(NULL);
    BSF_DEBUG("sbi", "not at info");
}

static void test_text_lines(void **state)
{
    (void)state;
    reset();
    capture(write_text);
    char *second = strchr(captured, '\n');
    assert_non_null(second);
    assert_non_null(strstr(captured, " INFO sbi: hello 42\n"));
    assert_non_null(strstr(second + 1, " WARN sbi: [imsi-001010000000001] with a request\n"));
    assert_null(strstr(captured, "not at info"));
    assert_int_equal(captured[4], '-'); /* 2026-12-01T...Z */
    assert_non_null(strchr(captured, 'Z'));
}

static void write_json(void)
{
    bsf_log_set_correlation("binding-1");
    BSF_ERROR("engine", "quote \" backslash \\ tab \t and \xff\xfe bytes");
    bsf_log_set_correlation(NULL);
    BSF_INFO("bsfd", "plain");
}

static void test_json_lines(void **state)
{
    (void)state;
    reset();
    bsf_log_set_format(BSF_LOG_JSON);
    capture(write_json);
    bsf_log_set_format(BSF_LOG_TEXT);
    char *nl = strchr(captured, '\n');
    assert_non_null(nl);
    *nl = '\0';
    json_error_t e;
    json_t *first = json_loads(captured, 0, &e);
    assert_non_null(first);
    assert_string_equal(json_string_value(json_object_get(first, "level")), "ERROR");
    assert_string_equal(json_string_value(json_object_get(first, "module")), "engine");
    assert_string_equal(json_string_value(json_object_get(first, "correlation")), "binding-1");
    assert_string_equal(json_string_value(json_object_get(first, "msg")),
                        "quote \" backslash \\ tab ? and ?? bytes");
    assert_non_null(json_string_value(json_object_get(first, "ts")));
    json_decref(first);
    json_t *second = json_loads(nl + 1, JSON_DISABLE_EOF_CHECK, &e);
    assert_non_null(second);
    assert_string_equal(json_string_value(json_object_get(second, "msg")), "plain");
    assert_null(json_object_get(second, "correlation"));
    json_decref(second);
}

static void write_modules(void)
{
    BSF_DEBUG("sbi", "sbi debug");
    BSF_DEBUG("engine", "engine debug");
    BSF_WARN("engine", "engine warn");
    BSF_ERROR("engine", "engine error");
    BSF_INFO("nrf", "nrf info");
}

static void test_module_levels(void **state)
{
    (void)state;
    reset();
    char err[256];
    assert_int_equal(bsf_log_set_module_levels("sbi=debug,engine=error", err, sizeof err), 0);
    assert_true(bsf_log_enabled(BSF_LOG_DEBUG, "sbi"));
    assert_false(bsf_log_enabled(BSF_LOG_WARN, "engine"));
    assert_true(bsf_log_enabled(BSF_LOG_INFO, "nrf"));
    assert_false(bsf_log_enabled(BSF_LOG_DEBUG, "nrf"));
    capture(write_modules);
    assert_non_null(strstr(captured, "sbi debug"));
    assert_null(strstr(captured, "engine debug"));
    assert_null(strstr(captured, "engine warn"));
    assert_non_null(strstr(captured, "engine error"));
    assert_non_null(strstr(captured, "nrf info"));
    /* the list form of the configuration ('\n' between items) */
    assert_int_equal(bsf_log_set_module_levels("engine=debug\nsbi=warn", err, sizeof err), 0);
    assert_true(bsf_log_enabled(BSF_LOG_DEBUG, "engine"));
    assert_false(bsf_log_enabled(BSF_LOG_INFO, "sbi"));
    reset();
    assert_false(bsf_log_enabled(BSF_LOG_DEBUG, "engine"));
}

static void test_module_levels_refused(void **state)
{
    (void)state;
    reset();
    static const char *const bad[] = {"sbi", "sbi=", "=debug", "sbi=verbose", "nosuch=debug",
                                      "sbi=debug,engine", "SBI=debug", "sbi =debug"};
    char err[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(bsf_log_module_levels_check(bad[i], err, sizeof err), BSF_EBADINPUT);
        assert_non_null(strstr(err, "is not module=level"));
    }
    /* a refused list changes nothing */
    assert_int_equal(bsf_log_set_module_levels("sbi=debug", err, sizeof err), 0);
    assert_int_equal(bsf_log_set_module_levels("sbi=error,bad", err, sizeof err), BSF_EBADINPUT);
    assert_non_null(strstr(err, "\"bad\""));
    assert_true(bsf_log_enabled(BSF_LOG_DEBUG, "sbi"));
    reset();
}

static void test_parse(void **state)
{
    (void)state;
    bsf_log_format_t f = BSF_LOG_TEXT;
    assert_int_equal(bsf_log_format_parse("json", &f), 0);
    assert_int_equal(f, BSF_LOG_JSON);
    assert_int_equal(bsf_log_format_parse("text", &f), 0);
    assert_int_equal(f, BSF_LOG_TEXT);
    assert_int_equal(bsf_log_format_parse("JSON", &f), BSF_EBADINPUT);
    assert_int_equal(bsf_log_format_parse("", &f), BSF_EBADINPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_lines),
        cmocka_unit_test(test_json_lines),
        cmocka_unit_test(test_module_levels),
        cmocka_unit_test(test_module_levels_refused),
        cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
