/* Typed readers for the members of 3GPP JSON objects, carried as msgpack objects.
 *
 * Each reader checks one member's type and format and, on failure, fills the problem with the
 * given cause and the member's JSON pointer. Used by the PcfBinding and PcfBindingPatch
 * decoders so that both apply exactly the same formats. */
#ifndef BSF_CORE_MEMBER_PARSE_H
#define BSF_CORE_MEMBER_PARSE_H

#include <msgpack.h>

#include "core/pcf_binding.h"

typedef enum {
    BSF_TEXT_IDENTITY, /* non-empty, printable, <= BSF_MAX_IDENTITY_LEN */
    BSF_TEXT_SUPI,     /* identity; "imsi-" needs 5..15 digits */
    BSF_TEXT_GPSI,     /* identity; "msisdn-" needs 5..15 digits */
    BSF_TEXT_FQDN,     /* TS 29.571 Fqdn pattern, 4..253 characters */
    BSF_TEXT_UUID,     /* NfInstanceId */
    BSF_TEXT_DATE_TIME,/* RFC 3339 date-time */
    BSF_TEXT_HEX,      /* SupportedFeatures: hex digits, possibly empty, <= 64 */
} bsf_text_kind_t;

typedef struct {
    msgpack_zone *zone;
    bsf_problem_t *problem;
} bsf_member_ctx_t;

/* A NUL-terminated copy of the `n` bytes at `s` in `zone` (it lives as long as the zone), or
 * NULL when the zone has no memory. The caller's thread, as the zone's. */
const char *bsf_member_strndup(msgpack_zone *zone, const char *s, size_t n);

/* Copies the map key to a NUL-terminated buffer; false when the key is not a string or too
 * long (such members are unknown and ignored by the callers). */
bool bsf_member_key(const msgpack_object *key, char *out, size_t cap);

/* Decodes member `key` of value `v` into `out`: 0, or -1 with c->problem set. */
typedef int (*bsf_member_decode_fn)(bsf_member_ctx_t *c, const char *key,
                                    const msgpack_object *v, void *out);

/* Decodes every member of the JSON object `map` with `decode` into `out`, skipping those
 * whose names bsf_member_key refuses (not a string, or over 31 bytes). Returns 0, or -1 with
 * c->problem set: INVALID_MSG_FORMAT when `map` is not an object, else what `decode` set. */
int bsf_member_decode_object(const msgpack_object *map, bsf_member_ctx_t *c,
                             bsf_member_decode_fn decode, void *out);

/* A type's whole decode: zeroes the `size` bytes of `out`, then decodes `map` into it with
 * `decode` as bsf_member_decode_object does (members in `zone`, a refusal in *problem), and
 * returns what that returns. */
int bsf_member_decode_zeroed(const msgpack_object *map, msgpack_zone *zone,
                             bsf_problem_t *problem, bsf_member_decode_fn decode, void *out,
                             size_t size);

int bsf_member_text(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                    bsf_cause_t cause, bsf_text_kind_t kind, const char **out);
int bsf_member_ipv4(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                    bsf_cause_t cause, bsf_ipv4_t *out);
int bsf_member_ipv6_prefix(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                           bsf_cause_t cause, bsf_ipv6_prefix_t *out);
int bsf_member_mac(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                   bsf_cause_t cause, bsf_mac48_t *out);
int bsf_member_snssai(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                      bsf_cause_t cause, bsf_snssai_t *out);
int bsf_member_ipv6_prefix_array(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                                 bsf_cause_t cause, size_t max, bsf_ipv6_prefix_t **out,
                                 size_t *n);
int bsf_member_mac_array(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                         bsf_cause_t cause, bsf_mac48_t **out, size_t *n);
int bsf_member_ipv4_mask_array(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                               bsf_cause_t cause, bsf_ipv4_mask_t **out, size_t *n);
int bsf_member_end_points(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                          bsf_cause_t cause, bsf_ip_end_points_t *out);
int bsf_member_para_com(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                        bsf_cause_t cause, bsf_para_com_t *out);

/* The refusal of a PcfForUeBinding or PcfMbsBinding with neither PCF address (anyOf): its
 * FQDN member `fqdn` and its IpEndPoints member `end_points` (names without the "/"), both
 * named in the detail and as parameters, cause MANDATORY_IE_MISSING. Returns -1. */
int bsf_member_pcf_address_missing(bsf_problem_t *problem, const char *fqdn,
                                   const char *end_points);

/* Decodes one PcfBinding member by name into `out` (a bsf_pcf_binding_t; its has_ flag or
 * count included), with the cause a registration uses for it; an unknown name is ignored. A
 * bsf_member_decode_fn. Returns 0 or -1. */
int bsf_pcf_binding_decode_member(bsf_member_ctx_t *c, const char *key, const msgpack_object *v,
                                  void *out);

/* True when the text has the RFC 3339 date-time form (used for recoveryTime). */
bool bsf_text_is_date_time(const char *s, size_t n);
bool bsf_text_is_fqdn(const char *s, size_t n);

#endif
