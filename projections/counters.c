#include "projections/counters.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static void put_le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* ---- deltas kept per transaction (bsf_counters_defer) ---------------------------------- */

#define PENDING_MAX 64

typedef struct {
    uint32_t hash;
    uint16_t len;
    int64_t delta;
    char name[BSF_COUNTER_NAME_MAX];
} pending_t;

/* One writer per thread: the deferred transaction of this thread and its counters' deltas.
 * Fixed storage, nothing to free. */
static _Thread_local struct {
    MDB_txn *txn; /* NULL: not deferring */
    MDB_dbi dbi;
    size_t n;
    pending_t e[PENDING_MAX];
} pending;

static uint32_t name_hash(const char *name, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (uint8_t)name[i]) * 16777619u;
    return h;
}

static pending_t *pending_find(const char *name, size_t len, uint32_t h)
{
    for (size_t i = 0; i < pending.n; i++)
        if (pending.e[i].hash == h && pending.e[i].len == len &&
            memcmp(pending.e[i].name, name, len) == 0)
            return &pending.e[i];
    return NULL;
}

static bool deferring(MDB_txn *txn, MDB_dbi dbi)
{
    return pending.txn && pending.txn == txn && pending.dbi == dbi;
}

static int store_add(MDB_txn *txn, MDB_dbi dbi, const char *name, size_t len, int64_t delta)
{
    MDB_val k = {len, (void *)name}, v;
    uint64_t cur = 0;
    int rc = mdb_get(txn, dbi, &k, &v);
    if (rc == 0 && v.mv_size == 8)
        cur = get_le64(v.mv_data);
    else if (rc != 0 && rc != MDB_NOTFOUND)
        return rc;
    /* Never below zero: a corrupt or partial history must not wrap the counter. */
    uint64_t next = delta < 0 && (uint64_t)(-delta) > cur ? 0 : cur + (uint64_t)delta;
    if (next == cur && rc == 0)
        return 0;
    if (next == 0) {
        rc = mdb_del(txn, dbi, &k, NULL);
        return rc == MDB_NOTFOUND ? 0 : rc;
    }
    uint8_t buf[8];
    put_le64(buf, next);
    v.mv_size = 8;
    v.mv_data = buf;
    return mdb_put(txn, dbi, &k, &v, 0);
}

/* Writes the pending deltas whose name starts with the `plen` bytes of `prefix` (all with 0),
 * and forgets them. */
static int pending_write(const char *prefix, size_t plen)
{
    size_t kept = 0;
    int rc = 0;
    for (size_t i = 0; i < pending.n; i++) {
        pending_t *p = &pending.e[i];
        if (p->len < plen || memcmp(p->name, prefix, plen) != 0) {
            pending.e[kept++] = *p;
            continue;
        }
        if (!rc && p->delta)
            rc = store_add(pending.txn, pending.dbi, p->name, p->len, p->delta);
    }
    pending.n = kept;
    return rc;
}

void bsf_counters_defer(MDB_txn *txn, MDB_dbi dbi)
{
    pending.txn = txn;
    pending.dbi = dbi;
    pending.n = 0;
}

int bsf_counters_flush(MDB_txn *txn)
{
    if (!pending.txn || pending.txn != txn)
        return 0;
    int rc = pending_write("", 0);
    pending.txn = NULL;
    return rc;
}

void bsf_counters_discard(void)
{
    pending.txn = NULL;
    pending.n = 0;
}

/* ---- counters ------------------------------------------------------------------------- */

uint64_t bsf_counter_get(MDB_txn *txn, MDB_dbi dbi, const char *name)
{
    size_t len = strlen(name);
    MDB_val k = {len, (void *)name}, v;
    uint64_t cur = 0;
    if (mdb_get(txn, dbi, &k, &v) == 0 && v.mv_size == 8)
        cur = get_le64(v.mv_data);
    pending_t *p = deferring(txn, dbi) ? pending_find(name, len, name_hash(name, len)) : NULL;
    if (p)
        cur = p->delta < 0 && (uint64_t)(-p->delta) > cur ? 0 : cur + (uint64_t)p->delta;
    return cur;
}

int bsf_counter_add(MDB_txn *txn, MDB_dbi dbi, const char *name, int64_t delta)
{
    size_t len = strlen(name);
    if (!deferring(txn, dbi) || len == 0 || len > BSF_COUNTER_NAME_MAX)
        return store_add(txn, dbi, name, len, delta);
    uint32_t h = name_hash(name, len);
    pending_t *p = pending_find(name, len, h);
    if (!p) {
        int rc = pending.n == PENDING_MAX ? pending_write("", 0) : 0;
        if (rc)
            return rc;
        p = &pending.e[pending.n++];
        p->hash = h;
        p->len = (uint16_t)len;
        p->delta = 0;
        memcpy(p->name, name, len);
    }
    p->delta += delta;
    return 0;
}

/* Counter names are "<family>/<value>", built by hand: four or more per applied event. */
static size_t name_of(char *out, const char *family, const char *value, bool lower)
{
    size_t n = strlen(family), i = 0;
    memcpy(out, family, n);
    out[n++] = '/';
    for (; value[i] && n < BSF_COUNTER_NAME_MAX - 1; i++)
        out[n++] = lower ? (char)tolower((unsigned char)value[i]) : value[i];
    out[n] = '\0';
    return n;
}

static int account_len(MDB_txn *txn, MDB_dbi dbi, const char *family, unsigned len, int delta)
{
    char digits[4] = {(char)('0' + len / 100), (char)('0' + len / 10 % 10), (char)('0' + len % 10),
                      0};
    char name[16];
    name_of(name, family, digits, false);
    return bsf_counter_add(txn, dbi, name, delta);
}

int bsf_counters_account(MDB_txn *txn, MDB_dbi dbi, const bsf_pcf_binding_t *b, int delta)
{
    char name[BSF_COUNTER_NAME_MAX], part[BSF_COUNTER_NAME_MAX - 8];
    int rc = bsf_counter_add(txn, dbi, "total", delta);
    if (!rc && b->dnn) {
        name_of(name, "dnn", b->dnn, true);
        rc = bsf_counter_add(txn, dbi, name, delta);
    }
    if (!rc && b->has_snssai) {
        char s[12];
        bsf_snssai_format(&b->snssai, s);
        name_of(name, "snssai", s, false);
        rc = bsf_counter_add(txn, dbi, name, delta);
    }
    if (!rc) {
        bsf_pcf_binding_pcf_key(b, part, sizeof part);
        name_of(name, "pcf", part, false);
        rc = bsf_counter_add(txn, dbi, name, delta);
    }
    if (!rc && b->has_ipv6)
        rc = account_len(txn, dbi, "len6", b->ipv6.len, delta);
    for (size_t i = 0; !rc && i < b->n_add_ipv6; i++)
        rc = account_len(txn, dbi, "len6", b->add_ipv6[i].len, delta);
    for (size_t i = 0; !rc && i < b->n_ipv6_routes; i++)
        rc = account_len(txn, dbi, "len6", b->ipv6_routes[i].len, delta);
    for (size_t i = 0; !rc && i < b->n_ipv4_routes; i++)
        rc = account_len(txn, dbi, "len4r", b->ipv4_routes[i].len, delta);
    return rc;
}

int bsf_counters_prefix_lengths(MDB_txn *txn, MDB_dbi dbi, const char *family, unsigned max_len,
                                uint8_t bitmap[17])
{
    char prefix[16];
    size_t plen = strnlen(family, sizeof prefix - 2);
    memcpy(prefix, family, plen);
    prefix[plen++] = '/';
    memset(bitmap, 0, 17);
    /* The family's deltas of this transaction go to the store first: the scan sees them. */
    int rc = deferring(txn, dbi) ? pending_write(prefix, plen) : 0;
    if (rc)
        return rc;
    MDB_cursor *cur;
    rc = mdb_cursor_open(txn, dbi, &cur);
    if (rc)
        return rc;
    MDB_val k = {plen, prefix}, v;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size != plen + 3 || memcmp(k.mv_data, prefix, plen) != 0)
            break;
        const char *d = (const char *)k.mv_data + plen;
        unsigned len = (unsigned)((d[0] - '0') * 100 + (d[1] - '0') * 10 + (d[2] - '0'));
        if (len <= max_len)
            bitmap[len / 8] |= (uint8_t)(1u << (len % 8));
    }
    mdb_cursor_close(cur);
    return rc == MDB_NOTFOUND || rc == 0 ? 0 : rc;
}
