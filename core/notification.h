/* The BsfNotification of TS 29.521 (the `myNotification` callback of /subscriptions) as
 * msgpack: which of a subscription's events one binding event causes, and the body that
 * tells of them. Pure: any thread. */
#ifndef BSF_CORE_NOTIFICATION_H
#define BSF_CORE_NOTIFICATION_H

#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/pcf_binding.h"
#include "core/pcf_ue_binding.h"
#include "core/subscription.h"

/* What happened to one binding, as the matcher saw it. Exactly one of pdu / ue is set. */
typedef struct {
    bool registration;             /* else a deregistration */
    const bsf_pcf_binding_t *pdu;  /* a PCF for a PDU session binding */
    const bsf_pcf_ue_binding_t *ue;/* a PCF for a UE binding */
    bool first_or_last;            /* pdu: no other live binding of its SUPI has the same
                                      (DNN, S-NSSAI): the first registered / last gone */
} bsf_binding_change_t;

/* True when the subscription is about the binding's UE: the same SUPI, or the same GPSI. */
bool bsf_notification_ue_matches(const bsf_subscription_t *s, const char *supi,
                                 const char *gpsi);

/* The subscription's events the change causes (bits of bsf_sub_event_t; 0: none): filtered
 * by the subscription's UE (bsf_notification_ue_matches) and, for PDU-session bindings, its
 * (add)snssaiDnnPairs. */
uint32_t bsf_notification_events(const bsf_subscription_t *s, const bsf_binding_change_t *c);

/* Writes the BsfNotification map: notifCorreId and one BsfEventNotification per bit of
 * `events` (pcfForPduSessInfos / pcfForUeInfo, matchSnssaiDnns for the S-NSSAI/DNN events).
 * Returns 0 or -1 (packer error). */
int bsf_notification_encode(const bsf_subscription_t *s, uint32_t events,
                            const bsf_binding_change_t *c, msgpack_packer *pk);

/* The binding's part of every BsfNotification of one change (its PcfForPduSessionInfo or
 * PcfForUeInfo map), to encode once per binding event for all its subscriptions. Returns 0
 * or -1 (packer error). */
int bsf_notification_encode_binding(const bsf_binding_change_t *c, msgpack_packer *pk);

/* bsf_notification_encode with the binding's part already encoded (`binding`, `len` bytes
 * of bsf_notification_encode_binding for the same change), copied in as it is. */
int bsf_notification_encode_with(const bsf_subscription_t *s, uint32_t events,
                                 const bsf_binding_change_t *c, const char *binding, size_t len,
                                 msgpack_packer *pk);

#endif
