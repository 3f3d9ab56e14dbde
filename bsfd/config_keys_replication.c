/* Configuration keys of the log backend, replication between sites and the message feed. */
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"

static const char *const backend_choices[] = {"embedded", NULL};

static const bsf_config_key_t keys[] = {
    {"log.backend", BSF_CFG_ENUM, "embedded", 0, 0, backend_choices,
     BSF_CFG_FIELD(replication.backend),
     "Where events are logged: `embedded` (in the store's LMDB environment)."},
};

const bsf_config_section_t bsf_config_replication_section = {keys, sizeof keys / sizeof keys[0],
                                                             NULL};
