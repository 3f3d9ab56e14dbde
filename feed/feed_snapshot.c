#include "feed/feed_snapshot.h"

#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#include "feed/feed.h"

/* Layout: the snapshot, the header array, then the strings (NUL-terminated) and the payload. */

static size_t kept_len(const char *s)
{
    return s ? strnlen(s, BSF_FEED_MAX_STRING) : 0;
}

static size_t string_bytes(const char *s)
{
    return s ? kept_len(s) + 1 : 0;
}

static size_t kept_headers(const bsf_feed_record_t *rec)
{
    return rec->n_headers < BSF_FEED_MAX_HEADERS ? rec->n_headers : BSF_FEED_MAX_HEADERS;
}

static size_t kept_payload(const bsf_feed_record_t *rec, bool copy_payload, size_t max_payload)
{
    if (!copy_payload || !rec->payload)
        return 0;
    return rec->payload_len < max_payload ? rec->payload_len : max_payload;
}

/* The record's own strings, in the order they are copied: one list for the size and the copy. */
static const size_t string_members[] = {
    offsetof(bsf_feed_record_t, local),      offsetof(bsf_feed_record_t, peer),
    offsetof(bsf_feed_record_t, peer_host),  offsetof(bsf_feed_record_t, correlation_info),
    offsetof(bsf_feed_record_t, session_id), offsetof(bsf_feed_record_t, binding_id),
    offsetof(bsf_feed_record_t, method),     offsetof(bsf_feed_record_t, path)};
#define N_STRING_MEMBERS (sizeof string_members / sizeof string_members[0])

static const char *string_at(const bsf_feed_record_t *rec, size_t i)
{
    return *(const char *const *)((const char *)rec + string_members[i]);
}

static const char **string_member(bsf_feed_record_t *rec, size_t i)
{
    return (const char **)((char *)rec + string_members[i]);
}

size_t bsf_feed_snapshot_size(const bsf_feed_record_t *rec, bool copy_payload,
                              size_t max_payload)
{
    size_t n = sizeof(bsf_feed_snapshot_t) + kept_headers(rec) * sizeof(bsf_feed_header_t);
    for (size_t i = 0; i < N_STRING_MEMBERS; i++)
        n += string_bytes(string_at(rec, i));
    for (size_t i = 0; i < kept_headers(rec); i++)
        n += string_bytes(rec->headers[i].name) + string_bytes(rec->headers[i].value);
    return n + kept_payload(rec, copy_payload, max_payload);
}

typedef struct {
    char *next;
    bool truncated;
} cursor_t;

static const char *copy_string(cursor_t *c, const char *s)
{
    if (!s)
        return NULL;
    size_t n = kept_len(s);
    if (s[n] != '\0')
        c->truncated = true;
    char *dst = c->next;
    memcpy(dst, s, n);
    dst[n] = '\0';
    c->next += n + 1;
    return dst;
}

bsf_feed_snapshot_t *bsf_feed_snapshot_write(const bsf_feed_record_t *rec, bool copy_payload,
                                             size_t max_payload, void *mem, size_t bytes)
{
    _Static_assert(sizeof(bsf_feed_snapshot_t) % alignof(bsf_feed_header_t) == 0,
                  "the header array follows the snapshot");
    bsf_feed_snapshot_t *snap = mem;
    size_t n_headers = kept_headers(rec);
    bsf_feed_header_t *headers = (bsf_feed_header_t *)(snap + 1);
    cursor_t c = {(char *)(headers + n_headers), false};
    snap->bytes = bytes;
    snap->payload_len = rec->payload ? rec->payload_len : 0;
    snap->headers_dropped = rec->n_headers - n_headers;
    snap->rec = *rec;
    bsf_feed_record_t *r = &snap->rec;
    for (size_t i = 0; i < N_STRING_MEMBERS; i++)
        *string_member(r, i) = copy_string(&c, string_at(rec, i));
    for (size_t i = 0; i < n_headers; i++) {
        headers[i].name = copy_string(&c, rec->headers[i].name);
        headers[i].value = copy_string(&c, rec->headers[i].value);
    }
    r->headers = n_headers ? headers : NULL;
    r->n_headers = n_headers;
    size_t payload = kept_payload(rec, copy_payload, max_payload);
    if (payload) {
        memcpy(c.next, rec->payload, payload);
        r->payload = c.next;
        c.next += payload;
    } else {
        r->payload = NULL;
    }
    r->payload_len = payload;
    snap->truncated = c.truncated || (copy_payload && payload < snap->payload_len);
    return snap;
}
