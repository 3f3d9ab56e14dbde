/* Application error causes (TS 29.500 Table 5.2.7.2-1, TS 29.521 clause 5.7.3) and the
 * problem a rule reports. A problem is plain data: the SBI gateway renders it as
 * ProblemDetails; the Diameter gateway maps it to a Result-Code. */
#ifndef BSF_CORE_PROBLEM_H
#define BSF_CORE_PROBLEM_H

#include <stddef.h>

typedef enum {
    BSF_CAUSE_NONE = 0,
    BSF_CAUSE_INVALID_MSG_FORMAT,
    BSF_CAUSE_INVALID_QUERY_PARAM,
    BSF_CAUSE_MANDATORY_IE_MISSING,
    BSF_CAUSE_MANDATORY_IE_INCORRECT,
    BSF_CAUSE_OPTIONAL_IE_INCORRECT,
    BSF_CAUSE_MANDATORY_QUERY_PARAM_MISSING,
    BSF_CAUSE_MANDATORY_QUERY_PARAM_INCORRECT,
    BSF_CAUSE_OPTIONAL_QUERY_PARAM_INCORRECT,
    BSF_CAUSE_UNSPECIFIED_MSG_FAILURE,
    BSF_CAUSE_MULTIPLE_BINDING_INFO_FOUND,
    BSF_CAUSE_EXISTING_BINDING_INFO_FOUND,
    BSF_CAUSE_MODIFICATION_NOT_ALLOWED,
    BSF_CAUSE_RESOURCE_CONTEXT_NOT_FOUND,
    BSF_CAUSE_RESOURCE_URI_STRUCTURE_NOT_FOUND,
    BSF_CAUSE_METHOD_NOT_ALLOWED,
    BSF_CAUSE_INCORRECT_LENGTH,
    BSF_CAUSE_PAYLOAD_TOO_LARGE,
    BSF_CAUSE_URI_TOO_LONG,
    BSF_CAUSE_UNSUPPORTED_MEDIA_TYPE,
    BSF_CAUSE_SYSTEM_FAILURE,
    BSF_CAUSE_NF_CONGESTION,
    BSF_CAUSE_TIMED_OUT_REQUEST,
    BSF_CAUSE_INSUFFICIENT_STORAGE,
    BSF_CAUSE_NF_CONGESTION_RISK,      /* 503: shedding before overload (write queue full) */
    BSF_CAUSE_HEADERS_TOO_LARGE,       /* 431 (RFC 6585 §5): header list over the limit */
    BSF_CAUSE_UNAUTHORIZED,       /* 401: no or an invalid access token (RFC 6750) */
    BSF_CAUSE_INSUFFICIENT_SCOPE, /* 403: the token does not grant the service */
    BSF_CAUSE_COUNT
} bsf_cause_t;

/* The 3GPP cause name sent in ProblemDetails.cause (several internal causes share one). */
const char *bsf_cause_name(bsf_cause_t cause);
/* The HTTP status of the cause. */
int bsf_cause_status(bsf_cause_t cause);
/* A short title for ProblemDetails.title. */
const char *bsf_cause_title(bsf_cause_t cause);

/* Seed §3.33: the operator's HTTP status and cause per error condition. A condition is named
 * by its id (bsf_cause_id: the lowercase internal name, e.g. "existing_binding_info_found");
 * status 0 / name "" keep the built-in ones. */
#define BSF_CAUSE_NAME_MAX 64
typedef struct {
    int status[BSF_CAUSE_COUNT];
    char name[BSF_CAUSE_COUNT][BSF_CAUSE_NAME_MAX];
} bsf_cause_overrides_t;

/* "existing_binding_info_found", ... ("" for BSF_CAUSE_NONE). */
const char *bsf_cause_id(bsf_cause_t cause);
/* Parses '\n'-separated `ID=STATUS[:CAUSE]` items (STATUS 400-599, CAUSE [A-Za-z0-9_]).
 * Returns 0, or -1 with the reason. */
int bsf_cause_overrides_parse(const char *list, bsf_cause_overrides_t *out, char *why,
                              size_t cap);
/* Makes the overrides (copied) apply to bsf_cause_name and bsf_cause_status. Once, at start,
 * before any thread uses the causes. */
void bsf_cause_overrides_install(const bsf_cause_overrides_t *o);

#define BSF_PROBLEM_MAX_PARAMS 4
#define BSF_PROBLEM_PARAM_MAX 96
#define BSF_PROBLEM_TEXT_MAX 192

typedef struct {
    char param[BSF_PROBLEM_PARAM_MAX];  /* JSON pointer, "query x" or "header x" */
    char reason[BSF_PROBLEM_TEXT_MAX];
} bsf_invalid_param_t;

typedef struct {
    bsf_cause_t cause;
    char detail[BSF_PROBLEM_TEXT_MAX];
    size_t n_params;
    bsf_invalid_param_t params[BSF_PROBLEM_MAX_PARAMS];
} bsf_problem_t;

/* Sets cause and printf-style detail; clears the parameter list. */
void bsf_problem_set(bsf_problem_t *p, bsf_cause_t cause, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends one invalid parameter (ignored when the list is full). */
void bsf_problem_add_param(bsf_problem_t *p, const char *param, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Sets the cause, one parameter and a detail naming it; returns -1 for convenience. */
int bsf_problem_fail(bsf_problem_t *p, bsf_cause_t cause, const char *param, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The refusal when none of several members (at least one required) is given: `cause` with
 * `detail`, and each name of the NULL-terminated `params` as a parameter with `reason`.
 * Returns -1 for convenience. */
int bsf_problem_fail_none_of(bsf_problem_t *p, bsf_cause_t cause, const char *detail,
                             const char *reason, const char *const *params);

#endif
