/* NF scoring for a site (seed §3.41): one number that says how healthy a site is, to compare
 * sites (which one to isolate with a controlled shutdown, which one consumers should prefer).
 *
 *   score = TPS + Service + Connection + Replication + Locality
 *           - (critical + major + minor alert scores)
 *
 * with, each factor capped at its configured maximum:
 *   TPS         = min(current_tps / max_tps * tps_score, tps_score)
 *   Service     = available / configured * service_score
 *   Connection  = min(connections / expected * connection_score, connection_score)
 *   Replication = min(healthy links / links * replication_score, replication_score)
 *   Locality    = locality_preference, as it is
 *
 * A factor whose denominator is 0 (no service configured, no connection expected, a single
 * site without replication links) has nothing missing and gets its whole score. The TPS
 * factor grows with load, as the seed writes it.
 *
 * Pure arithmetic, no I/O, no state: any thread. */
#ifndef BSF_GATEWAYS_OPS_NF_SCORE_H
#define BSF_GATEWAYS_OPS_NF_SCORE_H

typedef struct {
    double max_tps;               /* the TPS at which the TPS factor is full; > 0 */
    double tps_score;             /* default 20 */
    double service_score;         /* default 30 */
    double connection_score;      /* default 20 */
    double expected_connections;  /* Conn_Total */
    double replication_score;     /* default 30 */
    double locality_preference;   /* default 5 */
    double critical_alert_score;  /* default 2, per critical alert */
    double major_alert_score;     /* default 1, per major alert */
    double minor_alert_score;     /* default 0, per minor alert */
} bsf_nf_score_weights_t;

typedef struct {
    double tps;                   /* SBI ingress + egress + Diameter ingress + egress per s */
    unsigned services_available, services_configured;
    unsigned connections;         /* connections from the network (SBI + Diameter peers) */
    unsigned replication_links_healthy, replication_links;
    unsigned critical_alerts, major_alerts, minor_alerts;
} bsf_nf_score_inputs_t;

/* Each factor's share and the total (which can be below 0 with many alerts). */
typedef struct {
    double tps, service, connection, replication, locality, alerts, total;
} bsf_nf_score_t;

/* Fills *out from the weights and the inputs. Never fails. */
void bsf_nf_score_compute(const bsf_nf_score_weights_t *w, const bsf_nf_score_inputs_t *in,
                          bsf_nf_score_t *out);

/* The load (0..100) the NF profile publishes (TS 29.510 NFProfile.load): the TPS as a share
 * of max_tps, rounded and capped at 100. */
unsigned bsf_nf_score_load(const bsf_nf_score_weights_t *w, double tps);

#endif
