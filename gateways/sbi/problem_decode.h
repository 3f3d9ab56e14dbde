/* Decoding of ProblemDetails (TS 29.571 §5.2.4.1) answers the SBI client receives. */
#ifndef BSF_GATEWAYS_SBI_PROBLEM_DECODE_H
#define BSF_GATEWAYS_SBI_PROBLEM_DECODE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    int status;          /* the body's status, 0 when absent */
    char cause[64];      /* empty when absent */
    char title[128];
    char detail[256];    /* truncated when longer */
    size_t n_invalid_params;
    char first_invalid_param[128]; /* invalidParams[0].param, empty when none */
} bsf_sbi_problem_t;

/* True for application/problem+json (parameters after ';' ignored, case-insensitive). */
bool bsf_sbi_is_problem_json(const char *content_type);

/* Decodes `len` bytes of JSON. Returns 0, or -1 when the body is not a JSON object or a
 * member has the wrong type (then *out holds what was read before). Never reads past len. */
int bsf_sbi_problem_decode(const char *body, size_t len, bsf_sbi_problem_t *out);

#endif
