/* libFuzzer target: reading only the envelope of an event (what the shipper does with every
 * event of the log). It never reads past the input, and when the full decoding also accepts
 * the input, both agree on the envelope. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly `size` bytes: ASan catches any read past the end. */
    char *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    bsf_event_t env, full;
    bsf_pcf_binding_t storage;
    char err[128];
    msgpack_zone zone;
    msgpack_zone_init(&zone, 4096);
    int e = bsf_event_decode_envelope(buf, size, &env);
    int f = bsf_event_decode(buf, size, &zone, &full, &storage, err, sizeof err);
    if (e == 0 && f == 0 &&
        (env.type != full.type || env.site != full.site || env.seq != full.seq ||
         env.hlc != full.hlc || memcmp(env.binding_id.b, full.binding_id.b, 16) != 0))
        abort();
    msgpack_zone_destroy(&zone);
    free(buf);
    return 0;
}
