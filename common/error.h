/* One error space for the whole daemon (docs/architecture.md, "Errors").
 *
 * A function that can fail returns 0 (or a count, where its header says so) on success and a
 * negative code on failure, from one of three disjoint ranges:
 *   - a negated errno value (-ENOMEM, -EINVAL, ...), for failures of the system or of libc;
 *   - an LMDB code, unchanged (MDB_NOTFOUND, MDB_MAP_FULL, ...: -30799..-30780);
 *   - one of our own BSF_E* codes below (-29099..-29000), for what neither of them says.
 * bsf_strerror prints any of them. LMDB also returns positive errno values from its system
 * calls; they are negated where they leave the module that called LMDB (bsf_err_from_lmdb),
 * and bsf_strerror still prints a positive value as an errno so that no log ever shows a
 * wrong text.
 *
 * The LMDB rows are kept here by their documented numeric values so that common/ does not
 * depend on LMDB; engine/store.c checks them against lmdb.h at compile time. */
#ifndef BSF_COMMON_ERROR_H
#define BSF_COMMON_ERROR_H

/* Our own codes: X(name, value, text). */
#define BSF_ERROR_MAP(X)                                                                       \
    X(BSF_EBADINPUT, -29001, "bad input")                                                      \
    X(BSF_ENOTFOUND, -29002, "not found")                                                      \
    X(BSF_EFULL, -29003, "store full")                                                         \
    X(BSF_ECORRUPT, -29004, "corrupt record")                                                  \
    X(BSF_ESTOPPED, -29005, "stopping")                                                        \
    X(BSF_EBUSY, -29006, "queue full")

/* LMDB's codes (lmdb.h, LMDB 0.9), as documented: X(name, value, text). */
#define BSF_LMDB_ERROR_MAP(X)                                                                  \
    X(MDB_KEYEXIST, -30799, "LMDB: key/data pair already exists")                              \
    X(MDB_NOTFOUND, -30798, "LMDB: no matching key/data pair found")                           \
    X(MDB_PAGE_NOTFOUND, -30797, "LMDB: requested page not found")                             \
    X(MDB_CORRUPTED, -30796, "LMDB: located page was wrong type")                              \
    X(MDB_PANIC, -30795, "LMDB: update of meta page failed or environment had fatal error")    \
    X(MDB_VERSION_MISMATCH, -30794, "LMDB: database environment version mismatch")             \
    X(MDB_INVALID, -30793, "LMDB: file is not an LMDB file")                                   \
    X(MDB_MAP_FULL, -30792, "LMDB: environment mapsize limit reached")                         \
    X(MDB_DBS_FULL, -30791, "LMDB: environment maxdbs limit reached")                          \
    X(MDB_READERS_FULL, -30790, "LMDB: environment maxreaders limit reached")                  \
    X(MDB_TLS_FULL, -30789, "LMDB: thread-local storage keys full")                            \
    X(MDB_TXN_FULL, -30788, "LMDB: transaction has too many dirty pages")                      \
    X(MDB_CURSOR_FULL, -30787, "LMDB: internal error - cursor stack limit reached")            \
    X(MDB_PAGE_FULL, -30786, "LMDB: internal error - page has no more space")                  \
    X(MDB_MAP_RESIZED, -30785, "LMDB: database contents grew beyond environment mapsize")      \
    X(MDB_INCOMPATIBLE, -30784, "LMDB: operation and DB incompatible, or DB flags changed")    \
    X(MDB_BAD_RSLOT, -30783, "LMDB: invalid reuse of reader locktable slot")                   \
    X(MDB_BAD_TXN, -30782, "LMDB: transaction must abort, has a child, or is invalid")         \
    X(MDB_BAD_VALSIZE, -30781, "LMDB: unsupported size of key/DB name/data, or wrong DUPFIXED size") \
    X(MDB_BAD_DBI, -30780, "LMDB: the specified DBI handle was closed/changed unexpectedly")

/* The errno values the daemon returns negated; their text is libc's. X(name). */
#define BSF_ERRNO_MAP(X)                                                                       \
    X(EPERM) X(ENOENT) X(EINTR) X(EIO) X(EBADF) X(EAGAIN) X(ENOMEM) X(EACCES) X(EBUSY)          \
    X(EEXIST) X(ENOTDIR) X(EISDIR) X(EINVAL) X(ENFILE) X(EMFILE) X(ENOSPC) X(EROFS)            \
    X(ERANGE) X(ENOSYS) X(ECANCELED) X(ETIMEDOUT) X(EOVERFLOW) X(EMSGSIZE)

enum {
#define BSF_ERROR_ENUM(name, value, text) name = (value),
    BSF_ERROR_MAP(BSF_ERROR_ENUM)
#undef BSF_ERROR_ENUM
};

#define BSF_ERROR_FIRST (-29099) /* our range: BSF_ERROR_FIRST..BSF_ERROR_LAST */
#define BSF_ERROR_LAST (-29000)

/* A text for any code: ours, LMDB's, a negated (or, from LMDB, positive) errno; 0 gives
 * "success"; an unknown code gives "unknown error <n>". Never NULL. The text is static, or
 * for an unknown code in a buffer of the calling thread valid until its next call. Any
 * thread. */
const char *bsf_strerror(int rc);

/* An LMDB result in our convention: 0 and LMDB's negative codes unchanged, a positive errno
 * negated. */
static inline int bsf_err_from_lmdb(int rc)
{
    return rc > 0 ? -rc : rc;
}

#endif
