/* Settings of the Rx Diameter gateway (their keys are declared in
 * bsfd/config_keys_diameter.c). */
#ifndef BSF_GATEWAYS_DIAMETER_RX_SETTINGS_H
#define BSF_GATEWAYS_DIAMETER_RX_SETTINGS_H

#include <stdbool.h>

typedef struct {
    bool enabled;
} bsf_diameter_settings_t;

#endif
