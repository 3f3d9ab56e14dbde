/* Events prepared off the writer thread (see prepared_event.h). */
#include "engine/prepared_event.h"

#include <stdio.h>
#include <string.h>

#include "log/embedded_log.h"
#include "projections/projection.h"

/* Copies `n` bytes at `data` into `zone`. */
static const char *keep_bytes(msgpack_zone *zone, const char *data, size_t n, size_t *len)
{
    char *p = msgpack_zone_malloc(zone, n ? n : 1);
    if (p && n)
        memcpy(p, data, n);
    *len = n;
    return p;
}

static const char *keep(msgpack_zone *zone, const msgpack_sbuffer *tmp, size_t *len)
{
    return keep_bytes(zone, tmp->data, tmp->size, len);
}

/* The event's log frame: a copy of its stored form, or made from the event. */
static int make_log_frame(const char *event, size_t len, const char *stored, size_t stored_len,
                          msgpack_zone *zone, msgpack_sbuffer *tmp, bsf_prepared_event_t *out)
{
    if (stored) {
        out->log_frame = keep_bytes(zone, stored, stored_len, &out->log_frame_len);
        return out->log_frame ? 0 : -1;
    }
    msgpack_sbuffer_clear(tmp);
    if (bsf_embedded_log_frame(event, len, tmp))
        return -1;
    out->log_frame = keep(zone, tmp, &out->log_frame_len);
    return out->log_frame ? 0 : -1;
}

int bsf_prepared_event_make(const char *raw, size_t len, const char *stored, size_t stored_len,
                            bool binding_frame, msgpack_zone *zone, msgpack_sbuffer *tmp,
                            bsf_prepared_event_t *out, char *err, size_t err_cap)
{
    memset(out, 0, sizeof *out);
    /* The decoded event points into the bytes it was decoded from. */
    char *copy = msgpack_zone_malloc(zone, len ? len : 1);
    if (!copy) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    memcpy(copy, raw, len);
    if (bsf_event_decode(copy, len, zone, &out->ev, &out->binding, err, err_cap))
        return -1;
    if (make_log_frame(copy, len, stored, stored_len, zone, tmp, out)) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    if (!binding_frame || !bsf_event_has_binding(out->ev.type) ||
        bsf_event_is_ue(out->ev.type) || bsf_event_is_mbs(out->ev.type))
        return 0;
    msgpack_sbuffer_clear(tmp);
    if (bsf_projection_binding_frame(out->ev.binding, tmp) ||
        !(out->binding_frame = keep(zone, tmp, &out->binding_frame_len))) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    return 0;
}

int bsf_store_write_prepared(bsf_store_t *s, MDB_txn *txn, const bsf_prepared_event_t *pe,
                             msgpack_sbuffer *scratch, uint64_t *position)
{
    int rc = bsf_embedded_log_append_frame(&s->log, txn, pe->log_frame, pe->log_frame_len,
                                           position);
    return rc ? rc : bsf_projection_apply_framed(&s->proj, txn, &pe->ev, pe->binding_frame,
                                                 pe->binding_frame_len, scratch);
}
