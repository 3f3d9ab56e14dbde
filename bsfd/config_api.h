/* The runtime configuration (issue 15 §2): GET, PATCH (RFC 7396 merge patch) and PUT (import)
 * of {admin}/oc-bsf-configuration/v1/configuration, and SIGHUP's reload of the file.
 *
 * Three configurations: the base (defaults, file, --set: what a start would read), the
 * overrides (the values of runtime keys set through the API, kept in the store as ext
 * "config_overrides", a flat JSON object, so that they survive restarts) and the effective
 * one (base + overrides) that bsfd runs with. Only keys marked BSF_CFG_LIVE change at run
 * time; a request that would change another key is refused as a whole (409, restartRequired
 * lists the keys) and changes nothing. docs/operations.md has the whole contract. */
#ifndef BSF_BSFD_CONFIG_API_H
#define BSF_BSFD_CONFIG_API_H

#include <jansson.h>
#include <stddef.h>

#include "bsfd/config.h"
#include "engine/ext_meta.h"

#define BSF_CONFIG_API_PATH "/oc-bsf-configuration/v1/configuration"

typedef struct bsf_config_api bsf_config_api_t;

/* Reads the base again for SIGHUP: defaults, the file, --set, finished. Returns 0 or -1 with a
 * message naming the key. */
typedef int (*bsf_config_load_fn)(void *ctx, bsf_config_t *out, char *err, size_t err_cap);

/* Takes `base` (finished; copied), applies the overrides kept in `store` (one that no longer
 * validates is dropped with a warning) and every runtime key's value (log level, refusal
 * codes, grace period). `store` must outlive the API. Returns 0, or -1 with a message (out of
 * memory, store error). Main thread, before anything serves. */
int bsf_config_api_create(const bsf_config_t *base, bsf_store_t *store, bsf_config_load_fn load,
                          void *load_ctx, bsf_config_api_t **out, char *err, size_t err_cap);
/* Copies the effective configuration into out. Any thread. */
void bsf_config_api_effective(bsf_config_api_t *api, bsf_config_t *out);
/* The resource (a bsf_ops_route_fn): GET 200 with the effective configuration (export); PATCH
 * with a merge patch (null removes a key's override: the base value again); PUT with a whole
 * configuration (import: every runtime key takes the document's value, or the base value when
 * absent; the others must equal the running ones). 200 with the new effective configuration;
 * 400 naming the key (unknown, wrong type, refused by its checks); 409 with restartRequired;
 * 500 when the store refuses (nothing changed). Ops thread. */
json_t *bsf_config_api_route(void *api, const char *method, const char *body, size_t len,
                             int *status);
/* SIGHUP: reads the base again; applies the runtime keys that changed (overrides still win),
 * logs the others as needing a restart. Main thread. */
void bsf_config_api_reload(bsf_config_api_t *api);
void bsf_config_api_free(bsf_config_api_t *api);

#endif
