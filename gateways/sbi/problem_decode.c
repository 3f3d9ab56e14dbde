/* Decoding of ProblemDetails answers; see problem_decode.h. */
#include "gateways/sbi/problem_decode.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

bool bsf_sbi_is_problem_json(const char *ct)
{
    static const char want[] = "application/problem+json";
    if (!ct || strncasecmp(ct, want, sizeof want - 1) != 0)
        return false;
    char next = ct[sizeof want - 1];
    return next == '\0' || next == ';' || next == ' ';
}

/* Copies a string member; 0 when absent or copied, -1 when not a string. */
static int copy_str(json_t *obj, const char *key, char *out, size_t cap)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return 0;
    if (!json_is_string(v))
        return -1;
    snprintf(out, cap, "%s", json_string_value(v));
    return 0;
}

static int read_params(json_t *obj, bsf_sbi_problem_t *out)
{
    json_t *params = json_object_get(obj, "invalidParams");
    if (!params)
        return 0;
    if (!json_is_array(params))
        return -1;
    out->n_invalid_params = json_array_size(params);
    json_t *first = json_array_get(params, 0);
    if (first && (!json_is_object(first) ||
                  copy_str(first, "param", out->first_invalid_param,
                           sizeof out->first_invalid_param)))
        return -1;
    return 0;
}

int bsf_sbi_problem_decode(const char *body, size_t len, bsf_sbi_problem_t *out)
{
    memset(out, 0, sizeof *out);
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, NULL);
    if (!root || !json_is_object(root)) {
        json_decref(root);
        return -1;
    }
    int rc = 0;
    json_t *status = json_object_get(root, "status");
    if (status && json_is_integer(status) && json_integer_value(status) >= 100 &&
        json_integer_value(status) <= 599)
        out->status = (int)json_integer_value(status);
    else if (status)
        rc = -1;
    if (copy_str(root, "cause", out->cause, sizeof out->cause) ||
        copy_str(root, "title", out->title, sizeof out->title) ||
        copy_str(root, "detail", out->detail, sizeof out->detail) || read_params(root, out))
        rc = -1;
    json_decref(root);
    return rc;
}
