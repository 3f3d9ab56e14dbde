/* Settings of the Rx Diameter gateway (keys in config_keys_diameter.c). */
#ifndef BSF_BSFD_CONFIG_DIAMETER_H
#define BSF_BSFD_CONFIG_DIAMETER_H

#include <stdbool.h>

typedef struct {
    bool enabled;
} bsf_diameter_settings_t;

#endif
