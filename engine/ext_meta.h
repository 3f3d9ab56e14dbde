/* Small values other modules keep in the store (meta "ext/<name>"), for settings that must
 * survive restarts, such as the NF instance id generated at the first start. A module uses
 * this instead of LMDB. Each call is one short write transaction of its own: LMDB serialises
 * it with the engine's, so it may wait for one engine batch. Meant for start-up, not for a
 * request path. Any thread. */
#ifndef BSF_ENGINE_EXT_META_H
#define BSF_ENGINE_EXT_META_H

#include <stdbool.h>
#include <stddef.h>


typedef struct bsf_store bsf_store_t; /* engine/store.h; opaque to gateways */

/* Reads the string kept under `name` into out; when there is none, keeps `candidate` and
 * returns it (then *created is true). Returns 0, or -1 with a message (store error, the kept
 * value does not fit in cap). */
int bsf_ext_meta_string(bsf_store_t *s, const char *name, const char *candidate, char *out,
                        size_t cap, bool *created, char *err, size_t err_cap);

/* Keeps `value` under `name`, replacing what was there. Returns 0, or -1 with a message. */
int bsf_ext_meta_put_string(bsf_store_t *s, const char *name, const char *value, char *err,
                            size_t err_cap);
/* Reads the string kept under `name` into out. Returns 0, 1 when there is none (out is ""),
 * or -1 with a message (store error, does not fit in cap). */
int bsf_ext_meta_get_string(bsf_store_t *s, const char *name, char *out, size_t cap, char *err,
                            size_t err_cap);

#endif
