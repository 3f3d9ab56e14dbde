/* The stored form of one binding in the `bindings` sub-database.
 *
 * A live record holds the binding as its canonical msgpack map plus the metadata that
 * last-writer-wins and discovery need. A dead record (tombstone) keeps only the HLC of the
 * deregistration, so a late registration or update of the same id stays dead.
 *
 * Any thread: the functions work on the caller's buffers only. */
#ifndef BSF_PROJECTIONS_RECORD_H
#define BSF_PROJECTIONS_RECORD_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 2: the binding is a zstd frame (common/compress.h), fixed 38-byte live header;
 * 3 (written since issue 16): the same with a compact live header, 13 bytes for a plain
 * registration: after format, state, site and HLC (as in 2), a flags byte says which of
 * created HLC (when it differs from the HLC), origin and sender timestamps and the cookie
 * (u16 length first) follow. Both are read; the digest hashes every record in format 2's
 * bytes, so a store written by either release has the same digest. */
#define BSF_RECORD_FORMAT 3
#define BSF_RECORD_FORMAT_FIXED 2
#define BSF_RECORD_LIVE 1
#define BSF_RECORD_DEAD 2
#define BSF_RECORD_HEADER_LIVE 38 /* format 2: then the cookie (u16 length first), the binding */
#define BSF_RECORD_HEADER_DEAD 12
#define BSF_RECORD_HEADER_MAX 39  /* the longest header bsf_record_write_header writes */

typedef struct {
    uint8_t state;
    uint16_t site;         /* site of the event that wrote this version */
    uint64_t hlc;          /* HLC of that event (the deregistration for a tombstone) */
    uint64_t created_hlc;  /* live only */
    int64_t origin_ts_ms;  /* live only; -1 absent */
    int64_t sender_ts_ms;
    const char *cookie;    /* live only: ocnf-service-cookie, cookie_len bytes (0: none) */
    size_t cookie_len;
    const char *binding;   /* live only: the compressed binding, points into the value */
    size_t binding_len;
} bsf_record_t;

/* Parses a stored value; returns 0 or -1 when it is not a record of a known format. */
int bsf_record_parse(const void *value, size_t len, bsf_record_t *out);

/* Writes the header of `r` in format 3 into `out` (at most BSF_RECORD_HEADER_MAX bytes); the
 * caller appends the cookie and the binding for a live record. Returns the header length. */
size_t bsf_record_write_header(const bsf_record_t *r, uint8_t *out);

/* The stored value of `r` in format 3 into `out` (cleared first): the header, then for a
 * live record its cookie and binding. A short write (no memory) leaves `out` shorter, as
 * msgpack_sbuffer_write does. */
void bsf_record_write(const bsf_record_t *r, msgpack_sbuffer *out);

/* The same in format 2 (BSF_RECORD_HEADER_LIVE or _DEAD bytes): the canonical form the
 * digest hashes. Returns the header length. */
size_t bsf_record_write_fixed_header(const bsf_record_t *r, uint8_t *out);

/* The binding's canonical msgpack, decompressed into `zone`. Returns 0 or -1. */
int bsf_record_binding_msgpack(const bsf_record_t *r, msgpack_zone *zone, const char **mp,
                               size_t *len);

/* Makes the record a lookup read from LMDB pages into `r` safe across later writes in the
 * same transaction (they may move the pages). `lookup_rc` is what the lookup returned: 0
 * (*exists true), MDB_NOTFOUND (*exists false) or an LMDB error. When the record exists and is
 * live, its binding is copied into `copy` and r->binding points there. `copy` is initialised
 * here in every case; the caller destroys it when done with `r`. Returns 0, the lookup's
 * error, or -ENOMEM when the copy cannot be made (`r` must not be used then). */
int bsf_record_detach(int lookup_rc, bsf_record_t *r, bool *exists, msgpack_sbuffer *copy);

/* The apply rules (docs/architecture.md) against the stored record `cur` (`exists` false:
 * there is none) for an event at (`hlc`, `site`). A deregistration changes something unless
 * the record is dead already at this or a later deregistration; a registration or update
 * unless the record is dead (a deregistration wins) or its version is the event's or newer
 * (last writer wins; the same event applied again). */
bool bsf_record_deregistration_applies(const bsf_record_t *cur, bool exists, uint64_t hlc,
                                       uint16_t site);
bool bsf_record_version_applies(const bsf_record_t *cur, bool exists, uint64_t hlc,
                                uint16_t site);

/* Order of two versions of the same binding: by HLC, then by site. >0 when a is newer. */
int bsf_record_version_cmp(uint64_t a_hlc, uint16_t a_site, uint64_t b_hlc, uint16_t b_site);

#endif
