/* What an answer through an SCP means for it; see scp_rules.h. */
#include "gateways/sbi/scp_rules.h"

#include <string.h>
#include <strings.h>

bool bsf_scp_server_names_scp(const char *server, const char *scp_host)
{
    if (!server || !*server)
        return false;
    size_t hl = scp_host ? strlen(scp_host) : 0;
    const char *p = server;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *end = p;
        while (*end && *end != ' ')
            end++;
        size_t n = (size_t)(end - p);
        if (n && ((hl && n == hl && strncasecmp(p, scp_host, n) == 0) ||
                  (n > 4 && strncasecmp(p, "SCP-", 4) == 0)))
            return true;
        p = end;
    }
    return false;
}

static bool cause_is(const char *cause, const char *want)
{
    return cause && strcmp(cause, want) == 0;
}

bsf_scp_verdict_t bsf_scp_verdict(int status, const char *cause, bool by_scp)
{
    if (status < 400 || !by_scp)
        return BSF_SCP_FINE;
    /* The SCP reports that the target failed: its own answer, but not its own failure. */
    if ((status == 504 && cause_is(cause, "TARGET_NF_NOT_REACHABLE")) ||
        (status == 500 && (cause_is(cause, "NF_FAILOVER") ||
                           cause_is(cause, "NF_SERVICE_FAILOVER"))))
        return BSF_SCP_FINE;
    if (status == 429 || status == 500 || status == 503 || status == 504)
        return BSF_SCP_MARK_RESELECT;
    return BSF_SCP_RESELECT;
}
