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

static const char *const originator_choices[] = {"any", "intermediate", "destination", NULL};
static const char *const shedding_choices[] = {"priority", "percentage", NULL};
/* In bsf_rx_disconnect_cause_t order. */
static const char *const cause_choices[] = {"REBOOTING", "BUSY", "DO_NOT_WANT_TO_TALK_TO_YOU",
                                            NULL};

#define TIMEOUT_MIN 3000u /* seed §3.22: 3000 - 2147483647 ms */
#define TIMEOUT_MAX 2147483647u

static const bsf_config_key_t keys[] = {
    {"diameter.enabled", BSF_CFG_BOOL, "false", 0, 0, NULL, BSF_CFG_FIELD(diameter.enabled),
     "Run the Rx Diameter gateway."},
    {"diameter.identity", BSF_CFG_STRING, "bsf.localdomain", 0, 255, NULL,
     BSF_CFG_FIELD(diameter.identity), "Our Diameter identity (Origin-Host, CER/CEA)."},
    {"diameter.realm", BSF_CFG_STRING, "localdomain", 0, 255, NULL,
     BSF_CFG_FIELD(diameter.realm), "Our Diameter realm (Origin-Realm)."},
    {"diameter.listen", BSF_CFG_LIST, "127.0.0.1", 0, 1023, NULL,
     BSF_CFG_FIELD(diameter.listen),
     "IP addresses to listen on and to advertise in CER/CEA (Host-IP-Address)."},
    {"diameter.port", BSF_CFG_UINT, "3868", 0, 65535, NULL, BSF_CFG_FIELD(diameter.port),
     "Listening port (TCP, and SCTP with `diameter.sctp`); 0 = accept no connection."},
    {"diameter.sctp", BSF_CFG_BOOL, "false", 0, 0, NULL, BSF_CFG_FIELD(diameter.sctp),
     "Also listen and connect over SCTP (needs the kernel's SCTP support); TCP is preferred."},
    {"diameter.extensions_dir", BSF_CFG_STRING, "/usr/lib/freeDiameter", 0, 255, NULL,
     BSF_CFG_FIELD(diameter.extensions_dir),
     "Directory of freeDiameter's dictionary extensions (dict_nasreq, dict_dcca, "
     "dict_dcca_3gpp)."},
    {"diameter.threads", BSF_CFG_UINT, "2", 1, 64, NULL, BSF_CFG_FIELD(diameter.threads),
     "freeDiameter dispatch threads (requests addressed to the gateway's realm run there)."},
    {"diameter.cpus", BSF_CFG_LIST, "", 0, 255, NULL, BSF_CFG_FIELD(diameter.cpus),
     "CPUs the Diameter node's threads (freeDiameter's and the gateway's) run on: CPU numbers "
     "and ranges, e.g. `0` or `2-3`; empty = any. Keeping them on one CPU saves the "
     "cross-CPU wake-ups of freeDiameter's thread hand-offs (see docs/rx-gateway.md, "
     "Performance)."},
    {"diameter.tcp_nodelay", BSF_CFG_BOOL, "false", 0, 0, NULL,
     BSF_CFG_FIELD(diameter.tcp_nodelay),
     "Set TCP_NODELAY on the Diameter connections once they are open. freeDiameter leaves "
     "Nagle's algorithm on: less CPU per message at high load, but requests pipelined on a "
     "connection can wait for the peer's delayed ACK (about 40 ms). `true` removes those "
     "waits at some CPU cost (docs/rx-gateway.md, Performance)."},
    {"diameter.advertise_rx", BSF_CFG_BOOL, "true", 0, 0, NULL,
     BSF_CFG_FIELD(diameter.advertise_rx),
     "Advertise Rx (16777236) in CER/CEA. `false` advertises the Relay application only: Rx "
     "requests then skip libfdcore's dispatch threads and full dictionary parse (about 25 % "
     "less CPU per message), and a request whose Destination-Host is the BSF itself gets 3007."},
    {"diameter.reconnect_s", BSF_CFG_UINT, "5", 1, 3600, NULL,
     BSF_CFG_FIELD(diameter.reconnect_s),
     "Seconds between connection attempts to a configured peer (Tc timer)."},
    {"diameter.watchdog_s", BSF_CFG_UINT, "30", 6, 3600, NULL,
     BSF_CFG_FIELD(diameter.watchdog_s), "Device-Watchdog interval (Tw timer, RFC 3539)."},
    {"diameter.peers", BSF_CFG_LIST, "", 0, BSF_RX_LIST_MAX - 1, NULL,
     BSF_CFG_FIELD(diameter.peers),
     "Peers the gateway connects to, `ID=HOST:PORT` (e.g. `pcf1.example.com=10.1.1.1:3868`); "
     "ID must be the Origin-Host the peer sends in its CEA. `ID=HOST:PORT tls` connects with "
     "TLS from the start (RFC 6733 §2.1, the peer's TLS port, usually 5868; needs "
     "diameter.tls.cert); `tls=1.2` or `tls=1.3` allows only that TLS version with the peer "
     "(seed 3.10.2, peer-level TLS versions)."},
    {"diameter.tls.cert", BSF_CFG_STRING, "", 0, 255, NULL, BSF_CFG_FIELD(diameter.tls_cert),
     "Seed 3.10.2: PEM certificate (chain) of the gateway; its subject must name "
     "diameter.identity. Empty = no TLS."},
    {"diameter.tls.key", BSF_CFG_STRING, "", 0, 255, NULL, BSF_CFG_FIELD(diameter.tls_key),
     "PEM private key of diameter.tls.cert."},
    {"diameter.tls.ca", BSF_CFG_STRING, "", 0, 255, NULL, BSF_CFG_FIELD(diameter.tls_ca),
     "PEM CA certificates that peers' certificates must chain to (each peer's certificate must "
     "also name its Diameter identity)."},
    {"diameter.tls.crl", BSF_CFG_STRING, "", 0, 255, NULL, BSF_CFG_FIELD(diameter.tls_crl),
     "Optional PEM certificate revocation list."},
    {"diameter.tls.priority", BSF_CFG_STRING, "SECURE128:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2", 0,
     255, NULL, BSF_CFG_FIELD(diameter.tls_priority),
     "GnuTLS priority string: protocol versions and cipher suites, in order of preference "
     "(default: TLS 1.3 preferred, TLS 1.2 allowed, 128-bit security or more)."},
    {"diameter.tls.port", BSF_CFG_UINT, "5868", 0, 65535, NULL, BSF_CFG_FIELD(diameter.tls_port),
     "Port for TLS from the connection's start (RFC 6733 §2.1) when diameter.tls.cert is set; "
     "0 = none."},
    {"diameter.tls.required", BSF_CFG_BOOL, "false", 0, 0, NULL,
     BSF_CFG_FIELD(diameter.tls_required),
     "Refuse peers that connect in clear to diameter.port (CEA 5017 "
     "DIAMETER_NO_COMMON_SECURITY): they must use diameter.tls.port."},
    {"diameter.accept", BSF_CFG_LIST, "", 0, BSF_RX_LIST_MAX - 1, NULL,
     BSF_CFG_FIELD(diameter.accept),
     "Identities allowed to connect to the gateway (AFs, PCFs), or `*` for any; others get "
     "3010 DIAMETER_UNKNOWN_PEER in the CEA. Peers of `diameter.peers` are always allowed."},
    {"diameter.routes", BSF_CFG_LIST, "", 0, BSF_RX_LIST_MAX - 1, NULL,
     BSF_CFG_FIELD(diameter.routes),
     "Static routing table: `realm=R [host=H] peer=ID [priority=N]` (R, H may be `*`; lower "
     "priority first). Routes requests not routed by binding or session, and gives the "
     "alternate peers for retries."},
    {"diameter.validate_realm", BSF_CFG_BOOL, "false", 0, 0, NULL,
     BSF_CFG_FIELD(diameter.validate_realm),
     "Seed 3.12 Validate.Realm: an AAR-I whose Destination-Realm is not `diameter.realm` gets "
     "3003 DIAMETER_REALM_NOT_SERVED."},
    {"diameter.validate_binding_realm", BSF_CFG_BOOL, "false", 0, 0, NULL,
     BSF_CFG_FIELD(diameter.validate_binding_realm),
     "Seed 3.12 Validate.Binding.Realm: an AAR-I whose Destination-Realm is not the binding's "
     "pcfDiamRealm gets 3003."},
    {"diameter.overwrite_realm", BSF_CFG_BOOL, "false", 0, 0, NULL,
     BSF_CFG_FIELD(diameter.overwrite_realm),
     "Seed 3.12 Overwrite.Realm: the forwarded AAR-I carries the binding's pcfDiamRealm as "
     "Destination-Realm."},
    {"diameter.cookie_avp_code", BSF_CFG_UINT, "3001", 1, 16777215, NULL,
     BSF_CFG_FIELD(diameter.cookie_avp_code),
     "AVP code of OCNF-SERVICE-COOKIE, which carries a binding's `ocnf-service-cookie` to the "
     "PCF in the AAR-I when `bindings.pcf_cookie` is on (seed 3.3)."},
    {"diameter.cookie_avp_vendor", BSF_CFG_UINT, "21274", 1, 4294967295u, NULL,
     BSF_CFG_FIELD(diameter.cookie_avp_vendor), "Vendor-Id of OCNF-SERVICE-COOKIE."},
    {"diameter.timeout_ms", BSF_CFG_UINT, "4000", TIMEOUT_MIN, TIMEOUT_MAX, NULL,
     BSF_CFG_FIELD(diameter.timeout_ms),
     "Seed 3.22: answer timeout of a forwarded Rx request (interface level); on expiry the "
     "requester gets 3002 DIAMETER_UNABLE_TO_DELIVER (or a retry)."},
    {"diameter.timeout_aar_ms", BSF_CFG_UINT, "0", 0, TIMEOUT_MAX, NULL,
     BSF_CFG_FIELD(diameter.timeout_aar_ms),
     "Answer timeout of AAR (message level, 3000 - 2147483647); 0 = `diameter.timeout_ms`."},
    {"diameter.timeout_str_ms", BSF_CFG_UINT, "0", 0, TIMEOUT_MAX, NULL,
     BSF_CFG_FIELD(diameter.timeout_str_ms), "Answer timeout of STR; 0 = interface level."},
    {"diameter.timeout_rar_ms", BSF_CFG_UINT, "0", 0, TIMEOUT_MAX, NULL,
     BSF_CFG_FIELD(diameter.timeout_rar_ms), "Answer timeout of RAR; 0 = interface level."},
    {"diameter.timeout_asr_ms", BSF_CFG_UINT, "0", 0, TIMEOUT_MAX, NULL,
     BSF_CFG_FIELD(diameter.timeout_asr_ms), "Answer timeout of ASR; 0 = interface level."},
    {"diameter.retry", BSF_CFG_LIST, "", 0, 63, NULL, BSF_CFG_FIELD(diameter.retry),
     "Seed 3.15: commands retried on an alternate peer of the routing table (`aar`, `str`, "
     "`rar`, `asr`); empty = no retry."},
    {"diameter.retry_codes", BSF_CFG_LIST, "3***;4***;5***", 0, 1023, NULL,
     BSF_CFG_FIELD(diameter.retry_codes),
     "Result-Code / Experimental-Result-Code patterns that trigger a retry (digits and `*`; "
     "2xxx never)."},
    {"diameter.retry_on_timeout", BSF_CFG_BOOL, "true", 0, 0, NULL,
     BSF_CFG_FIELD(diameter.retry_on_timeout), "An answer timeout triggers a retry."},
    {"diameter.max_retries", BSF_CFG_UINT, "1", 0, 2147483647, NULL,
     BSF_CFG_FIELD(diameter.max_retries),
     "Seed 3.15 MaxRetryCount: retries of one request (0 is read as 1)."},
    {"diameter.cycle_back", BSF_CFG_BOOL, "false", 0, 0, NULL, BSF_CFG_FIELD(diameter.cycle_back),
     "Seed 3.15 CycleBackRetry: when every alternate was tried, go through the peers again "
     "(the first one included)."},
    {"diameter.update_destination_host", BSF_CFG_BOOL, "false", 0, 0, NULL,
     BSF_CFG_FIELD(diameter.update_destination_host),
     "Seed 3.15 UpdateDestinationHost: a retried request's Destination-Host becomes the "
     "alternate peer."},
    {"diameter.retry_originator", BSF_CFG_ENUM, "any", 0, 0, originator_choices,
     BSF_CFG_FIELD(diameter.retry_originator),
     "Which error answers trigger a retry: from an `intermediate` agent, from the "
     "`destination`, or `any` (timeouts always count)."},
    {"diameter.stale_binding_codes", BSF_CFG_LIST, "5012", 0, 1023, NULL,
     BSF_CFG_FIELD(diameter.stale_codes),
     "Seed 3.34: a PCF answering an AAR (I or U) of a binding-routed session with one of these "
     "codes (patterns allowed) makes the gateway deregister the binding (reason "
     "`diameter_failure`); empty = never."},
    {"diameter.max_sessions", BSF_CFG_UINT, "1000000", 1, 100000000, NULL,
     BSF_CFG_FIELD(diameter.max_sessions),
     "Rx sessions followed at once; an AAR-I beyond it gets 3004 DIAMETER_TOO_BUSY."},
    {"diameter.session_idle_s", BSF_CFG_UINT, "3600", 1, 31536000, NULL,
     BSF_CFG_FIELD(diameter.session_idle_s),
     "A session without any request for this long is forgotten."},
    {"diameter.max_pending", BSF_CFG_UINT, "65536", 16, 4194304, NULL,
     BSF_CFG_FIELD(diameter.max_pending),
     "Forwarded requests waiting for an answer; new requests beyond it get 3004 "
     "DIAMETER_TOO_BUSY."},
    {"diameter.congestion.enabled", BSF_CFG_BOOL, "false", 0, 0, NULL,
     BSF_CFG_FIELD(diameter.congestion),
     "Seed 3.26: congestion control of the Diameter front end. The node's state (NORMAL, "
     "DOC, L1, L2, CONGESTED) follows bsfd's CPU use and the requests waiting for an answer; "
     "out of NORMAL, requests are discarded by priority (docs/rx-gateway.md, Congestion "
     "control)."},
    {"diameter.congestion.interval_ms", BSF_CFG_UINT, "200", 50, 2147483647, NULL,
     BSF_CFG_FIELD(diameter.congestion_interval_ms),
     "stateCalculationInterval: how often the state is computed."},
    {"diameter.congestion.sample_count", BSF_CFG_UINT, "5", 1, 2147483647, NULL,
     BSF_CFG_FIELD(diameter.congestion_samples),
     "stateChangeSampleCount: consecutive samples a new state must hold before it applies."},
    {"diameter.congestion.cpu_thresholds", BSF_CFG_LIST, "60;70;75;80", 0, 63, NULL,
     BSF_CFG_FIELD(diameter.congestion_cpu),
     "bsfd's CPU use (% of the CPUs it may run on) from which DOC, L1, L2 and CONGESTED "
     "hold; strictly increasing, 1-100."},
    {"diameter.congestion.queue_thresholds", BSF_CFG_LIST, "6300;7200;8100;9000", 0, 127, NULL,
     BSF_CFG_FIELD(diameter.congestion_queue),
     "Forwarded requests waiting for an answer from which DOC, L1, L2 and CONGESTED hold; "
     "strictly increasing."},
    {"diameter.congestion.shedding", BSF_CFG_ENUM, "priority", 0, 0, shedding_choices,
     BSF_CFG_FIELD(diameter.congestion_mode),
     "Load shedding by `priority` (discard_priorities) or by `percentage` "
     "(discard_percentages)."},
    {"diameter.congestion.discard_priorities", BSF_CFG_LIST, "27;19;17;15", 0, 63, NULL,
     BSF_CFG_FIELD(diameter.congestion_discard_priorities),
     "Priority mode: in DOC, L1, L2, CONGESTED a request whose priority is greater than or "
     "equal to this is discarded (0-31; 32 = none); not increasing."},
    {"diameter.congestion.discard_percentages", BSF_CFG_LIST,
     "DOC 27-31:50;L1 19-26:50 27-31:75;L2 17-18:50 19-26:75 27-31:100;CONGESTED 15-31:100", 0,
     511, NULL, BSF_CFG_FIELD(diameter.congestion_discard_percentages),
     "Percentage mode: `STATE LO-HI:PERCENT ...` per state: requests with a priority in "
     "LO-HI are discarded with that probability."},
    {"diameter.congestion.priorities", BSF_CFG_LIST, "default=6;rar=7", 0, 255, NULL,
     BSF_CFG_FIELD(diameter.congestion_priorities),
     "Message priorities (0 most important, 31 least) by command: `default`, `aar`, `str`, "
     "`rar`, `asr`. A request's DRMP AVP (RFC 7944, 0-15) takes precedence."},
    {"diameter.congestion.priority_rules", BSF_CFG_LIST, "", 0, 2047, NULL,
     BSF_CFG_FIELD(diameter.congestion_priority_rules),
     "Message priority profile (at most 32 rules): `[cmd=C] [COND ...] priority=N`, C one of "
     "aar, aar-i, aar-u, str, rar, asr; COND `drmpOPn` or `ocOPn` (OC-Message-Priority), OP one "
     "of ==, !=, <, <=, >, >=, up to 4 that must all hold; tried in order, the first a request "
     "matches gives its priority, "
     "else the AVPs' values and `priorities` do. A condition on an AVP the request lacks does "
     "not hold."},
    {"diameter.congestion.result_code", BSF_CFG_UINT, "3004", 3000, 5999, NULL,
     BSF_CFG_FIELD(diameter.congestion_code),
     "CONGESTION_DIAMETER_RESPONSE_CODE: the code a discarded request is answered with."},
    {"diameter.congestion.vendor_id", BSF_CFG_UINT, "0", 0, 4294967295u, NULL,
     BSF_CFG_FIELD(diameter.congestion_vendor),
     "CONGESTION_DIAMETER_VENDOR_ID: non-zero sends the code as Experimental-Result with this "
     "Vendor-Id (e.g. 10415 with 5065); 0 sends it as Result-Code."},
    {"diameter.congestion.oc_priority_avp_code", BSF_CFG_UINT, "0", 0, 16777215, NULL,
     BSF_CFG_FIELD(diameter.oc_priority_code),
     "AVP code of Oracle's OC-Message-Priority (a priority 0-31 that AFs may send; it wins "
     "over DRMP). Oracle does not publish the code: set the one your AFs use; 0 = not read."},
    {"diameter.congestion.oc_priority_avp_vendor", BSF_CFG_UINT, "21274", 0, 4294967295u, NULL,
     BSF_CFG_FIELD(diameter.oc_priority_vendor),
     "Vendor-Id of the OC-Message-Priority AVP (0: none)."},
    {"diameter.repaving.enabled", BSF_CFG_BOOL, "false", 0, 0, NULL,
     BSF_CFG_FIELD(diameter.repaving),
     "Seed 3.45: connection repaving. A trigger on the ops endpoint (POST "
     "/oc-bsf-configuration/v1/diameterRepaving/triggerDisconnection) sends DPR to every "
     "inbound connection established before it, one at a time, so that the peers reconnect "
     "through the load balancer. Can be changed at run time (PUT .../diameterRepaving/config)."},
    {"diameter.repaving.max_stagger_jitter_ms", BSF_CFG_UINT, "1000", 0, 3600000, NULL,
     BSF_CFG_FIELD(diameter.repaving_jitter_ms),
     "MAX_STAGGER_JITTER_MS: a run starts after a random wait of 0 to this, so that "
     "instances triggered together do not all disconnect at once."},
    {"diameter.repaving.disconnect_interval_ms", BSF_CFG_UINT, "500", 0, 3600000, NULL,
     BSF_CFG_FIELD(diameter.repaving_interval_ms),
     "CONNECTION_DISCONNECT_INTERVAL_MS: pause between two disconnections of a run."},
    {"diameter.repaving.reinvocation_delay_min", BSF_CFG_UINT, "5", 0, 10080, NULL,
     BSF_CFG_FIELD(diameter.repaving_delay_min),
     "REINVOCATION_DELAY_MIN: a trigger requested sooner than this after the previous run "
     "ended is skipped (minutes; 0 = never)."},
    {"diameter.repaving.disconnect_cause", BSF_CFG_ENUM, "REBOOTING", 0, 0, cause_choices,
     BSF_CFG_FIELD(diameter.repaving_cause),
     "DPR_DISCONNECT_CAUSE: the Disconnect-Cause of the DPR. REBOOTING makes peers reconnect "
     "at once; BUSY and DO_NOT_WANT_TO_TALK_TO_YOU make RFC 6733 peers wait longer."},
    {"diameter.vendor_id", BSF_CFG_UINT, "0", 0, 4294967295u, NULL,
     BSF_CFG_FIELD(diameter.vendor_id),
     "Vendor-Id of our CER/CEA (RFC 6733 5.3.3): the IANA Private Enterprise Number of "
     "whoever runs this BSF. The project has none, so 0 (IANA: reserved) until it is set; "
     "Product-Name is always \"bsf\"."},
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
                     strerror(errno));
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
