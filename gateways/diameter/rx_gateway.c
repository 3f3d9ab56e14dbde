#include "gateways/diameter/rx_gateway.h"

#include <stdio.h>

int bsf_rx_gateway_start(const bsf_diameter_settings_t *settings, bsf_store_t *store,
                         bsf_engine_t *engine, bsf_rx_gateway_t **out, char *err,
                         size_t err_cap)
{
    (void)settings;
    (void)store;
    (void)engine;
    *out = NULL;
    snprintf(err, err_cap, "the Rx Diameter gateway is not available in this build");
    return -1;
}

void bsf_rx_gateway_drain(bsf_rx_gateway_t *gw)
{
    (void)gw;
}

void bsf_rx_gateway_stop(bsf_rx_gateway_t *gw)
{
    (void)gw;
}

void bsf_rx_gateway_write_metrics(void *gw, bsf_text_t *out)
{
    (void)gw;
    (void)out;
}
