/* 3gpp-Sbi-Binding / 3gpp-Sbi-Routing-Binding values (TS 29.500 §5.2.3.2.6, §6.12): the
 * binding level and the NF instance, NF set and service they name, for alternate routing.
 * Pure; any thread. */
#ifndef BSF_GATEWAYS_SBI_SBI_BINDING_H
#define BSF_GATEWAYS_SBI_SBI_BINDING_H

#include <stddef.h>

typedef enum {
    BSF_BINDING_NONE = 0,
    BSF_BINDING_NF_INSTANCE,
    BSF_BINDING_NF_SET,
    BSF_BINDING_NF_SERVICE_INSTANCE,
    BSF_BINDING_NF_SERVICE_SET,
} bsf_binding_level_t;

typedef struct {
    bsf_binding_level_t level; /* bl= */
    char nf_instance[64];      /* nfinst=, "" when absent */
    char nf_set[200];          /* nfset=, "" when absent */
    char service_name[64];     /* servname=, "" when absent */
} bsf_sbi_binding_t;

/* Parses "bl=<level>; nfinst=<id>; nfset=<set>; ..." (parameters separated by ';', spaces
 * around them allowed, unknown parameters ignored, values as tokens). Returns 0, or -1 with
 * *out zeroed: no or unknown `bl`, a parameter without '=', a value too long or with a
 * control character. */
int bsf_sbi_binding_parse(const char *value, size_t len, bsf_sbi_binding_t *out);

/* The NF set a request bound by `b` may be re-sent to after its producer failed (TS 29.500
 * §6.12.1: another instance of the bound set); NULL when the binding allows no
 * reselection (bound to an instance without a set). */
const char *bsf_sbi_binding_reselect_set(const bsf_sbi_binding_t *b);

#endif
