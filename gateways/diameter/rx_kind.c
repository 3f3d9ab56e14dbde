/* Kinds of Rx requests and their timeouts. */
#include "gateways/diameter/rx_kind.h"

#include <string.h>
#include <strings.h>

#include "gateways/diameter/rx_commands.h"



bsf_rx_kind_t bsf_rx_kind_classify(uint32_t code, int rx_request_type, bool session_known)
{
    switch (code) {
    case BSF_RX_CMD_AA:
        if (session_known || rx_request_type == BSF_RX_REQUEST_TYPE_UPDATE)
            return BSF_RX_AAR_U;
        return BSF_RX_AAR_I;
    case BSF_RX_CMD_ST:
        return BSF_RX_STR;
    case BSF_RX_CMD_RA:
        return BSF_RX_RAR;
    case BSF_RX_CMD_AS:
        return BSF_RX_ASR;
    default:
        return BSF_RX_OTHER;
    }
}

const char *bsf_rx_kind_name(bsf_rx_kind_t kind)
{
    static const char *const names[] = {"AAR-I", "AAR-U", "STR", "RAR", "ASR", "other"};
    return kind < BSF_RX_KIND_COUNT ? names[kind] : "other";
}

uint32_t bsf_rx_kind_timeout_ms(const bsf_diameter_settings_t *s, bsf_rx_kind_t kind)
{
    uint32_t own = 0;
    switch (kind) {
    case BSF_RX_AAR_I:
    case BSF_RX_AAR_U:
        own = s->timeout_aar_ms;
        break;
    case BSF_RX_STR:
        own = s->timeout_str_ms;
        break;
    case BSF_RX_RAR:
        own = s->timeout_rar_ms;
        break;
    case BSF_RX_ASR:
        own = s->timeout_asr_ms;
        break;
    default:
        break;
    }
    return own ? own : s->timeout_ms;
}

bool bsf_rx_kind_retry_enabled(const bsf_diameter_settings_t *s, bsf_rx_kind_t kind)
{
    const char *want;
    switch (kind) {
    case BSF_RX_AAR_I:
    case BSF_RX_AAR_U:
        want = "aar";
        break;
    case BSF_RX_STR:
        want = "str";
        break;
    case BSF_RX_RAR:
        want = "rar";
        break;
    case BSF_RX_ASR:
        want = "asr";
        break;
    default:
        return false;
    }
    for (const char *p = s->retry; *p;) {
        size_t n = strcspn(p, "\n");
        if (n == strlen(want) && strncasecmp(p, want, n) == 0)
            return true;
        p += n;
        if (*p)
            p++;
    }
    return false;
}
