/* Retry profiles of the SBI client; see sbi_retry.h. */
#include "gateways/sbi/sbi_retry.h"

#include <string.h>

#include "core/sbi_time.h"

const bsf_sbi_retry_profile_t bsf_sbi_retry_default = {
    .max_retries = 2,
    .n_statuses = 5,
    .statuses = {429, 500, 502, 503, 504},
    .on_timeout = true,
    .on_connect_error = true,
    .attempt_timeout_ms = 0,
    .backoff_initial_ms = 50,
    .backoff_max_ms = 1000,
    .honour_retry_after = true,
};

int64_t bsf_sbi_retry_after_ms(const char *value, int64_t now_ms)
{
    if (!value || !*value)
        return -1;
    size_t n = strlen(value);
    bool digits = true;
    for (size_t i = 0; i < n; i++)
        digits = digits && value[i] >= '0' && value[i] <= '9';
    if (digits) {
        if (n > 9)
            return -1;
        int64_t s = 0;
        for (size_t i = 0; i < n; i++)
            s = s * 10 + (value[i] - '0');
        return s * 1000;
    }
    int64_t at = bsf_sbi_time_parse(value, n);
    if (at < 0)
        return -1;
    return at > now_ms ? at - now_ms : 0;
}

static bool status_retries(const bsf_sbi_retry_profile_t *p, int status)
{
    for (size_t i = 0; i < p->n_statuses && i < BSF_SBI_RETRY_MAX_STATUSES; i++)
        if (p->statuses[i] == status)
            return true;
    return false;
}

int64_t bsf_sbi_retry_decide(const bsf_sbi_retry_profile_t *p, unsigned done,
                             bsf_sbi_attempt_end_t end, int status, int64_t retry_after_ms,
                             int64_t remaining_ms)
{
    if (!p || done == 0 || done > p->max_retries)
        return -1;
    bool eligible = (end == BSF_SBI_ATTEMPT_ANSWER && status_retries(p, status)) ||
                    (end == BSF_SBI_ATTEMPT_TIMEOUT && p->on_timeout) ||
                    (end == BSF_SBI_ATTEMPT_CONNECT_ERROR && p->on_connect_error);
    if (!eligible || (p->stop_on_retry_after && retry_after_ms >= 0))
        return -1;
    int64_t delay = p->backoff_initial_ms;
    for (unsigned i = 1; i < done && delay < p->backoff_max_ms; i++)
        delay *= 2;
    if (delay > p->backoff_max_ms)
        delay = p->backoff_max_ms;
    if (p->honour_retry_after && retry_after_ms > delay)
        delay = retry_after_ms;
    /* A retry that could not even start before the deadline is no retry. */
    if (delay >= remaining_ms)
        return -1;
    return delay;
}
