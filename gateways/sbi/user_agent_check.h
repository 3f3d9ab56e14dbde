/* Validation of the consumer's User-Agent on the SBI (seed §3.37, TS 29.500 §5.2.2.2): the
 * value starts with the consumer's NF type, "<NFType>-<instance>[ <FQDN>]", and that type
 * must be one the operator allows. Pure functions; any thread. */
#ifndef BSF_GATEWAYS_SBI_USER_AGENT_CHECK_H
#define BSF_GATEWAYS_SBI_USER_AGENT_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* sbi.user_agent.*. */
typedef struct {
    bool enabled;
    char validation[8];           /* "strict": a request without User-Agent is refused;
                                   * "relaxed": it passes */
    char consumer_nf_types[512];  /* '\n'-joined NF types allowed (case-sensitive) */
    unsigned error_status;        /* HTTP status of a refusal */
    char error_cause[64];         /* ProblemDetails.cause of a refusal */
} bsf_user_agent_settings_t;

typedef enum {
    BSF_UA_OK,
    BSF_UA_MISSING,     /* strict and none (or an empty one) */
    BSF_UA_MULTIPLE,    /* more than one header field, or a list */
    BSF_UA_MALFORMED,   /* not <NFType>-<instance> */
    BSF_UA_NOT_ALLOWED, /* an NF type not in consumer_nf_types */
} bsf_ua_verdict_t;

/* Checks the `n_values` values of the request's user-agent fields against `s` (which must be
 * enabled). On refusal writes why into `why` (for the ProblemDetails detail). */
bsf_ua_verdict_t bsf_user_agent_check(const bsf_user_agent_settings_t *s,
                                      const char *const *values, size_t n_values, char *why,
                                      size_t why_cap);

/* Checks the settings at start (a cause token, NF types when enabled). Returns 0 or -1 with a
 * message naming the key. */
int bsf_user_agent_settings_check(const bsf_user_agent_settings_t *s, char *err,
                                  size_t err_cap);

#endif
