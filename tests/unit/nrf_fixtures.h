/* Helpers of the NRF client's unit tests (test_nrf_*.c). */
#ifndef BSF_TESTS_UNIT_NRF_FIXTURES_H
#define BSF_TESTS_UNIT_NRF_FIXTURES_H

#include "gateways/nrf/nrf_settings.h"

/* Fills *s with the key tables' defaults (everything else zero: no URI, no PLMN). */
void settings_defaults(bsf_nrf_settings_t *s);

#endif
