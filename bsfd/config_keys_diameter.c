/* Configuration keys of the Rx Diameter gateway (docs/rx-gateway.md). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bsfd/config.h"
#include "common/text_list.h"
#include "gateways/diameter/rx_congestion.h"
#include "gateways/diameter/rx_cpus.h"
#include "gateways/diameter/rx_retry.h"
#include "gateways/diameter/rx_routes.h"
#include "gateways/diameter/rx_tls.h"
#include "common/error.h"

static const char *const originator_choices[] = {"any", "intermediate", "destination", NULL};
static const char *const shedding_choices[] = {"priority", "percentage", NULL};
/* In bsf_rx_disconnect_cause_t order. */
static const char *const cause_choices[] = {"REBOOTING", "BUSY", "DO_NOT_WANT_TO_TALK_TO_YOU",
                                            NULL};

#define TIMEOUT_MIN 3000u /* seed §3.22: 3000 - 2147483647 ms */
#define TIMEOUT_MAX 2147483647u

static const bsf_config_key_t keys[] = {
    BSF_CFG_BOOL_KEY("diameter.enabled", diameter.enabled, "false", "Run the Rx Diameter gateway."),
    BSF_CFG_STRING_KEY("diameter.identity", diameter.identity, "bsf.localdomain", 255,
        "Our Diameter identity (Origin-Host, CER/CEA)."),
    BSF_CFG_STRING_KEY("diameter.realm", diameter.realm, "localdomain", 255,
        "Our Diameter realm (Origin-Realm)."),
    BSF_CFG_LIST_KEY("diameter.listen", diameter.listen, "127.0.0.1", 1023,
        "IP addresses to listen on and to advertise in CER/CEA (Host-IP-Address)."),
    BSF_CFG_UINT_KEY("diameter.port", diameter.port, "3868", 0, 65535,
        "Listening port (TCP, and SCTP with `diameter.sctp`); 0 = accept no connection."),
    BSF_CFG_BOOL_KEY("diameter.sctp", diameter.sctp, "false",
        "Also listen and connect over SCTP (needs the kernel's SCTP support); TCP is preferred."),
    BSF_CFG_STRING_KEY("diameter.extensions_dir", diameter.extensions_dir, "/usr/lib/freeDiameter",
        255,
        "Directory of freeDiameter's dictionary extensions (dict_nasreq, dict_dcca, "
        "dict_dcca_3gpp)."),
    BSF_CFG_UINT_KEY("diameter.threads", diameter.threads, "2", 1, 64,
        "freeDiameter dispatch threads (requests addressed to the gateway's realm run there)."),
    BSF_CFG_LIST_KEY("diameter.cpus", diameter.cpus, "", 255,
        "CPUs the Diameter node's threads (freeDiameter's and the gateway's) run on: CPU numbers "
        "and ranges, e.g. `0` or `2-3`; empty = any. Keeping them on one CPU saves the cross-CPU "
        "wake-ups of freeDiameter's thread hand-offs (see docs/rx-gateway.md, Performance)."),
    BSF_CFG_BOOL_KEY("diameter.tcp_nodelay", diameter.tcp_nodelay, "false",
        "Set TCP_NODELAY on the Diameter connections once they are open. freeDiameter leaves "
        "Nagle's algorithm on: less CPU per message at high load, but requests pipelined on a "
        "connection can wait for the peer's delayed ACK (about 40 ms). `true` removes those "
        "waits at some CPU cost (docs/rx-gateway.md, Performance)."),
    BSF_CFG_BOOL_KEY("diameter.advertise_rx", diameter.advertise_rx, "true",
        "Advertise Rx (16777236) in CER/CEA. `false` advertises the Relay application only: Rx "
        "requests then skip libfdcore's dispatch threads and full dictionary parse (about 25 % "
        "less CPU per message), and a request whose Destination-Host is the BSF itself gets 3007."),
    BSF_CFG_UINT_KEY("diameter.reconnect_s", diameter.reconnect_s, "5", 1, 3600,
        "Seconds between connection attempts to a configured peer (Tc timer)."),
    BSF_CFG_UINT_KEY("diameter.watchdog_s", diameter.watchdog_s, "30", 6, 3600,
        "Device-Watchdog interval (Tw timer, RFC 3539)."),
    BSF_CFG_LIST_KEY("diameter.peers", diameter.peers, "", BSF_RX_LIST_MAX - 1,
        "Peers the gateway connects to, `ID=HOST:PORT` (e.g. `pcf1.example.com=10.1.1.1:3868`); "
        "ID must be the Origin-Host the peer sends in its CEA. `ID=HOST:PORT tls` connects with "
        "TLS from the start (RFC 6733 §2.1, the peer's TLS port, usually 5868; needs "
        "diameter.tls.cert); `tls=1.2` or `tls=1.3` allows only that TLS version with the peer "
        "(seed 3.10.2, peer-level TLS versions)."),
    BSF_CFG_STRING_KEY("diameter.tls.cert", diameter.tls_cert, "", 255,
        "Seed 3.10.2: PEM certificate (chain) of the gateway; its subject must name "
        "diameter.identity. Empty = no TLS."),
    BSF_CFG_STRING_KEY("diameter.tls.key", diameter.tls_key, "", 255,
        "PEM private key of diameter.tls.cert."),
    BSF_CFG_STRING_KEY("diameter.tls.ca", diameter.tls_ca, "", 255,
        "PEM CA certificates that peers' certificates must chain to (each peer's certificate "
        "must also name its Diameter identity)."),
    BSF_CFG_STRING_KEY("diameter.tls.crl", diameter.tls_crl, "", 255,
        "Optional PEM certificate revocation list."),
    BSF_CFG_STRING_KEY("diameter.tls.priority", diameter.tls_priority,
        "SECURE128:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2", 255,
        "GnuTLS priority string: protocol versions and cipher suites, in order of preference "
        "(default: TLS 1.3 preferred, TLS 1.2 allowed, 128-bit security or more)."),
    BSF_CFG_UINT_KEY("diameter.tls.port", diameter.tls_port, "5868", 0, 65535,
        "Port for TLS from the connection's start (RFC 6733 §2.1) when diameter.tls.cert is set; "
        "0 = none."),
    BSF_CFG_BOOL_KEY("diameter.tls.required", diameter.tls_required, "false",
        "Refuse peers that connect in clear to diameter.port (CEA 5017 "
        "DIAMETER_NO_COMMON_SECURITY): they must use diameter.tls.port."),
    BSF_CFG_LIST_KEY("diameter.accept", diameter.accept, "", BSF_RX_LIST_MAX - 1,
        "Identities allowed to connect to the gateway (AFs, PCFs), or `*` for any; others get "
        "3010 DIAMETER_UNKNOWN_PEER in the CEA. Peers of `diameter.peers` are always allowed."),
    BSF_CFG_LIST_KEY("diameter.routes", diameter.routes, "", BSF_RX_LIST_MAX - 1,
        "Static routing table: `realm=R [host=H] peer=ID [priority=N]` (R, H may be `*`; lower "
        "priority first). Routes requests not routed by binding or session, and gives the "
        "alternate peers for retries."),
    BSF_CFG_BOOL_KEY("diameter.validate_realm", diameter.validate_realm, "false",
        "Seed 3.12 Validate.Realm: an AAR-I whose Destination-Realm is not `diameter.realm` gets "
        "3003 DIAMETER_REALM_NOT_SERVED."),
    BSF_CFG_BOOL_KEY("diameter.validate_binding_realm", diameter.validate_binding_realm, "false",
        "Seed 3.12 Validate.Binding.Realm: an AAR-I whose Destination-Realm is not the binding's "
        "pcfDiamRealm gets 3003."),
    BSF_CFG_BOOL_KEY("diameter.overwrite_realm", diameter.overwrite_realm, "false",
        "Seed 3.12 Overwrite.Realm: the forwarded AAR-I carries the binding's pcfDiamRealm as "
        "Destination-Realm."),
    BSF_CFG_UINT_KEY("diameter.cookie_avp_code", diameter.cookie_avp_code, "3001", 1, 16777215,
        "AVP code of OCNF-SERVICE-COOKIE, which carries a binding's `ocnf-service-cookie` to the "
        "PCF in the AAR-I when `bindings.pcf_cookie` is on (seed 3.3)."),
    BSF_CFG_UINT_KEY("diameter.cookie_avp_vendor", diameter.cookie_avp_vendor, "21274", 1,
        4294967295u,
        "Vendor-Id of OCNF-SERVICE-COOKIE."),
    BSF_CFG_UINT_KEY("diameter.timeout_ms", diameter.timeout_ms, "4000", TIMEOUT_MIN, TIMEOUT_MAX,
        "Seed 3.22: answer timeout of a forwarded Rx request (interface level); on expiry the "
        "requester gets 3002 DIAMETER_UNABLE_TO_DELIVER (or a retry)."),
    BSF_CFG_UINT_KEY("diameter.timeout_aar_ms", diameter.timeout_aar_ms, "0", 0, TIMEOUT_MAX,
        "Answer timeout of AAR (message level, 3000 - 2147483647); 0 = `diameter.timeout_ms`."),
    BSF_CFG_UINT_KEY("diameter.timeout_str_ms", diameter.timeout_str_ms, "0", 0, TIMEOUT_MAX,
        "Answer timeout of STR; 0 = interface level."),
    BSF_CFG_UINT_KEY("diameter.timeout_rar_ms", diameter.timeout_rar_ms, "0", 0, TIMEOUT_MAX,
        "Answer timeout of RAR; 0 = interface level."),
    BSF_CFG_UINT_KEY("diameter.timeout_asr_ms", diameter.timeout_asr_ms, "0", 0, TIMEOUT_MAX,
        "Answer timeout of ASR; 0 = interface level."),
    BSF_CFG_LIST_KEY("diameter.retry", diameter.retry, "", 63,
        "Seed 3.15: commands retried on an alternate peer of the routing table (`aar`, `str`, "
        "`rar`, `asr`); empty = no retry."),
    BSF_CFG_LIST_KEY("diameter.retry_codes", diameter.retry_codes, "3***;4***;5***", 1023,
        "Result-Code / Experimental-Result-Code patterns that trigger a retry (digits and `*`; "
        "2xxx never)."),
    BSF_CFG_BOOL_KEY("diameter.retry_on_timeout", diameter.retry_on_timeout, "true",
        "An answer timeout triggers a retry."),
    BSF_CFG_UINT_KEY("diameter.max_retries", diameter.max_retries, "1", 0, 2147483647,
        "Seed 3.15 MaxRetryCount: retries of one request (0 is read as 1)."),
    BSF_CFG_BOOL_KEY("diameter.cycle_back", diameter.cycle_back, "false",
        "Seed 3.15 CycleBackRetry: when every alternate was tried, go through the peers again "
        "(the first one included)."),
    BSF_CFG_BOOL_KEY("diameter.update_destination_host", diameter.update_destination_host, "false",
        "Seed 3.15 UpdateDestinationHost: a retried request's Destination-Host becomes the "
        "alternate peer."),
    BSF_CFG_ENUM_KEY("diameter.retry_originator", diameter.retry_originator, "any",
        originator_choices,
        "Which error answers trigger a retry: from an `intermediate` agent, from the "
        "`destination`, or `any` (timeouts always count)."),
    BSF_CFG_LIST_KEY("diameter.stale_binding_codes", diameter.stale_codes, "5012", 1023,
        "Seed 3.34: a PCF answering an AAR (I or U) of a binding-routed session with one of "
        "these codes (patterns allowed) makes the gateway deregister the binding (reason "
        "`diameter_failure`); empty = never."),
    BSF_CFG_UINT_KEY("diameter.max_sessions", diameter.max_sessions, "1000000", 1, 100000000,
        "Rx sessions followed at once; an AAR-I beyond it gets 3004 DIAMETER_TOO_BUSY."),
    BSF_CFG_UINT_KEY("diameter.session_idle_s", diameter.session_idle_s, "3600", 1, 31536000,
        "A session without any request for this long is forgotten."),
    BSF_CFG_UINT_KEY("diameter.max_pending", diameter.max_pending, "65536", 16, 4194304,
        "Forwarded requests waiting for an answer; new requests beyond it get 3004 "
        "DIAMETER_TOO_BUSY."),
    BSF_CFG_BOOL_KEY("diameter.congestion.enabled", diameter.congestion, "false",
        "Seed 3.26: congestion control of the Diameter front end. The node's state (NORMAL, DOC, "
        "L1, L2, CONGESTED) follows bsfd's CPU use and the requests waiting for an answer; out "
        "of NORMAL, requests are discarded by priority (docs/rx-gateway.md, Congestion control)."),
    BSF_CFG_UINT_KEY("diameter.congestion.interval_ms", diameter.congestion_interval_ms, "200", 50,
        2147483647,
        "stateCalculationInterval: how often the state is computed."),
    BSF_CFG_UINT_KEY("diameter.congestion.sample_count", diameter.congestion_samples, "5", 1,
        2147483647,
        "stateChangeSampleCount: consecutive samples a new state must hold before it applies."),
    BSF_CFG_LIVE(LIST, "diameter.congestion.cpu_thresholds", diameter.congestion_cpu,
        "60;70;75;80", 63,
        "bsfd's CPU use (% of the CPUs it may run on) from which DOC, L1, L2 and CONGESTED hold; "
        "strictly increasing, 1-100. Changes at run time (the next sample)."),
    BSF_CFG_LIVE(LIST, "diameter.congestion.queue_thresholds", diameter.congestion_queue,
        "6300;7200;8100;9000", 127,
        "Forwarded requests waiting for an answer from which DOC, L1, L2 and CONGESTED hold; "
        "strictly increasing. Changes at run time (the next sample)."),
    BSF_CFG_ENUM_KEY("diameter.congestion.shedding", diameter.congestion_mode, "priority",
        shedding_choices,
        "Load shedding by `priority` (discard_priorities) or by `percentage` "
        "(discard_percentages)."),
    BSF_CFG_LIST_KEY("diameter.congestion.discard_priorities",
        diameter.congestion_discard_priorities, "27;19;17;15", 63,
        "Priority mode: in DOC, L1, L2, CONGESTED a request whose priority is greater than or "
        "equal to this is discarded (0-31; 32 = none); not increasing."),
    BSF_CFG_LIST_KEY("diameter.congestion.discard_percentages",
        diameter.congestion_discard_percentages,
        "DOC 27-31:50;L1 19-26:50 27-31:75;L2 17-18:50 19-26:75 27-31:100;CONGESTED 15-31:100", 511,
        "Percentage mode: `STATE LO-HI:PERCENT ...` per state: requests with a priority in LO-HI "
        "are discarded with that probability."),
    BSF_CFG_LIST_KEY("diameter.congestion.priorities", diameter.congestion_priorities,
        "default=6;rar=7", 255,
        "Message priorities (0 most important, 31 least) by command: `default`, `aar`, `str`, "
        "`rar`, `asr`. A request's DRMP AVP (RFC 7944, 0-15) takes precedence."),
    BSF_CFG_LIST_KEY("diameter.congestion.priority_rules", diameter.congestion_priority_rules, "",
        2047,
        "Message priority profile (at most 32 rules): `[cmd=C] [COND ...] priority=N`, C one of "
        "aar, aar-i, aar-u, str, rar, asr; COND `drmpOPn` or `ocOPn` (OC-Message-Priority), OP "
        "one of ==, !=, <, <=, >, >=, up to 4 that must all hold; tried in order, the first a "
        "request matches gives its priority, else the AVPs' values and `priorities` do. A "
        "condition on an AVP the request lacks does not hold."),
    BSF_CFG_UINT_KEY("diameter.congestion.result_code", diameter.congestion_code, "3004", 3000,
        5999,
        "CONGESTION_DIAMETER_RESPONSE_CODE: the code a discarded request is answered with."),
    BSF_CFG_UINT_KEY("diameter.congestion.vendor_id", diameter.congestion_vendor, "0", 0,
        4294967295u,
        "CONGESTION_DIAMETER_VENDOR_ID: non-zero sends the code as Experimental-Result with this "
        "Vendor-Id (e.g. 10415 with 5065); 0 sends it as Result-Code."),
    BSF_CFG_UINT_KEY("diameter.congestion.oc_priority_avp_code", diameter.oc_priority_code, "0", 0,
        16777215,
        "AVP code of Oracle's OC-Message-Priority (a priority 0-31 that AFs may send; it wins "
        "over DRMP). Oracle does not publish the code: set the one your AFs use; 0 = not read."),
    BSF_CFG_UINT_KEY("diameter.congestion.oc_priority_avp_vendor", diameter.oc_priority_vendor,
        "21274", 0, 4294967295u,
        "Vendor-Id of the OC-Message-Priority AVP (0: none)."),
    BSF_CFG_BOOL_KEY("diameter.repaving.enabled", diameter.repaving, "false",
        "Seed 3.45: connection repaving. A trigger on the ops endpoint (POST "
        "/oc-bsf-configuration/v1/diameterRepaving/triggerDisconnection) sends DPR to every "
        "inbound connection established before it, one at a time, so that the peers reconnect "
        "through the load balancer. Can be changed at run time (PUT .../diameterRepaving/config)."),
    BSF_CFG_UINT_KEY("diameter.repaving.max_stagger_jitter_ms", diameter.repaving_jitter_ms, "1000",
        0, 3600000,
        "MAX_STAGGER_JITTER_MS: a run starts after a random wait of 0 to this, so that instances "
        "triggered together do not all disconnect at once."),
    BSF_CFG_UINT_KEY("diameter.repaving.disconnect_interval_ms", diameter.repaving_interval_ms,
        "500", 0, 3600000,
        "CONNECTION_DISCONNECT_INTERVAL_MS: pause between two disconnections of a run."),
    BSF_CFG_UINT_KEY("diameter.repaving.reinvocation_delay_min", diameter.repaving_delay_min, "5",
        0, 10080,
        "REINVOCATION_DELAY_MIN: a trigger requested sooner than this after the previous run "
        "ended is skipped (minutes; 0 = never)."),
    BSF_CFG_ENUM_KEY("diameter.repaving.disconnect_cause", diameter.repaving_cause, "REBOOTING",
        cause_choices,
        "DPR_DISCONNECT_CAUSE: the Disconnect-Cause of the DPR. REBOOTING makes peers reconnect "
        "at once; BUSY and DO_NOT_WANT_TO_TALK_TO_YOU make RFC 6733 peers wait longer."),
    BSF_CFG_UINT_KEY("diameter.vendor_id", diameter.vendor_id, "0", 0, 4294967295u,
        "Vendor-Id of our CER/CEA (RFC 6733 5.3.3): the IANA Private Enterprise Number of "
        "whoever runs this BSF. The project has none, so 0 (IANA: reserved) until it is set; "
        "Product-Name is always \"bsf\"."),
};

static int check_list(const char *key, const char *list, int (*check)(const char *, char *, size_t),
                      char *err, size_t err_cap)
{
    char item[1024], why[512];
    const char *cursor = list;
    while (bsf_text_list_next(&cursor, item, sizeof item, NULL))
        if (check(item, why, sizeof why)) {
            snprintf(err, err_cap, "%s: %s", key, why);
            return -1;
        }
    return 0;
}

static int check_peer(const char *item, char *why, size_t cap)
{
    bsf_rx_peer_cfg_t p;
    return bsf_rx_peer_parse(item, &p, why, cap);
}

static bool any_tls_peer(const char *list)
{
    char item[1024], why[256];
    const char *cursor = list;
    bsf_rx_peer_cfg_t p;
    while (bsf_text_list_next(&cursor, item, sizeof item, NULL))
        if (bsf_rx_peer_parse(item, &p, why, sizeof why) == 0 && p.tls)
            return true;
    return false;
}

/* TLS settings hang together and their files are readable now, not at the first handshake. */
static int check_tls(const bsf_diameter_settings_t *d, char *err, size_t err_cap)
{
    if (!d->tls_cert[0]) {
        if (d->tls_key[0] || d->tls_ca[0] || d->tls_crl[0] || d->tls_required ||
            any_tls_peer(d->peers)) {
            snprintf(err, err_cap, "diameter.tls.cert: needed by the other diameter.tls.* "
                                   "settings and by peers marked tls");
            return -1;
        }
        return 0;
    }
    if (!d->tls_key[0] || !d->tls_ca[0]) {
        snprintf(err, err_cap, "diameter.tls.key and diameter.tls.ca: needed with "
                               "diameter.tls.cert");
        return -1;
    }
    const struct {
        const char *key, *path;
    } files[] = {{"diameter.tls.cert", d->tls_cert},
                 {"diameter.tls.key", d->tls_key},
                 {"diameter.tls.ca", d->tls_ca},
                 {"diameter.tls.crl", d->tls_crl}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (files[i].path[0] && access(files[i].path, R_OK) != 0) {
            snprintf(err, err_cap, "%s: cannot read %s: %s", files[i].key, files[i].path,
                     bsf_strerror(errno));
            return -1;
        }
    char why[512];
    if (bsf_rx_tls_check_own(d->tls_cert, d->tls_ca, d->identity, why, sizeof why)) {
        snprintf(err, err_cap, "diameter.tls.cert: %s", why);
        return -1;
    }
    if (d->tls_port && d->tls_port == d->port) {
        snprintf(err, err_cap, "diameter.tls.port: must differ from diameter.port");
        return -1;
    }
    return 0;
}

static int check_route(const char *item, char *why, size_t cap)
{
    bsf_rx_route_t r;
    return bsf_rx_route_parse(item, &r, why, cap);
}

static int check_accept(const char *item, char *why, size_t cap)
{
    if (strcmp(item, "*") == 0 || bsf_rx_identity_valid(item))
        return 0;
    snprintf(why, cap, "'%s' is not a Diameter identity or '*'", item);
    return -1;
}

static int check_address(const char *item, char *why, size_t cap)
{
    unsigned char a[16];
    if (inet_pton(AF_INET, item, a) == 1 || inet_pton(AF_INET6, item, a) == 1)
        return 0;
    snprintf(why, cap, "'%s' is not an IP address", item);
    return -1;
}

static int check_command(const char *item, char *why, size_t cap)
{
    if (strcmp(item, "aar") == 0 || strcmp(item, "str") == 0 || strcmp(item, "rar") == 0 ||
        strcmp(item, "asr") == 0)
        return 0;
    snprintf(why, cap, "'%s' is not one of aar, str, rar, asr", item);
    return -1;
}

static int check_cpus(const char *list, char *err, size_t err_cap)
{
    cpu_set_t set;
    char why[256];
    if (bsf_rx_cpus_parse(list, &set, why, sizeof why) >= 0)
        return 0;
    snprintf(err, err_cap, "diameter.cpus: %s", why);
    return -1;
}

static int check_timeout(const char *key, uint32_t v, char *err, size_t err_cap)
{
    if (v == 0 || v >= TIMEOUT_MIN)
        return 0;
    snprintf(err, err_cap, "%s: %u is below the minimum of %u ms (0 = interface level)", key, v,
             TIMEOUT_MIN);
    return -1;
}

static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    bsf_diameter_settings_t *d = &cfg->diameter;
    char why[512];
    /* Seed §3.3 has one switch for keeping and for sending the cookie. */
    d->pcf_cookie = cfg->bindings_pcf_cookie;
    if (!bsf_rx_identity_valid(d->identity)) {
        snprintf(err, err_cap, "diameter.identity: '%s' is not a Diameter identity", d->identity);
        return -1;
    }
    if (!bsf_rx_identity_valid(d->realm)) {
        snprintf(err, err_cap, "diameter.realm: '%s' is not a Diameter realm", d->realm);
        return -1;
    }
    if (d->port && !d->listen[0]) {
        snprintf(err, err_cap, "diameter.listen: at least one address is needed to listen on "
                               "diameter.port");
        return -1;
    }
    if (check_list("diameter.listen", d->listen, check_address, err, err_cap) ||
        check_list("diameter.peers", d->peers, check_peer, err, err_cap) ||
        check_list("diameter.accept", d->accept, check_accept, err, err_cap) ||
        check_list("diameter.routes", d->routes, check_route, err, err_cap) ||
        check_list("diameter.retry", d->retry, check_command, err, err_cap) ||
        check_cpus(d->cpus, err, err_cap) || check_tls(d, err, err_cap))
        return -1;
    if (check_timeout("diameter.timeout_aar_ms", d->timeout_aar_ms, err, err_cap) ||
        check_timeout("diameter.timeout_str_ms", d->timeout_str_ms, err, err_cap) ||
        check_timeout("diameter.timeout_rar_ms", d->timeout_rar_ms, err, err_cap) ||
        check_timeout("diameter.timeout_asr_ms", d->timeout_asr_ms, err, err_cap))
        return -1;
    bsf_rx_code_set_t set;
    if (bsf_rx_code_set_parse(d->retry_codes, false, &set, why, sizeof why)) {
        snprintf(err, err_cap, "diameter.retry_codes: %s", why);
        return -1;
    }
    if (bsf_rx_code_set_parse(d->stale_codes, false, &set, why, sizeof why)) {
        snprintf(err, err_cap, "diameter.stale_binding_codes: %s", why);
        return -1;
    }
    bsf_rx_cong_rules_t rules;
    if (bsf_rx_cong_rules_from_settings(d, &rules, err, err_cap))
        return -1;
    return 0;
}

const bsf_config_section_t bsf_config_diameter_section = {keys, sizeof keys / sizeof keys[0],
                                                          finish};
