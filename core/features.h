/* Supported-features strings (TS 29.500 clause 6.6): hexadecimal bitmasks whose last
 * character carries features 1..4. */
#ifndef BSF_CORE_FEATURES_H
#define BSF_CORE_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

/* Nbsf_Management features (TS 29.521 clause 5.8). */
enum {
    BSF_FEATURE_MULTI_UE_ADDR = 1,
    BSF_FEATURE_BINDING_UPDATE = 2,
    BSF_FEATURE_SAME_PCF = 3,
};

/* What this BSF implements: MultiUeAddr, BindingUpdate and SamePcf. */
#define BSF_SUPPORTED_FEATURES "7"

/* True when feature number `feature` (1-based) is set in the hex string. */
bool bsf_features_has(const char *hex, unsigned feature);

/* Writes the intersection of two feature strings without leading zeros ("0" when empty). */
void bsf_features_intersect(const char *a, const char *b, char *out, size_t cap);

#endif
