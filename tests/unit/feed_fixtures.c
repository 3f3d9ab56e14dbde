#include "tests/unit/feed_fixtures.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

json_t *tf_encode(const bsf_feed_record_t *rec, const bsf_feed_meta_t *meta)
{
    bsf_text_t out = {0};
    assert_int_equal(bsf_feed_encode(rec, meta, &out), 0);
    assert_non_null(out.data);
    assert_int_equal(strlen(out.data), out.len);
    assert_null(strchr(out.data, '\n')); /* one record per line in any text dump */
    json_error_t e;
    json_t *doc = json_loadb(out.data, out.len, JSON_REJECT_DUPLICATES, &e);
    if (!doc)
        fail_msg("not JSON (%s): %s", e.text, out.data);
    bsf_text_free(&out);
    return doc;
}

const char *tf_str(json_t *doc, const char *name)
{
    json_t *v = json_object_get(doc, name);
    if (!json_is_string(v))
        fail_msg("member %s is not a string", name);
    return json_string_value(v);
}

json_int_t tf_num(json_t *doc, const char *name)
{
    json_t *v = json_object_get(doc, name);
    if (!json_is_integer(v))
        fail_msg("member %s is not an integer", name);
    return json_integer_value(v);
}

bsf_feed_settings_t tf_settings(void)
{
    bsf_feed_settings_t s = {.enabled = true, .topic = "bsf.feed", .copy_payload = true,
                             .queue_capacity = 1024, .queue_max_mb = 16,
                             .max_payload_bytes = 65536, .message_timeout_ms = 5000,
                             .flush_timeout_ms = 2000};
    snprintf(s.brokers, sizeof s.brokers, "127.0.0.1:9");
    return s;
}
