/* The runtime configuration; see config_api.h. */
#include "bsfd/config_api.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bsfd/config_json.h"
#include "bsfd/config_runtime.h"
#include "common/diag.h"

#define META_NAME "config_overrides"
#define OVERRIDES_MAX 65536

struct bsf_config_api {
    pthread_mutex_t mu; /* the API (ops thread) against SIGHUP (main thread) */
    bsf_config_t base, live;
    json_t *overrides;  /* flat: key name -> value */
    bsf_store_t *store;
    bsf_config_load_fn load;
    void *load_ctx;
};

static json_t *problem(int *status, int code, const char *cause, const char *detail)
{
    const char *title = code == 400   ? "Bad Request"
                        : code == 405 ? "Method Not Allowed"
                        : code == 409 ? "Conflict"
                                      : "Internal Server Error";
    *status = code;
    return json_pack("{s:s, s:i, s:s, s:s}", "title", title, "status", code, "cause", cause,
                     "detail", detail);
}

/* Applies every override to cfg; one that fails is dropped from `ov` with a warning when
 * `drop`, else the message is in err and -1 returned. */
static int apply_overrides(bsf_config_t *cfg, json_t *ov, bool drop, char *err, size_t cap)
{
    const char *name;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(ov, tmp, name, v) {
        const bsf_config_key_t *k = bsf_config_find_key(name);
        int rc = -1;
        if (!k)
            snprintf(err, cap, "%s: unknown configuration key", name);
        else
            rc = bsf_config_set_json(cfg, name, v, err, cap);
        if (rc && !drop)
            return -1;
        if (rc) {
            BSF_WARN("config", "kept override dropped: %s", err);
            json_object_del(ov, name);
        }
    }
    return 0;
}

static int load_overrides(bsf_config_api_t *api, char *err, size_t cap)
{
    char *text = malloc(OVERRIDES_MAX);
    if (!text) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    int rc = bsf_ext_meta_get_string(api->store, META_NAME, text, OVERRIDES_MAX, err, cap);
    json_t *ov = rc == 0 ? json_loads(text, 0, NULL) : json_object();
    free(text);
    if (rc < 0)
        return -1;
    if (!json_is_object(ov)) {
        BSF_WARN("config", "the kept overrides (ext/" META_NAME ") are not a JSON object: "
                           "dropped");
        json_decref(ov);
        ov = json_object();
    }
    api->overrides = ov;
    return 0;
}

int bsf_config_api_create(const bsf_config_t *base, bsf_store_t *store, bsf_config_load_fn load,
                          void *load_ctx, bsf_config_api_t **out, char *err, size_t err_cap)
{
    bsf_config_api_t *api = calloc(1, sizeof *api);
    if (!api) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    pthread_mutex_init(&api->mu, NULL);
    api->base = *base;
    api->store = store;
    api->load = load;
    api->load_ctx = load_ctx;
    if (load_overrides(api, err, err_cap)) {
        bsf_config_api_free(api);
        return -1;
    }
    api->live = api->base;
    char why[512];
    apply_overrides(&api->live, api->overrides, true, why, sizeof why);
    if (bsf_config_finish(&api->live, why, sizeof why)) {
        BSF_WARN("config", "the kept overrides are dropped: %s", why);
        json_object_clear(api->overrides);
        api->live = api->base;
    }
    const char *name;
    json_t *v;
    json_object_foreach(api->overrides, name, v) {
        char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        BSF_INFO("config", "%s = %s (set through the management API)", name, text ? text : "?");
        free(text);
    }
    bsf_config_runtime_apply_all(&api->live);
    *out = api;
    return 0;
}

void bsf_config_api_effective(bsf_config_api_t *api, bsf_config_t *out)
{
    pthread_mutex_lock(&api->mu);
    *out = api->live;
    pthread_mutex_unlock(&api->mu);
}

void bsf_config_api_free(bsf_config_api_t *api)
{
    if (!api)
        return;
    json_decref(api->overrides);
    pthread_mutex_destroy(&api->mu);
    free(api);
}

/* ---- changes ------------------------------------------------------------------------ */

/* The leaves of a request into the overrides that would result. */
typedef struct {
    bsf_config_api_t *api;
    json_t *ov;
    bool import;
    char *err;
    size_t err_cap;
} collect_t;

static int collect_leaf(void *ctx, const char *name, json_t *value)
{
    collect_t *c = ctx;
    const bsf_config_key_t *k = bsf_config_find_key(name);
    if (!k) {
        snprintf(c->err, c->err_cap, "%s: unknown configuration key", name);
        return -1;
    }
    if (json_is_null(value)) {
        if (c->import) {
            snprintf(c->err, c->err_cap, "%s: null (PUT takes a whole configuration)", name);
            return -1;
        }
        json_object_del(c->ov, name); /* RFC 7396: the base value again */
        return 0;
    }
    /* An unchanged value is no change (an export sent back holds every key, aliases too). */
    json_t *now = bsf_config_key_json(c->import ? &c->api->base : &c->api->live, k);
    bool same = json_equal(now, value);
    json_decref(now);
    return same ? 0 : json_object_set(c->ov, name, value);
}

static void log_change(const bsf_config_key_t *k, const bsf_config_t *from, const bsf_config_t *to,
                       const char *how)
{
    json_t *a = bsf_config_key_json(from, k), *b = bsf_config_key_json(to, k);
    char *ta = json_dumps(a, JSON_ENCODE_ANY | JSON_COMPACT);
    char *tb = json_dumps(b, JSON_ENCODE_ANY | JSON_COMPACT);
    BSF_WARN("config", "%s = %s (was %s): %s", k->key, tb ? tb : "?", ta ? ta : "?", how);
    free(ta);
    free(tb);
    json_decref(a);
    json_decref(b);
}

/* The keys that differ between the running configuration and cand but cannot change now; a
 * new array (empty when none). */
static json_t *restart_required(const bsf_config_t *live, const bsf_config_t *cand)
{
    json_t *keys = json_array();
    const bsf_config_key_t *k;
    for (size_t i = 0; keys && (k = bsf_config_key_at(i)); i++)
        if (!k->runtime && bsf_config_runtime_differs(live, cand, k))
            json_array_append_new(keys, json_string(k->key));
    return keys;
}

/* Keeps the overrides of cand (its runtime keys that differ from the base), then applies and
 * logs what changed. Returns 0, or -1 with err (the store refused: nothing changed). */
static int commit(bsf_config_api_t *api, const bsf_config_t *cand, const char *how, char *err,
                  size_t cap)
{
    json_t *ov = json_object();
    const bsf_config_key_t *k;
    for (size_t i = 0; ov && (k = bsf_config_key_at(i)); i++)
        if (k->runtime && bsf_config_runtime_differs(&api->base, cand, k))
            json_object_set_new(ov, k->key, bsf_config_key_json(cand, k));
    char *text = ov ? json_dumps(ov, JSON_COMPACT) : NULL;
    int rc = !text || bsf_ext_meta_put_string(api->store, META_NAME, text, err, cap);
    if (!text)
        snprintf(err, cap, "out of memory");
    free(text);
    if (rc) {
        json_decref(ov);
        return -1;
    }
    for (size_t i = 0; (k = bsf_config_key_at(i)); i++)
        if (k->runtime && bsf_config_runtime_differs(&api->live, cand, k)) {
            log_change(k, &api->live, cand, how);
            bsf_config_runtime_apply(cand, k);
        }
    api->live = *cand;
    json_decref(api->overrides);
    api->overrides = ov;
    return 0;
}

/* PATCH (import false) and PUT (import true) of a parsed document, under the lock. */
static json_t *change(bsf_config_api_t *api, json_t *doc, bool import, bsf_config_t *cand,
                      int *status)
{
    char err[512];
    collect_t c = {api, import ? json_object() : json_deep_copy(api->overrides), import, err,
                   sizeof err};
    json_t *answer = NULL;
    *cand = api->base;
    if (!c.ov) {
        answer = problem(status, 500, "SYSTEM_FAILURE", "out of memory");
    } else if (bsf_config_json_walk(doc, collect_leaf, &c, err, sizeof err) ||
               apply_overrides(cand, c.ov, false, err, sizeof err) ||
               bsf_config_finish(cand, err, sizeof err)) {
        answer = problem(status, 400, "MANDATORY_IE_INCORRECT", err);
    } else {
        json_t *keys = restart_required(&api->live, cand);
        if (json_array_size(keys)) {
            answer = problem(status, 409, "MODIFICATION_NOT_ALLOWED",
                             "keys that change only at a restart: edit the file and restart "
                             "(nothing was applied)");
            json_object_set(answer, "restartRequired", keys);
        } else if (commit(api, cand, import ? "imported" : "patched", err, sizeof err)) {
            answer = problem(status, 500, "SYSTEM_FAILURE", err);
        } else {
            *status = 200;
            answer = bsf_config_to_json(&api->live);
        }
        json_decref(keys);
    }
    json_decref(c.ov);
    return answer;
}

json_t *bsf_config_api_route(void *ctx, const char *method, const char *body, size_t len,
                             int *status)
{
    bsf_config_api_t *api = ctx;
    bool patch = strcmp(method, "PATCH") == 0, put = strcmp(method, "PUT") == 0;
    if (!patch && !put && strcmp(method, "GET") != 0)
        return problem(status, 405, "METHOD_NOT_ALLOWED", "allowed: GET, PATCH, PUT");
    json_t *doc = NULL;
    if (patch || put) {
        json_error_t je;
        doc = body && len ? json_loadb(body, len, 0, &je) : NULL;
        if (!json_is_object(doc)) {
            json_decref(doc);
            return problem(status, 400, "INVALID_MSG_FORMAT",
                           "the body must be a JSON object of configuration sections");
        }
    }
    bsf_config_t *cand = malloc(sizeof *cand); /* large: not on the ops thread's stack */
    json_t *answer;
    pthread_mutex_lock(&api->mu);
    if (!doc) {
        *status = 200;
        answer = bsf_config_to_json(&api->live);
    } else if (!cand) {
        answer = problem(status, 500, "SYSTEM_FAILURE", "out of memory");
    } else {
        answer = change(api, doc, put, cand, status);
    }
    pthread_mutex_unlock(&api->mu);
    free(cand);
    json_decref(doc);
    return answer;
}

/* ---- SIGHUP --------------------------------------------------------------------------- */

/* The file's values into the running configuration: the runtime keys that changed are
 * applied (overrides still win), the others logged. Under the lock; `fresh` is the new base,
 * `cand` scratch. */
static void reload_into(bsf_config_api_t *api, const bsf_config_t *fresh, bsf_config_t *cand)
{
    char err[512];
    *cand = *fresh;
    if (apply_overrides(cand, api->overrides, false, err, sizeof err) ||
        bsf_config_finish(cand, err, sizeof err)) {
        BSF_ERROR("config", "SIGHUP: the file with the kept overrides does not validate, "
                            "nothing applied: %s", err);
        return;
    }
    const bsf_config_key_t *k;
    unsigned applied = 0, pending = 0;
    for (size_t i = 0; (k = bsf_config_key_at(i)); i++) {
        if (!bsf_config_runtime_differs(&api->live, cand, k))
            continue;
        if (!k->runtime) {
            log_change(k, &api->live, cand, "changed in the file; needs a restart, not applied");
            pending++;
            continue;
        }
        log_change(k, &api->live, cand, "reloaded from the file");
        bsf_config_runtime_copy(&api->live, cand, k);
        bsf_config_runtime_apply(&api->live, k);
        applied++;
    }
    /* The base takes the file's runtime values only: the others stay as bsfd runs them. */
    for (size_t i = 0; (k = bsf_config_key_at(i)); i++)
        if (k->runtime)
            bsf_config_runtime_copy(&api->base, fresh, k);
    BSF_WARN("config", "SIGHUP: configuration reloaded (%u applied, %u need a restart)",
             applied, pending);
}

void bsf_config_api_reload(bsf_config_api_t *api)
{
    char err[512];
    bsf_config_t *fresh = malloc(sizeof *fresh), *cand = malloc(sizeof *cand);
    if (!fresh || !cand) {
        BSF_ERROR("config", "SIGHUP: out of memory, nothing reloaded");
    } else if (api->load(api->load_ctx, fresh, err, sizeof err)) {
        BSF_ERROR("config", "SIGHUP: invalid configuration, nothing applied: %s", err);
    } else {
        pthread_mutex_lock(&api->mu);
        reload_into(api, fresh, cand);
        pthread_mutex_unlock(&api->mu);
    }
    free(fresh);
    free(cand);
}
