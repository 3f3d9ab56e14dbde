/* MbsSessionId of TS 29.571 (TMGI, SSM, NID) as a C value: decode with the member causes of
 * the caller, canonical encode, the match rule of discovery and the index keys. Pure: any
 * thread. */
#ifndef BSF_CORE_MBS_SESSION_ID_H
#define BSF_CORE_MBS_SESSION_ID_H

#include <msgpack.h>
#include <stdbool.h>

#include "core/address.h"
#include "core/member_parse.h"

/* IpAddr: exactly one of ipv4Addr, ipv6Addr, ipv6Prefix. */
typedef enum { BSF_IP_ADDR_V4 = 1, BSF_IP_ADDR_V6, BSF_IP_ADDR_V6_PREFIX } bsf_ip_addr_kind_t;
typedef struct {
    bsf_ip_addr_kind_t kind;
    bsf_ipv4_t v4;
    bsf_ipv6_prefix_t v6; /* an ipv6Addr is a /128 */
} bsf_ip_addr_t;

typedef struct {
    bool has_tmgi;
    char mbs_service_id[7]; /* 6 hex digits, uppercase (canonical) */
    char mcc[4], mnc[4];
    bool has_ssm;
    bsf_ip_addr_t source, dest;
    bool has_nid;
    char nid[12];           /* 11 hex digits, uppercase (canonical) */
} bsf_mbs_session_id_t;

/* Decodes an MbsSessionId object at JSON pointer `ptr` with `cause` for a format error; an
 * object with neither tmgi nor ssm is a format error too (the schema's anyOf). Returns 0 or
 * -1 with c->problem set. */
int bsf_mbs_session_id_decode(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                              bsf_cause_t cause, bsf_mbs_session_id_t *out);

/* Writes the canonical map (tmgi {mbsServiceId, plmnId {mcc, mnc}}, ssm {sourceIpAddr,
 * destIpAddr}, nid). Returns 0 or -1. */
int bsf_mbs_session_id_encode(const bsf_mbs_session_id_t *id, msgpack_packer *pk);

/* True when every identifier the query has (tmgi, ssm, nid) is in `stored` with the same
 * value: a query by TMGI finds a session registered with TMGI and SSM. */
bool bsf_mbs_session_id_matches(const bsf_mbs_session_id_t *query,
                                const bsf_mbs_session_id_t *stored);

/* The index keys of the session (one per identifier: "tmgi:<id>-<mcc>-<mnc>",
 * "ssm:<source>,<dest>"), NUL-terminated, at most 2, into out (each cap bytes); returns how
 * many. The NID is not part of the keys (it narrows the match). */
#define BSF_MBS_KEY_MAX 112
size_t bsf_mbs_session_id_keys(const bsf_mbs_session_id_t *id, char out[2][BSF_MBS_KEY_MAX]);

#endif
