/* The kinds of Rx requests the gateway tells apart, and the answer timeout of each (seed
 * §3.22: message level, else interface level). Pure. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_KIND_H
#define BSF_GATEWAYS_DIAMETER_RX_KIND_H

#include <stdbool.h>
#include <stdint.h>

#include "gateways/diameter/rx_settings.h"

typedef enum {
    BSF_RX_AAR_I = 0, /* AAR opening a session (new Session-Id) */
    BSF_RX_AAR_U,     /* AAR of a known session, or with Rx-Request-Type UPDATE_REQUEST */
    BSF_RX_STR,
    BSF_RX_RAR,
    BSF_RX_ASR,
    BSF_RX_OTHER,
    BSF_RX_KIND_COUNT
} bsf_rx_kind_t;

#define BSF_RX_REQUEST_TYPE_NONE (-1)
#define BSF_RX_REQUEST_TYPE_INITIAL 0
#define BSF_RX_REQUEST_TYPE_UPDATE 1

/* Classifies an Rx request by command code, Rx-Request-Type (BSF_RX_REQUEST_TYPE_NONE when
 * absent) and whether the gateway knows its session. */
bsf_rx_kind_t bsf_rx_kind_classify(uint32_t code, int rx_request_type, bool session_known);

/* "AAR-I", "AAR-U", "STR", "RAR", "ASR", "other". */
const char *bsf_rx_kind_name(bsf_rx_kind_t kind);

/* Answer timeout of a kind: the command's own setting when non-zero, else the interface's. */
uint32_t bsf_rx_kind_timeout_ms(const bsf_diameter_settings_t *s, bsf_rx_kind_t kind);

/* Whether seed §3.15 retries apply to the kind under `s->retry` ("aar", "str", "rar", "asr"
 * items; AAR covers AAR-I and AAR-U). */
bool bsf_rx_kind_retry_enabled(const bsf_diameter_settings_t *s, bsf_rx_kind_t kind);

#endif
