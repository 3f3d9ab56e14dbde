#include "projections/counters.h"

#include <ctype.h>
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

uint64_t bsf_counter_get(MDB_txn *txn, MDB_dbi dbi, const char *name)
{
    MDB_val k = {strlen(name), (void *)name}, v;
    if (mdb_get(txn, dbi, &k, &v) != 0 || v.mv_size != 8)
        return 0;
    return get_le64(v.mv_data);
}

int bsf_counter_add(MDB_txn *txn, MDB_dbi dbi, const char *name, int64_t delta)
{
    MDB_val k = {strlen(name), (void *)name}, v;
    uint64_t cur = 0;
    int rc = mdb_get(txn, dbi, &k, &v);
    if (rc == 0 && v.mv_size == 8)
        cur = get_le64(v.mv_data);
    else if (rc != 0 && rc != MDB_NOTFOUND)
        return rc;
    /* Never below zero: a corrupt or partial history must not wrap the counter. */
    uint64_t next = delta < 0 && (uint64_t)(-delta) > cur ? 0 : cur + (uint64_t)delta;
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
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, dbi, &cur);
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
