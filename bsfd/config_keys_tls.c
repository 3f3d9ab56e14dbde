/* Configuration keys of TLS on the SBI (issue 13 §1) and of certificate and key reload
 * (issue 13 §3: the SBI and Diameter certificates, the OAuth2 keys). */
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"

static const char *const client_cert_choices[] = {"none", "optional", "required", NULL};

static const bsf_config_key_t keys[] = {
    BSF_CFG_LISTEN_KEY("sbi.tls.listen", sbi_tls_listen, "",
        "HTTP/2 over TLS (ALPN `h2` only; TLS 1.2 and 1.3 only) address of Nbsf_Management, "
        "`host:port` or `[v6]:port`, beside or instead of `sbi.listen`; empty: no TLS listener. "
        "One address: the `sbi.listen_also` listeners stay cleartext."),
    BSF_CFG_STRING_KEY("sbi.tls.cert", sbi_tls_cert, "", 1023,
        "PEM certificate of the SBI (leaf first, then the chain); required with "
        "`sbi.tls.listen`. Reloaded when the file changes. Also the certificate the SBI client "
        "presents for mutual TLS unless `sbi_client.tls_cert_file` is set (one NF identity)."),
    BSF_CFG_STRING_KEY("sbi.tls.key", sbi_tls_key, "", 1023,
        "PEM private key of `sbi.tls.cert`. Reloaded when the file changes."),
    BSF_CFG_STRING_KEY("sbi.tls.ca", sbi_tls_ca, "", 1023,
        "PEM bundle of the CAs that sign client certificates; required unless "
        "`sbi.tls.client_cert` is `none`."),
    BSF_CFG_ENUM_KEY("sbi.tls.client_cert", sbi_tls_client_cert, "none", client_cert_choices,
        "Client certificates (mTLS): `none` (not asked for), `optional` (asked for; one that is "
        "presented must verify against `sbi.tls.ca`), `required`. A refused certificate fails "
        "the handshake."),
    BSF_CFG_STRING_KEY("sbi.tls.ciphers", sbi_tls_ciphers,
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
        "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305",
        1023, "TLS 1.2 cipher suites (OpenSSL cipher list syntax), AEAD with ECDHE only by "
        "default (TS 33.210 §6.2); the SBI client's connections use them too."),
    BSF_CFG_STRING_KEY("sbi.tls.ciphersuites", sbi_tls_ciphersuites,
        "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256", 255,
        "TLS 1.3 cipher suites (OpenSSL syntax), server and SBI client."),
    BSF_CFG_STRING_KEY("sbi.tls.groups", sbi_tls_groups, "X25519:P-256:P-384", 255,
        "Key exchange groups, in order of preference (OpenSSL names), server and SBI client."),
    BSF_CFG_UINT_KEY("tls.reload_interval_s", tls_reload_interval_s, "5", 0, 3600,
        "How often the certificate and key files (`sbi.tls.*`, `diameter.tls.cert`, "
        "`sbi.oauth2.keys`) are checked for changes (stat); a changed SBI certificate or OAuth2 "
        "key file is loaded without a restart (a bad one keeps the old and is logged); 0 = "
        "never."),
    BSF_CFG_UINT_KEY("tls.expiry_warning_days", tls_expiry_warning_days, "30", 0, 3650,
        "Warn (once a day) when a certificate (`sbi.tls.cert`, `diameter.tls.cert`) expires "
        "within this many days; 0 = no warning."),
};

static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    /* The SBI client's connections take the same protocol settings as the server's. */
    snprintf(cfg->nrf.client_tls_ciphers, sizeof cfg->nrf.client_tls_ciphers, "%s",
             cfg->sbi_tls_ciphers);
    snprintf(cfg->nrf.client_tls_ciphersuites, sizeof cfg->nrf.client_tls_ciphersuites, "%s",
             cfg->sbi_tls_ciphersuites);
    snprintf(cfg->nrf.client_tls_groups, sizeof cfg->nrf.client_tls_groups, "%s",
             cfg->sbi_tls_groups);
    if (!cfg->sbi_tls_listen[0])
        return 0;
    if (bsf_config_split_listen(cfg->sbi_tls_listen, cfg->sbi_tls_host, sizeof cfg->sbi_tls_host,
                                &cfg->sbi_tls_port)) {
        snprintf(err, err_cap, "sbi.tls.listen: '%s' is not host:port", cfg->sbi_tls_listen);
        return -1;
    }
    if (!cfg->sbi_tls_cert[0] || !cfg->sbi_tls_key[0]) {
        snprintf(err, err_cap, "%s: required with sbi.tls.listen",
                 cfg->sbi_tls_cert[0] ? "sbi.tls.key" : "sbi.tls.cert");
        return -1;
    }
    if (cfg->sbi_tls_client_cert != 0 && !cfg->sbi_tls_ca[0]) {
        snprintf(err, err_cap, "sbi.tls.ca: required with sbi.tls.client_cert = %s",
                 client_cert_choices[cfg->sbi_tls_client_cert]);
        return -1;
    }
    /* One NF identity (TS 33.310): the SBI client presents the server's certificate to the
     * NRF, SCPs and peers that ask for one, unless the client has its own. */
    if (!cfg->nrf.client_tls_cert_file[0] && !cfg->nrf.client_tls_key_file[0]) {
        snprintf(cfg->nrf.client_tls_cert_file, sizeof cfg->nrf.client_tls_cert_file, "%s",
                 cfg->sbi_tls_cert);
        snprintf(cfg->nrf.client_tls_key_file, sizeof cfg->nrf.client_tls_key_file, "%s",
                 cfg->sbi_tls_key);
    }
    return 0;
}

const bsf_config_section_t bsf_config_tls_section = {keys, sizeof keys / sizeof keys[0], finish};
