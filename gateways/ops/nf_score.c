#include "gateways/ops/nf_score.h"

#include <math.h>

/* part / whole of `score`, capped at `score`; a whole of 0 misses nothing: the whole score */
static double share(double part, double whole, double score)
{
    if (whole <= 0)
        return score;
    double s = part / whole * score;
    return s > score ? score : s;
}

void bsf_nf_score_compute(const bsf_nf_score_weights_t *w, const bsf_nf_score_inputs_t *in,
                          bsf_nf_score_t *out)
{
    out->tps = w->max_tps > 0 ? share(in->tps, w->max_tps, w->tps_score) : 0;
    out->service = share(in->services_available, in->services_configured, w->service_score);
    out->connection = share(in->connections, w->expected_connections, w->connection_score);
    out->replication =
        share(in->replication_links_healthy, in->replication_links, w->replication_score);
    out->locality = w->locality_preference;
    out->alerts = in->critical_alerts * w->critical_alert_score +
                  in->major_alerts * w->major_alert_score +
                  in->minor_alerts * w->minor_alert_score;
    out->total =
        out->tps + out->service + out->connection + out->replication + out->locality - out->alerts;
}

unsigned bsf_nf_score_load(const bsf_nf_score_weights_t *w, double tps)
{
    if (w->max_tps <= 0 || tps <= 0)
        return 0;
    double load = round(tps / w->max_tps * 100.0);
    return load >= 100 ? 100 : (unsigned)load;
}
