/* Binding identifiers: 16 bytes = site id (2, big endian) | site sequence (6) | random (8).
 * The text form in resource URIs is 32 lowercase hex digits. Ids are never reused; the
 * random half makes them unguessable. */
#ifndef BSF_CORE_BINDING_ID_H
#define BSF_CORE_BINDING_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t b[16];
} bsf_binding_id_t;

#define BSF_BINDING_ID_TEXT_LEN 32

void bsf_binding_id_make(uint16_t site, uint64_t seq, const uint8_t random[8],
                         bsf_binding_id_t *out);
/* Writes 32 hex digits and a NUL. */
void bsf_binding_id_format(const bsf_binding_id_t *id, char out[BSF_BINDING_ID_TEXT_LEN + 1]);
bool bsf_binding_id_parse(const char *s, size_t n, bsf_binding_id_t *out);
uint16_t bsf_binding_id_site(const bsf_binding_id_t *id);

#endif
