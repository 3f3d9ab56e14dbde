/* The BsfSubscription resource of TS 29.521 (API 1.5.0, §5.6.2.x): a consumer (NEF, AF...)
 * asking to be told of binding events of one UE, as a C value.
 *
 * Decoded from its msgpack map (the 3GPP JSON member names) with the causes a creation or
 * replacement answers, and encoded back to a canonical map (schema order, events in enum
 * order), so equal subscriptions are equal bytes. Strings and arrays live in the caller's
 * msgpack_zone. Pure: any thread. */
#ifndef BSF_CORE_SUBSCRIPTION_H
#define BSF_CORE_SUBSCRIPTION_H

#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/pcf_binding.h"
#include "core/doc_type.h"
#include "core/problem.h"
#include "core/sbi_time.h" /* bsf_rfc3339_parse_ms */

/* BsfEvent values this BSF notifies (bit i of bsf_subscription_t.events). */
typedef enum {
    BSF_SUB_EVENT_PDU_REGISTRATION = 0,   /* PCF_PDU_SESSION_BINDING_REGISTRATION */
    BSF_SUB_EVENT_PDU_DEREGISTRATION,     /* PCF_PDU_SESSION_BINDING_DEREGISTRATION */
    BSF_SUB_EVENT_UE_REGISTRATION,        /* PCF_UE_BINDING_REGISTRATION */
    BSF_SUB_EVENT_UE_DEREGISTRATION,      /* PCF_UE_BINDING_DEREGISTRATION */
    BSF_SUB_EVENT_SNSSAI_DNN_REGISTRATION,   /* first PDU session of a (DNN, S-NSSAI) */
    BSF_SUB_EVENT_SNSSAI_DNN_DEREGISTRATION, /* last PDU session of a (DNN, S-NSSAI) */
    BSF_SUB_EVENT_COUNT
} bsf_sub_event_t;

#define BSF_SUB_MAX_PAIRS 16   /* addSnssaiDnnPairs items */
#define BSF_SUB_URI_MAX 1024   /* notifUri length */
#define BSF_SUB_CORRE_ID_MAX 256

typedef struct {
    bsf_snssai_t snssai;
    const char *dnn;
} bsf_snssai_dnn_t;

typedef struct {
    uint32_t events;            /* bit per bsf_sub_event_t; at least one */
    const char *notif_uri;      /* absolute http(s) URI, required */
    const char *notif_corre_id; /* required */
    const char *supi;           /* required */
    const char *gpsi;
    bool has_pair;              /* snssaiDnnPairs (one SnssaiDnnPair in this API version) */
    bsf_snssai_dnn_t pair;
    size_t n_add_pairs;         /* addSnssaiDnnPairs */
    bsf_snssai_dnn_t *add_pairs;
    const char *expiry;         /* RFC 3339 date-time; NULL: none */
    int64_t expiry_ms;          /* expiry as Unix ms; -1 when absent */
    const char *supp_feat;
} bsf_subscription_t;

/* The BsfEvent name of `e` ("PCF_UE_BINDING_REGISTRATION"...); "?" outside the enum. */
const char *bsf_sub_event_name(bsf_sub_event_t e);

/* Decodes a BsfSubscription map, checking each member's type and format (unknown members
 * ignored, unknown BsfEvent strings ignored: the enum is extensible). Causes: supi, events,
 * notifUri, notifCorreId MANDATORY_IE_INCORRECT; the others OPTIONAL_IE_INCORRECT; not an
 * object INVALID_MSG_FORMAT. Returns 0, or -1 with `problem` set. */
int bsf_subscription_decode(const msgpack_object *map, msgpack_zone *zone,
                            bsf_subscription_t *out, bsf_problem_t *problem);

/* The schema's required members (events, notifUri, notifCorreId, supi): 0, or -1 with
 * problem (MANDATORY_IE_MISSING, every missing one in invalidParams). An `events` naming no
 * event this BSF notifies is refused by the decoder (MANDATORY_IE_INCORRECT). */
int bsf_subscription_check_rules(const bsf_subscription_t *s, bsf_problem_t *problem);

/* Writes the canonical msgpack map (a BsfSubscription). Returns 0 or -1 (packer error). */
int bsf_subscription_encode(const bsf_subscription_t *s, msgpack_packer *pk);

/* Replaces the expiry with `ms` (-1: none), its text made in `zone`. Returns 0 or -1 (no
 * memory). */
int bsf_subscription_set_expiry(bsf_subscription_t *s, int64_t ms, msgpack_zone *zone);

/* True when a PDU session of (dnn, snssai) is in the subscription's pairs, or it has none. */
bool bsf_subscription_pair_matches(const bsf_subscription_t *s, const char *dnn,
                                   const bsf_snssai_t *snssai);


/* BsfSubscription as a bsf_doc_type_t (bsf_subscription_t; decode checks the rules). */
extern const bsf_doc_type_t bsf_subscription_type;

#endif
