/* Configuration keys of the message feed (seed §3.43). */
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"

static const bsf_config_key_t keys[] = {
    {"feed.enabled", BSF_CFG_BOOL, "false", 0, 0, NULL, BSF_CFG_FIELD(feed.enabled),
     "Copy every SBI request and response to the feed topic."},
};

const bsf_config_section_t bsf_config_feed_section = {keys, sizeof keys / sizeof keys[0], NULL};
