/* Configuration keys of NF scoring for a site (seed §3.41, docs/operations.md "NF score"):
 * the factors' maximum scores, the alerts' weights, and the interval of continuous mode. */
#include <stdbool.h>
#include <stdio.h>

#include "bsfd/config.h"

static const bsf_config_key_t keys[] = {
    BSF_CFG_BOOL_KEY("nf_scoring.enabled", nf_scoring_enabled, "false",
        "Compute the site's NF score continuously (seed 3.41): metrics bsf_nf_score*, the "
        "admin route nfScore, and the NRF heartbeat's load from the measured TPS."),
    BSF_CFG_DURATION_KEY("nf_scoring.interval", nf_scoring_interval_ms, "30s", "1s", "1h",
        "How often the score is computed (NF_SCORING_INTERVAL); the TPS is measured over it."),
    BSF_CFG_UINT_KEY("nf_scoring.max_tps", nf_scoring_max_tps, "50000", 1, 100000000,
        "Max_TPS: the rate (SBI and Diameter, ingress and egress) that gives the whole TPS "
        "score, and 100 % load in the NF profile."),
    BSF_CFG_UINT_KEY("nf_scoring.tps_score", nf_scoring_tps_score, "20", 0, 1000,
        "Max_TPS_Score: the TPS factor's maximum."),
    BSF_CFG_UINT_KEY("nf_scoring.service_score", nf_scoring_service_score, "30", 0, 1000,
        "Max_SVC_Score: the service factor's maximum, shared among the services configured "
        "(SBI; Rx, NRF registration and replication when configured)."),
    BSF_CFG_UINT_KEY("nf_scoring.connection_score", nf_scoring_connection_score, "20", 0, 1000,
        "Conn_Score: the connection factor's maximum."),
    BSF_CFG_UINT_KEY("nf_scoring.expected_connections", nf_scoring_expected_connections, "0", 0,
        1000000,
        "Conn_Total: the SBI and Diameter connections from the network the site expects; 0: "
        "the connection factor is always whole."),
    BSF_CFG_UINT_KEY("nf_scoring.replication_score", nf_scoring_replication_score, "30", 0, 1000,
        "Site_Score: the replication factor's maximum, shared among the replication links."),
    BSF_CFG_UINT_KEY("nf_scoring.locality_preference", nf_scoring_locality_preference, "5", 0,
        1000, "Locality_Preference: added as it is."),
    BSF_CFG_UINT_KEY("nf_scoring.critical_alert_score", nf_scoring_critical_alert_score, "2", 0,
        1000, "Taken off per critical alert (the store refusing registrations for space)."),
    BSF_CFG_UINT_KEY("nf_scoring.major_alert_score", nf_scoring_major_alert_score, "1", 0, 1000,
        "Taken off per major alert (no NRF registration; a replication link down)."),
    BSF_CFG_UINT_KEY("nf_scoring.minor_alert_score", nf_scoring_minor_alert_score, "0", 0, 1000,
        "Taken off per minor alert (outbound SBI requests that timed out or found no "
        "connection since the previous interval)."),
};

const bsf_config_section_t bsf_config_scoring_section = {keys, sizeof keys / sizeof keys[0],
                                                         NULL};
