#include "replication/replication.h"

#include <stdio.h>
#include <string.h>

/* Only the embedded backend exists so far: nothing to replicate. */

int bsf_replication_create(const bsf_replication_settings_t *settings, uint16_t site_id,
                           bsf_store_t *store, bsf_engine_config_t *engine_cfg,
                           bsf_replication_t **out, char *err, size_t err_cap)
{
    (void)site_id;
    (void)store;
    (void)engine_cfg;
    *out = NULL;
    if (strcmp(settings->backend, "embedded") != 0) {
        snprintf(err, err_cap, "log.backend %s is not available", settings->backend);
        return -1;
    }
    return 0;
}

int bsf_replication_start(bsf_replication_t *r, bsf_engine_t *engine, char *err, size_t err_cap)
{
    (void)r;
    (void)engine;
    (void)err;
    (void)err_cap;
    return 0;
}

void bsf_replication_stop(bsf_replication_t *r)
{
    (void)r;
}

void bsf_replication_destroy(bsf_replication_t *r)
{
    (void)r;
}

void bsf_replication_write_metrics(void *r, bsf_text_t *out)
{
    (void)r;
    (void)out;
}
