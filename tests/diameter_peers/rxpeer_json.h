/*
 * rxpeer_json.h - minimal JSON writer for one-line records (no parsing).
 *
 * Usage:
 *     struct rxpeer_json j; rxpeer_json_init(&j);
 *     rxpeer_json_obj_begin(&j, NULL);
 *     rxpeer_json_str(&j, "type", "reply"); rxpeer_json_u64(&j, "code", 265);
 *     rxpeer_json_obj_end(&j);
 *     if (rxpeer_json_failed(&j)) ...;  use j.buf / j.len;  rxpeer_json_free(&j);
 *
 * `key` is NULL for array elements and for the top-level object.  Errors (allocation, nesting
 * deeper than RXPEER_JSON_DEPTH) are sticky and reported by rxpeer_json_failed().
 */
#ifndef RXPEER_JSON_H
#define RXPEER_JSON_H

#include <stddef.h>
#include <stdint.h>

#define RXPEER_JSON_DEPTH 16

struct rxpeer_json {
	char *buf;    /* NUL-terminated text */
	size_t len;
	size_t cap;
	int failed;
	int depth;
	int first[RXPEER_JSON_DEPTH]; /* no element written yet at this level */
};

void rxpeer_json_init(struct rxpeer_json *j);
void rxpeer_json_reset(struct rxpeer_json *j); /* empty the text, keep the buffer */
void rxpeer_json_free(struct rxpeer_json *j);
int rxpeer_json_failed(const struct rxpeer_json *j);

void rxpeer_json_obj_begin(struct rxpeer_json *j, const char *key);
void rxpeer_json_obj_end(struct rxpeer_json *j);
void rxpeer_json_arr_begin(struct rxpeer_json *j, const char *key);
void rxpeer_json_arr_end(struct rxpeer_json *j);

void rxpeer_json_str(struct rxpeer_json *j, const char *key, const char *s);
void rxpeer_json_strn(struct rxpeer_json *j, const char *key, const void *s, size_t n);
void rxpeer_json_u64(struct rxpeer_json *j, const char *key, uint64_t v);
void rxpeer_json_i64(struct rxpeer_json *j, const char *key, int64_t v);
void rxpeer_json_dbl(struct rxpeer_json *j, const char *key, double v, int decimals);
void rxpeer_json_bool(struct rxpeer_json *j, const char *key, int v);
void rxpeer_json_null(struct rxpeer_json *j, const char *key);
/* Insert already-serialised JSON (an object, array, ...) as a value. */
void rxpeer_json_raw(struct rxpeer_json *j, const char *key, const char *json, size_t n);
/* Octet string as lowercase hex text. */
void rxpeer_json_hex(struct rxpeer_json *j, const char *key, const void *data, size_t n);

#endif /* RXPEER_JSON_H */
