/*
 * af_load.h - load mode of the fake AF, for benchmarks.
 *
 * `window` request chains run in parallel (closed loop): each chain takes the next session,
 * sends its AAR-I and, in mix mode, on a 2001 answer its AAR-U and then its STR (the Oracle
 * BSF benchmark mix AAR-I : AAR-U+STR = 1:2), then goes on with the next session.  UE
 * addresses cycle through `ip_count` consecutive addresses from the base (IPv4), or through
 * consecutive /64 prefixes from the base prefix (IPv6).
 *
 * The report (reply members, also written to the event stream as {"type":"load_report"}):
 *   sessions, requests, answers, timeouts, dropped, lost, send_errors, elapsed_s,
 *   answers_per_s, latency_ms {p50, p90, p99, max, mean},
 *   by_cmd {"aar-i"|"aar-u"|"str": {n, p50, p99}}, result_codes {"2001": n, ...},
 *   cpu {user_s, sys_s, us_per_answer}   (this process only)
 */
#ifndef AF_LOAD_H
#define AF_LOAD_H

#include <stdint.h>

#include "af_peer.h"
#include "rxpeer_json.h"

struct af_load_params {
	uint64_t sessions;     /* number of AAR-I */
	int mix;               /* follow each successful AAR-I with AAR-U and STR */
	uint32_t window;       /* requests in flight */
	int v6;                /* Framed-IPv6-Prefix instead of Framed-IP-Address */
	uint8_t ip_base[16];   /* IPv4 address (4 octets) or IPv6 /64 prefix (first 8 octets) */
	uint32_t ip_count;     /* number of distinct UE addresses */
	uint32_t timeout_ms;
	int media;             /* Media-Component-Description in AAR-I / AAR-U */
	const char *dest_realm;
	const char *dest_host;
	int record;            /* per-message records during the run */
};

/* Run to completion (blocks the calling control thread) and write the report into reply. */
void af_load_run(struct af *af, const struct af_load_params *p, struct rxpeer_json *reply);

#endif /* AF_LOAD_H */
