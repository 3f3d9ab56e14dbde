/* Diameter wire format without freeDiameter (see rawdiam.h). */
#include "rawdiam.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint32_t get24(const uint8_t *p)
{
    return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put24(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 16);
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    put24(p + 1, v);
}

bool rd_header(const uint8_t *p, rd_header_t *h)
{
    h->length = get24(p + 1);
    h->flags = p[4];
    h->code = get24(p + 5);
    h->app = get32(p + 8);
    h->hbh = get32(p + 12);
    h->e2e = get32(p + 16);
    return p[0] == 1 && h->length >= RD_HEADER_LEN && h->length % 4 == 0 &&
           h->length <= RD_MAX_MESSAGE;
}

bool rd_find(const uint8_t *msg, size_t len, uint32_t code, uint32_t vendor, const uint8_t **data,
             size_t *data_len)
{
    return len >= RD_HEADER_LEN &&
           rd_find_in(msg + RD_HEADER_LEN, len - RD_HEADER_LEN, code, vendor, data, data_len);
}

uint32_t rd_result_code(const uint8_t *msg, size_t len)
{
    const uint8_t *d, *inner;
    size_t dl, il;
    if (rd_find(msg, len, RD_AVP_RESULT_CODE, 0, &d, &dl) && dl == 4)
        return get32(d);
    if (rd_find(msg, len, RD_AVP_EXPERIMENTAL_RESULT, 0, &d, &dl) &&
        rd_find_in(d, dl, RD_AVP_EXPERIMENTAL_RESULT_CODE, 0, &inner, &il) && il == 4)
        return get32(inner);
    return 0;
}

bool rd_find_in(const uint8_t *msg, size_t len, uint32_t code, uint32_t vendor,
                const uint8_t **data, size_t *data_len)
{
    for (size_t at = 0; at + 8 <= len;) {
        uint32_t c = get32(msg + at), avp_len = get24(msg + at + 5);
        uint8_t flags = msg[at + 4];
        size_t head = flags & RD_AVP_VENDOR ? 12 : 8;
        if (avp_len < head || at + avp_len > len)
            return false;
        uint32_t v = flags & RD_AVP_VENDOR ? get32(msg + at + 8) : 0;
        if (c == code && v == vendor) {
            *data = msg + at + head;
            *data_len = avp_len - head;
            return true;
        }
        at += (avp_len + 3u) & ~3u;
    }
    return false;
}

void rd_buf_free(rd_buf_t *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void rd_buf_consume(rd_buf_t *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
}

/* Room for n more bytes at the end; NULL (and `failed`) when out of memory. */
static uint8_t *grow(rd_buf_t *b, size_t n)
{
    if (b->failed)
        return NULL;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *p = realloc(b->data, cap);
        if (!p) {
            b->failed = true;
            return NULL;
        }
        b->data = p;
        b->cap = cap;
    }
    uint8_t *at = b->data + b->len;
    b->len += n;
    return at;
}

size_t rd_begin(rd_buf_t *b, uint8_t flags, uint32_t code, uint32_t app, uint32_t hbh,
                uint32_t e2e)
{
    size_t start = b->len;
    uint8_t *p = grow(b, RD_HEADER_LEN);
    if (p) {
        p[0] = 1;
        p[4] = flags;
        put24(p + 5, code);
        put32(p + 8, app);
        put32(p + 12, hbh);
        put32(p + 16, e2e);
    }
    return start;
}

void rd_end(rd_buf_t *b, size_t start)
{
    if (!b->failed)
        put24(b->data + start + 1, (uint32_t)(b->len - start));
}

static size_t avp_head(rd_buf_t *b, uint32_t code, uint8_t flags, uint32_t vendor)
{
    size_t start = b->len;
    size_t head = vendor ? 12 : 8;
    uint8_t *p = grow(b, head);
    if (p) {
        put32(p, code);
        p[4] = (uint8_t)(flags | (vendor ? RD_AVP_VENDOR : 0));
        if (vendor)
            put32(p + 8, vendor);
    }
    return start;
}

void rd_avp(rd_buf_t *b, uint32_t code, uint8_t flags, uint32_t vendor, const void *data,
            size_t len)
{
    size_t start = avp_head(b, code, flags, vendor);
    size_t padded = (len + 3u) & ~(size_t)3u;
    uint8_t *p = grow(b, padded);
    if (!p)
        return;
    memcpy(p, data, len);
    memset(p + len, 0, padded - len);
    put24(b->data + start + 5, (uint32_t)(b->len - start - (padded - len)));
}

void rd_avp_u32(rd_buf_t *b, uint32_t code, uint8_t flags, uint32_t vendor, uint32_t value)
{
    uint8_t v[4];
    put32(v, value);
    rd_avp(b, code, flags, vendor, v, sizeof v);
}

void rd_avp_str(rd_buf_t *b, uint32_t code, uint8_t flags, const char *s)
{
    rd_avp(b, code, flags, 0, s, strlen(s));
}

size_t rd_group_begin(rd_buf_t *b, uint32_t code, uint8_t flags, uint32_t vendor)
{
    return avp_head(b, code, flags, vendor);
}

void rd_group_end(rd_buf_t *b, size_t start)
{
    if (!b->failed)
        put24(b->data + start + 5, (uint32_t)(b->len - start));
}

void rd_origin(rd_buf_t *b, const char *host, const char *realm)
{
    rd_avp_str(b, RD_AVP_ORIGIN_HOST, RD_AVP_MANDATORY, host);
    rd_avp_str(b, RD_AVP_ORIGIN_REALM, RD_AVP_MANDATORY, realm);
}

void rd_answer_base(rd_buf_t *b, const rd_header_t *h, const char *host, const char *realm)
{
    size_t start = rd_begin(b, 0, h->code, h->app, h->hbh, h->e2e);
    rd_avp_u32(b, RD_AVP_RESULT_CODE, RD_AVP_MANDATORY, 0, 2001);
    rd_origin(b, host, realm);
    rd_end(b, start);
}

size_t rd_capabilities(rd_buf_t *b, const rd_header_t *h, const char *host, const char *realm,
                       const void *ip, const char *product)
{
    const uint8_t M = RD_AVP_MANDATORY;
    size_t start = h ? rd_begin(b, 0, h->code, h->app, h->hbh, h->e2e)
                     : rd_begin(b, RD_FLAG_REQUEST, RD_CC_CER, 0, 1, 1);
    if (h)
        rd_avp_u32(b, RD_AVP_RESULT_CODE, M, 0, 2001);
    rd_origin(b, host, realm);
    uint8_t addr[6] = {0, 1}; /* Address: family 1 (IPv4), then the 4 octets */
    memcpy(addr + 2, ip, 4);
    rd_avp(b, RD_AVP_HOST_IP, M, 0, addr, sizeof addr);
    rd_avp_u32(b, RD_AVP_VENDOR_ID, M, 0, 0);
    rd_avp_str(b, RD_AVP_PRODUCT_NAME, 0, product);
    rd_avp_u32(b, RD_AVP_SUPPORTED_VENDOR, M, 0, RD_VENDOR_3GPP);
    size_t g = rd_group_begin(b, RD_AVP_VSAI, M, 0);
    rd_avp_u32(b, RD_AVP_VENDOR_ID, M, 0, RD_VENDOR_3GPP);
    rd_avp_u32(b, RD_AVP_AUTH_APP_ID, M, 0, RD_RX_APP);
    rd_group_end(b, g);
    return start;
}

int rd_write(int fd, rd_buf_t *b)
{
    if (b->failed)
        return -1;
    size_t done = 0;
    while (done < b->len) {
        ssize_t n = write(fd, b->data + done, b->len - done);
        if (n > 0)
            done += (size_t)n;
        else if (n < 0 && errno == EINTR)
            continue;
        else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        else
            return -1;
    }
    rd_buf_consume(b, done);
    return 0;
}

ssize_t rd_read(int fd, uint8_t **in, size_t *len, size_t *cap, size_t room, size_t first)
{
    if (*cap - *len < room) {
        size_t grown = *cap ? *cap * 2 : first;
        uint8_t *p = realloc(*in, grown);
        if (!p) {
            errno = ENOMEM;
            return -1;
        }
        *in = p;
        *cap = grown;
    }
    ssize_t n = read(fd, *in + *len, *cap - *len);
    if (n > 0)
        *len += (size_t)n;
    return n;
}
