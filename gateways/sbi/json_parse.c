/* JSON text -> msgpack document (json_codec.h): yajl's parse events are packed as they come,
 * with no tree in between. jansson's tree cost ~10 µs of a registration's ~45 µs on the SBI
 * worker; yajl's events cost ~1 µs. What yajl lets through and RFC 8259 / the rules must not
 * see is refused here: top-level scalars, NUL and raw control characters (yajl skips \v and
 * \f as blanks), UTF-8 that is overlong, encodes a surrogate or lies above U+10FFFF, lone
 * surrogate escapes, integers beyond 64 bits, reals beyond double, duplicate member names,
 * nesting beyond BSF_JSON_MAX_DEPTH. tests/fuzz/fuzz_json_parse.c holds it against jansson. */
#include "gateways/sbi/json_codec.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

/* Why a callback stopped the parse (yajl itself then only says "client cancelled parse"). */
typedef enum {
    SAX_OK,
    SAX_TOP_SCALAR,
    SAX_DEEP,
    SAX_NUL,
    SAX_UTF8,
    SAX_INTEGER,
    SAX_REAL,
    SAX_NOMEM
} sax_error_t;

typedef struct {
    msgpack_sbuffer *out;
    msgpack_packer pk;
    unsigned depth;                           /* containers open */
    size_t count_at[BSF_JSON_MAX_DEPTH + 1];  /* offset of each open container's count */
    uint32_t count[BSF_JSON_MAX_DEPTH + 1];   /* its members (maps) or elements (arrays) */
    bool is_map[BSF_JSON_MAX_DEPTH + 1];
    yajl_handle h;
    size_t end; /* where the top-level value ended */
    sax_error_t error;
} sax_t;

static int stop(sax_t *x, sax_error_t why)
{
    x->error = why;
    return 0;
}

/* RFC 3629 UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF) and no NUL. */
static sax_error_t check_text(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        if (c >= 0x01 && c < 0x80) {
            i++;
            continue;
        }
        if (c == 0)
            return SAX_NUL;
        size_t len;
        uint32_t cp, min;
        if (c >= 0xc2 && c <= 0xdf) {
            len = 2;
            cp = c & 0x1fu;
            min = 0x80;
        } else if ((c & 0xf0) == 0xe0) {
            len = 3;
            cp = c & 0x0fu;
            min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            len = 4;
            cp = c & 0x07u;
            min = 0x10000;
        } else {
            return SAX_UTF8;
        }
        if (n - i < len)
            return SAX_UTF8;
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return SAX_UTF8;
            cp = cp << 6 | (s[i + k] & 0x3fu);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return SAX_UTF8;
        i += len;
    }
    return SAX_OK;
}

/* A value begins at the current depth: counted in its array; too deep or a bare top-level
 * scalar (RFC 8259 allows one, the API's bodies are objects and arrays) stops the parse. */
static int value_begin(sax_t *x, bool container)
{
    if (x->depth > BSF_JSON_MAX_DEPTH)
        return stop(x, SAX_DEEP);
    if (!x->depth && !container)
        return stop(x, SAX_TOP_SCALAR);
    if (x->depth && !x->is_map[x->depth - 1])
        x->count[x->depth - 1]++;
    return 1;
}

static int packed(sax_t *x, int rc)
{
    return rc ? stop(x, SAX_NOMEM) : 1;
}

static int on_null(void *ctx)
{
    sax_t *x = ctx;
    return value_begin(x, false) && packed(x, msgpack_pack_nil(&x->pk));
}

static int on_boolean(void *ctx, int b)
{
    sax_t *x = ctx;
    return value_begin(x, false) &&
           packed(x, b ? msgpack_pack_true(&x->pk) : msgpack_pack_false(&x->pk));
}

/* A number as jansson read it: with '.', 'e' or 'E' a double (overflow refused, underflow
 * read as 0 or a subnormal), else a 64-bit integer (beyond it refused), non-negative ones
 * packed unsigned. yajl checked the syntax; strtod reads '.' (no process calls setlocale). */
static int on_number(void *ctx, const char *s, size_t n)
{
    sax_t *x = ctx;
    if (!value_begin(x, false))
        return 0;
    char small[64], *text = n < sizeof small ? small : malloc(n + 1);
    if (!text)
        return stop(x, SAX_NOMEM);
    memcpy(text, s, n);
    text[n] = '\0';
    bool real = memchr(s, '.', n) || memchr(s, 'e', n) || memchr(s, 'E', n);
    errno = 0;
    int rc;
    if (real) {
        double v = strtod(text, NULL);
        rc = errno == ERANGE && isinf(v) ? stop(x, SAX_REAL)
                                         : packed(x, msgpack_pack_double(&x->pk, v));
    } else {
        long long v = strtoll(text, NULL, 10);
        rc = errno == ERANGE ? stop(x, SAX_INTEGER)
             : v >= 0        ? packed(x, msgpack_pack_uint64(&x->pk, (uint64_t)v))
                             : packed(x, msgpack_pack_int64(&x->pk, v));
    }
    if (text != small)
        free(text);
    return rc;
}

static int pack_text(sax_t *x, const unsigned char *s, size_t n)
{
    sax_error_t e = check_text(s, n);
    if (e != SAX_OK)
        return stop(x, e);
    return packed(x, msgpack_pack_str(&x->pk, n) || msgpack_pack_str_body(&x->pk, s, n));
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    sax_t *x = ctx;
    return value_begin(x, false) && pack_text(x, s, n);
}

static int on_map_key(void *ctx, const unsigned char *s, size_t n)
{
    sax_t *x = ctx;
    x->count[x->depth - 1]++;
    return pack_text(x, s, n);
}

/* A map32 / array32 header whose count is written when the container closes. */
static int open_container(sax_t *x, bool map)
{
    static const char map32[5] = {(char)0xdf}, array32[5] = {(char)0xdd};
    if (!value_begin(x, true))
        return 0;
    if (msgpack_sbuffer_write(x->out, map ? map32 : array32, 5))
        return stop(x, SAX_NOMEM);
    x->count_at[x->depth] = x->out->size - 4;
    x->count[x->depth] = 0;
    x->is_map[x->depth] = map;
    x->depth++;
    return 1;
}

static int close_container(void *ctx)
{
    sax_t *x = ctx;
    unsigned d = --x->depth;
    unsigned char *p = (unsigned char *)x->out->data + x->count_at[d];
    uint32_t c = x->count[d];
    p[0] = (unsigned char)(c >> 24);
    p[1] = (unsigned char)(c >> 16);
    p[2] = (unsigned char)(c >> 8);
    p[3] = (unsigned char)c;
    if (!d)
        x->end = yajl_get_bytes_consumed(x->h);
    return 1;
}

static int on_start_map(void *ctx)
{
    return open_container(ctx, true);
}

static int on_start_array(void *ctx)
{
    return open_container(ctx, false);
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_boolean,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_map_key,
    .yajl_end_map = close_container,
    .yajl_start_array = on_start_array,
    .yajl_end_array = close_container,
};

static int hex4(const char *p, const char *end)
{
    if (end - p < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

/* What yajl lets through in the raw text: a high-surrogate escape without its low half (it
 * makes it '?'; a lone low one comes out as a surrogate's UTF-8, which check_text refuses),
 * and control characters other than JSON's whitespace (yajl also skips \v and \f; inside
 * strings it refuses them itself, and NUL is allowed nowhere, RFC 8259 §2, §7). Backslashes
 * stand only in strings in JSON, and each starts one escape, so the pass over them finds
 * every \u. Returns the reason, or NULL; malformed escapes are left to yajl. */
static const char *raw_text_problem(const char *t, size_t n)
{
    const char *end = t + n;
    for (const char *p = t; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
            return "a raw control character other than tab, line feed, carriage return";
        if (c != '\\')
            continue;
        if (end - p < 2)
            return NULL;
        if (p[1] != 'u') {
            p++;
            continue;
        }
        int v = hex4(p + 2, end);
        if (v < 0)
            return NULL;
        p += 5;
        if (v < 0xd800 || v > 0xdbff)
            continue;
        int w = end - p > 2 && p[1] == '\\' && p[2] == 'u' ? hex4(p + 3, end) : -1;
        if (w < 0xdc00 || w > 0xdfff)
            return "a \\u escape is a lone surrogate";
        p += 6;
    }
    return NULL;
}

#define TEXT_OF(x) #x
#define TEXT(x) TEXT_OF(x)

static bool same_name(const msgpack_object_str *x, const msgpack_object_str *y)
{
    return x->size == y->size && memcmp(x->ptr, y->ptr, x->size) == 0;
}

static int key_order(const void *a, const void *b)
{
    const msgpack_object_str *x = *(const msgpack_object_str *const *)a;
    const msgpack_object_str *y = *(const msgpack_object_str *const *)b;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return memcmp(x->ptr, y->ptr, x->size);
}

/* A member name given twice in one object, anywhere in `o`: 1 (*dup names it), 0 none,
 * -1 out of memory. Small objects compare pairwise, larger ones sort their names. */
static int find_duplicate(const msgpack_object *o, const msgpack_object_str **dup)
{
    if (o->type == MSGPACK_OBJECT_ARRAY) {
        for (uint32_t i = 0; i < o->via.array.size; i++) {
            int rc = find_duplicate(&o->via.array.ptr[i], dup);
            if (rc)
                return rc;
        }
        return 0;
    }
    if (o->type != MSGPACK_OBJECT_MAP)
        return 0;
    uint32_t n = o->via.map.size;
    const msgpack_object_kv *kv = o->via.map.ptr;
    for (uint32_t i = 0; i < n; i++) {
        int rc = find_duplicate(&kv[i].val, dup);
        if (rc)
            return rc;
    }
    if (n <= 16) {
        for (uint32_t i = 1; i < n; i++)
            for (uint32_t j = 0; j < i; j++)
                if (same_name(&kv[i].key.via.str, &kv[j].key.via.str)) {
                    *dup = &kv[i].key.via.str;
                    return 1;
                }
        return 0;
    }
    const msgpack_object_str **keys = malloc(n * sizeof *keys);
    if (!keys)
        return -1;
    for (uint32_t i = 0; i < n; i++)
        keys[i] = &kv[i].key.via.str;
    qsort(keys, n, sizeof *keys, key_order);
    int found = 0;
    for (uint32_t i = 1; i < n && !found; i++)
        if (same_name(keys[i - 1], keys[i])) {
            *dup = keys[i];
            found = 1;
        }
    free(keys);
    return found;
}

static void parse_problem(const sax_t *x, yajl_handle h, const char *text, size_t len,
                          bsf_problem_t *problem)
{
    static const char *const why[] = {
        [SAX_TOP_SCALAR] = "the body is not an object or an array",
        [SAX_DEEP] = "the JSON document nests deeper than " TEXT(BSF_JSON_MAX_DEPTH) " levels",
        [SAX_NUL] = "\\u0000 is not allowed in a string",
        [SAX_UTF8] = "a string is not valid UTF-8 (RFC 3629)",
        [SAX_INTEGER] = "an integer does not fit in 64 bits",
        [SAX_REAL] = "a real number overflows",
        [SAX_NOMEM] = "out of memory"};
    size_t at = yajl_get_bytes_consumed(h);
    if (x->error != SAX_OK) {
        bsf_problem_set(problem,
                        x->error == SAX_NOMEM ? BSF_CAUSE_SYSTEM_FAILURE
                                              : BSF_CAUSE_INVALID_MSG_FORMAT,
                        "invalid JSON at byte %zu: %s", at, why[x->error]);
        return;
    }
    unsigned char *msg = yajl_get_error(h, 0, (const unsigned char *)text, len);
    const char *m = msg ? (const char *)msg : "parse error";
    size_t n = strcspn(m, "\n");
    bsf_problem_set(problem, BSF_CAUSE_INVALID_MSG_FORMAT, "invalid JSON at byte %zu: %.*s", at,
                    (int)n, m);
    if (msg)
        yajl_free_error(h, msg);
}

/* yajl over the text into `out`: 0, or -1 with the problem set. */
static int parse_into(const char *text, size_t len, msgpack_sbuffer *out, bsf_problem_t *problem)
{
    sax_t x = {.out = out};
    msgpack_packer_init(&x.pk, out, msgpack_sbuffer_write);
    yajl_handle h = x.h = yajl_alloc(&callbacks, NULL, &x);
    if (!h) {
        bsf_problem_set(problem, BSF_CAUSE_SYSTEM_FAILURE, "out of memory");
        return -1;
    }
    yajl_status st = yajl_parse(h, (const unsigned char *)text, len);
    if (st == yajl_status_ok)
        st = yajl_complete_parse(h);
    if (st != yajl_status_ok)
        parse_problem(&x, h, text, len, problem);
    yajl_free(h);
    if (st != yajl_status_ok)
        return -1;
    /* yajl ends with the top-level value even when an unfinished token (a string never
     * closed) follows it: only blanks may. */
    size_t rest = x.end;
    while (rest < len && (text[rest] == ' ' || text[rest] == '\t' || text[rest] == '\n' ||
                          text[rest] == '\r'))
        rest++;
    if (rest < len) {
        bsf_problem_set(problem, BSF_CAUSE_INVALID_MSG_FORMAT,
                        "invalid JSON at byte %zu: text after the body's value", rest);
        return -1;
    }
    return 0;
}

int bsf_json_to_msgpack(const char *text, size_t len, msgpack_sbuffer *out, msgpack_zone *zone,
                        msgpack_object *obj, bsf_problem_t *problem)
{
    msgpack_sbuffer_clear(out);
    const char *raw = raw_text_problem(text, len);
    if (raw) {
        bsf_problem_set(problem, BSF_CAUSE_INVALID_MSG_FORMAT, "invalid JSON: %s", raw);
        return -1;
    }
    if (parse_into(text, len, out, problem))
        return -1;
    size_t off = 0;
    if (msgpack_unpack(out->data, out->size, &off, zone, obj) != MSGPACK_UNPACK_SUCCESS) {
        bsf_problem_set(problem, BSF_CAUSE_SYSTEM_FAILURE, "cannot decode the converted body");
        return -1;
    }
    const msgpack_object_str *dup = NULL;
    int rc = find_duplicate(obj, &dup);
    if (rc < 0) {
        bsf_problem_set(problem, BSF_CAUSE_SYSTEM_FAILURE, "out of memory");
        return -1;
    }
    if (rc) {
        bsf_problem_set(problem, BSF_CAUSE_INVALID_MSG_FORMAT,
                        "invalid JSON: the member \"%.*s\" is given twice",
                        (int)(dup->size > 64 ? 64 : dup->size), dup->ptr);
        return -1;
    }
    return 0;
}
