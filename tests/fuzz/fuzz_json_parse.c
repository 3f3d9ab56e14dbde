/* libFuzzer target: the request body parser (gateways/sbi/json_parse.c, yajl's events) against
 * jansson with JSON_REJECT_DUPLICATES, the parser it replaced and the reference for what is
 * refused: both must accept or refuse the same texts, and an accepted text must give the same
 * document. Two differences are intended: bodies deeper than BSF_JSON_MAX_DEPTH are refused
 * here (jansson allows 2048), so texts that deep are skipped; and a raw NUL byte, which JSON
 * allows nowhere (RFC 8259 §2, §7) but jansson takes between tokens, must be refused here. */
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gateways/sbi/json_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int depth_of(const json_t *j)
{
    int deepest = 0;
    const char *key;
    size_t i;
    json_t *v;
    if (json_is_object(j))
        json_object_foreach((json_t *)j, key, v)
        {
            int d = depth_of(v);
            deepest = d > deepest ? d : deepest;
        }
    else if (json_is_array(j))
        json_array_foreach(j, i, v)
        {
            int d = depth_of(v);
            deepest = d > deepest ? d : deepest;
        }
    else
        return 0;
    return deepest + 1;
}

/* The same value: jansson's tree against the msgpack document. */
static int same(const json_t *j, const msgpack_object *o)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: {
        if (o->type != MSGPACK_OBJECT_MAP || o->via.map.size != json_object_size(j))
            return 0;
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            const msgpack_object_kv *kv = &o->via.map.ptr[i];
            json_t *v = json_object_getn(j, kv->key.via.str.ptr, kv->key.via.str.size);
            if (!v || !same(v, &kv->val))
                return 0;
        }
        return 1;
    }
    case JSON_ARRAY:
        if (o->type != MSGPACK_OBJECT_ARRAY || o->via.array.size != json_array_size(j))
            return 0;
        for (uint32_t i = 0; i < o->via.array.size; i++)
            if (!same(json_array_get(j, i), &o->via.array.ptr[i]))
                return 0;
        return 1;
    case JSON_STRING:
        return o->type == MSGPACK_OBJECT_STR && o->via.str.size == json_string_length(j) &&
               memcmp(o->via.str.ptr, json_string_value(j), o->via.str.size) == 0;
    case JSON_INTEGER: {
        json_int_t v = json_integer_value(j);
        return v >= 0 ? o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 == (uint64_t)v
                      : o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER && o->via.i64 == v;
    }
    case JSON_REAL:
        return o->type == MSGPACK_OBJECT_FLOAT64 && o->via.f64 == json_real_value(j);
    case JSON_TRUE:
        return o->type == MSGPACK_OBJECT_BOOLEAN && o->via.boolean;
    case JSON_FALSE:
        return o->type == MSGPACK_OBJECT_BOOLEAN && !o->via.boolean;
    default:
        return o->type == MSGPACK_OBJECT_NIL;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bool has_nul = memchr(data, 0, size) != NULL;
    json_error_t jerr;
    json_t *ref = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
    if (ref && depth_of(ref) > BSF_JSON_MAX_DEPTH) {
        json_decref(ref);
        return 0;
    }
    msgpack_sbuffer doc;
    msgpack_zone zone;
    msgpack_sbuffer_init(&doc);
    msgpack_zone_init(&zone, 4096);
    msgpack_object obj;
    bsf_problem_t problem;
    int rc = bsf_json_to_msgpack((const char *)data, size, &doc, &zone, &obj, &problem);
    if (has_nul ? rc == 0 : (rc == 0) != (ref != NULL))
        abort(); /* one accepts what the other refuses */
    if (!has_nul && ref && !same(ref, &obj))
        abort(); /* accepted as another document */
    if (rc && problem.cause != BSF_CAUSE_INVALID_MSG_FORMAT)
        abort();
    json_decref(ref);
    msgpack_zone_destroy(&zone);
    msgpack_sbuffer_destroy(&doc);
    return 0;
}
