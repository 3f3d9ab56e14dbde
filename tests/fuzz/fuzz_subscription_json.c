/* libFuzzer target: a POST or PUT /subscriptions body (BsfSubscription) through the same path
 * as the gateway: JSON -> msgpack -> decode -> rules -> canonical encode; the canonical form
 * must decode to itself (a fixed point), and a valid subscription's notification of a fixed
 * PDU-session binding must encode. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/notification.h"
#include "core/subscription.h"
#include "gateways/sbi/json_codec.h"
#include "tests/fuzz/fuzz_doc_fixed_point.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int decode(const msgpack_object *map, msgpack_zone *zone, void *out, bsf_problem_t *p)
{
    return bsf_subscription_decode(map, zone, out, p);
}

static int check_rules(const void *s, bsf_problem_t *p)
{
    return bsf_subscription_check_rules(s, p);
}

static int encode(const void *s, msgpack_packer *pk)
{
    return bsf_subscription_encode(s, pk);
}

/* The expiry's text and its milliseconds stay together through the canonical form. */
static void check_again(const void *again, const void *s)
{
    if (((const bsf_subscription_t *)again)->expiry_ms != ((const bsf_subscription_t *)s)->expiry_ms)
        abort();
}

static const fz_doc_kind_t kind = {
    .size = sizeof(bsf_subscription_t),
    .decode = decode,
    .check_rules = check_rules,
    .encode = encode,
    .check_again = check_again,
};

static void notify(const bsf_subscription_t *s)
{
    bsf_pcf_binding_t b = {.supi = s->supi, .gpsi = s->gpsi, .dnn = "internet",
                           .has_snssai = true, .snssai = {.sst = 1},
                           .pcf_fqdn = "pcf.example.com"};
    bsf_binding_change_t c = {.registration = true, .pdu = &b, .first_or_last = true};
    uint32_t events = bsf_notification_events(s, &c);
    msgpack_sbuffer out;
    msgpack_packer pk;
    msgpack_sbuffer_init(&out);
    msgpack_packer_init(&pk, &out, msgpack_sbuffer_write);
    if (bsf_notification_encode(s, events, &c, &pk))
        abort();
    msgpack_sbuffer_destroy(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    msgpack_sbuffer doc;
    msgpack_zone zone;
    msgpack_sbuffer_init(&doc);
    msgpack_zone_init(&zone, 4096);
    msgpack_object obj;
    bsf_problem_t problem;
    bsf_subscription_t s;
    if (bsf_json_to_msgpack((const char *)data, size, &doc, &zone, &obj, &problem) == 0 &&
        bsf_subscription_decode(&obj, &zone, &s, &problem) == 0 &&
        bsf_subscription_check_rules(&s, &problem) == 0) {
        fz_doc_fixed_point(&kind, &s, &zone);
        notify(&s);
    }
    msgpack_zone_destroy(&zone);
    msgpack_sbuffer_destroy(&doc);
    return 0;
}
