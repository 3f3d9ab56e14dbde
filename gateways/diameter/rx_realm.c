/* Realm rules of seed §3.12. */
#include "gateways/diameter/rx_realm.h"

#include <strings.h>

static bool same_realm(const char *a, const char *b)
{
    return a && b && strcasecmp(a, b) == 0;
}

bsf_rx_realm_verdict_t bsf_rx_realm_check_request(const bsf_diameter_settings_t *s,
                                                  const char *dest_realm)
{
    if (s->validate_realm && !same_realm(dest_realm, s->realm))
        return BSF_RX_REALM_NOT_OURS;
    return BSF_RX_REALM_OK;
}

bsf_rx_realm_verdict_t bsf_rx_realm_check_binding(const bsf_diameter_settings_t *s,
                                                  const char *dest_realm,
                                                  const char *binding_realm, bool *overwrite)
{
    *overwrite = false;
    if (!binding_realm)
        return BSF_RX_REALM_OK;
    if (s->validate_binding_realm && !same_realm(dest_realm, binding_realm))
        return BSF_RX_REALM_NOT_BINDINGS;
    /* The seed overwrites "after successful validation": with the check off, the overwrite
     * still happens whenever the binding names a realm (the catalog's suggestion). */
    *overwrite = s->overwrite_realm && !same_realm(dest_realm, binding_realm);
    return BSF_RX_REALM_OK;
}
