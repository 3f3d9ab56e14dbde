/* OCI received by the SBI client and the Loss algorithm (see sbi_client_oci.h). */
#include "gateways/sbi/sbi_client_oci.h"

#include <stdio.h>
#include <string.h>

static bsf_sbi_oci_peer_t *find(bsf_sbi_oci_table_t *t, const char *authority)
{
    for (size_t i = 0; i < BSF_SBI_OCI_PEERS; i++)
        if (t->peers[i].authority[0] && strcmp(t->peers[i].authority, authority) == 0)
            return &t->peers[i];
    return NULL;
}

bool bsf_sbi_oci_table_update(bsf_sbi_oci_table_t *t, const char *authority,
                              const bsf_sbi_oci_t *oci, uint64_t now_ms)
{
    bsf_sbi_oci_peer_t *p = find(t, authority);
    if (p && oci->ts_ms <= p->ts_ms && now_ms < p->expires_ms)
        return false; /* not newer: the stored one still applies */
    if (!p) { /* a free slot, else the one that expires first */
        p = &t->peers[0];
        for (size_t i = 0; i < BSF_SBI_OCI_PEERS; i++) {
            if (!t->peers[i].authority[0]) {
                p = &t->peers[i];
                break;
            }
            if (t->peers[i].expires_ms < p->expires_ms)
                p = &t->peers[i];
        }
        memset(p, 0, sizeof *p);
        snprintf(p->authority, sizeof p->authority, "%s", authority);
    }
    p->ts_ms = oci->ts_ms;
    p->metric = oci->metric;
    p->expires_ms = now_ms + (uint64_t)oci->validity_s * 1000u;
    return true;
}

bool bsf_sbi_oci_table_throttle(bsf_sbi_oci_table_t *t, const char *authority, uint64_t now_ms)
{
    bsf_sbi_oci_peer_t *p = find(t, authority);
    if (!p || !p->metric || now_ms >= p->expires_ms)
        return false; /* an expired OCI is obsolete: the overload ceased */
    p->acc += p->metric;
    if (p->acc < 100)
        return false;
    p->acc -= 100;
    p->throttled++;
    t->throttled++;
    return true;
}
