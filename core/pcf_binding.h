/* The PcfBinding resource of TS 29.521 (PCF for a PDU session binding) as a C value.
 *
 * A binding is decoded from its canonical msgpack map (the same members and names as the
 * 3GPP JSON object) and encoded back to it. Strings are NUL-terminated and, like the arrays,
 * live in a msgpack_zone owned by the caller: freeing the zone frees the binding. */
#ifndef BSF_CORE_PCF_BINDING_H
#define BSF_CORE_PCF_BINDING_H

#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/address.h"
#include "core/problem.h"

typedef struct {
    uint8_t sst;
    bool has_sd;
    uint32_t sd; /* 24 bits */
} bsf_snssai_t;

/* IpEndPoint of TS 29.510. */
typedef struct {
    bool has_ipv4;
    bsf_ipv4_t ipv4;
    bool has_ipv6;
    uint8_t ipv6[16];
    const char *transport; /* NULL when absent; kept as sent */
    bool has_port;
    uint16_t port;
} bsf_ip_end_point_t;

typedef struct {
    size_t n;
    bsf_ip_end_point_t *items;
} bsf_ip_end_points_t;

/* ParameterCombination (SamePcf). */
typedef struct {
    bool present;
    const char *supi;
    const char *dnn;
    bool has_snssai;
    bsf_snssai_t snssai;
} bsf_para_com_t;

typedef struct {
    const char *supi;
    const char *gpsi;
    bool has_ipv4;
    bsf_ipv4_t ipv4;
    const char *ip_domain;
    bool has_ipv6;
    bsf_ipv6_prefix_t ipv6;
    size_t n_add_ipv6;
    bsf_ipv6_prefix_t *add_ipv6;
    bool has_mac;
    bsf_mac48_t mac;
    size_t n_add_mac;
    bsf_mac48_t *add_mac;
    const char *dnn;
    bool has_snssai;
    bsf_snssai_t snssai;
    const char *pcf_fqdn;
    bsf_ip_end_points_t pcf_ip_end_points;
    const char *pcf_diam_host;
    const char *pcf_diam_realm;
    const char *pcf_sm_fqdn;
    bsf_ip_end_points_t pcf_sm_ip_end_points;
    const char *supp_feat;
    const char *pcf_id;
    const char *pcf_set_id;
    const char *recovery_time;
    bsf_para_com_t para_com;
    const char *bind_level;
    size_t n_ipv4_routes;
    bsf_ipv4_mask_t *ipv4_routes;
    size_t n_ipv6_routes;
    bsf_ipv6_prefix_t *ipv6_routes;
    /* "vendorSpecific-000111" (seed §3.34): the PCF's audit notificationUrl and the time it
     * created the binding; all NULL/false when absent (core/pcf_vendor.h). */
    bool has_vendor;
    bool has_vendor_version;
    uint32_t vendor_version;
    const char *notification_url;
    const char *create_binding_time;
} bsf_pcf_binding_t;

/* Limits that keep one binding's index entries and record bounded. */
#define BSF_MAX_ADD_ADDRESSES 16
#define BSF_MAX_END_POINTS 16
#define BSF_MAX_FRAME_ROUTES 32
#define BSF_MAX_IDENTITY_LEN 128 /* supi, gpsi, dnn, ipDomain, pcfSetId... */

/* Decodes the members of a PcfBinding map, checking each member's type and format.
 * Unknown members are ignored. Combination rules are checked by
 * bsf_pcf_binding_check_rules. Returns 0, or -1 with `problem` set. */
int bsf_pcf_binding_decode(const msgpack_object *map, msgpack_zone *zone,
                           bsf_pcf_binding_t *out, bsf_problem_t *problem);

/* Decodes only the members discovery's filters read (bsf_discovery_matches: the UE addresses
 * and framed routes, ipDomain, dnn, supi, gpsi, snssai), checked as bsf_pcf_binding_decode
 * checks them; every other member is left zero. For stored records on the lookup path, where
 * a full decode of every candidate cost more than the lookup. Returns 0, or -1 when one of
 * those members does not parse (a corrupted record). Strings point into `map` or `zone`. */
int bsf_pcf_binding_decode_matchable(const msgpack_object *map, msgpack_zone *zone,
                                     bsf_pcf_binding_t *out);

/* The prose rules of TS 29.521 for a complete binding (mandatory members, at least one UE
 * address, ipDomain only with ipv4Addr, a PCF address, ...). Returns 0 or -1 with problem. */
int bsf_pcf_binding_check_rules(const bsf_pcf_binding_t *b, bsf_problem_t *problem);

/* The shortest IPv6 prefix a registration or update may carry (bindings.ipv6_min_prefix_len,
 * 1..128; /0 is refused whatever min_len says) in ipv6Prefix, addIpv6Prefixes and
 * ipv6FrameRouteList: a short prefix would answer the discovery of every UE inside it that
 * has no more specific binding. For what this BSF accepts, not for other sites' events.
 * Returns 0, or -1 with problem set (the member's cause, its JSON pointer). */
int bsf_pcf_binding_check_ipv6_lengths(const bsf_pcf_binding_t *b, unsigned min_len,
                                       bsf_problem_t *problem);

/* Writes the canonical msgpack map. Returns 0 or -1 (packer error). */
int bsf_pcf_binding_encode(const bsf_pcf_binding_t *b, msgpack_packer *pk);

/* A stable key naming the PCF that owns the binding, for per-PCF counters:
 * pcfId, else pcfFqdn, else pcfDiamHost, else the first end point address. Writes a
 * NUL-terminated string, truncated to `cap`. */
void bsf_pcf_binding_pcf_key(const bsf_pcf_binding_t *b, char *out, size_t cap);

/* True when both bindings name the same PCF (used by collision detection): every PCF
 * identity present in both is equal and at least one is present in both. */
bool bsf_pcf_binding_same_pcf(const bsf_pcf_binding_t *a, const bsf_pcf_binding_t *b);

/* One textual PCF identity (pcfId, an FQDN, a Diameter host) of two bindings, for the
 * same_pcf rules of every binding type: true unless both have it and it differs (ignoring
 * case); *compared counts the identities both have. Pure: any thread. */
bool bsf_pcf_identity_agrees(const char *a, const char *b, int *compared);

/* True when the bindings share a UE address (IPv4 with equal ipDomain, an equal IPv6
 * prefix, or an equal MAC address), counting the additional addresses. */
bool bsf_pcf_binding_share_ue_address(const bsf_pcf_binding_t *a, const bsf_pcf_binding_t *b);

bool bsf_snssai_equal(const bsf_snssai_t *a, const bsf_snssai_t *b);
/* "sst" or "sst-SD" (TS 29.571 string form). */
void bsf_snssai_format(const bsf_snssai_t *s, char out[12]);
/* DNNs compare case-insensitively (TS 23.003 clause 9.1). */
bool bsf_dnn_equal(const char *a, const char *b);

#endif
