#include <string.h>

#include "projections/counters.h"
#include "projections/index_keys.h"
#include "projections/projection.h"

/* Visits the binding ids of every index entry whose key starts with `prefix`. The visitor
 * returns non-zero to stop. */
typedef int (*id_visit_fn)(void *ctx, const bsf_binding_id_t *id);

static int scan_prefix(MDB_txn *txn, MDB_dbi dbi, const uint8_t *prefix, size_t plen,
                       id_visit_fn visit, void *ctx)
{
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, dbi, &cur);
    if (rc)
        return rc;
    MDB_val k = {plen, (void *)prefix}, v;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        /* Keys end with the binding id; some indexes have more after the prefix. */
        if (k.mv_size < plen + 16 || memcmp(k.mv_data, prefix, plen) != 0)
            break;
        bsf_binding_id_t id;
        memcpy(id.b, (const uint8_t *)k.mv_data + k.mv_size - 16, 16);
        if (visit(ctx, &id))
            break;
    }
    mdb_cursor_close(cur);
    return rc == 0 || rc == MDB_NOTFOUND ? 0 : rc;
}

/* paraCom with only an S-NSSAI: every DNN must be visited (rare, bounded by the visitor's
 * capacity). Keys are dnn | 0 | sst | has_sd | sd[3] | id. */
static int scan_all_for_snssai(MDB_txn *txn, MDB_dbi dbi, const bsf_snssai_t *s,
                               id_visit_fn visit, void *ctx)
{
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, dbi, &cur);
    if (rc)
        return rc;
    MDB_val k, v;
    uint8_t want[5] = {s->sst, s->has_sd, (uint8_t)(s->sd >> 16), (uint8_t)(s->sd >> 8),
                       (uint8_t)s->sd};
    while ((rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0) {
        const uint8_t *key = k.mv_data;
        if (k.mv_size < 22 || memcmp(key + k.mv_size - 21, want, 5) != 0 ||
            key[k.mv_size - 22] != 0)
            continue;
        bsf_binding_id_t id;
        memcpy(id.b, key + k.mv_size - 16, 16);
        if (visit(ctx, &id))
            break;
    }
    mdb_cursor_close(cur);
    return rc == 0 || rc == MDB_NOTFOUND ? 0 : rc;
}

/* ---- discovery --------------------------------------------------------------------- */

typedef struct {
    const bsf_projection_t *p;
    MDB_txn *txn;
    const bsf_discovery_query_t *q;
    msgpack_zone *zone;
    bsf_match_t *best;
    size_t n;
    int err;
} discover_ctx_t;

static int discover_visit(void *arg, const bsf_binding_id_t *id)
{
    discover_ctx_t *c = arg;
    bsf_match_t m = {.id = *id};
    /* The same binding can be reached through several entries (e.g. a /64 prefix and a
     * route); count it once. */
    if (c->n > 0 && memcmp(c->best->id.b, id->b, 16) == 0)
        return 0;
    int rc = bsf_projection_get(c->p, c->txn, id, &m.record);
    if (rc == MDB_NOTFOUND || (rc == 0 && m.record.state != BSF_RECORD_LIVE))
        return 0; /* an index entry never outlives its record; tolerate it anyway */
    if (rc || bsf_record_unpack_binding(&m.record, c->zone, &m.doc) ||
        bsf_pcf_binding_decode_matchable(&m.doc, c->zone, &m.binding)) {
        c->err = rc ? rc : MDB_CORRUPTED;
        return 1;
    }
    if (!bsf_discovery_matches(c->q, &m.binding))
        return 0;
    if (c->n == 0 || bsf_discovery_recency_cmp(m.record.created_hlc, &m.id,
                                               c->best->record.created_hlc, &c->best->id) > 0)
        *c->best = m;
    c->n++;
    return 0;
}

/* One seek per prefix length present (the len4r/len6 counters) up to the query's length.
 * With `longest`, from the longest down, stopping at the first length that holds a match:
 * the most specific prefix wins, recency only decides among prefixes of that length. */
static int discover_prefixes(discover_ctx_t *c, MDB_dbi dbi, const char *family,
                             const uint8_t *addr, unsigned addr_bits, unsigned query_len,
                             bool longest)
{
    uint8_t bitmap[17];
    int rc = bsf_counters_prefix_lengths(c->txn, c->p->counters, family, query_len, bitmap);
    for (unsigned i = 0; !rc && !c->err && i <= query_len; i++) {
        unsigned len = longest ? query_len - i : i;
        if (!(bitmap[len / 8] & (1u << (len % 8))))
            continue;
        uint8_t prefix[17];
        size_t plen = addr_bits == 32 ? bsf_index_ipv4_route_prefix(addr, len, prefix)
                                      : bsf_index_ipv6_prefix(addr, len, prefix);
        rc = scan_prefix(c->txn, dbi, prefix, plen, discover_visit, c);
        if (longest && c->n > 0)
            break;
    }
    return rc;
}

int bsf_projection_discover(const bsf_projection_t *p, MDB_txn *txn,
                            const bsf_discovery_query_t *q, msgpack_zone *zone, bsf_match_t *best,
                            size_t *n_matches)
{
    discover_ctx_t c = {p, txn, q, zone, best, 0, 0};
    uint8_t prefix[17];
    int rc;
    switch (q->kind) {
    case BSF_UE_ADDR_IPV4:
        rc = scan_prefix(txn, p->ipv4, prefix, bsf_index_ipv4_prefix(&q->ipv4, prefix),
                         discover_visit, &c);
        if (!rc && !c.err)
            rc = discover_prefixes(&c, p->ipv4_route, "len4r", q->ipv4.b, 32, 32, false);
        break;
    case BSF_UE_ADDR_IPV6:
        rc = discover_prefixes(&c, p->ipv6, "len6", q->ipv6.b, 128, q->ipv6.len, true);
        break;
    default:
        rc = scan_prefix(txn, p->mac, prefix, bsf_index_mac_prefix(&q->mac, prefix),
                         discover_visit, &c);
        break;
    }
    *n_matches = c.n;
    return rc ? rc : c.err;
}

/* ---- candidates for the decide step ------------------------------------------------ */

typedef struct {
    const bsf_projection_t *p;
    MDB_txn *txn;
    msgpack_zone *zone;
    bsf_match_t *out;
    size_t cap, n;
    int err;
} collect_ctx_t;

static int collect_visit(void *arg, const bsf_binding_id_t *id)
{
    collect_ctx_t *c = arg;
    for (size_t i = 0; i < c->n; i++)
        if (memcmp(c->out[i].id.b, id->b, 16) == 0)
            return 0;
    if (c->n == c->cap)
        return 1;
    bsf_match_t *m = &c->out[c->n];
    m->id = *id;
    int rc = bsf_projection_get(c->p, c->txn, id, &m->record);
    if (rc == MDB_NOTFOUND || (rc == 0 && m->record.state != BSF_RECORD_LIVE))
        return 0;
    if (rc || bsf_record_decode_binding(&m->record, c->zone, &m->binding)) {
        c->err = rc ? rc : MDB_CORRUPTED;
        return 1;
    }
    c->n++;
    return 0;
}

int bsf_projection_collect_candidates(const bsf_projection_t *p, MDB_txn *txn,
                                      const bsf_pcf_binding_t *b, msgpack_zone *zone,
                                      bsf_match_t *out, size_t cap, size_t *n)
{
    collect_ctx_t c = {p, txn, zone, out, cap, 0, 0};
    uint8_t prefix[BSF_INDEX_KEY_MAX];
    int rc = 0;
    if (b->has_ipv4)
        rc = scan_prefix(txn, p->ipv4, prefix, bsf_index_ipv4_prefix(&b->ipv4, prefix),
                         collect_visit, &c);
    if (!rc && b->has_ipv6)
        rc = scan_prefix(txn, p->ipv6, prefix, bsf_index_ipv6_prefix(b->ipv6.b, b->ipv6.len, prefix),
                         collect_visit, &c);
    for (size_t i = 0; !rc && i < b->n_add_ipv6; i++)
        rc = scan_prefix(txn, p->ipv6, prefix,
                         bsf_index_ipv6_prefix(b->add_ipv6[i].b, b->add_ipv6[i].len, prefix),
                         collect_visit, &c);
    if (!rc && b->has_mac)
        rc = scan_prefix(txn, p->mac, prefix, bsf_index_mac_prefix(&b->mac, prefix), collect_visit,
                         &c);
    for (size_t i = 0; !rc && i < b->n_add_mac; i++)
        rc = scan_prefix(txn, p->mac, prefix, bsf_index_mac_prefix(&b->add_mac[i], prefix),
                         collect_visit, &c);
    const bsf_para_com_t *pc = &b->para_com;
    if (!rc && pc->present && pc->supi)
        rc = scan_prefix(txn, p->supi, prefix, bsf_index_text_prefix(pc->supi, prefix),
                         collect_visit, &c);
    else if (!rc && pc->present && pc->dnn)
        rc = scan_prefix(txn, p->dnn, prefix,
                         bsf_index_dnn_prefix(pc->dnn, pc->has_snssai ? &pc->snssai : NULL, prefix),
                         collect_visit, &c);
    else if (!rc && pc->present && pc->has_snssai)
        rc = scan_all_for_snssai(txn, p->dnn, &pc->snssai, collect_visit, &c);
    *n = c.n;
    return rc ? rc : c.err;
}

/* ---- subscribers and counters ------------------------------------------------------ */

typedef struct {
    void (*visit)(void *ctx, const bsf_binding_id_t *);
    void *ctx;
} subscriber_ctx_t;

static int subscriber_visit(void *arg, const bsf_binding_id_t *id)
{
    subscriber_ctx_t *c = arg;
    c->visit(c->ctx, id);
    return 0;
}

int bsf_projection_ids_by_subscriber(const bsf_projection_t *p, MDB_txn *txn, const char *value,
                                     bool gpsi, void (*visit)(void *ctx, const bsf_binding_id_t *),
                                     void *ctx)
{
    uint8_t prefix[BSF_INDEX_KEY_MAX];
    if (strlen(value) > BSF_MAX_IDENTITY_LEN)
        return 0;
    subscriber_ctx_t c = {visit, ctx};
    return scan_prefix(txn, gpsi ? p->gpsi : p->supi, prefix, bsf_index_text_prefix(value, prefix),
                       subscriber_visit, &c);
}

uint64_t bsf_projection_counter(const bsf_projection_t *p, MDB_txn *txn, const char *name)
{
    return bsf_counter_get(txn, p->counters, name);
}

int bsf_projection_counters_each(const bsf_projection_t *p, MDB_txn *txn, const char *prefix,
                                 void (*visit)(void *ctx, const char *name, uint64_t value),
                                 void *ctx)
{
    MDB_cursor *cur;
    int rc = mdb_cursor_open(txn, p->counters, &cur);
    if (rc)
        return rc;
    size_t plen = strlen(prefix);
    MDB_val k = {plen, (void *)prefix}, v;
    for (rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE); rc == 0;
         rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) {
        if (k.mv_size < plen || memcmp(k.mv_data, prefix, plen) != 0)
            break;
        char name[BSF_COUNTER_NAME_MAX + 1];
        size_t n = k.mv_size < BSF_COUNTER_NAME_MAX ? k.mv_size : BSF_COUNTER_NAME_MAX;
        memcpy(name, k.mv_data, n);
        name[n] = '\0';
        visit(ctx, name, bsf_counter_get(txn, p->counters, name));
    }
    mdb_cursor_close(cur);
    return rc == 0 || rc == MDB_NOTFOUND ? 0 : rc;
}
