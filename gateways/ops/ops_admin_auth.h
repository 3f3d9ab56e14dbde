/* Credentials of the admin listener (issue 13 §5): a bearer token read from a file (compared
 * in constant time) and, with mTLS, a client certificate that verifies against the configured
 * CA (GnuTLS, through libmicrohttpd's session). Built at start-up, read-only afterwards: the
 * admin daemon's thread checks requests with it. */
#ifndef BSF_GATEWAYS_OPS_OPS_ADMIN_AUTH_H
#define BSF_GATEWAYS_OPS_OPS_ADMIN_AUTH_H

#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct bsf_ops_admin_auth bsf_ops_admin_auth_t;

typedef enum {
    BSF_OPS_ADMIN_OK = 0,
    BSF_OPS_ADMIN_NO_TOKEN,  /* a token is configured, the request has no Bearer one: 401 */
    BSF_OPS_ADMIN_BAD_TOKEN, /* it has another token: 401 invalid_token */
    BSF_OPS_ADMIN_BAD_CERT,  /* mTLS: no client certificate, or one that does not verify: 403 */
} bsf_ops_admin_verdict_t;

/* The shortest admin token accepted from the file. */
#define BSF_OPS_ADMIN_TOKEN_MIN 16

/* `token_file` NULL or "": no token; `client_cert` true: a verified client certificate is
 * required. Returns 0, or -1 with a message naming ops.admin_token_file (unreadable, shorter
 * than BSF_OPS_ADMIN_TOKEN_MIN, not one line of visible ASCII). Owned by the caller. */
int bsf_ops_admin_auth_create(const char *token_file, bool client_cert,
                              bsf_ops_admin_auth_t **out, char *err, size_t err_cap);
void bsf_ops_admin_auth_free(bsf_ops_admin_auth_t *a);
/* True when the configuration asks for any credential. */
bool bsf_ops_admin_auth_any(const bsf_ops_admin_auth_t *a);
/* Checks one request on the admin daemon's thread (its Authorization header, its TLS
 * session's peer certificate). */
bsf_ops_admin_verdict_t bsf_ops_admin_auth_check(const bsf_ops_admin_auth_t *a,
                                                 struct MHD_Connection *conn);
/* The token rule alone: `authorization` is the header's value or NULL. */
bsf_ops_admin_verdict_t bsf_ops_admin_auth_token(const bsf_ops_admin_auth_t *a,
                                                 const char *authorization);

/* Reads a whole file (at most `max` bytes) as a NUL-terminated string the caller frees.
 * NULL on failure with a message naming `key`. */
char *bsf_ops_read_file(const char *path, size_t max, const char *key, char *err,
                        size_t err_cap);

#endif
