/* A structural check of untrusted msgpack bytes before msgpack-c unpacks them.
 *
 * msgpack_unpack allocates every array and map at the size its header declares, before
 * reading the elements: a 5-byte input can ask for gigabytes. Events from another site or a
 * damaged log are checked first: every container must fit in the bytes that remain (each
 * element needs at least one byte), and nesting is bounded. */
#ifndef BSF_CORE_MSGPACK_GUARD_H
#define BSF_CORE_MSGPACK_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* True when `buf` holds exactly one well-formed msgpack object within the limits. */
bool bsf_msgpack_well_formed(const char *buf, size_t len, unsigned max_depth);
/* Bytes taken by the well-formed object at the start of `buf` (more may follow it), or 0
 * when there is none within the limits. */
size_t bsf_msgpack_object_len(const char *buf, size_t len, unsigned max_depth);

#endif
