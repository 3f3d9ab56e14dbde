/* User-Agent validation; see user_agent_check.h. */
#include "gateways/sbi/user_agent_check.h"

#include <stdio.h>
#include <string.h>

#include "gateways/sbi/problem_json.h"

/* True when the '\n'-joined list holds the `n` bytes at `t`. */
static bool listed(const char *list, const char *t, size_t n)
{
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, "\n");
        if (len == n && memcmp(p, t, n) == 0)
            return true;
        p += len;
        if (*p)
            p++;
    }
    return false;
}

bsf_ua_verdict_t bsf_user_agent_check(const bsf_user_agent_settings_t *s,
                                      const char *const *values, size_t n_values, char *why,
                                      size_t why_cap)
{
    if (n_values > 1 || (n_values == 1 && strchr(values[0], ','))) {
        snprintf(why, why_cap, "the request has more than one User-Agent value");
        return BSF_UA_MULTIPLE;
    }
    const char *v = n_values ? values[0] : "";
    while (*v == ' ' || *v == '\t')
        v++;
    if (!*v) {
        if (strcmp(s->validation, "strict") != 0)
            return BSF_UA_OK;
        snprintf(why, why_cap, "the request has no User-Agent");
        return BSF_UA_MISSING;
    }
    size_t type_len = strcspn(v, "- \t");
    size_t inst_len = v[type_len] == '-' ? strcspn(v + type_len + 1, " \t") : 0;
    if (type_len == 0 || inst_len == 0) {
        snprintf(why, why_cap, "User-Agent '%.64s' is not <NFType>-<instance>", v);
        return BSF_UA_MALFORMED;
    }
    if (!listed(s->consumer_nf_types, v, type_len)) {
        snprintf(why, why_cap, "NF type %.*s of the User-Agent is not an allowed consumer",
                 (int)(type_len < 32 ? type_len : 32), v);
        return BSF_UA_NOT_ALLOWED;
    }
    return BSF_UA_OK;
}

int bsf_user_agent_settings_check(const bsf_user_agent_settings_t *s, char *err,
                                  size_t err_cap)
{
    if (!bsf_problem_cause_valid(s->error_cause)) {
        snprintf(err, err_cap, "sbi.user_agent.error_cause: '%s' is not a cause (A-Z, 0-9, _)",
                 s->error_cause);
        return -1;
    }
    if (s->enabled && !s->consumer_nf_types[0]) {
        snprintf(err, err_cap,
                 "sbi.user_agent.consumer_nf_types: sbi.user_agent.enabled needs at least one");
        return -1;
    }
    return 0;
}
