/* Configuration keys of the NRF client and of the NF profile it registers (issue 10,
 * docs/nrf.md). The names nrf.uri, nf.instance_id, nf.fqdn, nf.plmn, nf.set_id and
 * nf.bsf_info.* are part of the interface operators rely on. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"
#include "gateways/sbi/nrf_health.h"

static const bsf_config_key_t keys[] = {
    BSF_CFG_LIST_KEY("nrf.uri", nrf.uri, "", BSF_NRF_LIST_MAX - 1,
        "NRF apiRoots (`http://host:port`, `https://...`) by priority: the first is the primary, "
        "the others alternates (seed 3.42). Empty: bsfd does not register with an NRF."),
    BSF_CFG_UINT_KEY("nrf.heartbeat_s", nrf.heartbeat_s, "30", 1, 3600,
        "heartBeatTimer proposed in the NF profile; the value the NRF grants in its answer is the "
        "one used."),
    BSF_CFG_LIVE(UINT, "nrf.timeout_ms", nrf.timeout_ms, "3000", 100, 60000,
        "Deadline of one NRF request (NFRegister, NFUpdate), its retries on that NRF included."),
    BSF_CFG_UINT_KEY("nrf.primary_retries", nrf.primary_retries, "2", 0, 10,
        "Retries on the primary NRF (timeout, connection error, 429/500/502/503/504) before an "
        "alternate is tried (primaryNrfRetryCount)."),
    BSF_CFG_UINT_KEY("nrf.alternate_retries", nrf.alternate_retries, "1", 0, 7,
        "Alternate NRFs tried, in priority order, after the primary failed, within one round "
        "(alternateNRFRetryCount); then the round is repeated after a back-off."),
    BSF_CFG_UINT_KEY("nrf.unhealthy_s", nrf.unhealthy_s, "30", 1, 3600,
        "An NRF that failed (timeout, connection error, one of `nrf.failure_codes`) is avoided "
        "that long by every NRF user (NFManagement, discovery, access tokens); a Retry-After in "
        "its answer sets the time instead."),
    BSF_CFG_LIST_KEY("nrf.failure_codes", nrf.failure_codes, "429,500,502,503,504", 127,
        "HTTP statuses (300-599) of an NRF's answer that are a failure of that NRF: it is then "
        "unhealthy (`nrf.unhealthy_s`) and the next NRF is asked. An answer with Retry-After "
        "always is one."),
    BSF_CFG_LIVE(UINT, "nrf.retry_min_ms", nrf.retry_min_ms, "500", 10, 600000,
        "Autonomous retries of NFRegister after a failed round: the first delay, doubling up to "
        "nrf.retry_max_ms; they go on until one succeeds."),
    BSF_CFG_LIVE(UINT, "nrf.retry_max_ms", nrf.retry_max_ms, "30000", 10, 600000,
        "The longest delay between autonomous retries."),
    BSF_CFG_UINT_KEY("nrf.deregister_timeout_ms", nrf.deregister_timeout_ms, "2000", 0, 30000,
        "At shutdown (SIGTERM), how long NFDeregister may take before bsfd goes on stopping."),
    BSF_CFG_UINT_KEY("nrf.load", nrf.load, "0", 0, 100,
        "The load (0..100) published in the profile and in heartbeats while NF scoring is off "
        "(with nf_scoring.enabled, heartbeats carry the measured TPS share)."),
    BSF_CFG_STRING_KEY("nf.instance_id", nrf.instance_id, "", 36,
        "The NF instance id (UUID). Empty: generated at the first start and kept in the store, "
        "so it survives restarts (each site has its own)."),
    BSF_CFG_STRING_KEY("nf.fqdn", nrf.fqdn, "", 255,
        "The BSF's FQDN in the NF profile and in User-Agent (`BSF-<id> <fqdn>`)."),
    BSF_CFG_LIST_KEY("nf.plmn", nrf.plmn, "", BSF_NRF_LIST_MAX - 1,
        "PLMNs served, `mcc-mnc` items (e.g. `001-01`): the profile's plmnList."),
    BSF_CFG_LIST_KEY("nf.snssai", nrf.snssai, "", BSF_NRF_LIST_MAX - 1,
        "S-NSSAIs served, `sst` or `sst-sd` items (e.g. `1-000001`): the profile's sNssais."),
    BSF_CFG_LIST_KEY("nf.set_id", nrf.set_id, "", BSF_NRF_LIST_MAX - 1,
        "NF set ids of the profile (nfSetIdList), e.g. `set1.bsfset.5gc.mnc001.mcc001`."),
    BSF_CFG_LIST_KEY("nf.ipv4_addresses", nrf.ipv4_addresses, "", BSF_NRF_LIST_MAX - 1,
        "IPv4 addresses published (ipv4Addresses, ipEndPoints). Empty: sbi.listen's address when "
        "it is a specific one."),
    BSF_CFG_UINT_KEY("nf.priority", nrf.priority, "1", 0, 65535,
        "The profile's priority (lower is preferred by consumers)."),
    BSF_CFG_UINT_KEY("nf.capacity", nrf.capacity, "100", 0, 65535,
        "The profile's capacity (relative weight among BSFs of the same priority)."),
    BSF_CFG_LIST_KEY("nf.allowed_nf_types", nrf.allowed_nf_types, "", BSF_NRF_LIST_MAX - 1,
        "NF types allowed to discover and use the BSF (allowedNfTypes, e.g. `PCF;AF;NEF`); "
        "empty: any."),
    BSF_CFG_LIST_KEY("nf.bsf_info.ipv4_ranges", nrf.bsf_ipv4_ranges, "", BSF_NRF_LIST_MAX - 1,
        "UE IPv4 ranges served, `start-end` items (bsfInfo.ipv4AddressRanges): PCFs and AFs "
        "discover the BSF by them (TS 29.513 6.1.1.2)."),
    BSF_CFG_LIST_KEY("nf.bsf_info.ipv6_prefix_ranges", nrf.bsf_ipv6_prefix_ranges, "", BSF_NRF_LIST_MAX - 1,
        "UE IPv6 prefix ranges, `start-end` items of prefixes (e.g. "
        "`2001:db8::/48-2001:db8:ff::/48`): bsfInfo.ipv6PrefixRanges."),
    BSF_CFG_LIST_KEY("nf.bsf_info.dnn_list", nrf.bsf_dnn_list, "", BSF_NRF_LIST_MAX - 1,
        "DNNs served (bsfInfo.dnnList)."),
    BSF_CFG_LIST_KEY("nf.bsf_info.ip_domain_list", nrf.bsf_ip_domain_list, "", BSF_NRF_LIST_MAX - 1,
        "IP domains served (bsfInfo.ipDomainList)."),
    BSF_CFG_STRING_KEY("nf.bsf_info.group_id", nrf.bsf_group_id, "", 127,
        "bsfInfo.groupId (NfGroupId); empty: none."),
    BSF_CFG_BOOL_KEY("nf.bsf_info.rx_identity", nrf.bsf_rx_identity, "true",
        "Publish the Rx gateway's Diameter identity and realm (bsfInfo.rxDiamHost, rxDiamRealm) "
        "when diameter.enabled."),
    BSF_CFG_STRING_KEY("sbi_client.tls_ca_file", nrf.client_tls_ca_file, "", 1023,
        "PEM file of the CAs trusted for https NRFs, SCPs and producers; empty: the system's "
        "trust store."),
    BSF_CFG_BOOL_KEY("sbi_client.tls_verify", nrf.client_tls_verify, "true",
        "Verify the server's certificate and name (turn off only in a lab)."),
    BSF_CFG_STRING_KEY("sbi_client.tls_cert_file", nrf.client_tls_cert_file, "", 1023,
        "PEM certificate (chain) bsfd presents for mutual TLS; with sbi_client.tls_key_file."),
    BSF_CFG_STRING_KEY("sbi_client.tls_key_file", nrf.client_tls_key_file, "", 1023,
        "PEM private key of sbi_client.tls_cert_file."),
    BSF_CFG_UINT_KEY("sbi_client.max_connections", nrf.client_max_connections, "4", 1, 64,
        "HTTP/2 connections per authority (scheme, host, port) of outbound requests."),
    BSF_CFG_UINT_KEY("sbi_client.max_streams", nrf.client_max_streams, "128", 1, 10000,
        "Concurrent streams per outbound connection (fewer when the server's SETTINGS say so)."),
    BSF_CFG_UINT_KEY("sbi_client.connect_timeout_ms", nrf.client_connect_timeout_ms, "2000", 10, 60000,
        "TCP connect plus TLS handshake of an outbound connection."),
    BSF_CFG_LIST_KEY("scp.uris", nrf.scp_uris, "", BSF_NRF_LIST_MAX - 1,
        "SCP apiRoots by preference (Model C; a path is the SCP's apiPrefix): every outbound "
        "request goes through the first available one with 3gpp-Sbi-Target-apiRoot. Empty: "
        "direct."),
    BSF_CFG_UINT_KEY("scp.temp_unavailable_s", nrf.scp_temp_unavailable_s, "30", 1, 86400,
        "An SCP that failed a request (429/500/503/504 with its own Server header, a timeout, a "
        "connection failure) is temporarily unavailable that long (seed 001; "
        "ScpTempUnavailableDuration); a success through it ends that early."),
    BSF_CFG_UINT_KEY("scp.health_interval_ms", nrf.scp_health_interval_ms, "0", 0, 600000,
        "Period of the HTTP/2 OPTIONS probes of every SCP (seed 3.18); 0: no probes."),
    BSF_CFG_STRING_KEY("scp.health_path", nrf.scp_health_path, "/", 127,
        "Path of the OPTIONS probes after the SCP's apiRoot (healthApiPath)."),
    BSF_CFG_UINT_KEY("scp.health_failures", nrf.scp_health_failures, "3", 1, 100,
        "Failed probes in a row (no answer, 5xx) that make an SCP unhealthy."),
    BSF_CFG_UINT_KEY("scp.health_successes", nrf.scp_health_successes, "1", 1, 100,
        "Answered probes in a row that make an unhealthy SCP healthy again."),
};

/* Runs after the core section (sbi.listen is split): the profile must publish an FQDN or an
 * IPv4 address, and 0.0.0.0 / :: is no address to publish. */
static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    if (bsf_nrf_settings_check(&cfg->nrf, err, err_cap))
        return -1;
    const bsf_nrf_settings_t *n = &cfg->nrf;
    bsf_nrf_health_config_t hc = {.failure_codes = n->failure_codes};
    bsf_nrf_health_t *probe = bsf_nrf_health_create(&hc, err, err_cap); /* the codes parse */
    if (!probe)
        return -1;
    bsf_nrf_health_free(probe);
    bool specific_v4 = strchr(cfg->sbi_host, '.') && strcmp(cfg->sbi_host, "0.0.0.0") != 0;
    if (n->uri[0] && !n->fqdn[0] && !n->ipv4_addresses[0] && !specific_v4) {
        snprintf(err, err_cap, "nrf.uri: the NF profile needs nf.fqdn or nf.ipv4_addresses "
                               "when sbi.listen is not one IPv4 address");
        return -1;
    }
    return 0;
}

const bsf_config_section_t bsf_config_nrf_section = {keys, sizeof keys / sizeof keys[0],
                                                     finish};
