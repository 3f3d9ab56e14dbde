/* apiRoots of SBI URIs (TS 29.501 §4.4.1): {apiRoot}/{apiName}/{apiVersion}/{resource}, with
 * apiRoot = scheme "://" authority ["/" apiPrefix]. Splitting a URI at its resource path
 * (below the apiRoot), joining an apiRoot and such a path, and building an apiRoot from an
 * NFService's parts (TS 29.510 §6.1.6.2.3). Pure string logic: no I/O, no allocation, any
 * thread. Every function returns BSF_API_ROOT_OK or a negative bsf_api_root_err_t, writes
 * nothing usable on error, and never asserts on its input. */
#ifndef BSF_CORE_API_ROOT_H
#define BSF_CORE_API_ROOT_H

#include <stddef.h>

typedef enum {
    BSF_API_ROOT_OK = 0,
    BSF_API_ROOT_EINVAL = -1,   /* not http(s)://authority..., a bad port, IPv6 literal,
                                   user info, a fragment, a space or control character */
    BSF_API_ROOT_ENOPATH = -2,  /* no /{serviceName}/{apiVersion} below the apiRoot */
    BSF_API_ROOT_ETOOLONG = -3, /* the result does not fit the buffer */
} bsf_api_root_err_t;

/* Splits `uri` (absolute http or https) at the resource path: `*path_at` is the offset of
 * the '/' that starts "/{serviceName}/{apiVersion}..." (everything from there, the query
 * included, is the path below the apiRoot), and `root` gets the apiRoot before it (no
 * trailing '/'). With `service_name`, the first path segment equal to it and followed by a
 * version segment ("v" and digits) starts the resource path; with NULL or "", the first
 * segment followed by a version segment does. `root` may be NULL (only the offset). */
int bsf_api_root_split(const char *uri, const char *service_name, char *root, size_t cap,
                       size_t *path_at);

/* out = `root` (an apiRoot: scheme://authority[/prefix], a trailing '/' dropped) followed by
 * `path` ("/..." and maybe a query; NULL or "": "/"). */
int bsf_api_root_join(const char *root, const char *path, char *out, size_t cap);

/* out = scheme://host:port[/prefix]: `scheme` "http" or "https"; `host` an FQDN, an IPv4
 * address or an IPv6 address (bracketed here when it is not); `port` 0: the scheme's (80,
 * 443); `prefix` the NFService's apiPrefix (NULL, "" or "/": none; leading '/' added,
 * trailing '/' dropped). */
int bsf_api_root_build(const char *scheme, const char *host, unsigned port, const char *prefix,
                       char *out, size_t cap);

#endif
