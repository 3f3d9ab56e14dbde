/* The realm rules of seed §3.12 for an AAR-I, as pure decisions:
 *   1. Validate.Realm: the Destination-Realm must be our realm (3003 otherwise, before any
 *      lookup);
 *   2. (the binding lookup: 5012 on failure, 5065 when not found)
 *   3. Validate.Binding.Realm: the Destination-Realm must be the binding's pcfDiamRealm (3003);
 *   4. Overwrite.Realm: the forwarded Destination-Realm becomes the binding's realm.
 * Realms compare case-insensitively (they are DiameterIdentities). */
#ifndef BSF_GATEWAYS_DIAMETER_RX_REALM_H
#define BSF_GATEWAYS_DIAMETER_RX_REALM_H

#include <stdbool.h>

#include "gateways/diameter/rx_settings.h"

typedef enum {
    BSF_RX_REALM_OK = 0,
    BSF_RX_REALM_NOT_OURS,      /* step 1 failed: 3003 */
    BSF_RX_REALM_NOT_BINDINGS,  /* step 3 failed: 3003 */
} bsf_rx_realm_verdict_t;

/* Step 1. `dest_realm` may be NULL (absent). */
bsf_rx_realm_verdict_t bsf_rx_realm_check_request(const bsf_diameter_settings_t *s,
                                                  const char *dest_realm);

/* Steps 3 and 4 once a binding is found. `binding_realm` may be NULL (binding without
 * pcfDiamRealm: no check fails on it, nothing is overwritten). Sets *overwrite when the
 * forwarded request must carry `binding_realm` as its Destination-Realm. */
bsf_rx_realm_verdict_t bsf_rx_realm_check_binding(const bsf_diameter_settings_t *s,
                                                  const char *dest_realm,
                                                  const char *binding_realm, bool *overwrite);

#endif
