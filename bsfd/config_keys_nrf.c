/* Configuration keys of the NRF client and of the NF profile it registers (issue 10,
 * docs/nrf.md). The names nrf.uri, nf.instance_id, nf.fqdn, nf.plmn, nf.set_id and
 * nf.bsf_info.* are part of the interface operators rely on. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"

static const bsf_config_key_t keys[] = {
    {"nrf.uri", BSF_CFG_LIST, "", 0, BSF_NRF_LIST_MAX - 1, NULL, BSF_CFG_FIELD(nrf.uri),
     "NRF apiRoots (`http://host:port`, `https://...`) by priority: the first is the primary, "
     "the others alternates (seed 3.42). Empty: bsfd does not register with an NRF."},
    {"nrf.heartbeat_s", BSF_CFG_UINT, "30", 1, 3600, NULL, BSF_CFG_FIELD(nrf.heartbeat_s),
     "heartBeatTimer proposed in the NF profile; the value the NRF grants in its answer is the "
     "one used."},
    {"nrf.timeout_ms", BSF_CFG_UINT, "3000", 100, 60000, NULL, BSF_CFG_FIELD(nrf.timeout_ms),
     "Deadline of one NRF request (NFRegister, NFUpdate), its retries on that NRF included."},
    {"nrf.primary_retries", BSF_CFG_UINT, "2", 0, 10, NULL,
     BSF_CFG_FIELD(nrf.primary_retries),
     "Retries on the primary NRF (timeout, connection error, 429/500/502/503/504) before an "
     "alternate is tried (primaryNrfRetryCount)."},
    {"nrf.alternate_retries", BSF_CFG_UINT, "1", 0, 7, NULL,
     BSF_CFG_FIELD(nrf.alternate_retries),
     "Alternate NRFs tried, in priority order, after the primary failed, within one round "
     "(alternateNRFRetryCount); then the round is repeated after a back-off."},
    {"nrf.unhealthy_s", BSF_CFG_UINT, "30", 1, 3600, NULL, BSF_CFG_FIELD(nrf.unhealthy_s),
     "An NRF that failed (timeout, connection error, 429/5xx) is avoided that long; a "
     "Retry-After in its answer sets the time instead."},
    {"nrf.retry_min_ms", BSF_CFG_UINT, "500", 10, 600000, NULL,
     BSF_CFG_FIELD(nrf.retry_min_ms),
     "Autonomous retries of NFRegister after a failed round: the first delay, doubling up to "
     "nrf.retry_max_ms; they go on until one succeeds."},
    {"nrf.retry_max_ms", BSF_CFG_UINT, "30000", 10, 600000, NULL,
     BSF_CFG_FIELD(nrf.retry_max_ms), "The longest delay between autonomous retries."},
    {"nrf.deregister_timeout_ms", BSF_CFG_UINT, "2000", 0, 30000, NULL,
     BSF_CFG_FIELD(nrf.deregister_timeout_ms),
     "At shutdown (SIGTERM), how long NFDeregister may take before bsfd goes on stopping."},
    {"nrf.load", BSF_CFG_UINT, "0", 0, 100, NULL, BSF_CFG_FIELD(nrf.load),
     "The load (0..100) published in the profile and in heartbeats."},
    {"nf.instance_id", BSF_CFG_STRING, "", 0, 36, NULL, BSF_CFG_FIELD(nrf.instance_id),
     "The NF instance id (UUID). Empty: generated at the first start and kept in the store, "
     "so it survives restarts (each site has its own)."},
    {"nf.fqdn", BSF_CFG_STRING, "", 0, 255, NULL, BSF_CFG_FIELD(nrf.fqdn),
     "The BSF's FQDN in the NF profile and in User-Agent (`BSF-<id> <fqdn>`)."},
    {"nf.plmn", BSF_CFG_LIST, "", 0, BSF_NRF_LIST_MAX - 1, NULL, BSF_CFG_FIELD(nrf.plmn),
     "PLMNs served, `mcc-mnc` items (e.g. `001-01`): the profile's plmnList."},
    {"nf.snssai", BSF_CFG_LIST, "", 0, BSF_NRF_LIST_MAX - 1, NULL, BSF_CFG_FIELD(nrf.snssai),
     "S-NSSAIs served, `sst` or `sst-sd` items (e.g. `1-000001`): the profile's sNssais."},
    {"nf.set_id", BSF_CFG_LIST, "", 0, BSF_NRF_LIST_MAX - 1, NULL, BSF_CFG_FIELD(nrf.set_id),
     "NF set ids of the profile (nfSetIdList), e.g. `set1.bsfset.5gc.mnc001.mcc001`."},
    {"nf.ipv4_addresses", BSF_CFG_LIST, "", 0, BSF_NRF_LIST_MAX - 1, NULL,
     BSF_CFG_FIELD(nrf.ipv4_addresses),
     "IPv4 addresses published (ipv4Addresses, ipEndPoints). Empty: sbi.listen's address when "
     "it is a specific one."},
    {"nf.priority", BSF_CFG_UINT, "1", 0, 65535, NULL, BSF_CFG_FIELD(nrf.priority),
     "The profile's priority (lower is preferred by consumers)."},
    {"nf.capacity", BSF_CFG_UINT, "100", 0, 65535, NULL, BSF_CFG_FIELD(nrf.capacity),
     "The profile's capacity (relative weight among BSFs of the same priority)."},
    {"nf.allowed_nf_types", BSF_CFG_LIST, "", 0, BSF_NRF_LIST_MAX - 1, NULL,
     BSF_CFG_FIELD(nrf.allowed_nf_types),
     "NF types allowed to discover and use the BSF (allowedNfTypes, e.g. `PCF;AF;NEF`); "
     "empty: any."},
    {"nf.bsf_info.ipv4_ranges", BSF_CFG_LIST, "", 0, BSF_NRF_LIST_MAX - 1, NULL,
     BSF_CFG_FIELD(nrf.bsf_ipv4_ranges),
     "UE IPv4 ranges served, `start-end` items (bsfInfo.ipv4AddressRanges): PCFs and AFs "
     "discover the BSF by them (TS 29.513 6.1.1.2)."},
    {"nf.bsf_info.ipv6_prefix_ranges", BSF_CFG_LIST, "", 0, BSF_NRF_LIST_MAX - 1, NULL,
     BSF_CFG_FIELD(nrf.bsf_ipv6_prefix_ranges),
     "UE IPv6 prefix ranges, `start-end` items of prefixes (e.g. "
     "`2001:db8::/48-2001:db8:ff::/48`): bsfInfo.ipv6PrefixRanges."},
    {"nf.bsf_info.dnn_list", BSF_CFG_LIST, "", 0, BSF_NRF_LIST_MAX - 1, NULL,
     BSF_CFG_FIELD(nrf.bsf_dnn_list), "DNNs served (bsfInfo.dnnList)."},
    {"nf.bsf_info.ip_domain_list", BSF_CFG_LIST, "", 0, BSF_NRF_LIST_MAX - 1, NULL,
     BSF_CFG_FIELD(nrf.bsf_ip_domain_list), "IP domains served (bsfInfo.ipDomainList)."},
    {"nf.bsf_info.group_id", BSF_CFG_STRING, "", 0, 127, NULL,
     BSF_CFG_FIELD(nrf.bsf_group_id), "bsfInfo.groupId (NfGroupId); empty: none."},
    {"nf.bsf_info.rx_identity", BSF_CFG_BOOL, "true", 0, 0, NULL,
     BSF_CFG_FIELD(nrf.bsf_rx_identity),
     "Publish the Rx gateway's Diameter identity and realm (bsfInfo.rxDiamHost, rxDiamRealm) "
     "when diameter.enabled."},
    {"sbi_client.tls_ca_file", BSF_CFG_STRING, "", 0, 1023, NULL,
     BSF_CFG_FIELD(nrf.client_tls_ca_file),
     "PEM file of the CAs trusted for https NRFs, SCPs and producers; empty: the system's "
     "trust store."},
    {"sbi_client.tls_verify", BSF_CFG_BOOL, "true", 0, 0, NULL,
     BSF_CFG_FIELD(nrf.client_tls_verify),
     "Verify the server's certificate and name (turn off only in a lab)."},
    {"sbi_client.tls_cert_file", BSF_CFG_STRING, "", 0, 1023, NULL,
     BSF_CFG_FIELD(nrf.client_tls_cert_file),
     "PEM certificate (chain) bsfd presents for mutual TLS; with sbi_client.tls_key_file."},
    {"sbi_client.tls_key_file", BSF_CFG_STRING, "", 0, 1023, NULL,
     BSF_CFG_FIELD(nrf.client_tls_key_file), "PEM private key of sbi_client.tls_cert_file."},
    {"sbi_client.max_connections", BSF_CFG_UINT, "4", 1, 64, NULL,
     BSF_CFG_FIELD(nrf.client_max_connections),
     "HTTP/2 connections per authority (scheme, host, port) of outbound requests."},
    {"sbi_client.max_streams", BSF_CFG_UINT, "128", 1, 10000, NULL,
     BSF_CFG_FIELD(nrf.client_max_streams),
     "Concurrent streams per outbound connection (fewer when the server's SETTINGS say so)."},
    {"sbi_client.connect_timeout_ms", BSF_CFG_UINT, "2000", 10, 60000, NULL,
     BSF_CFG_FIELD(nrf.client_connect_timeout_ms),
     "TCP connect plus TLS handshake of an outbound connection."},
    {"scp.uris", BSF_CFG_LIST, "", 0, BSF_NRF_LIST_MAX - 1, NULL, BSF_CFG_FIELD(nrf.scp_uris),
     "SCP apiRoots by preference (Model C; a path is the SCP's apiPrefix): every outbound "
     "request goes through the first available one with 3gpp-Sbi-Target-apiRoot. Empty: "
     "direct."},
    {"scp.temp_unavailable_s", BSF_CFG_UINT, "30", 1, 86400, NULL,
     BSF_CFG_FIELD(nrf.scp_temp_unavailable_s),
     "An SCP that failed a request (429/500/503/504 with its own Server header, a timeout, a "
     "connection failure) is temporarily unavailable that long (seed 001; "
     "ScpTempUnavailableDuration); a success through it ends that early."},
    {"scp.health_interval_ms", BSF_CFG_UINT, "0", 0, 600000, NULL,
     BSF_CFG_FIELD(nrf.scp_health_interval_ms),
     "Period of the HTTP/2 OPTIONS probes of every SCP (seed 3.18); 0: no probes."},
    {"scp.health_path", BSF_CFG_STRING, "/", 1, 127, NULL, BSF_CFG_FIELD(nrf.scp_health_path),
     "Path of the OPTIONS probes after the SCP's apiRoot (healthApiPath)."},
    {"scp.health_failures", BSF_CFG_UINT, "3", 1, 100, NULL,
     BSF_CFG_FIELD(nrf.scp_health_failures),
     "Failed probes in a row (no answer, 5xx) that make an SCP unhealthy."},
    {"scp.health_successes", BSF_CFG_UINT, "1", 1, 100, NULL,
     BSF_CFG_FIELD(nrf.scp_health_successes),
     "Answered probes in a row that make an unhealthy SCP healthy again."},
};

/* Runs after the core section (sbi.listen is split): the profile must publish an FQDN or an
 * IPv4 address, and 0.0.0.0 / :: is no address to publish. */
static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    if (bsf_nrf_settings_check(&cfg->nrf, err, err_cap))
        return -1;
    const bsf_nrf_settings_t *n = &cfg->nrf;
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
