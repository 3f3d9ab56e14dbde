/* Configuration keys of SBI transport hygiene (issue 13 §4, §6): who may call (the SCP named in
 * x-forwarded-client-cert, seed §3.24, sbi.xfcc.*; the consumer's User-Agent, seed §3.37,
 * sbi.user_agent.*) and more listeners for dual stack (seed §3.8, sbi.listen_also). */
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"
#include "gateways/sbi/addr_select.h"

static const char *const xfcc_fields[] = {"DNS", "URI", "By", NULL};
static const char *const ua_modes[] = {"relaxed", "strict", NULL};

static const bsf_config_key_t keys[] = {
    BSF_CFG_ENUM_KEY("sbi_client.preferred_family", nrf.client_family, "any",
        bsf_family_pref_names,
        "Which address of a peer, SCP or NRF named by FQDN the SBI client connects to (seed "
        "3.8 egressRoutingMode): `ipv4` or `ipv6` only (a name without one is not connected), "
        "`ipv4_ipv6` / `ipv6_ipv4` the preferred family when the name has it, else the other; "
        "`any` the resolver's first. No fallback to the other family when the chosen one is "
        "unreachable: the peer is unavailable."),
    BSF_CFG_LIST_KEY("sbi.listen_also", sbi_listen_also, "", 255,
        "Up to 3 more `host:port` / `[v6]:port` addresses the SBI listens on with the same "
        "settings, e.g. `[::]:8080` beside `sbi.listen: 0.0.0.0:8080` for dual stack (seed "
        "3.8); each has `sbi.workers` workers of its own. Location headers keep `sbi.api_root`. "
        "Cleartext (h2c) only: `sbi.tls.listen` is served by the first server alone."),
    BSF_CFG_BOOL_KEY("sbi.xfcc.enabled", sbi_xfcc.enabled, "false",
        "Accept Nbsf_Management requests only when their `x-forwarded-client-cert` names a "
        "configured SCP (seed 3.24); for deployments where every request comes through SCPs."),
    BSF_CFG_LIST_KEY("sbi.xfcc.peers", sbi_xfcc.peers, "", 1023,
        "The SCPs allowed: FQDNs (or URIs, with `sbi.xfcc.match_field: URI`) compared "
        "case-insensitively with the certificate field. Required when enabled."),
    BSF_CFG_ENUM_TEXT_KEY("sbi.xfcc.match_field", sbi_xfcc.match_field, "DNS", xfcc_fields,
        "The XFCC field compared with the peers (matchField): `DNS` (a SAN DNS name), `URI` (a "
        "SAN URI) or `By` (the proxy's own identity)."),
    BSF_CFG_UINT_KEY("sbi.xfcc.match_certs", sbi_xfcc.match_certs, "1", 0, 16,
        "How many XFCC elements, counted from the right-most (the proxy nearest the BSF), are "
        "searched for a peer (matchCerts); 0: all (the seed's -1). A header with fewer "
        "elements is refused (XFCC_MATCHCERTCOUNT_GREATER_THAN_CERTS_IN_HEADER)."),
    BSF_CFG_UINT_KEY("sbi.xfcc.error_status", sbi_xfcc.error_status, "400", 400, 599,
        "HTTP status of a refused request (no, an empty, an invalid or an unmatched header)."),
    BSF_CFG_STRING_KEY("sbi.xfcc.error_cause", sbi_xfcc.error_cause, "UNSPECIFIED_MSG_FAILURE",
        63, "ProblemDetails.cause of a refused request; the detail names the seed's exception "
        "type (XFCC_HEADER_INVALID, ...)."),
    BSF_CFG_BOOL_KEY("sbi.user_agent.enabled", sbi_user_agent.enabled, "false",
        "Check the consumer's NF type in `User-Agent` (`<NFType>-<instance>[ <FQDN>]`, TS "
        "29.500 5.2.2.2; seed 3.37) against sbi.user_agent.consumer_nf_types."),
    BSF_CFG_ENUM_TEXT_KEY("sbi.user_agent.validation", sbi_user_agent.validation, "relaxed",
        ua_modes, "`relaxed`: a request without User-Agent passes; `strict`: it is refused. "
        "Several values, a malformed one or an NF type not listed are refused in both."),
    BSF_CFG_LIST_KEY("sbi.user_agent.consumer_nf_types", sbi_user_agent.consumer_nf_types,
        "PCF,NEF,AF", 511, "NF types (TS 29.510 NFType, case-sensitive) allowed to call."),
    BSF_CFG_UINT_KEY("sbi.user_agent.error_status", sbi_user_agent.error_status, "400", 400,
        599, "HTTP status of a refused request."),
    BSF_CFG_STRING_KEY("sbi.user_agent.error_cause", sbi_user_agent.error_cause,
        "INVALID_MSG_FORMAT", 63, "ProblemDetails.cause of a refused request."),
};

/* sbi.listen_also into hosts and ports. */
static int split_also(bsf_config_t *cfg, char *err, size_t err_cap)
{
    cfg->sbi_n_also = 0;
    for (const char *p = cfg->sbi_listen_also; *p;) {
        size_t len = strcspn(p, "\n");
        char item[128];
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
        unsigned i = cfg->sbi_n_also;
        if (i == sizeof cfg->sbi_also_port / sizeof cfg->sbi_also_port[0]) {
            snprintf(err, err_cap, "sbi.listen_also: at most 3 addresses");
            return -1;
        }
        if (bsf_config_split_listen(item, cfg->sbi_also_host[i], sizeof cfg->sbi_also_host[i],
                                    &cfg->sbi_also_port[i])) {
            snprintf(err, err_cap, "sbi.listen_also: '%s' is not host:port", item);
            return -1;
        }
        cfg->sbi_n_also++;
        p += len;
        if (*p)
            p++;
    }
    return 0;
}

static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    if (split_also(cfg, err, err_cap))
        return -1;
    if (bsf_xfcc_settings_check(&cfg->sbi_xfcc, err, err_cap) ||
        bsf_user_agent_settings_check(&cfg->sbi_user_agent, err, err_cap))
        return -1;
    return 0;
}

const bsf_config_section_t bsf_config_hygiene_section = {keys, sizeof keys / sizeof keys[0],
                                                         finish};
