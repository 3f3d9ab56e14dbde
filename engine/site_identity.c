/* The site id kept in the store; see site_identity.h. */
#include "engine/site_identity.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/ext_meta.h"

/* "1".."65535" -> 0 with *site set, or -1. */
static int parse_site(const char *text, unsigned *site)
{
    char *end;
    unsigned long v = strtoul(text, &end, 10);
    if (!*text || *end || v < 1 || v > 65535)
        return -1;
    *site = (unsigned)v;
    return 0;
}

int bsf_site_identity_check(bsf_store_t *s, unsigned configured, char *err, size_t err_cap)
{
    char want[16], kept[16];
    bool created;
    snprintf(want, sizeof want, "%u", configured);
    if (bsf_ext_meta_string(s, BSF_SITE_ID_META, want, kept, sizeof kept, &created, err,
                            err_cap))
        return -1;
    unsigned stored;
    if (parse_site(kept, &stored)) {
        snprintf(err, err_cap, "the store keeps an invalid site id \"%s\" (ext/%s)", kept,
                 BSF_SITE_ID_META);
        return -1;
    }
    if (stored != configured) {
        snprintf(err, err_cap,
                 "site.id is %u but the store belongs to site %u (a store of another site: "
                 "start it with site.id = %u, or give this site its own store)",
                 configured, stored, stored);
        return 1;
    }
    return 0;
}

int bsf_site_identity_read(bsf_store_t *s, MDB_txn *txn, unsigned *site)
{
    char kept[16];
    size_t len = 0;
    int rc = bsf_store_get_meta(s, txn, BSF_SITE_ID_META, kept, sizeof kept - 1, &len);
    if (rc == MDB_NOTFOUND)
        return 1;
    if (rc)
        return rc;
    if (len >= sizeof kept)
        return MDB_CORRUPTED;
    kept[len] = '\0';
    return parse_site(kept, site) ? MDB_CORRUPTED : 0;
}
