/* libFuzzer target: decoding events read from a log or a Kafka topic. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/event.h"
#include "tests/fuzz/fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *text, size_t len, msgpack_zone *zone)
{
    bsf_event_t ev;
    bsf_pcf_binding_t storage;
    char err[128];
    if (bsf_event_decode(text, len, zone, &ev, &storage, err, sizeof err) == 0 &&
        !bsf_event_is_deregistration(ev.type) &&
        (bsf_event_is_ue(ev.type)    ? !ev.ue_binding || !ev.ue_binding->supi
         : bsf_event_is_mbs(ev.type) ? !ev.mbs_binding || !ev.mbs_binding->has_mbs_session_id
         : bsf_event_is_subscription(ev.type) ? !ev.subscription || !ev.subscription->supi
                                              : !ev.binding))
        abort(); /* a registration or update always carries its binding (a UE's, its SUPI) */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_with_zone(data, size, 4096, check);
    return 0;
}
