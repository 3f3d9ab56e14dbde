/* The configuration as JSON (issue 15 §2): every key under its YAML name, nested at each '.'
 * ("diameter.congestion.enabled" is {"diameter": {"congestion": {"enabled": …}}}), with the
 * value's JSON type: integers, booleans, strings (host:port, enums, durations as `30s`), lists
 * as arrays of strings. The same JSON goes back in through bsf_config_set, so it is validated
 * exactly as the file. A list item `name=value` whose name holds "password" or "secret"
 * (librdkafka credentials) is rendered `name=(hidden)`: compared with what runs it is no change,
 * so an export goes back in unchanged, and a credential changes only in the file. Pure
 * functions on the configuration; any thread. */
#ifndef BSF_BSFD_CONFIG_JSON_H
#define BSF_BSFD_CONFIG_JSON_H

#include <jansson.h>

#include "bsfd/config.h"

#define BSF_CONFIG_HIDDEN "(hidden)"

/* The value of one key (a new reference; NULL when out of memory). */
json_t *bsf_config_key_json(const bsf_config_t *cfg, const bsf_config_key_t *k);
/* Every key, nested. A new reference; NULL when out of memory. */
json_t *bsf_config_to_json(const bsf_config_t *cfg);

/* Called for each leaf of a nested document: `name` is its dotted key, `value` never an
 * object. Returns 0 to go on, or -1 to stop (the walk then returns -1). */
typedef int (*bsf_config_leaf_fn)(void *ctx, const char *name, json_t *value);
/* Walks the leaves of `doc` (an object). Returns 0, or -1: a callback stopped, or a name
 * longer than 159 characters (with a message in err then). */
int bsf_config_json_walk(json_t *doc, bsf_config_leaf_fn fn, void *ctx, char *err,
                         size_t err_cap);

/* Sets key `name` from a JSON value as the file would (bsf_config_set). Returns 0, or -1 with
 * a message naming the key (unknown key, wrong JSON type, a value the key refuses). */
int bsf_config_set_json(bsf_config_t *cfg, const char *name, const json_t *value, char *err,
                        size_t err_cap);

#endif
