/* Compression of the binding inside a stored record.
 *
 * Records hold the binding as a zstd frame made with a fixed dictionary: the dictionary is
 * the canonical msgpack of a sample binding, so member names and common values (the
 * "imsi-" prefix, "internet", ".example" domains...) cost almost nothing. Output is
 * deterministic for a given dictionary and level, so equal bindings give equal records on
 * every site (the digest compares bytes). */
#ifndef BSF_PROJECTIONS_RECORD_CODEC_H
#define BSF_PROJECTIONS_RECORD_CODEC_H

#include <msgpack.h>
#include <stddef.h>

/* Compresses `mp` (a binding's msgpack) and appends the frame to `out`. Returns 0 or -1. */
int bsf_record_codec_pack(const char *mp, size_t len, msgpack_sbuffer *out);

/* Decompresses a frame into memory from `zone`. Returns 0 or -1 (damaged record). */
int bsf_record_codec_unpack(const char *frame, size_t len, msgpack_zone *zone, const char **mp,
                            size_t *mp_len);

#endif
