/* Absolute SBI URIs ("http[s]://host[:port]/path?query") as the SBI client needs them:
 * scheme, host, port, authority and path, and the resolution of a redirect's Location. */
#ifndef BSF_GATEWAYS_SBI_SBI_URI_H
#define BSF_GATEWAYS_SBI_SBI_URI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BSF_SBI_HOST_MAX 256
#define BSF_SBI_URI_MAX 2048

typedef struct {
    bool tls;                       /* https */
    char host[BSF_SBI_HOST_MAX];    /* FQDN or address, IPv6 without brackets */
    uint16_t port;                  /* 80 / 443 when absent */
    char authority[BSF_SBI_HOST_MAX + 8]; /* host[:port] as sent in :authority */
    char path[BSF_SBI_URI_MAX];     /* path and query, "/" when empty */
} bsf_sbi_uri_t;

/* Parses an absolute http or https URI of `n` bytes. Returns 0, or -1 with a reason in err
 * (scheme other than http/https, no host, bad port, user info, fragment kept out, too long). */
int bsf_sbi_uri_parse(const char *s, size_t n, bsf_sbi_uri_t *out, char *err, size_t err_cap);

/* The apiRoot of a URI: "scheme://authority" (what 3gpp-Sbi-Target-apiRoot carries).
 * Returns the length written, 0 when it does not fit. */
size_t bsf_sbi_uri_api_root(const bsf_sbi_uri_t *u, char *out, size_t cap);

/* Resolves a Location header against the URI that was answered: absolute URIs are parsed,
 * "/path" keeps the scheme and authority of `base`. Returns 0 or -1 (err says why). */
int bsf_sbi_uri_resolve(const bsf_sbi_uri_t *base, const char *location, size_t n,
                        bsf_sbi_uri_t *out, char *err, size_t err_cap);

#endif
