#include "tests/unit/nrf_fixtures.h"

#include <string.h>

void settings_defaults(bsf_nrf_settings_t *s)
{
    memset(s, 0, sizeof *s);
    s->heartbeat_s = 30;
    s->priority = 1;
    s->capacity = 100;
    s->retry_min_ms = 100;
    s->retry_max_ms = 1000;
    s->bsf_rx_identity = true;
    strcpy(s->scp_health_path, "/");
    s->client_tls_verify = true;
}
