/* The static peer table (peers we connect to) and routing table (destination realm/host ->
 * next-hop peers with priorities) of the Rx gateway. Pure: parsing and selection only.
 *
 * Peer item:  "ID=HOST:PORT [tls[=1.2|1.3]]"   e.g. "pcf1.example.com=127.0.0.1:3870"
 * Route item: "realm=R [host=H] peer=ID [priority=N]"
 *             R or H may be "*" (any); host defaults to "*", priority to 1 (lower first). */
#ifndef BSF_GATEWAYS_DIAMETER_RX_ROUTES_H
#define BSF_GATEWAYS_DIAMETER_RX_ROUTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BSF_RX_IDENTITY_MAX 256 /* Diameter identities and realms, NUL included */

typedef struct {
    char id[BSF_RX_IDENTITY_MAX];
    char host[64]; /* IP literal */
    uint16_t port;
    bool tls; /* "ID=HOST:PORT tls": TLS from the connection's start (RFC 6733 §2.1) */
    char tls_version[4]; /* "tls=1.2" or "tls=1.3": only that version; "" = the node's */
} bsf_rx_peer_cfg_t;

typedef struct {
    char realm[BSF_RX_IDENTITY_MAX]; /* "*" = any */
    char host[BSF_RX_IDENTITY_MAX];  /* "*" = any */
    char peer[BSF_RX_IDENTITY_MAX];
    uint32_t priority;
} bsf_rx_route_t;

typedef struct {
    size_t n;
    bsf_rx_route_t *items;
} bsf_rx_routes_t;

/* Parses one item. Returns 0, or -1 with a message (without the key name) in err. */
int bsf_rx_peer_parse(const char *item, bsf_rx_peer_cfg_t *out, char *err, size_t cap);
int bsf_rx_route_parse(const char *item, bsf_rx_route_t *out, char *err, size_t cap);

/* Copies `len` bytes of an identity (or all of a NUL-terminated one, len = SIZE_MAX) into a
 * BSF_RX_IDENTITY_MAX buffer, cut to fit; without snprintf, as it runs per message. */
void bsf_rx_identity_copy(char dst[BSF_RX_IDENTITY_MAX], const char *src, size_t len);

/* True when `s` is a plausible DiameterIdentity (letters, digits, '-', '.', '_'). */
bool bsf_rx_identity_valid(const char *s);

/* Parses a '\n'-separated list of route items into `out` (freed with bsf_rx_routes_free).
 * Returns 0, or -1 with "item N: reason" in err. */
int bsf_rx_routes_load(const char *list, bsf_rx_routes_t *out, char *err, size_t cap);
void bsf_rx_routes_free(bsf_rx_routes_t *r);

/* The next-hop peers for destination (realm, host): routes whose realm and host match
 * (case-insensitively, "*" matching anything; a NULL host matches only "*" routes), by
 * priority, then exact host before "*", then table order; each peer once. Writes up to `cap`
 * peer names (pointing into the table) and returns how many. */
size_t bsf_rx_routes_select(const bsf_rx_routes_t *r, const char *realm, const char *host,
                            const char **out, size_t cap);

#endif
