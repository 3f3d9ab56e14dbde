/* OAuth2 access tokens on the SBI (TS 33.501 §13.4.1, TS 29.510 AccessTokenClaims, RFC 6750):
 * the check of an `Authorization: Bearer <JWS>` header, without HTTP. JWS verification is
 * OpenSSL's EVP (RS256: RSASSA-PKCS1-v1_5 SHA-256; ES256: ECDSA P-256 SHA-256 with the raw
 * R||S signature of RFC 7518 §3.4 turned into an ECDSA_SIG), JSON is jansson.
 *
 * The verifier is built once at start-up (the NRF's public keys parsed and kept); any thread
 * may check tokens with it concurrently. Only the key set changes afterwards: reloaded whole
 * from the file when it changes (bsf_oauth2_reload, issue 13 §3). */
#ifndef BSF_GATEWAYS_SBI_SBI_OAUTH2_H
#define BSF_GATEWAYS_SBI_SBI_OAUTH2_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Seconds of clock difference tolerated between the NRF and the BSF for exp, nbf and iat. */
#define BSF_OAUTH2_CLOCK_SKEW_S 30
/* Longest token accepted (bytes of the compact JWS); longer ones are invalid_token. */
#define BSF_OAUTH2_MAX_TOKEN 8192
/* Most keys read from the key file. */
#define BSF_OAUTH2_MAX_KEYS 16
/* The scope word that grants Nbsf_Management (TS 29.521 §6.1: the service name). */
#define BSF_OAUTH2_SCOPE "nbsf-management"

typedef struct bsf_oauth2 bsf_oauth2_t;

typedef struct {
    const char *keys_path;          /* PEM: PUBLIC KEY and/or CERTIFICATE blocks; may be NULL
                                     * or "" only when validate_signature is false */
    bool validate_signature;        /* false: signatures are not checked, every claim is */
    const char *nf_instance_id;     /* this BSF's id, an accepted `aud`; "" = only "BSF" */
    const char *producer_nf_set_id; /* "" = not checked; else a present claim must equal it */
    const char *producer_plmn_id;   /* "MCC-MNC" or ""; as above for producerPlmnId */
} bsf_oauth2_settings_t;

typedef enum {
    BSF_OAUTH2_OK = 0,
    BSF_OAUTH2_NO_TOKEN,           /* no Authorization header, or not a Bearer one: 401 */
    BSF_OAUTH2_INVALID_TOKEN,      /* malformed, bad signature, expired, wrong aud: 401 */
    BSF_OAUTH2_INSUFFICIENT_SCOPE, /* valid, but the scope lacks nbsf-management: 403 */
} bsf_oauth2_verdict_t;

/* Builds a verifier (copies the settings' strings). Returns 0, or -1 with a message naming
 * the configuration key in `err` (unreadable file, no usable key, an RSA key under 2048 bits,
 * an EC key not on P-256, a bad producer_plmn_id). The caller owns *out. Start-up thread. */
int bsf_oauth2_create(const bsf_oauth2_settings_t *s, bsf_oauth2_t **out, char *err,
                      size_t err_cap);
void bsf_oauth2_free(bsf_oauth2_t *o);
/* Reloads sbi.oauth2.keys when the file changed since the last attempt (stat). Returns 1
 * reloaded (checks made from now on use the new keys; tokens accepted with the old ones are
 * verified again), 0 unchanged or no key file, -1 the new file is refused (err says why;
 * the old keys stay). One thread at a time (the reload thread); checks run meanwhile. */
int bsf_oauth2_reload(bsf_oauth2_t *o, char *err, size_t err_cap);
/* Number of keys loaded. */
size_t bsf_oauth2_key_count(const bsf_oauth2_t *o);
/* Sets the NF instance id accepted as `aud` (nf.instance_id, or the one generated and kept
 * in the store, known only once the store is open). Main thread, before the SBI serves. */
void bsf_oauth2_set_instance_id(bsf_oauth2_t *o, const char *nf_instance_id);

/* Checks the value of an Authorization header (NULL when the request has none) at `now_s`
 * (Unix seconds). On refusal `why` (may be NULL) gets a short reason for ProblemDetails.detail
 * that never contains the token. Allocates only inside OpenSSL and jansson. Any thread: each
 * thread keeps a small cache of the tokens it accepted (by SHA-256 of the token, with their
 * validity window), so a token sent again is not verified again until it expires. */
bsf_oauth2_verdict_t bsf_oauth2_check(const bsf_oauth2_t *o, const char *authorization,
                                      int64_t now_s, char *why, size_t why_cap);

/* The pure parts, exposed for unit tests. */

/* The claims (a decoded JWT payload) against the verifier's audience, scope, time and
 * producer rules. */
bsf_oauth2_verdict_t bsf_oauth2_check_claims(const bsf_oauth2_t *o, const json_t *claims,
                                             int64_t now_s, char *why, size_t why_cap);
/* True when the space-separated `scope` holds `word` as a whole word. */
bool bsf_oauth2_scope_has(const char *scope, const char *word);
/* Decodes base64url without padding (RFC 7515 §2) into `out` (cap bytes). Returns the length
 * or -1 on a character outside the alphabet, a length of 1 mod 4, or too small a buffer. */
long bsf_oauth2_b64url_decode(const char *in, size_t len, unsigned char *out, size_t cap);

#endif
