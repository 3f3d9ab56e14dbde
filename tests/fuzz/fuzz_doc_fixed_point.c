/* The canonical-form fixed point of the binding documents. */
#include "tests/fuzz/fuzz_doc_fixed_point.h"

#include <stdlib.h>
#include <string.h>

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
