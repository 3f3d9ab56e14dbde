/* Compression of stored msgpack documents: bindings in projection records, events in the
 * embedded log.
 *
 * Each document is a zstd frame made with a fixed dictionary built from code: the member
 * names of bindings and events and a typical binding in canonical msgpack, so names and
 * common values (the "imsi-" prefix, "internet", ".example" domains...) cost almost nothing.
 * Output is deterministic for a given dictionary and level, so equal bindings give equal
 * records on every site running this version (the digest compares bytes). */
#ifndef BSF_COMMON_COMPRESS_H
#define BSF_COMMON_COMPRESS_H

#include <msgpack.h>
#include <stddef.h>

/* Compresses `mp` and appends the frame to `out`. Returns 0 or -1. */
int bsf_compress_pack(const char *mp, size_t len, msgpack_sbuffer *out);

/* Decompresses a frame into memory from `zone`. Returns 0 or -1 (damaged data). */
int bsf_compress_unpack(const char *frame, size_t len, msgpack_zone *zone, const char **mp,
                        size_t *mp_len);

#endif
