/* Checks of the NRF client's settings; see nrf_settings.h. */
#include "gateways/nrf/nrf_settings.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/text_list.h"
#include "gateways/nrf/nrf_formats.h"
#include "gateways/sbi/sbi_uri.h"

bool bsf_nrf_uuid_valid(const char *s)
{
    static const int groups[] = {8, 4, 4, 4, 12};
    for (int g = 0; g < 5; g++) {
        for (int i = 0; i < groups[g]; i++, s++)
            if (!isxdigit((unsigned char)*s))
                return false;
        if (g < 4 && *s++ != '-')
            return false;
    }
    return *s == '\0';
}

/* Runs `ok` on every item of a list; -1 with a message naming the key on the first bad one. */
static int check_list(const char *list, const char *key, bool (*ok)(const char *), char *err,
                      size_t cap)
{
    const char *cur = list;
    char item[512];
    bool cut;
    while (bsf_text_list_next(&cur, item, sizeof item, &cut)) {
        if (cut || !ok(item)) {
            snprintf(err, cap, "%s: '%s' is not valid", key, item);
            return -1;
        }
    }
    return 0;
}

static bool ok_uri(const char *s)
{
    bsf_sbi_uri_t u;
    char e[64];
    return bsf_sbi_uri_parse(s, strlen(s), &u, e, sizeof e) == 0;
}

static bool ok_plmn(const char *s)
{
    bsf_nrf_plmn_t p;
    return bsf_nrf_parse_plmn(s, &p) == 0;
}

static bool ok_snssai(const char *s)
{
    bsf_nrf_snssai_t n;
    return bsf_nrf_parse_snssai(s, &n) == 0;
}

static bool ok_v4_range(const char *s)
{
    char a[16], b[16];
    return bsf_nrf_parse_ipv4_range(s, a, b) == 0;
}

static bool ok_v6_range(const char *s)
{
    char a[64], b[64];
    return bsf_nrf_parse_ipv6_range(s, a, b) == 0;
}

static bool ok_v4(const char *s)
{
    char a[16], b[16], r[40];
    snprintf(r, sizeof r, "%s-%s", s, s);
    return bsf_nrf_parse_ipv4_range(r, a, b) == 0;
}

static bool ok_nonempty(const char *s)
{
    return *s != '\0';
}

int bsf_nrf_settings_check(const bsf_nrf_settings_t *s, char *err, size_t err_cap)
{
    if (s->instance_id[0] && !bsf_nrf_uuid_valid(s->instance_id)) {
        snprintf(err, err_cap, "nf.instance_id: '%s' is not a UUID", s->instance_id);
        return -1;
    }
    size_t n_uris = 0;
    for (const char *p = s->uri; *p; p++)
        n_uris += *p == '\n';
    if (s->uri[0] && n_uris + 1 > BSF_NRF_MAX_NRFS) {
        snprintf(err, err_cap, "nrf.uri: at most %d NRFs", BSF_NRF_MAX_NRFS);
        return -1;
    }
    if (!s->client_tls_cert_file[0] != !s->client_tls_key_file[0]) {
        snprintf(err, err_cap, "sbi_client.tls_cert_file and sbi_client.tls_key_file go "
                               "together");
        return -1;
    }
    if (s->scp_health_path[0] != '/') {
        snprintf(err, err_cap, "scp.health_path must start with '/'");
        return -1;
    }
    if (s->retry_min_ms > s->retry_max_ms) {
        snprintf(err, err_cap, "nrf.retry_min_ms is above nrf.retry_max_ms");
        return -1;
    }
    if (check_list(s->uri, "nrf.uri", ok_uri, err, err_cap) ||
        check_list(s->scp_uris, "scp.uris", ok_uri, err, err_cap) ||
        check_list(s->plmn, "nf.plmn", ok_plmn, err, err_cap) ||
        check_list(s->snssai, "nf.snssai", ok_snssai, err, err_cap) ||
        check_list(s->set_id, "nf.set_id", ok_nonempty, err, err_cap) ||
        check_list(s->ipv4_addresses, "nf.ipv4_addresses", ok_v4, err, err_cap) ||
        check_list(s->allowed_nf_types, "nf.allowed_nf_types", bsf_nrf_nf_type_valid, err,
                   err_cap) ||
        check_list(s->bsf_ipv4_ranges, "nf.bsf_info.ipv4_ranges", ok_v4_range, err, err_cap) ||
        check_list(s->bsf_ipv6_prefix_ranges, "nf.bsf_info.ipv6_prefix_ranges", ok_v6_range,
                   err, err_cap) ||
        check_list(s->bsf_dnn_list, "nf.bsf_info.dnn_list", ok_nonempty, err, err_cap) ||
        check_list(s->bsf_ip_domain_list, "nf.bsf_info.ip_domain_list", ok_nonempty, err,
                   err_cap))
        return -1;
    return 0;
}
