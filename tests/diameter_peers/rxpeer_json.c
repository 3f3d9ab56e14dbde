/* rxpeer_json.c - see rxpeer_json.h */
#include "rxpeer_json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rxpeer_json_init(struct rxpeer_json *j)
{
	memset(j, 0, sizeof(*j));
	j->first[0] = 1;
}

void rxpeer_json_reset(struct rxpeer_json *j)
{
	j->len = 0;
	if (j->buf)
		j->buf[0] = '\0';
	j->failed = 0;
	j->depth = 0;
	j->first[0] = 1;
}

void rxpeer_json_free(struct rxpeer_json *j)
{
	free(j->buf);
	rxpeer_json_init(j);
}

int rxpeer_json_failed(const struct rxpeer_json *j)
{
	return j->failed || j->depth != 0;
}

/* Make room for n more bytes plus the terminating NUL. */
static int rxpeer_json_reserve(struct rxpeer_json *j, size_t n)
{
	if (j->failed)
		return -1;
	if (j->len + n + 1 <= j->cap)
		return 0;
	size_t cap = j->cap ? j->cap : 256;
	while (cap < j->len + n + 1)
		cap *= 2;
	char *b = realloc(j->buf, cap);
	if (b == NULL) {
		j->failed = 1;
		return -1;
	}
	j->buf = b;
	j->cap = cap;
	return 0;
}

static void rxpeer_json_put(struct rxpeer_json *j, const char *s, size_t n)
{
	if (rxpeer_json_reserve(j, n) != 0)
		return;
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void rxpeer_json_putc(struct rxpeer_json *j, char c)
{
	rxpeer_json_put(j, &c, 1);
}

/* Write an escaped JSON string literal. Bytes >= 0x80 are passed through (UTF-8). */
static void rxpeer_json_quote(struct rxpeer_json *j, const unsigned char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	rxpeer_json_putc(j, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		switch (c) {
		case '"': rxpeer_json_put(j, "\\\"", 2); break;
		case '\\': rxpeer_json_put(j, "\\\\", 2); break;
		case '\n': rxpeer_json_put(j, "\\n", 2); break;
		case '\r': rxpeer_json_put(j, "\\r", 2); break;
		case '\t': rxpeer_json_put(j, "\\t", 2); break;
		default:
			if (c < 0x20 || c == 0x7f) {
				char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
				rxpeer_json_put(j, e, sizeof e);
			} else {
				rxpeer_json_putc(j, (char)c);
			}
		}
	}
	rxpeer_json_putc(j, '"');
}

/* Separator and key before a value. */
static void rxpeer_json_prefix(struct rxpeer_json *j, const char *key)
{
	if (!j->first[j->depth])
		rxpeer_json_putc(j, ',');
	j->first[j->depth] = 0;
	if (key) {
		rxpeer_json_quote(j, (const unsigned char *)key, strlen(key));
		rxpeer_json_putc(j, ':');
	}
}

static void rxpeer_json_open(struct rxpeer_json *j, const char *key, char c)
{
	rxpeer_json_prefix(j, key);
	rxpeer_json_putc(j, c);
	if (j->depth + 1 >= RXPEER_JSON_DEPTH) {
		j->failed = 1;
		return;
	}
	j->depth++;
	j->first[j->depth] = 1;
}

static void rxpeer_json_close(struct rxpeer_json *j, char c)
{
	if (j->depth == 0) {
		j->failed = 1;
		return;
	}
	j->depth--;
	rxpeer_json_putc(j, c);
}

void rxpeer_json_obj_begin(struct rxpeer_json *j, const char *key) { rxpeer_json_open(j, key, '{'); }
void rxpeer_json_obj_end(struct rxpeer_json *j) { rxpeer_json_close(j, '}'); }
void rxpeer_json_arr_begin(struct rxpeer_json *j, const char *key) { rxpeer_json_open(j, key, '['); }
void rxpeer_json_arr_end(struct rxpeer_json *j) { rxpeer_json_close(j, ']'); }

void rxpeer_json_str(struct rxpeer_json *j, const char *key, const char *s)
{
	if (s == NULL) {
		rxpeer_json_null(j, key);
		return;
	}
	rxpeer_json_strn(j, key, s, strlen(s));
}

void rxpeer_json_strn(struct rxpeer_json *j, const char *key, const void *s, size_t n)
{
	rxpeer_json_prefix(j, key);
	rxpeer_json_quote(j, s, n);
}

void rxpeer_json_u64(struct rxpeer_json *j, const char *key, uint64_t v)
{
	char b[24];
	int n = snprintf(b, sizeof b, "%" PRIu64, v);
	rxpeer_json_prefix(j, key);
	rxpeer_json_put(j, b, (size_t)n);
}

void rxpeer_json_i64(struct rxpeer_json *j, const char *key, int64_t v)
{
	char b[24];
	int n = snprintf(b, sizeof b, "%" PRId64, v);
	rxpeer_json_prefix(j, key);
	rxpeer_json_put(j, b, (size_t)n);
}

void rxpeer_json_dbl(struct rxpeer_json *j, const char *key, double v, int decimals)
{
	char b[64];
	int n = snprintf(b, sizeof b, "%.*f", decimals, v);
	rxpeer_json_prefix(j, key);
	if (n < 0 || (size_t)n >= sizeof b || v != v) /* overflow or NaN: not valid JSON */
		rxpeer_json_put(j, "null", 4);
	else
		rxpeer_json_put(j, b, (size_t)n);
}

void rxpeer_json_bool(struct rxpeer_json *j, const char *key, int v)
{
	rxpeer_json_prefix(j, key);
	if (v)
		rxpeer_json_put(j, "true", 4);
	else
		rxpeer_json_put(j, "false", 5);
}

void rxpeer_json_null(struct rxpeer_json *j, const char *key)
{
	rxpeer_json_prefix(j, key);
	rxpeer_json_put(j, "null", 4);
}

void rxpeer_json_raw(struct rxpeer_json *j, const char *key, const char *json, size_t n)
{
	rxpeer_json_prefix(j, key);
	rxpeer_json_put(j, json, n);
}

void rxpeer_json_hex(struct rxpeer_json *j, const char *key, const void *data, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = data;
	rxpeer_json_prefix(j, key);
	if (rxpeer_json_reserve(j, 2 * n + 2) != 0)
		return;
	j->buf[j->len++] = '"';
	for (size_t i = 0; i < n; i++) {
		j->buf[j->len++] = hex[p[i] >> 4];
		j->buf[j->len++] = hex[p[i] & 15];
	}
	j->buf[j->len++] = '"';
	j->buf[j->len] = '\0';
}
