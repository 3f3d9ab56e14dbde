/*
 * rxpeer_hooks.h - libfdcore hook registration for the test peers.
 *
 * When no callback is registered for a hook type, libfdcore 1.2.1 runs a default handler that
 * formats every message (fd_msg_dump_summary) under one global mutex, even when the log level
 * hides the result: about 30 % of a peer pair's throughput (README, pitfall 5).
 * rxpeer_hooks_install() registers one callback for every hook type:
 *   - per-message types (received, sent, routing, ...) do nothing;
 *   - error and peer-state types (parsing error, dropped, routing error, failover, connect
 *     success/failure) are passed to the caller's event function, which is rare and cheap.
 * With keep_dumps != 0 the per-message types are left unregistered, so libfdcore's default
 * message dumps come back (useful with a low log level, slow).
 */
#ifndef RXPEER_HOOKS_H
#define RXPEER_HOOKS_H

#include <freeDiameter/freeDiameter-host.h>
#include <freeDiameter/libfdcore.h>

/*
 * text: the human-readable reason libfdcore gives (may be NULL).
 * msg: the message concerned (may be NULL; may not be dictionary-parsed).
 * peer_id: the peer concerned (may be NULL).
 */
typedef void (*rxpeer_hook_event_fn)(void *ctx, enum fd_hook_type type, struct msg *msg,
    const char *peer_id, const char *text);

int rxpeer_hooks_install(rxpeer_hook_event_fn fn, void *ctx, int keep_dumps);

/* Short name of a hook type for records: "parsing_error", "dropped", ... */
const char *rxpeer_hook_name(enum fd_hook_type type);

#endif /* RXPEER_HOOKS_H */
