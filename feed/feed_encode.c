#include "feed/feed_encode.h"

#include <stdlib.h>
#include <string.h>

/* ---- output buffer (a bsf_text_t kept NUL-terminated) ------------------------------- */

static bool reserve(bsf_text_t *t, size_t extra)
{
    if (t->failed)
        return false;
    if (t->len + extra + 1 <= t->cap)
        return true;
    size_t cap = t->cap ? t->cap : 1024;
    while (cap < t->len + extra + 1)
        cap *= 2;
    char *p = realloc(t->data, cap);
    if (!p) {
        t->failed = true;
        return false;
    }
    t->data = p;
    t->cap = cap;
    return true;
}

static void put(bsf_text_t *t, const char *s, size_t n)
{
    if (!reserve(t, n))
        return;
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void put_lit(bsf_text_t *t, const char *s)
{
    put(t, s, strlen(s));
}

/* ---- UTF-8 and JSON strings --------------------------------------------------------- */

static bool cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

/* Length of the well-formed UTF-8 sequence at s (n bytes available), 0 when ill-formed. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return n >= 2 && cont(s[1]) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (n < 3 || !cont(s[1]) || !cont(s[2]))
            return 0;
        if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F))
            return 0; /* overlong, or a surrogate */
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (n < 4 || !cont(s[1]) || !cont(s[2]) || !cont(s[3]))
            return 0;
        if ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] > 0x8F))
            return 0; /* overlong, or above U+10FFFF */
        return 4;
    }
    return 0;
}

bool bsf_feed_utf8_valid(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = utf8_seq(s + i, n - i);
        if (!k)
            return false;
        i += k;
    }
    return true;
}

/* Bytes that go into a JSON string as they are: printable ASCII but '"' and '\\'. */
static bool plain(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* A JSON string. Ill-formed UTF-8 bytes are written as \u00XX (their Latin-1 reading), so
 * the output is always valid JSON; with `strict`, they stop the writing instead (the output
 * is then left as it was) and the function returns false. */
static bool put_json_string_checked(bsf_text_t *t, const char *str, size_t n, bool strict)
{
    static const char hex[] = "0123456789abcdef";
    if (!reserve(t, n * 6 + 2))
        return true;
    const unsigned char *s = (const unsigned char *)str;
    char *o = t->data + t->len;
    *o++ = '"';
    for (size_t i = 0; i < n;) {
        size_t run = i;
        while (run < n && plain(s[run]))
            run++;
        if (run > i) {
            memcpy(o, s + i, run - i);
            o += run - i;
            i = run;
            continue;
        }
        unsigned char c = s[i];
        size_t k = utf8_seq(s + i, n - i);
        if (k > 1) {
            memcpy(o, s + i, k);
            o += k;
            i += k;
            continue;
        }
        if (k == 0 && strict) {
            t->data[t->len] = '\0';
            return false;
        }
        i++;
        *o++ = '\\';
        switch (c) {
        case '"':
            *o++ = '"';
            break;
        case '\\':
            *o++ = '\\';
            break;
        case '\n':
            *o++ = 'n';
            break;
        case '\r':
            *o++ = 'r';
            break;
        case '\t':
            *o++ = 't';
            break;
        default:
            *o++ = 'u';
            *o++ = '0';
            *o++ = '0';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
            break;
        }
    }
    *o++ = '"';
    *o = '\0';
    t->len = (size_t)(o - t->data);
    return true;
}

static void put_json_string(bsf_text_t *t, const char *str, size_t n)
{
    put_json_string_checked(t, str, n, false);
}

static void put_base64(bsf_text_t *t, const unsigned char *s, size_t n)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (!reserve(t, (n + 2) / 3 * 4 + 2))
        return;
    char *o = t->data + t->len;
    *o++ = '"';
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
        *o++ = b64[v >> 18];
        *o++ = b64[(v >> 12) & 63];
        *o++ = b64[(v >> 6) & 63];
        *o++ = b64[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0);
        *o++ = b64[v >> 18];
        *o++ = b64[(v >> 12) & 63];
        *o++ = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    *o++ = '"';
    *o = '\0';
    t->len = (size_t)(o - t->data);
}

/* ---- members ------------------------------------------------------------------------ */

static void member(bsf_text_t *t, const char *name)
{
    put_lit(t, ",\"");
    put_lit(t, name);
    put_lit(t, "\":");
}

static void member_str(bsf_text_t *t, const char *name, const char *value)
{
    if (!value)
        return;
    member(t, name);
    put_json_string(t, value, strlen(value));
}

/* Writes v in base 10 or 16 (lowercase) at the end of buf[0..24); returns where it starts. */
static char *format_u64(uint64_t v, bool hex, char buf[24])
{
    static const char digits[] = "0123456789abcdef";
    char *p = buf + 24;
    do {
        if (hex) {
            *--p = digits[v & 15];
            v >>= 4;
        } else {
            *--p = digits[v % 10];
            v /= 10;
        }
    } while (v);
    return p;
}

static void member_u64(bsf_text_t *t, const char *name, uint64_t v)
{
    char buf[24];
    char *num = format_u64(v, false, buf);
    member(t, name);
    put(t, num, (size_t)(buf + 24 - num));
}

static void put_headers(bsf_text_t *t, const bsf_feed_record_t *rec)
{
    if (!rec->n_headers)
        return;
    member(t, "headers");
    put_lit(t, "[");
    for (size_t i = 0; i < rec->n_headers; i++) {
        const bsf_feed_header_t *h = &rec->headers[i];
        put_lit(t, i ? ",[" : "[");
        put_json_string(t, h->name ? h->name : "", h->name ? strlen(h->name) : 0);
        put_lit(t, ",");
        put_json_string(t, h->value ? h->value : "", h->value ? strlen(h->value) : 0);
        put_lit(t, "]");
    }
    put_lit(t, "]");
}

static void put_payload(bsf_text_t *t, const bsf_feed_record_t *rec)
{
    if (!rec->payload || !rec->payload_len)
        return;
    size_t mark = t->len;
    if (rec->protocol == BSF_FEED_SBI) {
        put_lit(t, ",\"payloadEncoding\":\"utf-8\",\"payload\":");
        if (put_json_string_checked(t, rec->payload, rec->payload_len, true))
            return;
        t->len = mark; /* not UTF-8: base64 instead */
        t->data[mark] = '\0';
    }
    put_lit(t, ",\"payloadEncoding\":\"base64\",\"payload\":");
    put_base64(t, rec->payload, rec->payload_len);
}

void bsf_feed_transaction_text(const bsf_feed_meta_t *meta, uint64_t id,
                               char out[BSF_FEED_TXN_TEXT_MAX])
{
    char buf[24];
    char *o = out;
    const uint64_t parts[] = {meta->site_id, meta->instance, id};
    for (int i = 0; i < 3; i++) {
        char *p = format_u64(parts[i], i > 0, buf);
        size_t n = (size_t)(buf + 24 - p);
        memcpy(o, p, n);
        o += n;
        *o++ = i < 2 ? '-' : '\0';
    }
}

int bsf_feed_encode(const bsf_feed_record_t *rec, const bsf_feed_meta_t *meta, bsf_text_t *out)
{
    char txn[BSF_FEED_TXN_TEXT_MAX];
    bsf_feed_transaction_text(meta, rec->transaction_id, txn);
    put_lit(out, "{\"version\":1");
    member_str(out, "protocol", rec->protocol == BSF_FEED_SBI ? "sbi" : "diameter");
    member_str(out, "direction", rec->direction == BSF_FEED_INGRESS ? "ingress" : "egress");
    member_str(out, "kind", rec->kind == BSF_FEED_REQUEST ? "request" : "response");
    member_u64(out, "site", meta->site_id);
    member_str(out, "transactionId", txn);
    member_str(out, "local", rec->local);
    member_str(out, "peer", rec->peer);
    if (rec->protocol == BSF_FEED_SBI) {
        member_str(out, "method", rec->method);
        member_str(out, "path", rec->path);
        if (rec->status)
            member_u64(out, "status", (uint64_t)rec->status);
    } else {
        member_str(out, "peerHost", rec->peer_host);
        member_u64(out, "commandCode", rec->command_code);
        member_u64(out, "commandFlags", rec->command_flags);
        member_u64(out, "applicationId", rec->application_id);
        member_u64(out, "hopByHop", rec->hop_by_hop);
        member_u64(out, "endToEnd", rec->end_to_end);
        if (rec->result_code)
            member_u64(out, "resultCode", rec->result_code);
    }
    if (rec->received_ms)
        member_u64(out, "receivedMs", rec->received_ms);
    if (rec->sent_ms)
        member_u64(out, "sentMs", rec->sent_ms);
    member_str(out, "correlationInfo", rec->correlation_info);
    member_str(out, "sessionId", rec->session_id);
    member_str(out, "bindingId", rec->binding_id);
    put_headers(out, rec);
    if (meta->headers_dropped)
        member_u64(out, "headersDropped", meta->headers_dropped);
    if (meta->payload_len)
        member_u64(out, "payloadLength", meta->payload_len);
    put_payload(out, rec);
    if (meta->truncated)
        put_lit(out, ",\"truncated\":true");
    put_lit(out, "}");
    return out->failed ? -1 : 0;
}

const char *bsf_feed_key(const bsf_feed_record_t *rec, const char *txn_text, size_t *len)
{
    const char *candidates[] = {rec->correlation_info, rec->session_id, rec->binding_id};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
        if (candidates[i] && candidates[i][0]) {
            *len = strlen(candidates[i]);
            return candidates[i];
        }
    *len = strlen(txn_text);
    return txn_text;
}
