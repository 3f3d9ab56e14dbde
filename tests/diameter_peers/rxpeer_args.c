/* rxpeer_args.c - see rxpeer_args.h */
#include "rxpeer_args.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rxpeer_args_parse(struct rxpeer_args *a, const char *line)
{
	const char *p = line;
	char *o = a->buf, *end = a->buf + sizeof(a->buf) - 1;

	a->argc = 0;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++;
		if (*p == '\0' || (*p == '#' && a->argc == 0))
			break;
		if (a->argc == RXPEER_ARGS_MAX)
			return E2BIG;
		a->argv[a->argc++] = o;
		int quoted = 0;
		while (*p && (quoted || !(*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))) {
			char c = *p++;
			if (c == '"') {
				quoted = !quoted;
				continue;
			}
			if (quoted && c == '\\' && (*p == '"' || *p == '\\'))
				c = *p++;
			if (o == end)
				return E2BIG;
			*o++ = c;
		}
		if (quoted)
			return EINVAL;
		if (o == end)
			return E2BIG;
		*o++ = '\0';
	}
	return a->argc ? 0 : ENODATA;
}

const char *rxpeer_args_verb(const struct rxpeer_args *a)
{
	return a->argc ? a->argv[0] : NULL;
}

const char *rxpeer_args_get(const struct rxpeer_args *a, const char *key)
{
	size_t kl = strlen(key);
	const char *found = NULL;
	for (int i = 1; i < a->argc; i++) {
		const char *t = a->argv[i];
		if (strncmp(t, key, kl) != 0)
			continue;
		if (t[kl] == '=')
			found = t + kl + 1;
		else if (t[kl] == '\0')
			found = "";
	}
	return found;
}

static int rxpeer_args_fail(char *err, size_t errlen, const char *fmt, const char *key, const char *val)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, key, val);
	return EINVAL;
}

int rxpeer_args_u64(const struct rxpeer_args *a, const char *key, uint64_t def, uint64_t *out,
    char *err, size_t errlen)
{
	const char *v = rxpeer_args_get(a, key);
	if (v == NULL) {
		*out = def;
		return 0;
	}
	char *e = NULL;
	errno = 0;
	unsigned long long x = strtoull(v, &e, 0);
	if (*v == '\0' || *v == '-' || errno != 0 || *e != '\0')
		return rxpeer_args_fail(err, errlen, "%s: not an unsigned number: '%s'", key, v);
	*out = x;
	return 0;
}

int rxpeer_args_u32(const struct rxpeer_args *a, const char *key, uint32_t def, uint32_t *out,
    char *err, size_t errlen)
{
	uint64_t v;
	int ret = rxpeer_args_u64(a, key, def, &v, err, errlen);
	if (ret != 0)
		return ret;
	if (v > UINT32_MAX)
		return rxpeer_args_fail(err, errlen, "%s: out of range: '%s'", key, rxpeer_args_get(a, key));
	*out = (uint32_t)v;
	return 0;
}

int rxpeer_args_bool(const struct rxpeer_args *a, const char *key, int def, int *out,
    char *err, size_t errlen)
{
	const char *v = rxpeer_args_get(a, key);
	if (v == NULL)
		*out = def;
	else if (!*v || !strcmp(v, "1") || !strcmp(v, "on") || !strcmp(v, "true") || !strcmp(v, "yes"))
		*out = 1;
	else if (!strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "false") || !strcmp(v, "no"))
		*out = 0;
	else
		return rxpeer_args_fail(err, errlen, "%s: not a boolean: '%s'", key, v);
	return 0;
}

int rxpeer_args_u32_list(const struct rxpeer_args *a, const char *key, uint32_t *out, size_t max,
    size_t *n, char *err, size_t errlen)
{
	const char *v = rxpeer_args_get(a, key);
	*n = 0;
	if (v == NULL || *v == '\0')
		return 0;
	const char *p = v;
	while (*p) {
		char *e = NULL;
		if (!isdigit((unsigned char)*p))
			return rxpeer_args_fail(err, errlen, "%s: bad list: '%s'", key, v);
		errno = 0;
		unsigned long x = strtoul(p, &e, 10);
		if (errno != 0 || x > UINT32_MAX || (*e != ',' && *e != '\0'))
			return rxpeer_args_fail(err, errlen, "%s: bad list: '%s'", key, v);
		if (*n == max)
			return rxpeer_args_fail(err, errlen, "%s: too many values: '%s'", key, v);
		out[(*n)++] = (uint32_t)x;
		p = (*e == ',') ? e + 1 : e;
	}
	return 0;
}

int rxpeer_args_check(const struct rxpeer_args *a, const char *const *allowed, char *err, size_t errlen)
{
	for (int i = 1; i < a->argc; i++) {
		const char *t = a->argv[i];
		size_t kl = strcspn(t, "=");
		int ok = 0;
		for (const char *const *k = allowed; *k && !ok; k++)
			ok = strlen(*k) == kl && strncmp(*k, t, kl) == 0;
		if (!ok) {
			if (err && errlen)
				snprintf(err, errlen, "unknown argument '%.*s'", (int)kl, t);
			return EINVAL;
		}
	}
	return 0;
}
