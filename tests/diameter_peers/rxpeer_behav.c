/* rxpeer_behav.c - see rxpeer_behav.h */
#include "rxpeer_behav.h"

#include <errno.h>
#include <string.h>

int rxpeer_behav_init(struct rxpeer_behav *b, const char *const *names, int n)
{
	memset(b, 0, sizeof(*b));
	if (n <= 0 || n > RXPEER_BEHAV_MAX_KINDS)
		return EINVAL;
	b->n_kinds = n;
	for (int i = 0; i < n; i++)
		b->names[i] = names[i];
	return pthread_mutex_init(&b->mu, NULL);
}

void rxpeer_behav_fini(struct rxpeer_behav *b)
{
	pthread_mutex_destroy(&b->mu);
}

int rxpeer_behav_kind(const struct rxpeer_behav *b, const char *name)
{
	for (int i = 0; i < b->n_kinds; i++)
		if (strcmp(b->names[i], name) == 0)
			return i;
	return -1;
}

void rxpeer_behav_set(struct rxpeer_behav *b, int kind, const struct rxpeer_behav_rule *rule)
{
	if (kind < 0 || kind >= b->n_kinds)
		return;
	pthread_mutex_lock(&b->mu);
	b->rules[kind] = *rule;
	pthread_mutex_unlock(&b->mu);
}

void rxpeer_behav_reset(struct rxpeer_behav *b)
{
	pthread_mutex_lock(&b->mu);
	memset(b->rules, 0, sizeof(b->rules));
	pthread_mutex_unlock(&b->mu);
}

struct rxpeer_behav_rule rxpeer_behav_take(struct rxpeer_behav *b, int kind)
{
	struct rxpeer_behav_rule r;
	memset(&r, 0, sizeof r);
	if (kind < 0 || kind >= b->n_kinds)
		return r;
	pthread_mutex_lock(&b->mu);
	r = b->rules[kind];
	if (b->rules[kind].count > 0 && --b->rules[kind].count == 0)
		memset(&b->rules[kind], 0, sizeof(b->rules[kind]));
	pthread_mutex_unlock(&b->mu);
	return r;
}

static const char *rxpeer_behav_mode_name(enum rxpeer_behav_mode m)
{
	switch (m) {
	case RXPEER_BEHAV_DEFAULT: return "default";
	case RXPEER_BEHAV_RC: return "rc";
	case RXPEER_BEHAV_EXP: return "exp";
	case RXPEER_BEHAV_DROP: return "drop";
	}
	return "?";
}

void rxpeer_behav_json(struct rxpeer_behav *b, struct rxpeer_json *j, const char *key)
{
	struct rxpeer_behav_rule copy[RXPEER_BEHAV_MAX_KINDS];
	pthread_mutex_lock(&b->mu);
	memcpy(copy, b->rules, sizeof copy);
	pthread_mutex_unlock(&b->mu);

	rxpeer_json_obj_begin(j, key);
	for (int i = 0; i < b->n_kinds; i++) {
		rxpeer_json_obj_begin(j, b->names[i]);
		rxpeer_json_str(j, "mode", rxpeer_behav_mode_name(copy[i].mode));
		if (copy[i].mode == RXPEER_BEHAV_RC || copy[i].mode == RXPEER_BEHAV_EXP)
			rxpeer_json_u64(j, "code", copy[i].code);
		if (copy[i].mode == RXPEER_BEHAV_EXP)
			rxpeer_json_u64(j, "vendor", copy[i].vendor);
		rxpeer_json_u64(j, "delay_ms", copy[i].delay_ms);
		rxpeer_json_u64(j, "count", copy[i].count);
		rxpeer_json_obj_end(j);
	}
	rxpeer_json_obj_end(j);
}
