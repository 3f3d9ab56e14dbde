/* The x-forwarded-client-cert (XFCC) header an SCP or proxy adds (seed §3.24): its parser and
 * the check that the request came through a configured SCP.
 *
 * Format (the Envoy convention the seed follows): elements separated by ',', one per proxy
 * that forwarded the request, the right-most added last; each element is key=value pairs
 * separated by ';' (By, Hash, Cert, Chain, Subject, URI, DNS; keys case-insensitive, unknown
 * keys kept); a value containing ',', ';' or '=' is double-quoted, with \" and \\ escapes.
 *
 * Pure functions on caller memory; any thread. */
#ifndef BSF_GATEWAYS_SBI_XFCC_H
#define BSF_GATEWAYS_SBI_XFCC_H

#include <stdbool.h>
#include <stddef.h>

#define BSF_XFCC_MAX_ELEMENTS 16
#define BSF_XFCC_MAX_FIELDS 64 /* key=value pairs over all elements */

typedef struct {
    const char *key, *value; /* into the header text; the value without its quotes */
    size_t key_len, value_len;
    bool quoted;             /* value may hold \ escapes */
    unsigned element;        /* 0 = the left-most element */
} bsf_xfcc_field_t;

typedef struct {
    unsigned n_elements;
    size_t n_fields;
    bsf_xfcc_field_t fields[BSF_XFCC_MAX_FIELDS];
} bsf_xfcc_t;

/* Starts an empty list of elements. */
void bsf_xfcc_init(bsf_xfcc_t *x);
/* Parses one header value (`n` bytes, need not end in NUL) and appends its elements: several
 * header fields of the name are one list in order (RFC 9110 §5.3). The fields point into
 * `v`, which must outlive `x`. Returns 0, or -1 when the value is malformed (an empty element
 * or pair, a pair without '=', an unterminated quote, text after a closing quote, a control
 * character) or holds more than BSF_XFCC_MAX_ELEMENTS / BSF_XFCC_MAX_FIELDS; then `x` holds
 * no usable result. */
int bsf_xfcc_parse(bsf_xfcc_t *x, const char *v, size_t n);
/* True when the field's (unescaped) value equals `s` (`n` bytes), ASCII case-insensitively
 * (FQDNs and URI schemes and hosts are). */
bool bsf_xfcc_value_is(const bsf_xfcc_field_t *f, const char *s, size_t n);

/* sbi.xfcc.*: what the check compares. */
typedef struct {
    bool enabled;
    char peers[1024];      /* '\n'-joined names of the SCPs allowed */
    char match_field[8];   /* DNS, URI or By */
    unsigned match_certs;  /* right-most elements checked; 0: all */
    unsigned error_status; /* HTTP status of a refusal */
    char error_cause[64];  /* ProblemDetails.cause of a refusal */
} bsf_xfcc_settings_t;

/* The seed's exception types, and the match that succeeded. */
typedef enum {
    BSF_XFCC_OK,
    BSF_XFCC_NOT_PRESENT_OR_EMPTY,
    BSF_XFCC_INVALID,
    BSF_XFCC_MATCH_CERTS_GREATER, /* match_certs above the elements in the header */
    BSF_XFCC_NO_MATCH,            /* no configured peer among the elements checked */
} bsf_xfcc_verdict_t;

/* Checks the `n_values` values of the request's x-forwarded-client-cert fields (in order)
 * against `s`: the request passes when one of the right-most match_certs elements has a
 * match_field value naming a configured peer. On refusal writes why into `why` (for the
 * ProblemDetails detail). */
bsf_xfcc_verdict_t bsf_xfcc_check(const bsf_xfcc_settings_t *s, const char *const *values,
                                  size_t n_values, char *why, size_t why_cap);

/* The seed's name of a verdict (XFCC_HEADER_INVALID, ...); "" for BSF_XFCC_OK. */
const char *bsf_xfcc_verdict_name(bsf_xfcc_verdict_t v);

/* Checks the settings (called at start): peers when enabled, the field, a cause that is a
 * 3GPP cause token, a 4xx/5xx status. Returns 0 or -1 with a message naming the key. */
int bsf_xfcc_settings_check(const bsf_xfcc_settings_t *s, char *err, size_t err_cap);

#endif
