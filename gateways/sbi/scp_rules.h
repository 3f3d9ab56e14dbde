/* What an answer received through an SCP means for that SCP (seed 001, SCP
 * reprioritisation; TS 29.500 §6.10): mark it temporarily unavailable and reselect another
 * SCP, reselect without marking, or nothing (the target NF failed, not the SCP). Pure. */
#ifndef BSF_GATEWAYS_SBI_SCP_RULES_H
#define BSF_GATEWAYS_SBI_SCP_RULES_H

#include <stdbool.h>

typedef enum {
    BSF_SCP_FINE,            /* success, or an answer of the target: the SCP is available */
    BSF_SCP_MARK_RESELECT,   /* the SCP failed: temporarily unavailable, try another SCP */
    BSF_SCP_RESELECT,        /* the SCP refused: try another SCP, keep it available */
} bsf_scp_verdict_t;

/* True when the Server header names the SCP: its host (FQDN or address) as one of the
 * header's space-separated tokens, or a token "SCP-..." (TS 29.500 §5.2.2.2 form
 * "<NF type>-<NF instance id> <FQDN>"). NULL or empty: false. */
bool bsf_scp_server_names_scp(const char *server, const char *scp_host);

/* status: the HTTP status; cause: ProblemDetails.cause ("" or NULL when none); by_scp: the
 * Server header names the SCP. Timeouts and connection failures are BSF_SCP_MARK_RESELECT
 * without calling this. */
bsf_scp_verdict_t bsf_scp_verdict(int status, const char *cause, bool by_scp);

#endif
