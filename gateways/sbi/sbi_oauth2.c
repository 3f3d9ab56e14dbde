/* OAuth2 access-token checks; see sbi_oauth2.h. */
#include "gateways/sbi/sbi_oauth2.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/err_format.h"
#include "common/file_stamp.h"

typedef enum { KEY_RSA, KEY_EC_P256 } key_kind_t;

/* The keys of one version of the key file. Replaced whole on reload; a check holds a
 * reference while it verifies, so the set it uses is never freed under it. */
typedef struct {
    EVP_PKEY *keys[BSF_OAUTH2_MAX_KEYS];
    key_kind_t kinds[BSF_OAUTH2_MAX_KEYS];
    size_t n_keys;
    uint64_t id; /* tells cache entries made with this set from others' */
    atomic_uint refs;
} key_set_t;

/* What changes after start-up: the current key set (issue 13 §3, reload). */
typedef struct {
    pthread_mutex_t mu;
    key_set_t *set;                  /* guarded by mu */
    atomic_uint_fast64_t set_id;     /* set->id, read without the lock by the cache */
    bsf_file_stamp_t seen;           /* the key file as last tried (reload thread only) */
    char path[1024];
} key_ring_t;

struct bsf_oauth2 {
    key_ring_t *ring;
    EVP_MD *sha256; /* fetched once: an implicit fetch per verification costs a lookup */
    bool validate_signature;
    char nf_instance_id[64];
    char producer_nf_set_id[128];
    char plmn_mcc[4], plmn_mnc[4];
};

static bsf_oauth2_verdict_t refuse(bsf_oauth2_verdict_t v, char *why, size_t cap,
                                   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static bsf_oauth2_verdict_t refuse(bsf_oauth2_verdict_t v, char *why, size_t cap,
                                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bsf_err_vformat(why, cap, fmt, ap);
    va_end(ap);
    return v;
}

/* ---- the cache of accepted tokens ---------------------------------------------------- */

/* A consumer sends the same token until it nears expiry: each thread remembers the tokens it
 * accepted (by SHA-256 of the whole token, so the same signature and claims) with the times
 * they are valid between, and skips the signature and JSON for them. Refusals are never
 * cached. Direct-mapped, per thread: no lock, no allocation. */
#define CACHE_SLOTS 64

typedef struct {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    uint64_t owner; /* bsf_oauth2_t.id; 0 = empty */
    int64_t not_before, not_after; /* with the clock skew applied */
} cache_entry_t;

static _Thread_local cache_entry_t cache[CACHE_SLOTS];
static atomic_uint_fast64_t next_id = 1;

/* Entries are made with a key set: another set (a reload, another verifier) misses them. */
static uint64_t cache_owner(const bsf_oauth2_t *o)
{
    return atomic_load_explicit(&o->ring->set_id, memory_order_acquire);
}

static cache_entry_t *cache_slot(const unsigned char digest[SHA256_DIGEST_LENGTH])
{
    return &cache[digest[0] % CACHE_SLOTS];
}

static bool cache_hit(const bsf_oauth2_t *o, const unsigned char *digest, int64_t now)
{
    const cache_entry_t *e = cache_slot(digest);
    return e->owner == cache_owner(o) && memcmp(e->digest, digest, SHA256_DIGEST_LENGTH) == 0 &&
           now >= e->not_before && now <= e->not_after;
}

/* Remembers an accepted token: valid until exp, not before nbf or iat (all with the skew). */
static void cache_put(uint64_t owner, const unsigned char *digest, const json_t *claims)
{
    cache_entry_t *e = cache_slot(digest);
    const json_t *nbf = json_object_get(claims, "nbf"), *iat = json_object_get(claims, "iat");
    int64_t from = INT64_MIN;
    if (json_is_integer(nbf))
        from = json_integer_value(nbf);
    if (json_is_integer(iat) && json_integer_value(iat) > from)
        from = json_integer_value(iat);
    memcpy(e->digest, digest, SHA256_DIGEST_LENGTH);
    e->owner = owner;
    int64_t exp = json_integer_value(json_object_get(claims, "exp"));
    e->not_before = from < INT64_MIN + BSF_OAUTH2_CLOCK_SKEW_S ? INT64_MIN
                                                               : from - BSF_OAUTH2_CLOCK_SKEW_S;
    e->not_after = exp > INT64_MAX - BSF_OAUTH2_CLOCK_SKEW_S ? INT64_MAX
                                                             : exp + BSF_OAUTH2_CLOCK_SKEW_S;
}

/* ---- keys -------------------------------------------------------------------------- */

/* Keeps `pk` when it is an RSA key of 2048 bits or more or an EC key on P-256. */
static int add_key(key_set_t *o, EVP_PKEY *pk, char *err, size_t cap)
{
    key_kind_t kind;
    char group[32] = "";
    if (EVP_PKEY_is_a(pk, "RSA")) {
        if (EVP_PKEY_get_bits(pk) < 2048) {
            snprintf(err, cap, "sbi.oauth2.keys: an RSA key has %d bits (2048 at least)",
                     EVP_PKEY_get_bits(pk));
            return -1;
        }
        kind = KEY_RSA;
    } else if (EVP_PKEY_is_a(pk, "EC") &&
               EVP_PKEY_get_group_name(pk, group, sizeof group, NULL) &&
               (strcmp(group, "prime256v1") == 0 || strcmp(group, "P-256") == 0)) {
        kind = KEY_EC_P256;
    } else {
        snprintf(err, cap, "sbi.oauth2.keys: a key is neither RSA nor EC P-256 (RS256, ES256)");
        return -1;
    }
    if (o->n_keys == BSF_OAUTH2_MAX_KEYS) {
        snprintf(err, cap, "sbi.oauth2.keys: more than %d keys", BSF_OAUTH2_MAX_KEYS);
        return -1;
    }
    o->keys[o->n_keys] = pk;
    o->kinds[o->n_keys++] = kind;
    return 0;
}

/* One PEM block: a PUBLIC KEY or a CERTIFICATE's key; other blocks are skipped. */
static EVP_PKEY *block_key(const char *name, const unsigned char *data, long len)
{
    const unsigned char *p = data;
    if (strcmp(name, PEM_STRING_PUBLIC) == 0)
        return d2i_PUBKEY(NULL, &p, len);
    if (strcmp(name, PEM_STRING_X509) != 0)
        return NULL;
    X509 *x = d2i_X509(NULL, &p, len);
    EVP_PKEY *pk = x ? X509_get_pubkey(x) : NULL;
    X509_free(x);
    return pk;
}

static int load_keys(key_set_t *o, const char *path, char *err, size_t cap)
{
    BIO *bio = BIO_new_file(path, "r");
    if (!bio) {
        snprintf(err, cap, "sbi.oauth2.keys: cannot read %s", path);
        return -1;
    }
    int rc = 0;
    char *name = NULL, *header = NULL;
    unsigned char *data = NULL;
    long len = 0;
    while (rc == 0 && PEM_read_bio(bio, &name, &header, &data, &len)) {
        EVP_PKEY *pk = block_key(name, data, len);
        if (pk && add_key(o, pk, err, cap)) {
            EVP_PKEY_free(pk);
            rc = -1;
        }
        OPENSSL_free(name);
        OPENSSL_free(header);
        OPENSSL_free(data);
    }
    ERR_clear_error(); /* the end of the file is a "no start line" error */
    BIO_free(bio);
    if (rc == 0 && o->n_keys == 0) {
        snprintf(err, cap, "sbi.oauth2.keys: %s holds no PUBLIC KEY or CERTIFICATE", path);
        rc = -1;
    }
    return rc;
}

static void set_release(key_set_t *set)
{
    if (!set || atomic_fetch_sub(&set->refs, 1) != 1)
        return;
    for (size_t i = 0; i < set->n_keys; i++)
        EVP_PKEY_free(set->keys[i]);
    free(set);
}

/* A key set from the file, or an empty one (path NULL: signatures not checked). */
static key_set_t *set_load(const char *path, char *err, size_t cap)
{
    key_set_t *set = calloc(1, sizeof *set);
    if (!set) {
        snprintf(err, cap, "out of memory");
        return NULL;
    }
    set->id = atomic_fetch_add(&next_id, 1);
    atomic_init(&set->refs, 1);
    if (path && load_keys(set, path, err, cap)) {
        set_release(set);
        return NULL;
    }
    return set;
}

static key_set_t *set_acquire(const bsf_oauth2_t *o)
{
    pthread_mutex_lock(&o->ring->mu);
    key_set_t *set = o->ring->set;
    atomic_fetch_add(&set->refs, 1);
    pthread_mutex_unlock(&o->ring->mu);
    return set;
}

static void ring_install(key_ring_t *r, key_set_t *set)
{
    pthread_mutex_lock(&r->mu);
    key_set_t *old = r->set;
    r->set = set;
    atomic_store_explicit(&r->set_id, set->id, memory_order_release);
    pthread_mutex_unlock(&r->mu);
    set_release(old); /* freed once the last check using it is done */
}

int bsf_oauth2_reload(bsf_oauth2_t *o, char *err, size_t err_cap)
{
    key_ring_t *r = o->ring;
    if (!r->path[0])
        return 0;
    bsf_file_stamp_t now;
    bsf_file_stamp_take(r->path, &now);
    if (!bsf_file_stamp_differs(&now, &r->seen))
        return 0;
    r->seen = now; /* a bad file is tried again only once it changes */
    key_set_t *set = set_load(r->path, err, err_cap);
    if (!set)
        return -1;
    ring_install(r, set);
    return 1;
}

static int parse_plmn(bsf_oauth2_t *o, const char *plmn, char *err, size_t cap)
{
    size_t n = strlen(plmn);
    const char *dash = strchr(plmn, '-');
    size_t mnc = dash ? n - (size_t)(dash - plmn) - 1 : 0;
    bool ok = dash && dash - plmn == 3 && (mnc == 2 || mnc == 3) &&
              strspn(plmn, "0123456789") == 3 && strspn(dash + 1, "0123456789") == mnc;
    if (!ok) {
        snprintf(err, cap, "sbi.oauth2.producer_plmn_id: '%s' is not MCC-MNC (001-01)", plmn);
        return -1;
    }
    memcpy(o->plmn_mcc, plmn, 3);
    memcpy(o->plmn_mnc, dash + 1, mnc);
    return 0;
}

int bsf_oauth2_create(const bsf_oauth2_settings_t *s, bsf_oauth2_t **out, char *err,
                      size_t err_cap)
{
    bsf_oauth2_t *o = calloc(1, sizeof *o);
    if (!o) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    o->validate_signature = s->validate_signature;
    o->ring = calloc(1, sizeof *o->ring);
    if (!o->ring || !(o->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL))) {
        snprintf(err, err_cap, "sbi.oauth2: out of memory, or OpenSSL has no SHA-256");
        free(o->ring);
        free(o);
        return -1;
    }
    pthread_mutex_init(&o->ring->mu, NULL);
    snprintf(o->nf_instance_id, sizeof o->nf_instance_id, "%s",
             s->nf_instance_id ? s->nf_instance_id : "");
    snprintf(o->producer_nf_set_id, sizeof o->producer_nf_set_id, "%s",
             s->producer_nf_set_id ? s->producer_nf_set_id : "");
    bool want_keys = s->validate_signature || (s->keys_path && s->keys_path[0]);
    if (want_keys && (!s->keys_path || !s->keys_path[0])) {
        snprintf(err, err_cap, "sbi.oauth2.keys: required when sbi.oauth2.validate_signature "
                               "is true");
        bsf_oauth2_free(o);
        return -1;
    }
    if (want_keys) {
        snprintf(o->ring->path, sizeof o->ring->path, "%s", s->keys_path);
        bsf_file_stamp_take(s->keys_path, &o->ring->seen);
    }
    key_set_t *set = set_load(want_keys ? s->keys_path : NULL, err, err_cap);
    if (set)
        ring_install(o->ring, set);
    if (!set ||
        (s->producer_plmn_id && s->producer_plmn_id[0] &&
         parse_plmn(o, s->producer_plmn_id, err, err_cap))) {
        bsf_oauth2_free(o);
        return -1;
    }
    *out = o;
    return 0;
}

void bsf_oauth2_free(bsf_oauth2_t *o)
{
    if (!o)
        return;
    set_release(o->ring->set);
    pthread_mutex_destroy(&o->ring->mu);
    free(o->ring);
    EVP_MD_free(o->sha256);
    free(o);
}

size_t bsf_oauth2_key_count(const bsf_oauth2_t *o)
{
    key_set_t *set = set_acquire(o);
    size_t n = set->n_keys;
    set_release(set);
    return n;
}

/* ---- encoding ---------------------------------------------------------------------- */

long bsf_oauth2_b64url_decode(const char *in, size_t len, unsigned char *out, size_t cap)
{
    /* OpenSSL decodes standard base64: translate the alphabet and pad (no crypto here). */
    char std[BSF_OAUTH2_MAX_TOKEN + 4];
    if (len % 4 == 1 || len > BSF_OAUTH2_MAX_TOKEN || (len + 3) / 4 * 3 > cap)
        return -1;
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (c == '-')
            c = '+';
        else if (c == '_')
            c = '/';
        else if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
            return -1;
        std[i] = c;
    }
    size_t pad = (4 - len % 4) % 4;
    memset(std + len, '=', pad);
    int n = EVP_DecodeBlock(out, (const unsigned char *)std, (int)(len + pad));
    return n < 0 ? -1 : (long)n - (long)pad;
}

/* ---- signatures -------------------------------------------------------------------- */

static bool verify_with(const EVP_MD *md, EVP_PKEY *pk, const unsigned char *sig,
                        size_t sig_len, const char *input, size_t input_len)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    bool ok = ctx && EVP_DigestVerifyInit(ctx, NULL, md, NULL, pk) == 1 &&
              EVP_DigestVerify(ctx, sig, sig_len, (const unsigned char *)input, input_len) == 1;
    EVP_MD_CTX_free(ctx);
    ERR_clear_error();
    return ok;
}

/* RFC 7518 §3.4: ES256 signs with R||S, 32 bytes each; OpenSSL verifies DER. Returns the DER
 * length in der (cap 80) or 0. */
static size_t es256_der(const unsigned char *sig, unsigned char der[80])
{
    ECDSA_SIG *es = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(sig, 32, NULL), *s = BN_bin2bn(sig + 32, 32, NULL);
    int n = 0;
    if (es && r && s && ECDSA_SIG_set0(es, r, s)) {
        r = s = NULL; /* owned by es now */
        unsigned char *p = der;
        n = i2d_ECDSA_SIG(es, NULL) <= 80 ? i2d_ECDSA_SIG(es, &p) : 0;
    }
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(es);
    return n > 0 ? (size_t)n : 0;
}

/* True when one of the keys of `kind` verifies the signature over `input`. */
static bool signature_ok(const bsf_oauth2_t *o, const key_set_t *set, key_kind_t kind,
                         const unsigned char *sig, size_t sig_len, const char *input,
                         size_t input_len)
{
    unsigned char der[80];
    if (kind == KEY_EC_P256) {
        if (sig_len != 64 || !(sig_len = es256_der(sig, der)))
            return false;
        sig = der;
    }
    for (size_t i = 0; i < set->n_keys; i++)
        if (set->kinds[i] == kind &&
            verify_with(o->sha256, set->keys[i], sig, sig_len, input, input_len))
            return true;
    return false;
}

/* ---- claims ------------------------------------------------------------------------ */

bool bsf_oauth2_scope_has(const char *scope, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = scope; *p;) {
        while (*p == ' ')
            p++;
        size_t len = strcspn(p, " ");
        if (len == n && memcmp(p, word, n) == 0)
            return true;
        p += len;
    }
    return false;
}

static bool aud_matches(const bsf_oauth2_t *o, const json_t *aud)
{
    const char *v = json_string_value(aud);
    return v && (strcmp(v, "BSF") == 0 || (o->nf_instance_id[0] &&
                                           strcasecmp(v, o->nf_instance_id) == 0));
}

/* aud: a string or a non-empty array of strings, one of which names this BSF. */
static bsf_oauth2_verdict_t check_aud(const bsf_oauth2_t *o, const json_t *aud, char *why,
                                      size_t cap)
{
    if (json_is_string(aud)) {
        if (aud_matches(o, aud))
            return BSF_OAUTH2_OK;
    } else if (json_is_array(aud) && json_array_size(aud) > 0) {
        size_t i;
        const json_t *v;
        json_array_foreach(aud, i, v) {
            if (!json_is_string(v))
                return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap, "aud holds a non-string");
            if (aud_matches(o, v))
                return BSF_OAUTH2_OK;
        }
    } else {
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap, "aud is missing or not a string "
                                                          "or array");
    }
    return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap, "aud names neither this BSF nor BSF");
}

/* exp is required, nbf and iat optional; all integers (NumericDate, TS 29.510). */
static bsf_oauth2_verdict_t check_times(const json_t *claims, int64_t now, char *why, size_t cap)
{
    const json_t *exp = json_object_get(claims, "exp"), *nbf = json_object_get(claims, "nbf"),
                 *iat = json_object_get(claims, "iat");
    if (!json_is_integer(exp))
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap, "exp is missing or not an integer");
    if ((nbf && !json_is_integer(nbf)) || (iat && !json_is_integer(iat)))
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap, "nbf or iat is not an integer");
    /* now ± skew, never exp ± skew: a claim near INT64_MAX must not overflow */
    if (json_integer_value(exp) < now - BSF_OAUTH2_CLOCK_SKEW_S)
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap, "the token expired");
    if (nbf && json_integer_value(nbf) > now + BSF_OAUTH2_CLOCK_SKEW_S)
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap, "the token is not valid yet (nbf)");
    if (iat && json_integer_value(iat) > now + BSF_OAUTH2_CLOCK_SKEW_S)
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap, "the token was issued in the future");
    return BSF_OAUTH2_OK;
}

/* producerNfSetId and producerPlmnId, when configured and present, must name this BSF. */
static bsf_oauth2_verdict_t check_producer(const bsf_oauth2_t *o, const json_t *claims,
                                           char *why, size_t cap)
{
    const json_t *set = json_object_get(claims, "producerNfSetId");
    if (o->producer_nf_set_id[0] && set &&
        (!json_is_string(set) || strcasecmp(json_string_value(set), o->producer_nf_set_id)))
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap, "producerNfSetId is not this BSF's set");
    const json_t *plmn = json_object_get(claims, "producerPlmnId");
    if (o->plmn_mcc[0] && plmn) {
        const char *mcc = json_string_value(json_object_get(plmn, "mcc"));
        const char *mnc = json_string_value(json_object_get(plmn, "mnc"));
        if (!mcc || !mnc || strcmp(mcc, o->plmn_mcc) || strcmp(mnc, o->plmn_mnc))
            return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap,
                          "producerPlmnId is not this BSF's PLMN");
    }
    return BSF_OAUTH2_OK;
}

bsf_oauth2_verdict_t bsf_oauth2_check_claims(const bsf_oauth2_t *o, const json_t *claims,
                                             int64_t now_s, char *why, size_t why_cap)
{
    if (!json_is_object(claims))
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, why_cap, "the claims are not an object");
    if (!json_is_string(json_object_get(claims, "iss")) ||
        !json_is_string(json_object_get(claims, "sub")))
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, why_cap, "iss or sub is missing");
    bsf_oauth2_verdict_t v = check_times(claims, now_s, why, why_cap);
    if (v == BSF_OAUTH2_OK)
        v = check_aud(o, json_object_get(claims, "aud"), why, why_cap);
    if (v == BSF_OAUTH2_OK)
        v = check_producer(o, claims, why, why_cap);
    if (v != BSF_OAUTH2_OK)
        return v;
    const char *scope = json_string_value(json_object_get(claims, "scope"));
    if (!scope)
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, why_cap, "scope is missing");
    if (!bsf_oauth2_scope_has(scope, BSF_OAUTH2_SCOPE))
        return refuse(BSF_OAUTH2_INSUFFICIENT_SCOPE, why, why_cap,
                      "the scope does not include " BSF_OAUTH2_SCOPE);
    return BSF_OAUTH2_OK;
}

/* ---- the token --------------------------------------------------------------------- */

/* A base64url part decoded into `buf` and parsed as a JSON object; NULL when it is not one.
 * Duplicate members are refused: two `aud` must not let a checker and a signer disagree. */
static json_t *json_part(const char *b64, size_t len, unsigned char *buf, size_t cap)
{
    long n = bsf_oauth2_b64url_decode(b64, len, buf, cap);
    if (n <= 0)
        return NULL;
    json_t *root = json_loadb((const char *)buf, (size_t)n, JSON_REJECT_DUPLICATES, NULL);
    if (root && !json_is_object(root)) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* The algorithm from the JOSE header: RS256 or ES256; none and HMAC are refused. */
static int header_kind(const json_t *hdr, key_kind_t *kind)
{
    const char *alg = json_string_value(json_object_get(hdr, "alg"));
    if (json_object_get(hdr, "crit")) /* no extension is understood (RFC 7515 §4.1.11) */
        return -1;
    if (alg && strcmp(alg, "RS256") == 0)
        *kind = KEY_RSA;
    else if (alg && strcmp(alg, "ES256") == 0)
        *kind = KEY_EC_P256;
    else
        return -1;
    return 0;
}

/* The token of "Bearer <token>" (scheme case-insensitive, RFC 7235 §2.1); NULL otherwise. */
static const char *bearer_token(const char *authorization, size_t *len)
{
    const char *p = authorization;
    while (*p == ' ' || *p == '\t')
        p++;
    if (strncasecmp(p, "Bearer", 6) != 0 || (p[6] != ' ' && p[6] != '\t' && p[6] != '\0'))
        return NULL;
    p += 6;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t n = strlen(p);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    *len = n;
    return p;
}

static bsf_oauth2_verdict_t check_jws(const bsf_oauth2_t *o, const char *tok, size_t len,
                                      const unsigned char *digest, int64_t now_s, char *why,
                                      size_t cap)
{
    const char *dot1 = memchr(tok, '.', len);
    const char *dot2 = dot1 ? memchr(dot1 + 1, '.', len - (size_t)(dot1 + 1 - tok)) : NULL;
    if (!dot1 || !dot2 || memchr(dot2 + 1, '.', len - (size_t)(dot2 + 1 - tok)))
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap, "the token is not a compact JWS");
    unsigned char buf[BSF_OAUTH2_MAX_TOKEN];
    json_t *hdr = json_part(tok, (size_t)(dot1 - tok), buf, sizeof buf);
    key_kind_t kind;
    int bad_alg = !hdr || header_kind(hdr, &kind);
    json_decref(hdr);
    if (bad_alg)
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap,
                      "the JOSE header is malformed or its alg is not RS256 or ES256");
    const char *sig_b64 = dot2 + 1;
    size_t sig_b64_len = len - (size_t)(sig_b64 - tok);
    long sig_len = bsf_oauth2_b64url_decode(sig_b64, sig_b64_len, buf, sizeof buf);
    if (sig_len <= 0)
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap, "the signature is malformed");
    key_set_t *set = set_acquire(o);
    uint64_t owner = set->id;
    bool sig_ok = !o->validate_signature ||
                  signature_ok(o, set, kind, buf, (size_t)sig_len, tok, (size_t)(dot2 - tok));
    set_release(set);
    if (!sig_ok)
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap, "the signature does not verify");
    json_t *claims = json_part(dot1 + 1, (size_t)(dot2 - dot1 - 1), buf, sizeof buf);
    if (!claims)
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, cap, "the claims are malformed");
    bsf_oauth2_verdict_t v = bsf_oauth2_check_claims(o, claims, now_s, why, cap);
    if (v == BSF_OAUTH2_OK)
        cache_put(owner, digest, claims);
    json_decref(claims);
    return v;
}

bsf_oauth2_verdict_t bsf_oauth2_check(const bsf_oauth2_t *o, const char *authorization,
                                      int64_t now_s, char *why, size_t why_cap)
{
    size_t len = 0;
    const char *tok = authorization ? bearer_token(authorization, &len) : NULL;
    if (!tok)
        return refuse(BSF_OAUTH2_NO_TOKEN, why, why_cap, "an access token is required");
    if (len == 0 || len > BSF_OAUTH2_MAX_TOKEN)
        return refuse(BSF_OAUTH2_INVALID_TOKEN, why, why_cap, "the token is empty or too long");
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)tok, len, digest);
    if (cache_hit(o, digest, now_s))
        return BSF_OAUTH2_OK;
    return check_jws(o, tok, len, digest, now_s, why, why_cap);
}

void bsf_oauth2_set_instance_id(bsf_oauth2_t *o, const char *nf_instance_id)
{
    snprintf(o->nf_instance_id, sizeof o->nf_instance_id, "%s", nf_instance_id);
}
