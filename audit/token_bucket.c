#include "audit/token_bucket.h"

void bsf_token_bucket_init(bsf_token_bucket_t *b, unsigned rate, unsigned burst, uint64_t now_ns)
{
    b->rate = rate;
    b->burst = burst ? burst : 1;
    b->tokens = b->burst;
    b->last_ns = now_ns;
}

bool bsf_token_bucket_take(bsf_token_bucket_t *b, uint64_t now_ns, uint64_t *wait_ns)
{
    if (b->rate <= 0)
        return true;
    if (now_ns > b->last_ns) {
        b->tokens += (double)(now_ns - b->last_ns) * b->rate / 1e9;
        if (b->tokens > b->burst)
            b->tokens = b->burst;
        b->last_ns = now_ns;
    }
    if (b->tokens >= 1.0) {
        b->tokens -= 1.0;
        return true;
    }
    *wait_ns = (uint64_t)((1.0 - b->tokens) * 1e9 / b->rate) + 1;
    return false;
}
