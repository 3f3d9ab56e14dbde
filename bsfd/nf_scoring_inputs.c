#include "bsfd/nf_scoring_inputs.h"

/* SBI client egress: requests completed, and the failures since the previous sample (a
 * minor alert while they grow). */
static uint64_t egress(bsfd_score_inputs_t *in, unsigned *minor_alerts)
{
    bsf_sbi_client_t *c = in->nrf ? bsf_nrf_service_client(in->nrf) : NULL;
    if (!c)
        return 0;
    bsf_sbi_client_stats_t st;
    bsf_sbi_client_stats(c, &st);
    uint64_t failures = st.timeouts + st.connect_errors;
    *minor_alerts += failures > in->egress_failures;
    in->egress_failures = failures;
    return st.completed;
}

void bsfd_score_gather(void *ctx, bsf_nf_scoring_sample_t *out)
{
    bsfd_score_inputs_t *in = ctx;
    bsf_nf_score_inputs_t *s = &out->inputs;
    /* SBI: always configured; available while it serves */
    s->services_configured = s->services_available = 1;
    bsf_h2_stats_t h2 = {0};
    if (in->sbi) {
        out->requests += bsf_nbsf_service_answers(in->sbi);
        bsf_nbsf_service_h2_stats(in->sbi, &h2);
        s->connections += (unsigned)h2.connections;
    }
    out->requests += egress(in, &s->minor_alerts);
    if (in->rx) { /* Rx: available while a Diameter connection is open */
        uint64_t messages;
        unsigned connections;
        bsf_rx_gateway_load(in->rx, &messages, &connections);
        out->requests += messages;
        s->connections += connections;
        s->services_configured++;
        s->services_available += connections > 0;
    }
    bool registered;
    if (bsf_nrf_service_registered(in->nrf, &registered)) {
        s->services_configured++;
        s->services_available += registered;
        s->major_alerts += !registered;
    }
    bsf_replication_health(in->repl, &s->replication_links_healthy, &s->replication_links);
    if (s->replication_links) {
        s->services_configured++;
        s->services_available += s->replication_links_healthy == s->replication_links;
        s->major_alerts += s->replication_links - s->replication_links_healthy;
    }
    if (in->engine) {
        bsf_engine_stats_t es;
        bsf_engine_stats(in->engine, &es);
        s->critical_alerts += es.at_reserve;
    }
}

bsf_nf_score_weights_t bsfd_score_weights(const bsf_config_t *cfg)
{
    return (bsf_nf_score_weights_t){
        .max_tps = cfg->nf_scoring_max_tps,
        .tps_score = cfg->nf_scoring_tps_score,
        .service_score = cfg->nf_scoring_service_score,
        .connection_score = cfg->nf_scoring_connection_score,
        .expected_connections = cfg->nf_scoring_expected_connections,
        .replication_score = cfg->nf_scoring_replication_score,
        .locality_preference = cfg->nf_scoring_locality_preference,
        .critical_alert_score = cfg->nf_scoring_critical_alert_score,
        .major_alert_score = cfg->nf_scoring_major_alert_score,
        .minor_alert_score = cfg->nf_scoring_minor_alert_score,
    };
}
