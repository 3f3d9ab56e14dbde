/* The binding indication parser; see sbi_binding.h. */
#include "gateways/sbi/sbi_binding.h"

#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    bsf_binding_level_t level;
} levels[] = {{"nfinstance", BSF_BINDING_NF_INSTANCE},
              {"nfset", BSF_BINDING_NF_SET},
              {"nfserviceinstance", BSF_BINDING_NF_SERVICE_INSTANCE},
              {"nfserviceset", BSF_BINDING_NF_SERVICE_SET}};

static int copy_value(char *dst, size_t cap, const char *v, size_t n)
{
    if (n == 0 || n >= cap)
        return -1;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v[i] <= 0x20 || v[i] == 0x7f || v[i] == '"' || v[i] == ',')
            return -1;
    memcpy(dst, v, n);
    dst[n] = '\0';
    return 0;
}

static int parse_level(const char *v, size_t n, bsf_binding_level_t *out)
{
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strlen(levels[i].name) == n && strncasecmp(levels[i].name, v, n) == 0) {
            *out = levels[i].level;
            return 0;
        }
    return -1;
}

/* One "name=value" (already trimmed). */
static int parameter(const char *p, size_t n, bsf_sbi_binding_t *b)
{
    const char *eq = memchr(p, '=', n);
    if (!eq || eq == p)
        return -1;
    size_t nl = (size_t)(eq - p), vl = n - nl - 1;
    const char *v = eq + 1;
    if (nl == 2 && strncasecmp(p, "bl", 2) == 0)
        return parse_level(v, vl, &b->level);
    if (nl == 6 && strncasecmp(p, "nfinst", 6) == 0)
        return copy_value(b->nf_instance, sizeof b->nf_instance, v, vl);
    if (nl == 5 && strncasecmp(p, "nfset", 5) == 0)
        return copy_value(b->nf_set, sizeof b->nf_set, v, vl);
    if (nl == 8 && strncasecmp(p, "servname", 8) == 0)
        return copy_value(b->service_name, sizeof b->service_name, v, vl);
    for (size_t i = 0; i < n; i++) /* another parameter: ignored, but still a token */
        if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
            return -1;
    return 0;
}

int bsf_sbi_binding_parse(const char *value, size_t len, bsf_sbi_binding_t *out)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    while (i < len) {
        size_t end = i;
        while (end < len && value[end] != ';')
            end++;
        size_t a = i, z = end;
        while (a < z && (value[a] == ' ' || value[a] == '\t'))
            a++;
        while (z > a && (value[z - 1] == ' ' || value[z - 1] == '\t'))
            z--;
        if (z == a || parameter(value + a, z - a, out)) {
            memset(out, 0, sizeof *out);
            return -1;
        }
        i = end + 1;
    }
    if (out->level == BSF_BINDING_NONE) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    return 0;
}

const char *bsf_sbi_binding_reselect_set(const bsf_sbi_binding_t *b)
{
    return b->level != BSF_BINDING_NONE && b->nf_set[0] ? b->nf_set : NULL;
}
