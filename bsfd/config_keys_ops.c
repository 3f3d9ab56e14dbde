/* Configuration keys of operating bsfd: controlled shutdown (seed §3.39) and termination
 * (§3.40); docs/operations.md. */
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"

static const bsf_config_key_t keys[] = {
    BSF_CFG_LIVE(UINT, "controlled_shutdown.sbi_status", cs_sbi_status, "503", 400, 599,
        "HTTP status of the Nbsf_Management requests the operational state refuses "
        "(registrations in PARTIAL_SHUTDOWN, everything in COMPLETE_SHUTDOWN) and of those "
        "refused while bsfd stops."),
    BSF_CFG_LIVE(STRING, "controlled_shutdown.sbi_cause", cs_sbi_cause, "NF_SERVICE_FAILOVER",
        63, "ProblemDetails cause of those refusals (TS 29.500 Table 5.2.7.2-1)."),
    BSF_CFG_LIVE(UINT, "controlled_shutdown.diameter_result_code", cs_diameter_result, "3004",
        1000, 5999,
        "Result-Code of the Rx requests the operational state refuses (AAR-I in "
        "PARTIAL_SHUTDOWN, every request in COMPLETE_SHUTDOWN); 3004 DIAMETER_TOO_BUSY."),
    BSF_CFG_LIVE(DURATION, "shutdown.grace_period", shutdown_grace_ms, "30s", "1s", "1h",
        "On SIGTERM, how long bsfd may take to finish the requests in flight, send DPR and "
        "NFDeregister and stop; when it runs out bsfd exits at once (status 1)."),
};

/* The cause is sent as a JSON string: letters, digits and '_' only, as 3GPP causes are. */
static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    const char *c = cfg->cs_sbi_cause;
    if (!c[0] || strspn(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(c)) {
        snprintf(err, err_cap,
                 "controlled_shutdown.sbi_cause: '%s' is not a cause name (A-Z, 0-9, _)", c);
        return -1;
    }
    return 0;
}

const bsf_config_section_t bsf_config_ops_section = {keys, sizeof keys / sizeof keys[0], finish};
