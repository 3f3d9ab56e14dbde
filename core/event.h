/* Events of the binding store and their msgpack encoding (the contract in docs/events.md).
 *
 * An event is a msgpack map: a versioned envelope (v, type, site, seq, hlc, bindingId) and a
 * typed payload. Members are written in a fixed order so that equal events have equal
 * bytes. Decoding checks every member; a binding payload is decoded into a
 * bsf_pcf_binding_t whose storage lives in the caller's zone. Subscriptions to binding events
 * (/subscriptions) are events too, so that they replicate like bindings. */
#ifndef BSF_CORE_EVENT_H
#define BSF_CORE_EVENT_H

#include <msgpack.h>
#include <stdint.h>

#include "core/binding_id.h"
#include "core/pcf_binding.h"
#include "core/pcf_mbs_binding.h"
#include "core/pcf_ue_binding.h"
#include "core/subscription.h"

/* Versions of the contract (docs/events.md, "Versions"). Every version from OLDEST to
 * NEWEST is read (older ones through the upcasters of core/event_upcast.h); the writer
 * writes the one it is given (events.write_version), by default WRITE_DEFAULT, which every
 * site of the previous release reads too (rolling upgrades). */
#define BSF_EVENT_VERSION_OLDEST 1
#define BSF_EVENT_VERSION 2 /* newest */
#define BSF_EVENT_WRITE_DEFAULT 1
#define BSF_COOKIE_MAX 1024 /* longest ocnf-service-cookie kept */

typedef enum {
    BSF_EVENT_BINDING_REGISTERED = 1,
    BSF_EVENT_BINDING_UPDATED = 2,
    BSF_EVENT_BINDING_DEREGISTERED = 3,
    /* PCF for a UE bindings (/pcf-ue-bindings): payload `ueBinding` */
    BSF_EVENT_UE_BINDING_REGISTERED = 4,
    BSF_EVENT_UE_BINDING_UPDATED = 5,
    BSF_EVENT_UE_BINDING_DEREGISTERED = 6,
    /* PCF for an MBS session bindings (/pcf-mbs-bindings): payload `mbsBinding` */
    BSF_EVENT_MBS_BINDING_REGISTERED = 7,
    BSF_EVENT_MBS_BINDING_UPDATED = 8,
    BSF_EVENT_MBS_BINDING_DEREGISTERED = 9,
    /* Subscriptions to binding events (/subscriptions): payload `subscription`; the envelope's
     * bindingId is the subscription id (same id space) */
    BSF_EVENT_SUBSCRIPTION_CREATED = 10,
    BSF_EVENT_SUBSCRIPTION_REPLACED = 11,
    BSF_EVENT_SUBSCRIPTION_REMOVED = 12,
    /* Audit outcomes of a PCF binding (seed §3.34, audit/): payload `audit`, the binding's
     * audit state after the audit. Written only by the site that audits the binding. */
    BSF_EVENT_AUDIT_CONFIRMED = 16, /* the PCF answered 2xx: kept, last audited now */
    BSF_EVENT_AUDIT_SUSPECTED = 17, /* older than audit.min_ttl, not (yet) removed */
    BSF_EVENT_AUDIT_FAILED = 18,    /* the PCF query failed or timed out: attempts + 1 */
} bsf_event_type_t;

#define BSF_EVENT_TYPE_LAST BSF_EVENT_AUDIT_FAILED

/* True for the audit outcome events (payload `audit`, no binding). */
static inline bool bsf_event_is_audit(bsf_event_type_t t)
{
    return t >= BSF_EVENT_AUDIT_CONFIRMED && t <= BSF_EVENT_AUDIT_FAILED;
}

/* True for the events of PCF-for-UE bindings (they live in their own projections). */
static inline bool bsf_event_is_ue(bsf_event_type_t t)
{
    return t >= BSF_EVENT_UE_BINDING_REGISTERED && t <= BSF_EVENT_UE_BINDING_DEREGISTERED;
}

/* True for the events of MBS session bindings. */
static inline bool bsf_event_is_mbs(bsf_event_type_t t)
{
    return t >= BSF_EVENT_MBS_BINDING_REGISTERED && t <= BSF_EVENT_MBS_BINDING_DEREGISTERED;
}

/* True for the events of subscriptions to binding events. */
static inline bool bsf_event_is_subscription(bsf_event_type_t t)
{
    return t >= BSF_EVENT_SUBSCRIPTION_CREATED && t <= BSF_EVENT_SUBSCRIPTION_REMOVED;
}

/* True for a deregistration of any kind, a subscription's removal included (no payload, a
 * reason). */
static inline bool bsf_event_is_deregistration(bsf_event_type_t t)
{
    return t == BSF_EVENT_BINDING_DEREGISTERED || t == BSF_EVENT_UE_BINDING_DEREGISTERED ||
           t == BSF_EVENT_MBS_BINDING_DEREGISTERED || t == BSF_EVENT_SUBSCRIPTION_REMOVED;
}

/* True for the events that carry a binding (registrations and updates of any kind). */
static inline bool bsf_event_has_binding(bsf_event_type_t t)
{
    return t >= BSF_EVENT_BINDING_REGISTERED && t <= BSF_EVENT_MBS_BINDING_DEREGISTERED &&
           !bsf_event_is_deregistration(t);
}

/* The audit state of a PCF binding as an audit event carries it (and the `audit`
 * projection keeps it). */
#define BSF_AUDIT_RESPONDER_MAX 256
typedef struct {
    uint32_t attempts;       /* audits that failed (or found the binding suspected without a
                                PCF query) since the last confirmation */
    int64_t last_audited_ms; /* Unix ms of the last confirmation (2xx or PCF update); -1 never */
    uint32_t not_found;      /* 404s the audit got (below audit.total_404 when kept) */
    const char *responder;   /* the PCF that answered last (authority or Server), or NULL */
} bsf_audit_state_t;

typedef enum {
    BSF_REASON_NONE = 0,
    BSF_REASON_PCF_REQUEST,           /* DELETE from the PCF */
    BSF_REASON_REPLACED_BY_COLLISION, /* a newer registration from another PCF won */
    BSF_REASON_REREGISTERED,          /* the same PCF registered the session again */
    BSF_REASON_AUDIT_NOT_FOUND,       /* the PCF's audit answer said it has no session */
    BSF_REASON_AUDIT_MAX_TTL,         /* the binding outlived the audit max TTL */
    BSF_REASON_DIAMETER_FAILURE,      /* the PCF answered an Rx request with a stale code */
    BSF_REASON_OPERATOR,              /* operator cleanup */
    BSF_REASON_UNSUBSCRIBED,          /* subscription: DELETE from the consumer */
    BSF_REASON_EXPIRED,               /* subscription: its expiry passed */
    BSF_REASON_COUNT
} bsf_dereg_reason_t;

typedef struct {
    bsf_event_type_t type;
    uint16_t site;          /* site that wrote the event */
    uint64_t seq;           /* that site's sequence number, from 1 */
    uint64_t hlc;           /* hybrid logical clock of the event */
    bsf_binding_id_t binding_id;
    /* BindingRegistered, BindingUpdated */
    const bsf_pcf_binding_t *binding;
    /* Not encoded: the stored binding this event replaces or removes (BindingUpdated,
     * BindingDeregistered), already decoded by the writer from the same transaction, so that
     * the projection does not decode it again to remove its index entries. NULL: decoded. */
    const bsf_pcf_binding_t *prior;
    /* Not encoded: `binding` as bsf_pcf_binding_encode writes it, when the writer already
     * has those bytes (the answer's body): copied into the event and the record instead of
     * encoded again. NULL: encoded from `binding`. */
    const char *binding_mp;
    size_t binding_mp_len;
    /* UeBindingRegistered, UeBindingUpdated (with created_hlc; no timestamps, no cookie) */
    const bsf_pcf_ue_binding_t *ue_binding;
    /* MbsBindingRegistered, MbsBindingUpdated (with created_hlc) */
    const bsf_pcf_mbs_binding_t *mbs_binding;
    /* SubscriptionCreated, SubscriptionReplaced (with created_hlc) */
    const bsf_subscription_t *subscription;
    uint64_t created_hlc;   /* when the binding was registered (= hlc for registrations) */
    int64_t origin_ts_ms;   /* 3gpp-Sbi-Origination-Timestamp of the registration, -1 absent */
    int64_t sender_ts_ms;   /* 3gpp-Sbi-Sender-Timestamp of the registration, -1 absent */
    const char *cookie;     /* ocnf-service-cookie of the registration (seed §3.3), or NULL */
    size_t cookie_len;
    /* BindingDeregistered */
    bsf_dereg_reason_t reason;
    bool has_replaced_by;
    bsf_binding_id_t replaced_by;
    /* AuditConfirmed, AuditSuspected, AuditFailed */
    bsf_audit_state_t audit;
} bsf_event_t;

const char *bsf_event_type_name(bsf_event_type_t type);
const char *bsf_dereg_reason_name(bsf_dereg_reason_t reason);
/* The type named `s` (n bytes, not NUL-terminated); false when no type has that name. */
bool bsf_event_type_parse(const char *s, size_t n, bsf_event_type_t *out);

/* Encodes `ev` in version BSF_EVENT_WRITE_DEFAULT. Returns 0, or non-zero when the packer
 * failed (out of memory). */
int bsf_event_encode(const bsf_event_t *ev, msgpack_packer *pk);
/* The same in `version` (BSF_EVENT_VERSION_OLDEST .. BSF_EVENT_VERSION; another one is
 * refused with -1, nothing written). Version 2 leaves out a registration's `createdHlc`
 * when it equals `hlc` and absent timestamps. */
int bsf_event_encode_version(const bsf_event_t *ev, unsigned version, msgpack_packer *pk);

/* Decodes one event of any version read (an older one upcast to the newest form first, so
 * equal events of different versions decode equal). `binding` storage comes from `zone` (a
 * pcfBinding payload is decoded into `binding_storage`, a ueBinding or mbsBinding payload
 * into storage taken from `zone`). Returns 0, or -1 with a reason in `err` (a version this
 * build does not read: "unsupported event version N (this build reads versions 1 to 2)"). */
int bsf_event_decode(const char *buf, size_t len, msgpack_zone *zone, bsf_event_t *out,
                     bsf_pcf_binding_t *binding_storage, char *err, size_t err_cap);

/* The newest version this process reads: BSF_EVENT_VERSION, or BSF_EVENT_VERSION + 1 when
 * the environment sets BSF_TEST_EVENT_NEXT_VERSION=1 (tests only: it plays the next release,
 * whose version BSF_EVENT_VERSION + 1 has the newest form of this one; docs/events.md). Any
 * thread. */
unsigned bsf_event_newest_read(void);

/* The `v` member of an encoded event (its top-level map), without decoding the rest.
 * Returns 0, or -1 when the bytes are no map or hold no unsigned `v`. Any thread. */
int bsf_event_peek_version(const char *buf, size_t len, uint64_t *version);

/* Reads only the envelope (type, site, seq, hlc, bindingId) of an encoded event; the
 * payload members of `out` stay empty (the envelope is the same in every version). Returns
 * 0, or -1 when the bytes are not an event of a version this build reads. */
int bsf_event_decode_envelope(const char *buf, size_t len, bsf_event_t *out);

#endif
