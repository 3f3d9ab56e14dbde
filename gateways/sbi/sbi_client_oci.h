/* The OCI the SBI client received from its producers (TS 29.500 §6.4.3): per producer (the
 * authority that answered), the newest OCI by timestamp, valid for its period of validity;
 * and the Loss algorithm (§6.4.3.5.2) that drops that share of the requests to it. A
 * deterministic accumulator rather than a random draw: exactly metric % are dropped.
 * Client thread only (no lock); time is passed in. */
#ifndef BSF_GATEWAYS_SBI_SBI_CLIENT_OCI_H
#define BSF_GATEWAYS_SBI_SBI_CLIENT_OCI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gateways/sbi/sbi_oci.h"

#define BSF_SBI_OCI_PEERS 64 /* producers tracked at once; the oldest entry is replaced */

typedef struct {
    char authority[128];
    int64_t ts_ms;        /* the OCI's timestamp */
    uint64_t expires_ms;  /* monotonic */
    unsigned metric;
    unsigned acc;         /* Loss accumulator */
    uint64_t throttled;
} bsf_sbi_oci_peer_t;

typedef struct {
    bsf_sbi_oci_peer_t peers[BSF_SBI_OCI_PEERS];
    uint64_t throttled; /* requests dropped, all producers */
} bsf_sbi_oci_table_t;

/* Records an OCI from `authority` at monotonic `now_ms`: kept when it is newer than the one
 * stored (same or older timestamp: discarded, §6.4.3.4.3). Returns whether it was kept. */
bool bsf_sbi_oci_table_update(bsf_sbi_oci_table_t *t, const char *authority,
                              const bsf_sbi_oci_t *oci, uint64_t now_ms);

/* Whether a request to `authority` at `now_ms` is throttled (dropped) by a valid OCI. */
bool bsf_sbi_oci_table_throttle(bsf_sbi_oci_table_t *t, const char *authority, uint64_t now_ms);

#endif
