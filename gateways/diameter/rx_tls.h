/* What the Rx gateway reads from its TLS certificate (seed §3.10.2): the end of its validity,
 * for dgw_tls_cert_expiration_seconds. libfdcore does the TLS itself (GnuTLS). */
#ifndef BSF_GATEWAYS_DIAMETER_RX_TLS_H
#define BSF_GATEWAYS_DIAMETER_RX_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The notAfter of the first certificate of the PEM file `path`, in seconds since the epoch.
 * Returns 0, or -1 with the reason in err. */
int bsf_rx_tls_cert_not_after(const char *path, int64_t *out, char *err, size_t cap);

/* Checks the gateway's own certificate before libfdcore sees it (whose configuration parser
 * leaks what it loaded when it refuses a certificate): the first certificate of `cert_path`
 * must name `identity` and chain to a CA of `ca_path`, and be valid now. Returns 0, or -1 with
 * the reason in err. */
int bsf_rx_tls_check_own(const char *cert_path, const char *ca_path, const char *identity,
                         char *err, size_t cap);

/* Whether the DER certificate `der` names the Diameter identity `id` (subject alternative
 * DNS names, else the common name; RFC 6733 §13.1 wants the peer's certificate to identify it).
 * False when it does not parse. */
bool bsf_rx_tls_cert_names(const void *der, size_t len, const char *id);

#endif
