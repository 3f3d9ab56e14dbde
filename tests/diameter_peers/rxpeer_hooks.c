/* rxpeer_hooks.c - see rxpeer_hooks.h */
#include "rxpeer_hooks.h"

#include <errno.h>
#include <stdlib.h>

struct rxpeer_hooks_reg {
	rxpeer_hook_event_fn fn;
	void *ctx;
};

const char *rxpeer_hook_name(enum fd_hook_type type)
{
	switch (type) {
	case HOOK_MESSAGE_PARSING_ERROR: return "parsing_error";
	case HOOK_MESSAGE_PARSING_ERROR2: return "parsing_error_answer";
	case HOOK_MESSAGE_ROUTING_ERROR: return "routing_error";
	case HOOK_MESSAGE_DROPPED: return "dropped";
	case HOOK_MESSAGE_FAILOVER: return "failover";
	case HOOK_PEER_CONNECT_FAILED: return "peer_connect_failed";
	case HOOK_PEER_CONNECT_SUCCESS: return "peer_connect_success";
	default: return "other";
	}
}

/* Hot-path hooks: registered so that libfdcore skips its costly default dump. */
static void rxpeer_hooks_empty(enum fd_hook_type type, struct msg *msg, struct peer_hdr *peer,
    void *other, struct fd_hook_permsgdata *pmd, void *regdata)
{
	(void)type; (void)msg; (void)peer; (void)other; (void)pmd; (void)regdata;
}

static void rxpeer_hooks_event(enum fd_hook_type type, struct msg *msg, struct peer_hdr *peer,
    void *other, struct fd_hook_permsgdata *pmd, void *regdata)
{
	struct rxpeer_hooks_reg *r = regdata;
	const char *text = NULL;
	(void)pmd;

	switch (type) {
	case HOOK_MESSAGE_PARSING_ERROR:
		/* `other` is the reason only when the buffer could be parsed into a message */
		text = msg ? other : "message could not be parsed";
		break;
	case HOOK_MESSAGE_ROUTING_ERROR:
	case HOOK_MESSAGE_DROPPED:
	case HOOK_PEER_CONNECT_FAILED:
		text = other;
		break;
	default:
		break;
	}
	r->fn(r->ctx, type, msg, peer ? peer->info.pi_diamid : NULL, text);
}

int rxpeer_hooks_install(rxpeer_hook_event_fn fn, void *ctx, int keep_dumps)
{
	struct rxpeer_hooks_reg *r = malloc(sizeof(*r)); /* lives as long as the process */
	struct fd_hook_hdl *h = NULL; /* libfdcore insists on a handle; we never unregister */
	int ret;

	if (r == NULL)
		return ENOMEM;
	r->fn = fn;
	r->ctx = ctx;
	ret = fd_hook_register(HOOK_MASK(HOOK_MESSAGE_PARSING_ERROR, HOOK_MESSAGE_PARSING_ERROR2,
	    HOOK_MESSAGE_ROUTING_ERROR, HOOK_MESSAGE_DROPPED, HOOK_MESSAGE_FAILOVER,
	    HOOK_PEER_CONNECT_FAILED, HOOK_PEER_CONNECT_SUCCESS), rxpeer_hooks_event, r, NULL, &h);
	if (ret != 0) {
		free(r);
		return ret;
	}
	if (keep_dumps)
		return 0;
	return fd_hook_register(HOOK_MASK(HOOK_DATA_RECEIVED, HOOK_MESSAGE_RECEIVED, HOOK_MESSAGE_LOCAL,
	    HOOK_MESSAGE_SENDING, HOOK_MESSAGE_SENT, HOOK_MESSAGE_ROUTING_FORWARD,
	    HOOK_MESSAGE_ROUTING_LOCAL), rxpeer_hooks_empty, NULL, NULL, &h);
}
