/* libFuzzer target: a POST /pcfBindings body through every step the server takes before the
 * store (JSON parse, conversion, decode, rules, canonical encoding, JSON rendering). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/pcf_binding.h"
#include "gateways/sbi/json_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    msgpack_sbuffer doc, enc, json;
    msgpack_zone zone;
    msgpack_sbuffer_init(&doc);
    msgpack_sbuffer_init(&enc);
    msgpack_sbuffer_init(&json);
    msgpack_zone_init(&zone, 4096);
    msgpack_object obj;
    bsf_problem_t problem;
    bsf_pcf_binding_t b;
    if (bsf_json_to_msgpack((const char *)data, size, &doc, &zone, &obj, &problem) == 0 &&
        bsf_pcf_binding_decode(&obj, &zone, &b, &problem) == 0 &&
        bsf_pcf_binding_check_rules(&b, &problem) == 0) {
        msgpack_packer pk;
        msgpack_packer_init(&pk, &enc, msgpack_sbuffer_write);
        if (bsf_pcf_binding_encode(&b, &pk))
            abort();
        msgpack_object back;
        size_t off = 0;
        if (msgpack_unpack(enc.data, enc.size, &off, &zone, &back) != MSGPACK_UNPACK_SUCCESS)
            abort();
        /* The canonical form must decode to the same binding again. */
        bsf_pcf_binding_t again;
        if (bsf_pcf_binding_decode(&back, &zone, &again, &problem) ||
            bsf_pcf_binding_check_rules(&again, &problem))
            abort();
        /* ... and encode to the same bytes: the canonical text (RFC 5952 IPv6, zeroed host
         * bits) is a fixed point. */
        msgpack_sbuffer enc2;
        msgpack_sbuffer_init(&enc2);
        msgpack_packer pk2;
        msgpack_packer_init(&pk2, &enc2, msgpack_sbuffer_write);
        if (bsf_pcf_binding_encode(&again, &pk2) || enc2.size != enc.size ||
            memcmp(enc2.data, enc.data, enc.size) != 0)
            abort();
        msgpack_sbuffer_destroy(&enc2);
        (void)bsf_pcf_binding_check_ipv6_lengths(&again, 32, &problem);
        if (bsf_json_write(&back, &json, NULL, "7"))
            abort();
    }
    msgpack_zone_destroy(&zone);
    msgpack_sbuffer_destroy(&doc);
    msgpack_sbuffer_destroy(&enc);
    msgpack_sbuffer_destroy(&json);
    return 0;
}
