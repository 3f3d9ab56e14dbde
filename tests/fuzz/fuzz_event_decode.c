/* libFuzzer target: decoding events read from a log or a Kafka topic. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    msgpack_zone zone;
    msgpack_zone_init(&zone, 4096);
    bsf_event_t ev;
    bsf_pcf_binding_t storage;
    char err[128];
    if (bsf_event_decode((const char *)data, size, &zone, &ev, &storage, err, sizeof err) == 0 &&
        !bsf_event_is_deregistration(ev.type) &&
        (bsf_event_is_ue(ev.type)    ? !ev.ue_binding || !ev.ue_binding->supi
         : bsf_event_is_mbs(ev.type) ? !ev.mbs_binding || !ev.mbs_binding->has_mbs_session_id
         : bsf_event_is_subscription(ev.type) ? !ev.subscription || !ev.subscription->supi
                                              : !ev.binding))
        abort(); /* a registration or update always carries its binding (a UE's, its SUPI) */
    msgpack_zone_destroy(&zone);
    return 0;
}
