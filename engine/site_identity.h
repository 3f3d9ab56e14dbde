/* The site a store belongs to: kept in the store's meta ("ext/site_id", decimal text) at the
 * first start, so that a store copied from another site (a restored backup, a moved disk) is
 * not served under a different site.id, which would reuse that site's event sequence and
 * binding ids. */
#ifndef BSF_ENGINE_SITE_IDENTITY_H
#define BSF_ENGINE_SITE_IDENTITY_H

#include <stddef.h>

#include "engine/store.h"

#define BSF_SITE_ID_META "site_id"

/* Compares the site id kept in `s` (opened read-write) with `configured`; a store that keeps
 * none (new, or written before site ids were kept) adopts `configured`. Returns 0; 1 when
 * they differ (err names site.id, the configured and the stored value); -1 with a message on
 * a store error or a kept value that is not a site id. Main thread, at start. */
int bsf_site_identity_check(bsf_store_t *s, unsigned configured, char *err, size_t err_cap);

/* Reads the kept site id in `txn` (any transaction). Returns 0 with *site set, 1 when none
 * is kept, or an LMDB code (MDB_CORRUPTED for a value that is not a site id). Any thread. */
int bsf_site_identity_read(bsf_store_t *s, MDB_txn *txn, unsigned *site);

#endif
