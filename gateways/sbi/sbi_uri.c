/* Absolute SBI URIs; see sbi_uri.h. */
#include "gateways/sbi/sbi_uri.h"

#include <stdio.h>
#include <string.h>

static int fail(char *err, size_t cap, const char *why)
{
    snprintf(err, cap, "%s", why);
    return -1;
}

static int parse_port(const char *s, size_t n, uint16_t *out)
{
    if (n == 0 || n > 5)
        return -1;
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    if (v == 0 || v > 65535)
        return -1;
    *out = (uint16_t)v;
    return 0;
}

/* Splits "host[:port]" or "[v6][:port]" into u->host and u->port. */
static int parse_authority(const char *a, size_t n, bsf_sbi_uri_t *u, char *err, size_t cap)
{
    const char *host = a, *port = NULL;
    size_t host_len = n;
    if (n > 0 && a[0] == '[') {
        const char *close = memchr(a, ']', n);
        if (!close)
            return fail(err, cap, "unterminated IPv6 literal");
        host = a + 1;
        host_len = (size_t)(close - a) - 1;
        size_t rest = n - (size_t)(close - a) - 1;
        if (rest > 0 && close[1] != ':')
            return fail(err, cap, "garbage after IPv6 literal");
        if (rest > 0)
            port = close + 2;
    } else {
        const char *colon = memchr(a, ':', n);
        if (colon) {
            host_len = (size_t)(colon - a);
            port = colon + 1;
        }
    }
    if (host_len == 0)
        return fail(err, cap, "no host");
    if (host_len >= sizeof u->host || n >= sizeof u->authority)
        return fail(err, cap, "host too long");
    for (size_t i = 0; i < host_len; i++) {
        unsigned char ch = (unsigned char)host[i];
        if (ch <= ' ' || ch >= 0x7f || ch == '@' || ch == '[' || ch == ']' || ch == '/')
            return fail(err, cap, "invalid character in host");
    }
    if (port && parse_port(port, n - (size_t)(port - a), &u->port))
        return fail(err, cap, "invalid port");
    memcpy(u->host, host, host_len);
    u->host[host_len] = '\0';
    memcpy(u->authority, a, n);
    u->authority[n] = '\0';
    return 0;
}

int bsf_sbi_uri_parse(const char *s, size_t n, bsf_sbi_uri_t *out, char *err, size_t err_cap)
{
    /* not a memset of the 2.5 KB: every member is written before it is read (the SBI
     * client parses one URI per request) */
    out->tls = false;
    out->port = 0;
    out->host[0] = out->authority[0] = out->path[0] = '\0';
    size_t skip;
    if (n >= 7 && strncmp(s, "http://", 7) == 0) {
        skip = 7;
    } else if (n >= 8 && strncmp(s, "https://", 8) == 0) {
        skip = 8;
        out->tls = true;
    } else {
        return fail(err, err_cap, "scheme is not http or https");
    }
    out->port = out->tls ? 443 : 80;
    const char *a = s + skip, *end = s + n;
    const char *p = a;
    while (p < end && *p != '/' && *p != '?' && *p != '#')
        p++;
    if (parse_authority(a, (size_t)(p - a), out, err, err_cap))
        return -1;
    const char *hash = memchr(p, '#', (size_t)(end - p));
    size_t path_len = (size_t)((hash ? hash : end) - p);
    if (path_len + 2 > sizeof out->path)
        return fail(err, err_cap, "path too long");
    for (size_t i = 0; i < path_len; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch <= ' ' || ch >= 0x7f)
            return fail(err, err_cap, "invalid character in path");
    }
    size_t o = 0;
    if (path_len == 0 || p[0] == '?')
        out->path[o++] = '/';
    memcpy(out->path + o, p, path_len);
    out->path[o + path_len] = '\0';
    return 0;
}

size_t bsf_sbi_uri_api_root(const bsf_sbi_uri_t *u, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s://%s", u->tls ? "https" : "http", u->authority);
    return n < 0 || (size_t)n >= cap ? 0 : (size_t)n;
}

int bsf_sbi_uri_resolve(const bsf_sbi_uri_t *base, const char *location, size_t n,
                        bsf_sbi_uri_t *out, char *err, size_t err_cap)
{
    if (n > 0 && location[0] == '/' && !(n > 1 && location[1] == '/')) {
        char buf[BSF_SBI_URI_MAX + BSF_SBI_HOST_MAX + 16];
        char root[BSF_SBI_HOST_MAX + 16];
        if (!bsf_sbi_uri_api_root(base, root, sizeof root))
            return fail(err, err_cap, "location too long");
        int len = snprintf(buf, sizeof buf, "%s%.*s", root, (int)n, location);
        if (len < 0 || (size_t)len >= sizeof buf)
            return fail(err, err_cap, "location too long");
        return bsf_sbi_uri_parse(buf, (size_t)len, out, err, err_cap);
    }
    return bsf_sbi_uri_parse(location, n, out, err, err_cap);
}
