/* The NFProfile bsfd registers; see nrf_profile.h. */
#include "gateways/nrf/nrf_profile.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "common/text_list.h"
#include "gateways/nrf/nrf_formats.h"

#define SERVICE_INSTANCE_ID "nbsf-management-1"

/* A JSON array of the list's items as strings; NULL when the list is empty. */
static json_t *string_array(const char *list)
{
    json_t *a = json_array();
    const char *cur = list;
    char item[512];
    while (bsf_text_list_next(&cur, item, sizeof item, NULL))
        json_array_append_new(a, json_string(item));
    if (json_array_size(a) == 0) {
        json_decref(a);
        return NULL;
    }
    return a;
}

static void set_if(json_t *obj, const char *key, json_t *v)
{
    if (v)
        json_object_set_new(obj, key, v);
}

static json_t *plmns(const char *list)
{
    json_t *a = json_array();
    const char *cur = list;
    char item[64];
    bsf_nrf_plmn_t p;
    while (bsf_text_list_next(&cur, item, sizeof item, NULL))
        if (bsf_nrf_parse_plmn(item, &p) == 0)
            json_array_append_new(a, json_pack("{s:s,s:s}", "mcc", p.mcc, "mnc", p.mnc));
    return json_array_size(a) ? a : (json_decref(a), NULL);
}

static json_t *snssais(const char *list)
{
    json_t *a = json_array();
    const char *cur = list;
    char item[64];
    bsf_nrf_snssai_t n;
    while (bsf_text_list_next(&cur, item, sizeof item, NULL)) {
        if (bsf_nrf_parse_snssai(item, &n))
            continue;
        json_t *o = json_pack("{s:i}", "sst", n.sst);
        if (n.sd[0])
            json_object_set_new(o, "sd", json_string(n.sd));
        json_array_append_new(a, o);
    }
    return json_array_size(a) ? a : (json_decref(a), NULL);
}

static json_t *ranges(const char *list, bool v6)
{
    json_t *a = json_array();
    const char *cur = list;
    char item[160], start[64], end[64];
    while (bsf_text_list_next(&cur, item, sizeof item, NULL)) {
        int rc = v6 ? bsf_nrf_parse_ipv6_range(item, start, end)
                    : bsf_nrf_parse_ipv4_range(item, start, end);
        if (rc == 0)
            json_array_append_new(a, json_pack("{s:s,s:s}", "start", start, "end", end));
    }
    return json_array_size(a) ? a : (json_decref(a), NULL);
}

/* The address published: configured ones, else sbi.listen's when it is one address. */
static json_t *ipv4_addresses(const bsf_nrf_profile_input_t *in)
{
    json_t *a = string_array(in->settings->ipv4_addresses);
    if (a)
        return a;
    struct in_addr x;
    if (in->listen_host && inet_pton(AF_INET, in->listen_host, &x) == 1 && x.s_addr != 0)
        return json_pack("[s]", in->listen_host);
    return NULL;
}

static json_t *service(const bsf_nrf_profile_input_t *in, json_t *v4)
{
    const char *root = in->api_root ? in->api_root : "http://";
    bool https = strncmp(root, "https://", 8) == 0;
    const char *after = root + (https ? 8 : 7);
    const char *prefix = strchr(after, '/');
    json_t *svc = json_pack("{s:s,s:s,s:[{s:s,s:s}],s:s,s:s}", "serviceInstanceId",
                            SERVICE_INSTANCE_ID, "serviceName", "nbsf-management", "versions",
                            "apiVersionInUri", "v1", "apiFullVersion",
                            BSF_NBSF_API_FULL_VERSION, "scheme", https ? "https" : "http",
                            "nfServiceStatus", "REGISTERED");
    if (in->settings->fqdn[0])
        json_object_set_new(svc, "fqdn", json_string(in->settings->fqdn));
    json_t *eps = json_array();
    size_t i;
    json_t *addr;
    json_array_foreach(v4, i, addr)
    {
        json_array_append_new(eps, json_pack("{s:O,s:s,s:i}", "ipv4Address", addr, "transport",
                                             "TCP", "port", (int)in->listen_port));
    }
    if (json_array_size(eps))
        json_object_set_new(svc, "ipEndPoints", eps);
    else
        json_decref(eps);
    if (prefix && prefix[1])
        json_object_set_new(svc, "apiPrefix", json_string(prefix));
    set_if(svc, "allowedNfTypes", string_array(in->settings->allowed_nf_types));
    return svc;
}

static json_t *bsf_info(const bsf_nrf_profile_input_t *in)
{
    const bsf_nrf_settings_t *s = in->settings;
    json_t *info = json_object();
    set_if(info, "ipv4AddressRanges", ranges(s->bsf_ipv4_ranges, false));
    set_if(info, "ipv6PrefixRanges", ranges(s->bsf_ipv6_prefix_ranges, true));
    set_if(info, "dnnList", string_array(s->bsf_dnn_list));
    set_if(info, "ipDomainList", string_array(s->bsf_ip_domain_list));
    if (s->bsf_rx_identity && in->rx_host && in->rx_host[0])
        json_object_set_new(info, "rxDiamHost", json_string(in->rx_host));
    if (s->bsf_rx_identity && in->rx_realm && in->rx_realm[0])
        json_object_set_new(info, "rxDiamRealm", json_string(in->rx_realm));
    if (s->bsf_group_id[0])
        json_object_set_new(info, "groupId", json_string(s->bsf_group_id));
    return info;
}

json_t *bsf_nrf_profile_build(const bsf_nrf_profile_input_t *in, char *err, size_t err_cap)
{
    const bsf_nrf_settings_t *s = in->settings;
    json_t *p = json_pack("{s:s,s:s,s:s,s:i,s:i,s:i,s:i}", "nfInstanceId", in->instance_id,
                          "nfType", "BSF", "nfStatus", in->nf_status, "heartBeatTimer",
                          (int)s->heartbeat_s, "priority", (int)s->priority, "capacity",
                          (int)s->capacity, "load", (int)in->load);
    if (!p) {
        snprintf(err, err_cap, "cannot build the NF profile");
        return NULL;
    }
    if (s->fqdn[0])
        json_object_set_new(p, "fqdn", json_string(s->fqdn));
    json_t *v4 = ipv4_addresses(in);
    set_if(p, "ipv4Addresses", v4 ? json_incref(v4) : NULL);
    set_if(p, "plmnList", plmns(s->plmn));
    set_if(p, "sNssais", snssais(s->snssai));
    set_if(p, "nfSetIdList", string_array(s->set_id));
    set_if(p, "allowedNfTypes", string_array(s->allowed_nf_types));
    json_t *none = json_array();
    json_t *svc = service(in, v4 ? v4 : none);
    json_decref(none);
    json_object_set_new(p, "nfServices", json_pack("[O]", svc));
    json_object_set_new(p, "nfServiceList", json_pack("{s:O}", SERVICE_INSTANCE_ID, svc));
    json_decref(svc);
    json_decref(v4);
    json_object_set_new(p, "bsfInfo", bsf_info(in));
    if (!s->fqdn[0] && !json_object_get(p, "ipv4Addresses")) {
        snprintf(err, err_cap, "the NF profile needs nf.fqdn or an IPv4 address "
                               "(nf.ipv4_addresses, or a specific sbi.listen)");
        json_decref(p);
        return NULL;
    }
    return p;
}

json_t *bsf_nrf_heartbeat_patch(const char *nf_status, unsigned load)
{
    return json_pack("[{s:s,s:s,s:s},{s:s,s:s,s:i}]", "op", "replace", "path", "/nfStatus",
                     "value", nf_status, "op", "replace", "path", "/load", "value", (int)load);
}
