/* apiRoots of SBI URIs; see api_root.h. */
#include "core/api_root.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Length of "http://" or "https://" at the start of `s`, 0 when neither. */
static size_t scheme_len(const char *s)
{
    if (strncasecmp(s, "http://", 7) == 0)
        return 7;
    if (strncasecmp(s, "https://", 8) == 0)
        return 8;
    return 0;
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A character allowed in a path or query of what this module accepts: printable ASCII
 * without space, '#' (fragment) or '\\'. */
static bool path_char(char c)
{
    unsigned char u = (unsigned char)c;
    return u > 0x20 && u < 0x7f && c != '#' && c != '\\';
}

static bool host_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '.' ||
           c == '-' || c == '_' || c == '~';
}

/* ":port" of `n` bytes at `s` (n == 0: none). */
static bool port_ok(const char *s, size_t n)
{
    if (n == 0)
        return true;
    if (s[0] != ':' || n < 2 || n > 6)
        return false;
    unsigned v = 0;
    for (size_t i = 1; i < n; i++) {
        if (!is_digit(s[i]))
            return false;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    return v >= 1 && v <= 65535;
}

/* host[:port] or [IPv6][:port], `n` bytes. */
static bool authority_ok(const char *s, size_t n)
{
    if (n == 0 || n > 300)
        return false;
    size_t h = 0;
    if (s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close || close == s + 1)
            return false;
        for (const char *p = s + 1; p < close; p++)
            if (!is_digit(*p) && !strchr("abcdefABCDEF:.", *p))
                return false;
        if (!memchr(s + 1, ':', (size_t)(close - s - 1)))
            return false; /* not an IPv6 address */
        h = (size_t)(close - s) + 1;
    } else {
        while (h < n && host_char(s[h]))
            h++;
        if (h == 0)
            return false;
    }
    return port_ok(s + h, n - h);
}

/* Checks an absolute URI up to its end; `*auth_end` is the offset after the authority.
 * `allow_query`: a '?' may follow (an apiRoot has none). */
static int check_uri(const char *uri, bool allow_query, size_t *auth_end)
{
    if (!uri)
        return BSF_API_ROOT_EINVAL;
    size_t s = scheme_len(uri);
    if (!s)
        return BSF_API_ROOT_EINVAL;
    size_t a = strcspn(uri + s, "/?#");
    if (!authority_ok(uri + s, a))
        return BSF_API_ROOT_EINVAL;
    for (const char *p = uri + s + a; *p; p++)
        if (!path_char(*p) || (!allow_query && *p == '?'))
            return BSF_API_ROOT_EINVAL;
    *auth_end = s + a;
    return BSF_API_ROOT_OK;
}

/* True when the segment at `p` (after its '/') is "v" and digits, ending at '/', '?' or the
 * end. */
static bool version_segment(const char *p)
{
    if (p[0] != 'v' || !is_digit(p[1]))
        return false;
    p++;
    while (is_digit(*p))
        p++;
    return *p == '/' || *p == '?' || *p == '\0';
}

int bsf_api_root_split(const char *uri, const char *service_name, char *root, size_t cap,
                       size_t *path_at)
{
    size_t auth_end;
    int rc = check_uri(uri, true, &auth_end);
    if (rc)
        return rc;
    size_t want = service_name ? strlen(service_name) : 0;
    const char *p = uri + auth_end;
    while (*p == '/') {
        const char *seg = p + 1;
        size_t len = strcspn(seg, "/?");
        bool name_ok = want ? len == want && strncmp(seg, service_name, want) == 0 : len > 0;
        if (name_ok && seg[len] == '/' && version_segment(seg + len + 1)) {
            size_t at = (size_t)(p - uri), rl = at;
            while (rl > auth_end && uri[rl - 1] == '/')
                rl--;
            if (root) {
                if (rl >= cap)
                    return BSF_API_ROOT_ETOOLONG;
                memcpy(root, uri, rl);
                root[rl] = '\0';
            }
            *path_at = at;
            return BSF_API_ROOT_OK;
        }
        p = seg + len;
    }
    return BSF_API_ROOT_ENOPATH;
}

int bsf_api_root_join(const char *root, const char *path, char *out, size_t cap)
{
    size_t auth_end;
    int rc = check_uri(root, false, &auth_end);
    if (rc)
        return rc;
    if (!path || !path[0])
        path = "/";
    if (path[0] != '/')
        return BSF_API_ROOT_EINVAL;
    for (const char *p = path; *p; p++)
        if (!path_char(*p))
            return BSF_API_ROOT_EINVAL;
    size_t rl = strlen(root);
    while (rl > auth_end && root[rl - 1] == '/')
        rl--;
    int n = snprintf(out, cap, "%.*s%s", (int)rl, root, path);
    return n < 0 || (size_t)n >= cap ? BSF_API_ROOT_ETOOLONG : BSF_API_ROOT_OK;
}

int bsf_api_root_build(const char *scheme, const char *host, unsigned port, const char *prefix,
                       char *out, size_t cap)
{
    if (!scheme || !host || !host[0] || strlen(host) > 255 || port > 65535 ||
        (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0))
        return BSF_API_ROOT_EINVAL;
    if (!port)
        port = strcmp(scheme, "https") == 0 ? 443 : 80;
    bool v6 = strchr(host, ':') && host[0] != '[';
    char authority[300];
    snprintf(authority, sizeof authority, "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "",
             port);
    if (!authority_ok(authority, strlen(authority)))
        return BSF_API_ROOT_EINVAL;
    const char *pre = prefix ? prefix : "";
    while (*pre == '/')
        pre++;
    size_t pl = strlen(pre);
    while (pl && pre[pl - 1] == '/')
        pl--;
    for (size_t i = 0; i < pl; i++)
        if (!path_char(pre[i]) || pre[i] == '?')
            return BSF_API_ROOT_EINVAL;
    int n = snprintf(out, cap, "%s://%s%s%.*s", scheme, authority, pl ? "/" : "", (int)pl, pre);
    return n < 0 || (size_t)n >= cap ? BSF_API_ROOT_ETOOLONG : BSF_API_ROOT_OK;
}
