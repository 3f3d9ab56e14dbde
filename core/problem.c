#include "core/problem.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    const char *name;
    int status;
    const char *title;
} cause_info_t;

/* TS 29.500 defines no cause for 405, 413, 414 and 415; the closest generic ones are used. */
static const cause_info_t causes[BSF_CAUSE_COUNT] = {
    [BSF_CAUSE_NONE] = {"", 200, ""},
    [BSF_CAUSE_INVALID_MSG_FORMAT] = {"INVALID_MSG_FORMAT", 400, "Invalid message format"},
    [BSF_CAUSE_INVALID_QUERY_PARAM] = {"INVALID_QUERY_PARAM", 400, "Invalid query parameter"},
    [BSF_CAUSE_MANDATORY_IE_MISSING] = {"MANDATORY_IE_MISSING", 400, "Mandatory IE missing"},
    [BSF_CAUSE_MANDATORY_IE_INCORRECT] = {"MANDATORY_IE_INCORRECT", 400,
                                          "Mandatory IE incorrect"},
    [BSF_CAUSE_OPTIONAL_IE_INCORRECT] = {"OPTIONAL_IE_INCORRECT", 400, "Optional IE incorrect"},
    [BSF_CAUSE_MANDATORY_QUERY_PARAM_MISSING] = {"MANDATORY_QUERY_PARAM_MISSING", 400,
                                                 "Mandatory query parameter missing"},
    [BSF_CAUSE_MANDATORY_QUERY_PARAM_INCORRECT] = {"MANDATORY_QUERY_PARAM_INCORRECT", 400,
                                                   "Mandatory query parameter incorrect"},
    [BSF_CAUSE_OPTIONAL_QUERY_PARAM_INCORRECT] = {"OPTIONAL_QUERY_PARAM_INCORRECT", 400,
                                                  "Optional query parameter incorrect"},
    [BSF_CAUSE_UNSPECIFIED_MSG_FAILURE] = {"UNSPECIFIED_MSG_FAILURE", 400, "Bad request"},
    [BSF_CAUSE_MULTIPLE_BINDING_INFO_FOUND] = {"MULTIPLE_BINDING_INFO_FOUND", 400,
                                               "Multiple binding information found"},
    [BSF_CAUSE_EXISTING_BINDING_INFO_FOUND] = {"EXISTING_BINDING_INFO_FOUND", 403,
                                               "Existing binding information found"},
    [BSF_CAUSE_MODIFICATION_NOT_ALLOWED] = {"MODIFICATION_NOT_ALLOWED", 403,
                                            "Modification not allowed"},
    [BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND] = {"RESOURCE_CONTEXT_NOT_FOUND", 404, "Not found"},
    [BSF_CAUSE_RESOURCE_URI_STRUCTURE_NOT_FOUND] = {"RESOURCE_URI_STRUCTURE_NOT_FOUND", 404,
                                                    "Not found"},
    [BSF_CAUSE_METHOD_NOT_ALLOWED] = {"UNSPECIFIED_MSG_FAILURE", 405, "Method not allowed"},
    [BSF_CAUSE_INCORRECT_LENGTH] = {"INCORRECT_LENGTH", 411, "Length required"},
    [BSF_CAUSE_PAYLOAD_TOO_LARGE] = {"UNSPECIFIED_MSG_FAILURE", 413, "Content too large"},
    [BSF_CAUSE_URI_TOO_LONG] = {"UNSPECIFIED_MSG_FAILURE", 414, "URI too long"},
    [BSF_CAUSE_UNSUPPORTED_MEDIA_TYPE] = {"INVALID_MSG_FORMAT", 415, "Unsupported media type"},
    [BSF_CAUSE_SYSTEM_FAILURE] = {"SYSTEM_FAILURE", 500, "System failure"},
    [BSF_CAUSE_NF_CONGESTION] = {"NF_CONGESTION", 503, "NF congestion"},
    [BSF_CAUSE_TIMED_OUT_REQUEST] = {"TIMED_OUT_REQUEST", 504, "Timed out request"},
    [BSF_CAUSE_INSUFFICIENT_STORAGE] = {"INSUFFICIENT_RESOURCES", 507, "Insufficient storage"},
    [BSF_CAUSE_NF_CONGESTION_RISK] = {"NF_CONGESTION_RISK", 503, "NF congestion risk"},
    [BSF_CAUSE_HEADERS_TOO_LARGE] = {"UNSPECIFIED_MSG_FAILURE", 431,
                                     "Request header fields too large"},
    /* TS 29.500 has no cause for OAuth2 refusals: WWW-Authenticate says why (RFC 6750), and
     * ProblemDetails goes without a cause (an empty name is left out). */
    [BSF_CAUSE_UNAUTHORIZED] = {"", 401, "Unauthorized"},
    [BSF_CAUSE_INSUFFICIENT_SCOPE] = {"", 403, "Forbidden"},
};

static const cause_info_t *info(bsf_cause_t cause)
{
    return (unsigned)cause < BSF_CAUSE_COUNT ? &causes[cause] : &causes[BSF_CAUSE_SYSTEM_FAILURE];
}

static bsf_cause_overrides_t overrides; /* set once at start (seed §3.33) */

static bsf_cause_t valid(bsf_cause_t cause)
{
    return (unsigned)cause < BSF_CAUSE_COUNT ? cause : BSF_CAUSE_SYSTEM_FAILURE;
}

const char *bsf_cause_name(bsf_cause_t cause)
{
    const char *o = overrides.name[valid(cause)];
    return o[0] ? o : info(cause)->name;
}

int bsf_cause_status(bsf_cause_t cause)
{
    int o = overrides.status[valid(cause)];
    return o ? o : info(cause)->status;
}

static const char *const ids[BSF_CAUSE_COUNT] = {
    [BSF_CAUSE_NONE] = "",
    [BSF_CAUSE_INVALID_MSG_FORMAT] = "invalid_msg_format",
    [BSF_CAUSE_INVALID_QUERY_PARAM] = "invalid_query_param",
    [BSF_CAUSE_MANDATORY_IE_MISSING] = "mandatory_ie_missing",
    [BSF_CAUSE_MANDATORY_IE_INCORRECT] = "mandatory_ie_incorrect",
    [BSF_CAUSE_OPTIONAL_IE_INCORRECT] = "optional_ie_incorrect",
    [BSF_CAUSE_MANDATORY_QUERY_PARAM_MISSING] = "mandatory_query_param_missing",
    [BSF_CAUSE_MANDATORY_QUERY_PARAM_INCORRECT] = "mandatory_query_param_incorrect",
    [BSF_CAUSE_OPTIONAL_QUERY_PARAM_INCORRECT] = "optional_query_param_incorrect",
    [BSF_CAUSE_UNSPECIFIED_MSG_FAILURE] = "unspecified_msg_failure",
    [BSF_CAUSE_MULTIPLE_BINDING_INFO_FOUND] = "multiple_binding_info_found",
    [BSF_CAUSE_EXISTING_BINDING_INFO_FOUND] = "existing_binding_info_found",
    [BSF_CAUSE_MODIFICATION_NOT_ALLOWED] = "modification_not_allowed",
    [BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND] = "resource_context_not_found",
    [BSF_CAUSE_RESOURCE_URI_STRUCTURE_NOT_FOUND] = "resource_uri_structure_not_found",
    [BSF_CAUSE_METHOD_NOT_ALLOWED] = "method_not_allowed",
    [BSF_CAUSE_INCORRECT_LENGTH] = "incorrect_length",
    [BSF_CAUSE_PAYLOAD_TOO_LARGE] = "payload_too_large",
    [BSF_CAUSE_URI_TOO_LONG] = "uri_too_long",
    [BSF_CAUSE_UNSUPPORTED_MEDIA_TYPE] = "unsupported_media_type",
    [BSF_CAUSE_SYSTEM_FAILURE] = "system_failure",
    [BSF_CAUSE_NF_CONGESTION] = "nf_congestion",
    [BSF_CAUSE_TIMED_OUT_REQUEST] = "timed_out_request",
    [BSF_CAUSE_INSUFFICIENT_STORAGE] = "insufficient_storage",
    [BSF_CAUSE_NF_CONGESTION_RISK] = "nf_congestion_risk",
    [BSF_CAUSE_HEADERS_TOO_LARGE] = "headers_too_large",
    [BSF_CAUSE_UNAUTHORIZED] = "unauthorized",
    [BSF_CAUSE_INSUFFICIENT_SCOPE] = "insufficient_scope",
};

const char *bsf_cause_id(bsf_cause_t cause)
{
    return ids[valid(cause)] ? ids[valid(cause)] : "";
}

/* One ID=STATUS[:CAUSE] item of `len` bytes. Returns 0 or -1. */
static int override_item(const char *item, size_t len, bsf_cause_overrides_t *out)
{
    const char *eq = memchr(item, '=', len);
    if (!eq)
        return -1;
    size_t idlen = (size_t)(eq - item);
    int which = -1;
    for (int c = 1; c < BSF_CAUSE_COUNT; c++)
        if (ids[c] && strlen(ids[c]) == idlen && memcmp(ids[c], item, idlen) == 0)
            which = c;
    const char *p = eq + 1, *end = item + len;
    int status = 0, digits = 0;
    for (; p < end && *p >= '0' && *p <= '9' && digits < 3; p++, digits++)
        status = status * 10 + (*p - '0');
    if (which < 0 || digits != 3 || status < 400 || status > 599)
        return -1;
    size_t nlen = 0;
    if (p < end) {
        if (*p++ != ':')
            return -1;
        nlen = (size_t)(end - p);
        if (!nlen || nlen >= BSF_CAUSE_NAME_MAX)
            return -1;
        for (size_t i = 0; i < nlen; i++)
            if (!((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= 'a' && p[i] <= 'z') ||
                  (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
                return -1;
    }
    out->status[which] = status;
    memcpy(out->name[which], p, nlen);
    out->name[which][nlen] = '\0';
    return 0;
}

int bsf_cause_overrides_parse(const char *list, bsf_cause_overrides_t *out, char *why,
                              size_t cap)
{
    memset(out, 0, sizeof *out);
    for (const char *p = list; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len && override_item(p, len, out)) {
            snprintf(why, cap,
                     "'%.*s' is not CONDITION=STATUS[:CAUSE] (a condition id such as "
                     "existing_binding_info_found, status 400-599, cause [A-Za-z0-9_])",
                     (int)(len < 64 ? len : 64), p);
            return -1;
        }
        p = nl ? nl + 1 : p + len;
    }
    return 0;
}

void bsf_cause_overrides_install(const bsf_cause_overrides_t *o)
{
    overrides = *o;
}

const char *bsf_cause_title(bsf_cause_t cause)
{
    return info(cause)->title;
}

void bsf_problem_set(bsf_problem_t *p, bsf_cause_t cause, const char *fmt, ...)
{
    va_list ap;
    p->cause = cause;
    p->n_params = 0;
    va_start(ap, fmt);
    vsnprintf(p->detail, sizeof p->detail, fmt, ap);
    va_end(ap);
}

void bsf_problem_add_param(bsf_problem_t *p, const char *param, const char *fmt, ...)
{
    if (p->n_params >= BSF_PROBLEM_MAX_PARAMS)
        return;
    bsf_invalid_param_t *ip = &p->params[p->n_params++];
    snprintf(ip->param, sizeof ip->param, "%s", param);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ip->reason, sizeof ip->reason, fmt, ap);
    va_end(ap);
}

int bsf_problem_fail(bsf_problem_t *p, bsf_cause_t cause, const char *param, const char *fmt, ...)
{
    char reason[BSF_PROBLEM_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    bsf_problem_set(p, cause, "%s: %s", param, reason);
    bsf_problem_add_param(p, param, "%s", reason);
    return -1;
}

int bsf_problem_fail_none_of(bsf_problem_t *p, bsf_cause_t cause, const char *detail,
                             const char *reason, const char *const *params)
{
    bsf_problem_set(p, cause, "%s", detail);
    for (; *params; params++)
        bsf_problem_add_param(p, *params, "%s", reason);
    return -1;
}
