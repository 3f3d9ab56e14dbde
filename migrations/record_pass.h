/* The record pass: every binding record (bindings, ue_bindings, mbs_bindings) in record
 * format 3 (projections/record.h), the compact form this release writes, also those an older
 * release wrote in format 2. It changes no schema version: every reader of schema 4 reads
 * both formats, so the release before can still open the store (a rollback stays possible);
 * `meta` key `records_format` (one byte, 3) says the pass is done. A store without it
 * (opened read-write) is walked in batches of write transactions; each batch rewrites the
 * format-2 records it holds and stores, in the same transaction, where it stopped (`meta` key
 * `migrate/records`: the database, the records done, the last key), so a process killed
 * midway (kill -9, power loss) resumes after the last committed batch, and the last batch
 * writes the mark. Progress goes to the log: records done of the total and the rate, at most
 * once a second or every tenth of the total, and a line at the end. The digest does not
 * change (it hashes every record in format 2's bytes). A new or empty store only gets the
 * mark.
 *
 * Main thread, before any other thread uses the store. */
#ifndef BSF_MIGRATIONS_RECORD_PASS_H
#define BSF_MIGRATIONS_RECORD_PASS_H

#include <lmdb.h>
#include <stddef.h>

#define BSF_RECORD_PASS_BATCH 10000 /* records per transaction by default */

/* `dbis` (n of them, at most 8) are the record databases, in the order they are walked.
 * `batch` records per transaction (0: BSF_RECORD_PASS_BATCH). Does nothing on a store whose
 * pass is done. Returns 0, or -1 with a message (an LMDB error, a record of no known format, out
 * of memory); what was committed before stays and the next start resumes from there. */
int bsf_record_pass_run(MDB_env *env, MDB_dbi meta, const MDB_dbi *dbis, size_t n,
                        size_t batch, char *err, size_t err_cap);

#endif
