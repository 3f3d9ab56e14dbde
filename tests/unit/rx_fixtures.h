/* Helpers of the Rx gateway's unit tests. */
#ifndef BSF_TESTS_UNIT_RX_FIXTURES_H
#define BSF_TESTS_UNIT_RX_FIXTURES_H

#include <stdio.h>
#include <string.h>

#include "gateways/diameter/rx_settings.h"

/* Settings of realm bsf.example.com with a 4 s answer timeout, everything else off. */
static inline bsf_diameter_settings_t tr_settings(void)
{
    bsf_diameter_settings_t s;
    memset(&s, 0, sizeof s);
    snprintf(s.realm, sizeof s.realm, "bsf.example.com");
    s.timeout_ms = 4000;
    return s;
}

#endif
