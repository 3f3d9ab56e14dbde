/* The canonical-form fixed point of the binding documents. */
#include "tests/fuzz/fuzz_doc_fixed_point.h"

#include <stdlib.h>
#include <string.h>

#include "gateways/sbi/json_codec.h"

static void encode(const fz_doc_kind_t *k, const void *b, msgpack_sbuffer *out)
{
    msgpack_packer pk;
    msgpack_sbuffer_clear(out);
    msgpack_packer_init(&pk, out, msgpack_sbuffer_write);
    if (k->encode(b, &pk))
        abort();
}

void fz_doc_fixed_point(const fz_doc_kind_t *k, const void *b, msgpack_zone *zone)
{
    msgpack_sbuffer once, twice;
    msgpack_sbuffer_init(&once);
    msgpack_sbuffer_init(&twice);
    encode(k, b, &once);
    msgpack_object obj;
    size_t off = 0;
    void *again = msgpack_zone_malloc(zone, k->size);
    bsf_problem_t problem;
    if (!again)
        abort();
    if (msgpack_unpack(once.data, once.size, &off, zone, &obj) != MSGPACK_UNPACK_SUCCESS ||
        k->decode(&obj, zone, again, &problem) || k->check_rules(again, &problem))
        abort(); /* the canonical form of a valid binding is valid */
    encode(k, again, &twice);
    if (once.size != twice.size || memcmp(once.data, twice.data, once.size) != 0)
        abort();
    if (k->check_again)
        k->check_again(again, b);
    msgpack_sbuffer_destroy(&once);
    msgpack_sbuffer_destroy(&twice);
}

/* A new document (or patch) of `size` bytes in `zone`. */
static void *zone_alloc(msgpack_zone *zone, size_t size)
{
    void *p = msgpack_zone_malloc(zone, size);
    if (!p)
        abort();
    return p;
}

/* The input as a patch of the kind's base document (its JSON held in *base_doc). */
static void run_patch(const fz_doc_kind_t *k, const msgpack_object *obj, msgpack_zone *zone,
                      msgpack_sbuffer *base_doc)
{
    msgpack_object base_obj;
    bsf_problem_t problem;
    void *base = zone_alloc(zone, k->size), *result = zone_alloc(zone, k->size);
    void *patch = zone_alloc(zone, k->patch_size);
    if (bsf_json_to_msgpack(k->base, strlen(k->base), base_doc, zone, &base_obj, &problem) ||
        k->decode(&base_obj, zone, base, &problem))
        abort();
    if (k->patch_decode(obj, zone, patch, &problem))
        return;
    k->patch_apply(base, patch, result);
    if (k->check_rules(result, &problem))
        abort(); /* nothing can be removed: the result stays valid */
    fz_doc_fixed_point(k, result, zone);
}

void fz_doc_run(const fz_doc_kind_t *k, const uint8_t *data, size_t size)
{
    msgpack_sbuffer doc, base_doc;
    msgpack_zone zone;
    msgpack_sbuffer_init(&doc);
    msgpack_sbuffer_init(&base_doc);
    msgpack_zone_init(&zone, 4096);
    msgpack_object obj;
    bsf_problem_t problem;
    if (bsf_json_to_msgpack((const char *)data, size, &doc, &zone, &obj, &problem) == 0) {
        void *b = zone_alloc(&zone, k->size);
        if (k->decode(&obj, &zone, b, &problem) == 0 && k->check_rules(b, &problem) == 0) {
            fz_doc_fixed_point(k, b, &zone);
            if (k->check_valid)
                k->check_valid(b);
        }
        if (k->base)
            run_patch(k, &obj, &zone, &base_doc);
    }
    msgpack_zone_destroy(&zone);
    msgpack_sbuffer_destroy(&doc);
    msgpack_sbuffer_destroy(&base_doc);
}
