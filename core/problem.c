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
};

static const cause_info_t *info(bsf_cause_t cause)
{
    return (unsigned)cause < BSF_CAUSE_COUNT ? &causes[cause] : &causes[BSF_CAUSE_SYSTEM_FAILURE];
}

const char *bsf_cause_name(bsf_cause_t cause)
{
    return info(cause)->name;
}

int bsf_cause_status(bsf_cause_t cause)
{
    return info(cause)->status;
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
