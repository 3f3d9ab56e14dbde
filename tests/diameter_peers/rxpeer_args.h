/*
 * rxpeer_args.h - one control-channel command line: `verb key=value key="v a l" flag ...`.
 *
 * Tokens are separated by blanks; double quotes group blanks into a value (`\"` and `\\` escape
 * inside quotes).  A token without '=' is a flag: rxpeer_args_get() returns "" for it.
 */
#ifndef RXPEER_ARGS_H
#define RXPEER_ARGS_H

#include <stddef.h>
#include <stdint.h>

#define RXPEER_ARGS_MAX 64
#define RXPEER_ARGS_BUF 4096

struct rxpeer_args {
	int argc;
	char *argv[RXPEER_ARGS_MAX];
	char buf[RXPEER_ARGS_BUF];
};

/* 0; ENODATA for an empty/comment line; EINVAL unterminated quote; E2BIG too long. */
int rxpeer_args_parse(struct rxpeer_args *a, const char *line);

/* The verb (first token). */
const char *rxpeer_args_verb(const struct rxpeer_args *a);
/* Value of key (after '='), "" for a bare flag, NULL if absent. Later tokens win. */
const char *rxpeer_args_get(const struct rxpeer_args *a, const char *key);

/* Typed getters: *out = def when absent. 0, or EINVAL with a message in err. */
int rxpeer_args_u32(const struct rxpeer_args *a, const char *key, uint32_t def, uint32_t *out,
    char *err, size_t errlen);
int rxpeer_args_u64(const struct rxpeer_args *a, const char *key, uint64_t def, uint64_t *out,
    char *err, size_t errlen);
int rxpeer_args_bool(const struct rxpeer_args *a, const char *key, int def, int *out,
    char *err, size_t errlen);
/* Comma-separated unsigned list ("1,2,4") into out[max]; *n set. */
int rxpeer_args_u32_list(const struct rxpeer_args *a, const char *key, uint32_t *out, size_t max,
    size_t *n, char *err, size_t errlen);

/* Reject keys not in `allowed` (NULL-terminated). 0 or EINVAL with the offending key in err. */
int rxpeer_args_check(const struct rxpeer_args *a, const char *const *allowed, char *err, size_t errlen);

#endif /* RXPEER_ARGS_H */
