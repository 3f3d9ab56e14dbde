/*
 * rxpeer_behav.h - how a peer answers incoming requests, switchable at run time.
 *
 * One rule per request kind (the peers define their kinds, e.g. AAR-I, AAR-U, STR for the PCF
 * and RAR, ASR for the AF).  A rule says:
 *   mode   DEFAULT  the peer's normal logic (2001, or its validation result)
 *          RC       answer with Result-Code `code` (3xxx also sets the E bit)
 *          EXP      answer with Experimental-Result {vendor, code}
 *          DROP     never answer (the request is discarded)
 *   delay_ms  answer this much later (DEFAULT/RC/EXP)
 *   count     apply to the next `count` requests of that kind only, then revert to DEFAULT
 *             (0 = until changed)
 */
#ifndef RXPEER_BEHAV_H
#define RXPEER_BEHAV_H

#include <pthread.h>
#include <stdint.h>

#include "rxpeer_json.h"

#define RXPEER_BEHAV_MAX_KINDS 8

enum rxpeer_behav_mode {
	RXPEER_BEHAV_DEFAULT = 0,
	RXPEER_BEHAV_RC,
	RXPEER_BEHAV_EXP,
	RXPEER_BEHAV_DROP,
};

struct rxpeer_behav_rule {
	enum rxpeer_behav_mode mode;
	uint32_t code;
	uint32_t vendor;
	uint32_t delay_ms;
	uint32_t count;
};

struct rxpeer_behav {
	pthread_mutex_t mu;
	int n_kinds;
	const char *names[RXPEER_BEHAV_MAX_KINDS];
	struct rxpeer_behav_rule rules[RXPEER_BEHAV_MAX_KINDS];
};

/* names: n kind names, e.g. {"aar-i", "aar-u", "str"}; the pointers must stay valid. */
int rxpeer_behav_init(struct rxpeer_behav *b, const char *const *names, int n);
void rxpeer_behav_fini(struct rxpeer_behav *b);

/* Index of a kind name, or -1. */
int rxpeer_behav_kind(const struct rxpeer_behav *b, const char *name);

void rxpeer_behav_set(struct rxpeer_behav *b, int kind, const struct rxpeer_behav_rule *rule);
void rxpeer_behav_reset(struct rxpeer_behav *b);

/* Rule to apply to one incoming request of `kind` (consumes one use of a counted rule). */
struct rxpeer_behav_rule rxpeer_behav_take(struct rxpeer_behav *b, int kind);

/* {"aar-i":{"mode":"rc","code":5012,...},...} as a member `key` of an open object. */
void rxpeer_behav_json(struct rxpeer_behav *b, struct rxpeer_json *j, const char *key);

#endif /* RXPEER_BEHAV_H */
