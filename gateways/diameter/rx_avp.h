/* Reading and changing the AVPs of messages in flight, and the answers the gateway makes
 * itself. Messages relayed by freeDiameter are not parsed against the dictionary; these
 * helpers parse only the AVPs they touch. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_AVP_H
#define BSF_GATEWAYS_DIAMETER_RX_AVP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gateways/diameter/rx_dict.h"

/* The first top-level AVP of `model` in `msg`, its value parsed. Returns 0 (found), ENOENT,
 * or EBADMSG when the AVP's value does not parse (e.g. wrong length for its type). */
int bsf_rx_avp_find(struct msg *msg, struct dict_object *model, struct avp **out);
/* The same inside a grouped AVP. */
int bsf_rx_avp_find_child(struct avp *parent, struct dict_object *model, struct avp **out);

/* An AVP to look for with bsf_rx_avp_collect: its model, with the code and vendor read once. */
typedef struct {
    struct dict_object *model;
    uint32_t code, vendor;
    bool grouped;
} bsf_rx_avp_want_t;

/* Fills *w from `model`. Returns 0, or ENOENT (NULL or unusable model: w matches nothing). */
int bsf_rx_avp_want(struct dict_object *model, bsf_rx_avp_want_t *w);
/* Several bsf_rx_avp_find in one walk over the top-level AVPs of `msg`: found[i] is the first
 * AVP of wants[i] (its value parsed) and rc[i] 0, or found[i] NULL and rc[i] ENOENT, or
 * EBADMSG when that first AVP does not parse. */
void bsf_rx_avp_collect(struct msg *msg, const bsf_rx_avp_want_t *wants, size_t n,
                        struct avp **found, int *rc);
/* bsf_rx_avp_text of an AVP already found: 0, EBADMSG (no value) or ENOSPC. */
int bsf_rx_avp_copy_text(struct avp *a, char *out, size_t cap);

/* Value of an OctetString-based or Unsigned32 / Integer32 AVP found with bsf_rx_avp_find. */
void bsf_rx_avp_os(struct avp *a, const uint8_t **data, size_t *len);
uint32_t bsf_rx_avp_u32(struct avp *a);
int32_t bsf_rx_avp_i32(struct avp *a);

/* Copies an OctetString AVP of `model` into `out` (NUL-terminated, at most cap - 1 bytes).
 * Returns 0, ENOENT, EBADMSG, or ENOSPC (too long). */
int bsf_rx_avp_text(struct msg *msg, struct dict_object *model, char *out, size_t cap);

/* Sets the OctetString AVP of `model` (replacing the first one in place, or appending). */
int bsf_rx_avp_set_os(struct msg *msg, struct dict_object *model, const void *data, size_t len);
/* The same when the first AVP of `model` is already known: `old` (NULL: there is none, or it
 * does not parse; the new one is appended). */
int bsf_rx_avp_replace_os(struct msg *msg, struct avp *old, struct dict_object *model,
                          const void *data, size_t len);
int bsf_rx_avp_add_u32(msg_or_avp *parent, struct dict_object *model, uint32_t v);

/* Removes the last top-level AVP when it is a Route-Record equal to `peer`: freeDiameter
 * appends one to every message it receives, answers included (pitfall 3), and a relayed
 * answer must not carry it. */
void bsf_rx_avp_strip_local_route_record(const bsf_rx_dict_t *rx, struct msg *msg,
                                         const char *peer);

/* An answer's outcome: the Experimental-Result-Code when present, else the Result-Code
 * (0 when neither). `e_bit` from the header. Origin-Host copied into origin (may be ""). */
typedef struct {
    uint32_t code;
    bool experimental;
    bool e_bit;
    char origin[256];
} bsf_rx_answer_info_t;

void bsf_rx_avp_answer_info(const bsf_rx_dict_t *rx, struct msg *ans, bsf_rx_answer_info_t *out);

#define BSF_RX_FAILED_ZERO_MAX 16 /* the longest zero-filled Failed-AVP value (IPv6 address) */

/* What a locally made answer carries. */
typedef struct {
    uint32_t code;         /* Result-Code, or Experimental-Result-Code when vendor != 0 */
    uint32_t vendor;       /* 10415 for Rx experimental results, else 0 */
    const char *message;   /* Error-Message, or NULL */
    struct dict_object *failed_model; /* Failed-AVP content: an AVP of this model ... */
    const void *failed_data;          /* ... with this OctetString value (may be empty), or
                                       * NULL for a missing AVP: failed_len zero bytes (RFC
                                       * 6733 §7.5, the minimum length of its type; at most
                                       * BSF_RX_FAILED_ZERO_MAX) */
    size_t failed_len;
    bool failed_u32;                  /* ... or this Unsigned32 value */
    uint32_t failed_u32_value;
} bsf_rx_result_t;

/* Turns *req (a received request) into the answer carrying `res` (Origin-Host/Realm ours,
 * Session-Id and Proxy-Info copied, Auth-Application-Id for Rx commands, the E bit for 3xxx).
 * A Session-Id that does not parse is removed from the request first (libfdproto would abort
 * on it); a Proxy-Info is copied as its Proxy-Host and Proxy-State, left out when they do not
 * parse.
 * On success *req is the answer, associated with the request. Returns 0 or an error; *req
 * is then either unchanged or NULL (freed while half-built). */
int bsf_rx_avp_make_answer(const bsf_rx_dict_t *rx, struct msg **req, const bsf_rx_result_t *res);

/* The request fields needed to answer without the request itself (it was dropped or is
 * held by freeDiameter). */
typedef struct {
    uint32_t code, app, hbh, e2e;
    uint8_t flags;
    const char *sid;
    size_t sid_len;
    const char *from; /* neighbour to answer */
} bsf_rx_request_ref_t;

/* Builds and sends that answer (through a stand-in request). Returns 0 or an error. */
int bsf_rx_avp_answer_ref(const bsf_rx_dict_t *rx, const bsf_rx_request_ref_t *ref,
                          const bsf_rx_result_t *res);

#endif
