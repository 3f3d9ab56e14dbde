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

/* The command of a kind, as an index of the per-command settings (AAR-I and AAR-U are both
 * AAR): 0 AAR, 1 STR, 2 RAR, 3 ASR; -1 for other requests. */
static int command_of(bsf_rx_kind_t kind)
{
    static const int8_t commands[BSF_RX_KIND_COUNT] = {
        [BSF_RX_AAR_I] = 0, [BSF_RX_AAR_U] = 0, [BSF_RX_STR] = 1,
        [BSF_RX_RAR] = 2,   [BSF_RX_ASR] = 3,   [BSF_RX_OTHER] = -1,
    };
    return (unsigned)kind < BSF_RX_KIND_COUNT ? commands[kind] : -1;
}

uint32_t bsf_rx_kind_timeout_ms(const bsf_diameter_settings_t *s, bsf_rx_kind_t kind)
{
    const uint32_t own[] = {s->timeout_aar_ms, s->timeout_str_ms, s->timeout_rar_ms,
                            s->timeout_asr_ms};
    int c = command_of(kind);
    return c >= 0 && own[c] ? own[c] : s->timeout_ms;
}

bool bsf_rx_kind_retry_enabled(const bsf_diameter_settings_t *s, bsf_rx_kind_t kind)
{
    static const char *const names[] = {"aar", "str", "rar", "asr"};
    int c = command_of(kind);
    if (c < 0)
        return false;
    const char *want = names[c];
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
