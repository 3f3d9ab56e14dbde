/* Keys of the projection indexes for one binding. */
#ifndef BSF_PROJECTIONS_INDEX_KEYS_H
#define BSF_PROJECTIONS_INDEX_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "core/binding_id.h"
#include "core/pcf_binding.h"

typedef enum {
    BSF_INDEX_IPV4,
    BSF_INDEX_IPV4_ROUTE,
    BSF_INDEX_IPV6,
    BSF_INDEX_MAC,
    BSF_INDEX_SUPI,
    BSF_INDEX_GPSI,
    BSF_INDEX_DNN,
} bsf_index_kind_t;

#define BSF_INDEX_KEY_MAX (BSF_MAX_IDENTITY_LEN + 1 + 16)
/* ipv4 + routes + ipv6 + additional + routes + mac + additional + supi + gpsi + dnn */
#define BSF_INDEX_KEYS_MAX                                                                     \
    (1 + BSF_MAX_FRAME_ROUTES + 1 + BSF_MAX_ADD_ADDRESSES + BSF_MAX_FRAME_ROUTES + 1 +          \
     BSF_MAX_ADD_ADDRESSES + 3)

typedef struct {
    bsf_index_kind_t kind;
    uint8_t len;
    uint8_t key[BSF_INDEX_KEY_MAX];
} bsf_index_key_t;

/* Fills `out` (capacity BSF_INDEX_KEYS_MAX) with the binding's index keys; returns how many.
 * Equal addresses within one binding give equal keys; callers put and delete idempotently. */
size_t bsf_index_keys(const bsf_pcf_binding_t *b, const bsf_binding_id_t *id,
                      bsf_index_key_t *out);

/* Key prefixes used by lookups (without the id suffix); return the prefix length. */
size_t bsf_index_ipv4_prefix(const bsf_ipv4_t *a, uint8_t *out);
size_t bsf_index_ipv4_route_prefix(const uint8_t addr[4], unsigned len, uint8_t *out);
size_t bsf_index_ipv6_prefix(const uint8_t addr[16], unsigned len, uint8_t *out);
size_t bsf_index_mac_prefix(const bsf_mac48_t *m, uint8_t *out);
size_t bsf_index_text_prefix(const char *text, uint8_t *out);
/* lowercase DNN | 0, followed by the S-NSSAI (sst, has-sd, sd) when `snssai` is not NULL. */
size_t bsf_index_dnn_prefix(const char *dnn, const bsf_snssai_t *snssai, uint8_t *out);

#endif
