/* Configuration keys of the Rx Diameter gateway. */
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"

static const bsf_config_key_t keys[] = {
    {"diameter.enabled", BSF_CFG_BOOL, "false", 0, 0, NULL, BSF_CFG_FIELD(diameter.enabled),
     "Run the Rx Diameter gateway."},
};

const bsf_config_section_t bsf_config_diameter_section = {keys, sizeof keys / sizeof keys[0],
                                                          NULL};
