/* Compression of stored msgpack documents: bindings in projection records, events in the
 * embedded log.
 *
 * Each document is a zstd frame made with one fixed dictionary, given by the caller: the
 * store uses core/doc_dictionary (member names and a typical binding, so names and common
 * values cost almost nothing). Output is deterministic for a given dictionary and level, so
 * equal bindings give equal records on every site running this version (the digest compares
 * bytes). Pack and unpack may be called from any thread. */
#ifndef BSF_COMMON_COMPRESS_H
#define BSF_COMMON_COMPRESS_H

#include <msgpack.h>
#include <stddef.h>

/* Sets the dictionary of every frame (`len` bytes, copied) and prepares it. The first call
 * wins; a later one with the same bytes returns 0, with other bytes -1 (frames made with one
 * dictionary cannot be read with another). Returns -1 also when out of memory. Thread-safe. */
int bsf_compress_set_dictionary(const void *bytes, size_t len);

/* Compresses `mp` and appends the frame to `out`. Returns 0, or -1 (no dictionary set yet,
 * out of memory). */
int bsf_compress_pack(const char *mp, size_t len, msgpack_sbuffer *out);

/* Decompresses a frame into memory from `zone`. Returns 0 or -1 (damaged data, no dictionary
 * set yet, out of memory). */
int bsf_compress_unpack(const char *frame, size_t len, msgpack_zone *zone, const char **mp,
                        size_t *mp_len);

#endif
