/* Peer and route items of the Rx gateway's configuration, and route selection. */
#include "gateways/diameter/rx_routes.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/name_chars.h"

bool bsf_rx_identity_valid(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n < BSF_RX_IDENTITY_MAX && bsf_name_chars_only(s, n);
}

static bool parse_u32(const char *s, uint32_t max, uint32_t *out)
{
    char *end;
    if (!*s || *s == '-' || *s == '+')
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > max)
        return false;
    *out = (uint32_t)v;
    return true;
}

int bsf_rx_peer_parse(const char *text, bsf_rx_peer_cfg_t *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    /* "ID=HOST:PORT" with an optional " tls", " tls=1.2" or " tls=1.3" */
    char item[1024];
    snprintf(item, sizeof item, "%s", text);
    char *space = strchr(item, ' ');
    if (space) {
        *space = '\0';
        const char *opt = space + 1;
        if (strcmp(opt, "tls=1.2") == 0 || strcmp(opt, "tls=1.3") == 0)
            memcpy(out->tls_version, opt + 4, 4);
        else if (strcmp(opt, "tls") != 0) {
            snprintf(err, cap, "'%s': only 'tls', 'tls=1.2' or 'tls=1.3' may follow ID=HOST:PORT",
                     text);
            return -1;
        }
        out->tls = true;
    }
    const char *eq = strchr(item, '=');
    if (!eq || eq == item) {
        snprintf(err, cap, "'%s' is not ID=HOST:PORT", item);
        return -1;
    }
    size_t idlen = (size_t)(eq - item);
    if (idlen >= sizeof out->id) {
        snprintf(err, cap, "'%s': identity too long", item);
        return -1;
    }
    memcpy(out->id, item, idlen);
    if (!bsf_rx_identity_valid(out->id)) {
        snprintf(err, cap, "'%s': '%s' is not a Diameter identity", item, out->id);
        return -1;
    }
    const char *hp = eq + 1, *colon;
    size_t hlen;
    if (hp[0] == '[') {
        const char *close = strchr(hp, ']');
        if (!close || close[1] != ':') {
            snprintf(err, cap, "'%s' is not ID=[V6]:PORT", item);
            return -1;
        }
        hp++;
        hlen = (size_t)(close - hp);
        colon = close + 1;
    } else {
        colon = strrchr(hp, ':');
        if (!colon) {
            snprintf(err, cap, "'%s' is not ID=HOST:PORT", item);
            return -1;
        }
        hlen = (size_t)(colon - hp);
    }
    if (hlen == 0 || hlen >= sizeof out->host) {
        snprintf(err, cap, "'%s': bad host", item);
        return -1;
    }
    memcpy(out->host, hp, hlen);
    unsigned char a[16];
    if (inet_pton(AF_INET, out->host, a) != 1 && inet_pton(AF_INET6, out->host, a) != 1) {
        snprintf(err, cap, "'%s': '%s' is not an IP address", item, out->host);
        return -1;
    }
    uint32_t port;
    if (!parse_u32(colon + 1, 65535, &port) || port == 0) {
        snprintf(err, cap, "'%s': '%s' is not a port", item, colon + 1);
        return -1;
    }
    out->port = (uint16_t)port;
    return 0;
}

/* Copies `v` into a field; "*" and identities only. */
static int route_field(const char *item, const char *name, const char *v, char *field, char *err,
                       size_t cap)
{
    if (field[0]) {
        snprintf(err, cap, "'%s': %s given twice", item, name);
        return -1;
    }
    if (strcmp(v, "*") != 0 && !bsf_rx_identity_valid(v)) {
        snprintf(err, cap, "'%s': %s '%s' is not a Diameter identity", item, name, v);
        return -1;
    }
    snprintf(field, BSF_RX_IDENTITY_MAX, "%s", v);
    return 0;
}

int bsf_rx_route_parse(const char *item, bsf_rx_route_t *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    out->priority = 1;
    bool has_priority = false;
    char word[BSF_RX_IDENTITY_MAX + 16];
    const char *p = item;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        size_t n = strcspn(p, " \t");
        if (n >= sizeof word) {
            snprintf(err, cap, "'%s': a word is too long", item);
            return -1;
        }
        memcpy(word, p, n);
        word[n] = '\0';
        p += n;
        char *eq = strchr(word, '=');
        if (!eq) {
            snprintf(err, cap, "'%s': '%s' is not key=value", item, word);
            return -1;
        }
        *eq = '\0';
        const char *v = eq + 1;
        int rc;
        if (strcmp(word, "realm") == 0) {
            rc = route_field(item, "realm", v, out->realm, err, cap);
        } else if (strcmp(word, "host") == 0) {
            rc = route_field(item, "host", v, out->host, err, cap);
        } else if (strcmp(word, "peer") == 0) {
            rc = strcmp(v, "*") == 0 ? -1 : route_field(item, "peer", v, out->peer, err, cap);
            if (rc && strcmp(v, "*") == 0)
                snprintf(err, cap, "'%s': peer cannot be '*'", item);
        } else if (strcmp(word, "priority") == 0) {
            rc = has_priority || !parse_u32(v, 1000000, &out->priority) ? -1 : 0;
            if (rc)
                snprintf(err, cap, "'%s': priority '%s' is not an integer in 0..1000000", item, v);
            has_priority = true;
        } else {
            snprintf(err, cap, "'%s': unknown key '%s' (realm, host, peer, priority)", item, word);
            rc = -1;
        }
        if (rc)
            return -1;
    }
    if (!out->realm[0] || !out->peer[0]) {
        snprintf(err, cap, "'%s': realm= and peer= are required", item);
        return -1;
    }
    if (!out->host[0])
        snprintf(out->host, sizeof out->host, "*");
    return 0;
}

int bsf_rx_routes_load(const char *list, bsf_rx_routes_t *out, char *err, size_t cap)
{
    out->n = 0;
    out->items = NULL;
    size_t count = 0;
    for (const char *p = list; p && *p;) {
        count++;
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
    }
    if (count == 0)
        return 0;
    out->items = calloc(count, sizeof *out->items);
    if (!out->items) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    char item[1024], why[512];
    const char *p = list;
    while (p && *p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        snprintf(item, sizeof item, "%.*s", (int)n, p);
        p = nl ? nl + 1 : p + n;
        if (bsf_rx_route_parse(item, &out->items[out->n], why, sizeof why)) {
            snprintf(err, cap, "item %zu: %s", out->n + 1, why);
            bsf_rx_routes_free(out);
            return -1;
        }
        out->n++;
    }
    return 0;
}

void bsf_rx_routes_free(bsf_rx_routes_t *r)
{
    free(r->items);
    r->items = NULL;
    r->n = 0;
}

static bool field_matches(const char *pattern, const char *value)
{
    if (strcmp(pattern, "*") == 0)
        return true;
    return value && strcasecmp(pattern, value) == 0;
}

size_t bsf_rx_routes_select(const bsf_rx_routes_t *r, const char *realm, const char *host,
                            const char **out, size_t cap)
{
    size_t n = 0;
    /* Selection sort over the matches: tables are short (tens of routes). */
    const bsf_rx_route_t *picked[64];
    size_t n_picked = 0;
    for (size_t i = 0; i < r->n && n_picked < sizeof picked / sizeof picked[0]; i++)
        if (field_matches(r->items[i].realm, realm) && field_matches(r->items[i].host, host))
            picked[n_picked++] = &r->items[i];
    for (size_t i = 0; i < n_picked; i++)
        for (size_t j = i + 1; j < n_picked; j++) {
            const bsf_rx_route_t *a = picked[i], *b = picked[j];
            bool a_exact = strcmp(a->host, "*") != 0, b_exact = strcmp(b->host, "*") != 0;
            bool swap = b->priority < a->priority ||
                        (b->priority == a->priority && b_exact && !a_exact) ||
                        (b->priority == a->priority && b_exact == a_exact && b < a);
            if (swap) {
                picked[i] = b;
                picked[j] = a;
            }
        }
    for (size_t i = 0; i < n_picked && n < cap; i++) {
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++)
            dup = strcasecmp(out[k], picked[i]->peer) == 0;
        if (!dup)
            out[n++] = picked[i]->peer;
    }
    return n;
}

void bsf_rx_identity_copy(char dst[BSF_RX_IDENTITY_MAX], const char *src, size_t len)
{
    size_t cap = len < BSF_RX_IDENTITY_MAX - 1 ? len : BSF_RX_IDENTITY_MAX - 1;
    size_t n = src ? strnlen(src, cap) : 0;
    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
}
