/* Discovery (GET /pcfBindings and the Rx lookup): the query and the rules that pick the
 * binding to answer with. */
#ifndef BSF_CORE_DISCOVERY_H
#define BSF_CORE_DISCOVERY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/binding_id.h"
#include "core/pcf_binding.h"

typedef enum {
    BSF_UE_ADDR_IPV4,
    BSF_UE_ADDR_IPV6,
    BSF_UE_ADDR_MAC,
} bsf_ue_addr_kind_t;

typedef struct {
    bsf_ue_addr_kind_t kind;
    bsf_ipv4_t ipv4;
    bsf_ipv6_prefix_t ipv6;
    bsf_mac48_t mac;
    const char *ip_domain; /* narrowing filters; NULL when absent */
    const char *dnn;
    const char *supi;
    const char *gpsi;
    bool has_snssai;
    bsf_snssai_t snssai;
    const char *supp_feat; /* the consumer's features, NULL when absent */
} bsf_discovery_query_t;

typedef enum {
    BSF_MULTIPLE_MATCH_MOST_RECENT, /* seed §3.44: the most recently created wins */
    BSF_MULTIPLE_MATCH_REJECT,      /* 400 MULTIPLE_BINDING_INFO_FOUND */
} bsf_multiple_match_t;

/* True when the binding holds the queried UE address (IPv4 exactly or inside a framed route;
 * IPv6 inside ipv6Prefix, addIpv6Prefixes or a framed route; MAC in macAddr48 or
 * addMacAddrs) and every filter present in the query. */
bool bsf_discovery_matches(const bsf_discovery_query_t *q, const bsf_pcf_binding_t *b);

/* Order of recency between two matches: created HLC, then site id, then binding id.
 * Returns >0 when a is more recent than b. */
int bsf_discovery_recency_cmp(uint64_t a_created, const bsf_binding_id_t *a_id,
                              uint64_t b_created, const bsf_binding_id_t *b_id);

#endif
