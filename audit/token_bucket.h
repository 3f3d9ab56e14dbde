/* A token bucket: at most `rate` tokens a second, `burst` at once. One thread (the audit's). */
#ifndef BSF_AUDIT_TOKEN_BUCKET_H
#define BSF_AUDIT_TOKEN_BUCKET_H

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    double rate, burst, tokens;
    uint64_t last_ns;
} bsf_token_bucket_t;

/* rate 0: unlimited. Starts full. */
void bsf_token_bucket_init(bsf_token_bucket_t *b, unsigned rate, unsigned burst, uint64_t now_ns);
/* Takes a token: true, or false with *wait_ns until one is there. */
bool bsf_token_bucket_take(bsf_token_bucket_t *b, uint64_t now_ns, uint64_t *wait_ns);

#endif
