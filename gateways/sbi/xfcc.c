/* The XFCC parser and check; see xfcc.h. */
#include "gateways/sbi/xfcc.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "gateways/sbi/problem_json.h"

void bsf_xfcc_init(bsf_xfcc_t *x)
{
    x->n_elements = 0;
    x->n_fields = 0;
}

static bool ows(char ch)
{
    return ch == ' ' || ch == '\t';
}

static bool control(unsigned char ch)
{
    return (ch < 0x20 && ch != '\t') || ch == 0x7f;
}

/* A quoted value from v[*i] (the opening quote): sets the field's value and moves past the
 * closing quote. Returns -1 when it does not close. */
static int quoted_value(const char *v, size_t n, size_t *i, bsf_xfcc_field_t *f)
{
    size_t k = *i + 1;
    f->value = v + k;
    f->quoted = true;
    for (; k < n && v[k] != '"'; k++) {
        if (control((unsigned char)v[k]))
            return -1;
        if (v[k] == '\\' && ++k == n)
            return -1;
    }
    if (k == n)
        return -1;
    f->value_len = (size_t)(v + k - f->value);
    *i = k + 1;
    return 0;
}

/* One key=value pair from v[*i]; stops at the ';' or ',' after it (not consumed). */
static int pair(const char *v, size_t n, size_t *i, bsf_xfcc_field_t *f)
{
    size_t k = *i;
    while (k < n && ows(v[k]))
        k++;
    f->key = v + k;
    while (k < n && v[k] != '=' && v[k] != ';' && v[k] != ',' && v[k] != '"' && !ows(v[k])) {
        if (control((unsigned char)v[k]))
            return -1;
        k++;
    }
    f->key_len = (size_t)(v + k - f->key);
    if (f->key_len == 0 || k == n || v[k] != '=')
        return -1;
    k++;
    if (k < n && v[k] == '"') {
        if (quoted_value(v, n, &k, f))
            return -1;
    } else {
        f->value = v + k;
        f->quoted = false;
        while (k < n && v[k] != ';' && v[k] != ',') {
            if (control((unsigned char)v[k]) || v[k] == '"')
                return -1;
            k++;
        }
        f->value_len = (size_t)(v + k - f->value);
        while (f->value_len && ows(f->value[f->value_len - 1]))
            f->value_len--;
    }
    while (k < n && ows(v[k]))
        k++;
    if (k < n && v[k] != ';' && v[k] != ',')
        return -1; /* text after a closing quote */
    *i = k;
    return 0;
}

int bsf_xfcc_parse(bsf_xfcc_t *x, const char *v, size_t n)
{
    size_t i = 0;
    if (n == 0)
        return -1;
    for (;;) {
        if (x->n_elements == BSF_XFCC_MAX_ELEMENTS)
            return -1;
        unsigned element = x->n_elements++;
        for (;;) { /* the pairs of one element */
            if (x->n_fields == BSF_XFCC_MAX_FIELDS)
                return -1;
            bsf_xfcc_field_t *f = &x->fields[x->n_fields];
            if (pair(v, n, &i, f))
                return -1;
            f->element = element;
            x->n_fields++;
            if (i == n)
                return 0;
            if (v[i++] == ',')
                break;
        }
    }
}

bool bsf_xfcc_value_is(const bsf_xfcc_field_t *f, const char *s, size_t n)
{
    size_t k = 0, j = 0;
    for (; k < f->value_len; k++, j++) {
        char ch = f->value[k];
        if (f->quoted && ch == '\\' && k + 1 < f->value_len)
            ch = f->value[++k];
        if (j == n || tolower((unsigned char)ch) != tolower((unsigned char)s[j]))
            return false;
    }
    return j == n;
}

const char *bsf_xfcc_verdict_name(bsf_xfcc_verdict_t v)
{
    static const char *const names[] = {
        [BSF_XFCC_OK] = "",
        [BSF_XFCC_NOT_PRESENT_OR_EMPTY] = "XFCC_HEADER_NOT_PRESENT_OR_EMPTY",
        [BSF_XFCC_INVALID] = "XFCC_HEADER_INVALID",
        [BSF_XFCC_MATCH_CERTS_GREATER] = "XFCC_MATCHCERTCOUNT_GREATER_THAN_CERTS_IN_HEADER",
        [BSF_XFCC_NO_MATCH] = "XFCC_HEADER_VALIDATION_FAILED",
    };
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "";
}

/* True when the value names one of the '\n'-joined peers. */
static bool names_a_peer(const bsf_xfcc_field_t *f, const char *peers)
{
    for (const char *p = peers; *p;) {
        size_t len = strcspn(p, "\n");
        if (len && bsf_xfcc_value_is(f, p, len))
            return true;
        p += len;
        if (*p)
            p++;
    }
    return false;
}

static bool blank(const char *v)
{
    while (ows(*v))
        v++;
    return *v == '\0';
}

bsf_xfcc_verdict_t bsf_xfcc_check(const bsf_xfcc_settings_t *s, const char *const *values,
                                  size_t n_values, char *why, size_t why_cap)
{
    bool present = false;
    for (size_t i = 0; i < n_values; i++)
        present = present || !blank(values[i]);
    if (!present) {
        snprintf(why, why_cap, "xfcc header is not present or empty in the request");
        return BSF_XFCC_NOT_PRESENT_OR_EMPTY;
    }
    bsf_xfcc_t x;
    bsf_xfcc_init(&x);
    for (size_t i = 0; i < n_values; i++)
        if (bsf_xfcc_parse(&x, values[i], strlen(values[i]))) {
            snprintf(why, why_cap, "xfcc header is invalid");
            return BSF_XFCC_INVALID;
        }
    if (s->match_certs > x.n_elements) {
        snprintf(why, why_cap, "matchCerts count (%u) is greater than the certs in the request (%u)",
                 s->match_certs, x.n_elements);
        return BSF_XFCC_MATCH_CERTS_GREATER;
    }
    unsigned first = s->match_certs ? x.n_elements - s->match_certs : 0;
    size_t fn = strlen(s->match_field);
    for (size_t i = 0; i < x.n_fields; i++) {
        const bsf_xfcc_field_t *f = &x.fields[i];
        if (f->element >= first && f->key_len == fn &&
            strncasecmp(f->key, s->match_field, fn) == 0 && names_a_peer(f, s->peers))
            return BSF_XFCC_OK;
    }
    snprintf(why, why_cap, "no configured SCP in the %s of the right-most %u xfcc element(s)",
             s->match_field, x.n_elements - first);
    return BSF_XFCC_NO_MATCH;
}

int bsf_xfcc_settings_check(const bsf_xfcc_settings_t *s, char *err, size_t err_cap)
{
    if (!bsf_problem_cause_valid(s->error_cause)) {
        snprintf(err, err_cap, "sbi.xfcc.error_cause: '%s' is not a cause (A-Z, 0-9, _)",
                 s->error_cause);
        return -1;
    }
    if (s->enabled && !s->peers[0]) {
        snprintf(err, err_cap, "sbi.xfcc.peers: sbi.xfcc.enabled needs at least one peer");
        return -1;
    }
    if (s->match_certs > BSF_XFCC_MAX_ELEMENTS) {
        snprintf(err, err_cap, "sbi.xfcc.match_certs: at most %u", BSF_XFCC_MAX_ELEMENTS);
        return -1;
    }
    return 0;
}
