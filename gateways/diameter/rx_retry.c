/* Pure rules of the session retry (seed §3.15). */
#include "gateways/diameter/rx_retry.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

int bsf_rx_code_pattern_parse(const char *s, bool allow_success, bsf_rx_code_pattern_t *out,
                              char *err, size_t cap)
{
    if (strlen(s) != 4) {
        snprintf(err, cap, "'%s' is not a 4-character result-code pattern", s);
        return -1;
    }
    for (int i = 0; i < 4; i++)
        if (!(s[i] == '*' || (s[i] >= '0' && s[i] <= '9'))) {
            snprintf(err, cap, "'%s': only digits and '*' are allowed", s);
            return -1;
        }
    if (s[0] == '0') {
        snprintf(err, cap, "'%s' is not a result code (1000-5999)", s);
        return -1;
    }
    if (!allow_success && (s[0] == '2' || s[0] == '*')) {
        snprintf(err, cap, "'%s' can match a 2xxx success code, which is never retried", s);
        return -1;
    }
    memcpy(out->d, s, 4);
    return 0;
}

bool bsf_rx_code_pattern_match(const bsf_rx_code_pattern_t *p, uint32_t code)
{
    if (code < 1000 || code > 9999)
        return false;
    char c[5];
    snprintf(c, sizeof c, "%04u", (unsigned)code);
    for (int i = 0; i < 4; i++)
        if (p->d[i] != '*' && p->d[i] != c[i])
            return false;
    return true;
}

int bsf_rx_code_set_parse(const char *list, bool allow_success, bsf_rx_code_set_t *out,
                          char *err, size_t cap)
{
    out->n = 0;
    char item[64];
    const char *p = list;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n >= sizeof item) {
            snprintf(err, cap, "'%.16s...' is not a result-code pattern", p);
            return -1;
        }
        memcpy(item, p, n);
        item[n] = '\0';
        p = nl ? nl + 1 : p + n;
        if (out->n == BSF_RX_CODE_SET_MAX) {
            snprintf(err, cap, "more than %d patterns", BSF_RX_CODE_SET_MAX);
            return -1;
        }
        if (bsf_rx_code_pattern_parse(item, allow_success, &out->items[out->n], err, cap))
            return -1;
        out->n++;
    }
    return 0;
}

bool bsf_rx_code_set_match(const bsf_rx_code_set_t *s, uint32_t code)
{
    for (size_t i = 0; i < s->n; i++)
        if (bsf_rx_code_pattern_match(&s->items[i], code))
            return true;
    return false;
}

bsf_rx_originator_t bsf_rx_retry_originator(const char *dest_host, const char *origin_host,
                                            bool e_bit)
{
    if (dest_host && dest_host[0])
        return origin_host && strcasecmp(dest_host, origin_host) == 0
                   ? BSF_RX_ORIGINATOR_DESTINATION
                   : BSF_RX_ORIGINATOR_INTERMEDIATE;
    return e_bit ? BSF_RX_ORIGINATOR_INTERMEDIATE : BSF_RX_ORIGINATOR_DESTINATION;
}

bool bsf_rx_retry_wanted(const bsf_rx_retry_policy_t *p, const bsf_rx_outcome_t *o)
{
    if (!p->enabled)
        return false;
    if (o->timeout)
        return p->on_timeout;
    if (o->code >= 2000 && o->code < 3000)
        return false;
    if (!p->codes || !bsf_rx_code_set_match(p->codes, o->code))
        return false;
    return p->originator == BSF_RX_ORIGINATOR_ANY || p->originator == o->originator;
}

int bsf_rx_retry_next(const bsf_rx_retry_policy_t *p, unsigned retries_done, size_t n,
                      const bool *tried, size_t current)
{
    uint32_t max = p->max_retries ? p->max_retries : 1;
    if (retries_done >= max || n < 2 || current >= n)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!tried[i])
            return (int)i;
    if (!p->cycle_back)
        return -1;
    return (int)((current + 1) % n);
}
