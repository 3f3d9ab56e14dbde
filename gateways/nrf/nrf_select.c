/* The NRFs by priority and their health; see nrf_select.h. */
#include "gateways/nrf/nrf_select.h"

#include <stdio.h>
#include <string.h>

#include "common/text_list.h"

size_t bsf_nrf_select_init(bsf_nrf_select_t *s, const char *uri_list)
{
    memset(s, 0, sizeof *s);
    const char *cur = uri_list;
    char item[256];
    while (s->n < BSF_NRF_MAX_NRFS && bsf_text_list_next(&cur, item, sizeof item, NULL)) {
        size_t len = strlen(item);
        while (len && item[len - 1] == '/')
            item[--len] = '\0';
        if (len)
            snprintf(s->peers[s->n++].uri, sizeof s->peers[0].uri, "%s", item);
    }
    return s->n;
}

bool bsf_nrf_select_healthy(const bsf_nrf_select_t *s, int i, int64_t now_ms)
{
    return i >= 0 && (size_t)i < s->n && s->peers[i].unhealthy_until_ms <= now_ms;
}

int bsf_nrf_select_pick(const bsf_nrf_select_t *s, int64_t now_ms, uint32_t skip)
{
    for (size_t i = 0; i < s->n; i++)
        if (!(skip & (1u << i)) && bsf_nrf_select_healthy(s, (int)i, now_ms))
            return (int)i;
    return -1;
}

int64_t bsf_nrf_select_next_recovery(const bsf_nrf_select_t *s, int64_t now_ms)
{
    int64_t best = -1;
    for (size_t i = 0; i < s->n; i++) {
        int64_t left = s->peers[i].unhealthy_until_ms - now_ms;
        if (left > 0 && (best < 0 || left < best))
            best = left;
    }
    return best;
}

void bsf_nrf_select_failed(bsf_nrf_select_t *s, int i, int64_t now_ms, int64_t for_ms)
{
    if (i < 0 || (size_t)i >= s->n)
        return;
    s->peers[i].unhealthy_until_ms = now_ms + (for_ms > 0 ? for_ms : 1);
    s->peers[i].successive_failures++;
    s->peers[i].successive_successes = 0;
}

void bsf_nrf_select_succeeded(bsf_nrf_select_t *s, int i)
{
    if (i < 0 || (size_t)i >= s->n)
        return;
    s->peers[i].unhealthy_until_ms = 0;
    s->peers[i].successive_successes++;
    s->peers[i].successive_failures = 0;
}
