/* libFuzzer target: a POST or PUT /subscriptions body (BsfSubscription) through the same path
 * as the gateway: JSON -> msgpack -> decode -> rules -> canonical encode; the canonical form
 * must decode to itself (a fixed point), and a valid subscription's notification of a fixed
 * PDU-session binding must encode. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/notification.h"
#include "core/subscription.h"
#include "tests/fuzz/fuzz_doc_fixed_point.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

FZ_DOC_ADAPTERS(bsf_subscription)

/* The expiry's text and its milliseconds stay together through the canonical form. */
static void check_again(const void *again, const void *s)
{
    if (((const bsf_subscription_t *)again)->expiry_ms != ((const bsf_subscription_t *)s)->expiry_ms)
        abort();
}

/* A valid subscription's notification of a fixed PDU-session binding encodes. */
static void notify(const void *sv)
{
    const bsf_subscription_t *s = sv;
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

static const fz_doc_kind_t kind = {
    FZ_DOC_FIELDS(bsf_subscription),
    .check_again = check_again,
    .check_valid = notify,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_doc_run(&kind, data, size);
    return 0;
}
