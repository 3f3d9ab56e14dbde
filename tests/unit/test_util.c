#include "tests/unit/test_util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "gateways/sbi/json_codec.h"

msgpack_object tu_json(const char *json, msgpack_sbuffer *buf, msgpack_zone *zone)
{
    msgpack_object obj;
    bsf_problem_t p;
    int rc = bsf_json_to_msgpack(json, strlen(json), buf, zone, &obj, &p);
    if (rc)
        fail_msg("bad test JSON: %s (%s)", json, p.detail);
    return obj;
}
