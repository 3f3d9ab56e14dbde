/* Routing decisions of the Rx proxy: which peers a request goes to, in which order, and what
 * is rewritten on the way (rx_proxy_internal.h). Nothing here sends or answers. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "gateways/diameter/rx_binding.h"
#include "gateways/diameter/rx_node.h"
#include "gateways/diameter/rx_proxy_internal.h"
#include "gateways/diameter/rx_realm.h"
#include "gateways/diameter/rx_ue_addr.h"

static void cand_add(rx_tx_t *tx, const char *id)
{
    if (!id || !id[0] || tx->n_cand == BSF_RX_PX_MAX_CANDIDATES)
        return;
    for (size_t i = 0; i < tx->n_cand; i++)
        if (strcasecmp(tx->cand[i], id) == 0)
            return;
    bsf_rx_identity_copy(tx->cand[tx->n_cand++], id, SIZE_MAX);
}

static void cand_add_routes(bsf_rx_proxy_t *px, rx_tx_t *tx, const char *realm, const char *host)
{
    const char *peers[BSF_RX_PX_MAX_CANDIDATES];
    size_t n = bsf_rx_routes_select(&px->routes, realm, host && host[0] ? host : NULL, peers,
                                    BSF_RX_PX_MAX_CANDIDATES);
    for (size_t i = 0; i < n; i++)
        cand_add(tx, peers[i]);
}

/* The discovery query of an AAR-I's UE address AVPs. Returns 0, or 1 with *res (5005 / 5014 /
 * 5004; its Failed-AVP may point into msg). */
static int aar_i_query(bsf_rx_proxy_t *px, struct msg *msg, bsf_discovery_query_t *q,
                       char *dom, char *dnn, size_t cap, bsf_rx_result_t *res)
{
    const bsf_rx_dict_t *rx = px->rx;
    struct avp *u[W_UE_COUNT];
    int urc[W_UE_COUNT];
    bsf_rx_avp_collect(msg, px->ue_wants, W_UE_COUNT, u, urc);
    int rc4 = urc[W_FRAMED_IP], rc6 = urc[W_FRAMED_IPV6];
    if (urc[W_IP_DOMAIN] != 0 || bsf_rx_avp_copy_text(u[W_IP_DOMAIN], dom, cap) != 0)
        dom[0] = '\0';
    if (urc[W_CALLED_STATION] != 0 || bsf_rx_avp_copy_text(u[W_CALLED_STATION], dnn, cap) != 0)
        dnn[0] = '\0';
    bsf_rx_ue_avps_t ue = {0};
    if (rc4 == 0)
        bsf_rx_avp_os(u[W_FRAMED_IP], &ue.ipv4, &ue.ipv4_len);
    if (rc6 == 0)
        bsf_rx_avp_os(u[W_FRAMED_IPV6], &ue.ipv6, &ue.ipv6_len);
    ue.ip_domain = dom;
    ue.dnn = dnn;
    if (rc4 == EBADMSG || (rc4 != 0 && rc6 == EBADMSG)) {
        *res = bsf_rx_proxy_rc(RC_INVALID_AVP_LENGTH, "the UE address AVP does not parse");
        return 1;
    }
    int bad6 = 0;
    bsf_rx_ue_verdict_t verdict = bsf_rx_ue_query_build(&ue, q, &bad6);
    if (verdict == BSF_RX_UE_OK)
        return 0;
    if (verdict == BSF_RX_UE_MISSING) {
        *res = bsf_rx_proxy_rc(RC_MISSING_AVP, "neither Framed-IP-Address nor Framed-IPv6-Prefix");
        res->failed_model = rx->framed_ip_address;
        res->failed_len = 4; /* RFC 6733 §7.5: zero-filled, the AVP's minimum length */
        return 1;
    }
    bool len = verdict == BSF_RX_UE_BAD_LENGTH;
    *res = bsf_rx_proxy_rc(len ? RC_INVALID_AVP_LENGTH : RC_INVALID_AVP_VALUE,
                           bad6 ? "malformed Framed-IPv6-Prefix" : "Framed-IP-Address is not 4 octets");
    res->failed_model = bad6 ? rx->framed_ipv6_prefix : rx->framed_ip_address;
    res->failed_data = bad6 ? ue.ipv6 : ue.ipv4;
    res->failed_len = bad6 ? ue.ipv6_len : ue.ipv4_len;
    return 1;
}

/* The binding's rewrites: Destination-Realm (Overwrite.Realm), Destination-Host (its PCF),
 * the cookie. Returns 0 or an error of bsf_rx_avp_replace_os / set_os. */
static int aar_i_rewrite(bsf_rx_proxy_t *px, rx_tx_t *tx, struct msg *msg, rx_req_view_t *v,
                         const bsf_rx_binding_t *b, bool overwrite)
{
    const bsf_rx_dict_t *rx = px->rx;
    int rc = 0;
    if (overwrite)
        rc = bsf_rx_avp_replace_os(msg, v->avp[W_DEST_REALM], rx->destination_realm,
                                   b->pcf_realm, strlen(b->pcf_realm));
    if (rc == 0 && b->pcf_host[0]) {
        /* The forwarded request names the binding's PCF, whatever path it takes. */
        rc = bsf_rx_avp_replace_os(msg, v->avp[W_DEST_HOST], rx->destination_host, b->pcf_host,
                                   strlen(b->pcf_host));
        bsf_rx_identity_copy(tx->dest_host, b->pcf_host, SIZE_MAX);
    }
    if (rc == 0 && b->cookie && rx->cookie) {
        rc = bsf_rx_avp_set_os(msg, rx->cookie, b->cookie, b->cookie_len);
        if (rc == 0)
            bsf_rx_metrics_count_cookie(px->metrics);
    }
    return rc;
}

/* The binding's candidates: its PCF (when named), then the routes towards it. */
static void aar_i_candidates(bsf_rx_proxy_t *px, rx_tx_t *tx, const rx_req_view_t *v,
                             const bsf_rx_binding_t *b)
{
    const char *realm = b->pcf_realm[0] ? b->pcf_realm : v->dest_realm;
    if (b->pcf_host[0]) {
        cand_add(tx, b->pcf_host);
        cand_add_routes(px, tx, realm, b->pcf_host);
        return;
    }
    /* A binding without pcfDiamHost: the routing table for the request's destination. */
    bsf_rx_identity_copy(tx->dest_host, v->dest_host, SIZE_MAX);
    cand_add(tx, v->dest_host);
    cand_add_routes(px, tx, realm, v->dest_host);
}

/* AAR-I: the binding decides the destination. Returns 0 or 1 with *res. */
static int route_aar_i(bsf_rx_proxy_t *px, rx_tx_t *tx, struct msg *msg, rx_req_view_t *v,
                       bsf_rx_result_t *res)
{
    /* seed §3.12 step 1, before any lookup */
    if (bsf_rx_realm_check_request(&px->s, v->dest_realm[0] ? v->dest_realm : NULL) !=
        BSF_RX_REALM_OK) {
        bsf_rx_metrics_count_realm_failed(px->metrics, BSF_RX_REALM_CHECK_OWN);
        *res = bsf_rx_proxy_rc(RC_REALM_NOT_SERVED, "Destination-Realm is not the BSF's realm");
        return 1;
    }
    bsf_discovery_query_t q;
    char dom[BSF_RX_IDENTITY_MAX], dnn[BSF_RX_IDENTITY_MAX];
    if (aar_i_query(px, msg, &q, dom, dnn, sizeof dom, res))
        return 1;
    bsf_rx_binding_t b;
    bsf_rx_lookup_result_t lr =
        bsf_rx_binding_lookup(px->store, &q, px->s.pcf_cookie && px->rx->cookie, &b);
    bsf_rx_metrics_count_lookup(px->metrics, lr);
    if (lr == BSF_RX_LOOKUP_ERROR) {
        *res = bsf_rx_proxy_rc(RC_UNABLE_TO_COMPLY, "binding lookup failed");
        return 1;
    }
    if (lr == BSF_RX_LOOKUP_NOT_FOUND) {
        *res = bsf_rx_proxy_exp(BSF_RX_EXP_IP_CAN_SESSION_NOT_AVAILABLE,
                                "no binding for the UE address");
        return 1;
    }
    int verdict = 0;
    bool overwrite = false;
    if (bsf_rx_realm_check_binding(&px->s, v->dest_realm[0] ? v->dest_realm : NULL,
                                   b.pcf_realm[0] ? b.pcf_realm : NULL,
                                   &overwrite) != BSF_RX_REALM_OK) {
        bsf_rx_metrics_count_realm_failed(px->metrics, BSF_RX_REALM_CHECK_BINDING);
        *res = bsf_rx_proxy_rc(RC_REALM_NOT_SERVED, "Destination-Realm is not the binding's realm");
        verdict = 1;
    } else if (aar_i_rewrite(px, tx, msg, v, &b, overwrite) != 0) {
        *res = bsf_rx_proxy_rc(RC_UNABLE_TO_COMPLY, "cannot rewrite the request");
        verdict = 1;
    } else {
        tx->has_binding = true;
        tx->binding_id = b.id;
        aar_i_candidates(px, tx, v, &b);
    }
    bsf_rx_binding_clear(&b);
    return verdict;
}

/* AAR-U, STR of a known session: the PCF hop of its AAR-I. Returns 0 or 1 with *res. */
static int route_to_pcf(bsf_rx_proxy_t *px, rx_tx_t *tx, struct msg *msg, rx_req_view_t *v,
                        bsf_rx_result_t *res)
{
    const bsf_rx_session_t *sess = &v->sess;
    cand_add(tx, sess->pcf_peer);
    cand_add_routes(px, tx, v->dest_realm, sess->pcf_host);
    tx->has_binding = sess->has_binding;
    tx->binding_id = sess->binding_id;
    bsf_rx_identity_copy(tx->dest_host, v->dest_host[0] ? v->dest_host : sess->pcf_host,
                         SIZE_MAX);
    if (!v->dest_host[0] && sess->pcf_host[0] &&
        bsf_rx_avp_replace_os(msg, v->avp[W_DEST_HOST], px->rx->destination_host,
                              sess->pcf_host, strlen(sess->pcf_host)) != 0) {
        *res = bsf_rx_proxy_rc(RC_UNABLE_TO_COMPLY, "cannot rewrite the request");
        return 1;
    }
    return 0;
}

int bsf_rx_proxy_route(bsf_rx_proxy_t *px, rx_tx_t *tx, struct msg *msg, rx_req_view_t *v,
                       bsf_rx_result_t *res)
{
    if (tx->kind == BSF_RX_AAR_I)
        return route_aar_i(px, tx, msg, v, res);
    if (v->known && (tx->kind == BSF_RX_AAR_U || tx->kind == BSF_RX_STR))
        return route_to_pcf(px, tx, msg, v, res);
    /* RAR, ASR of a known session go back to the AF; the rest (a session we do not know
     * included) by Destination-Host, then the routing table. */
    if (v->known && (tx->kind == BSF_RX_RAR || tx->kind == BSF_RX_ASR)) {
        cand_add(tx, v->sess.af_peer);
        tx->has_binding = v->sess.has_binding; /* for the message feed */
        tx->binding_id = v->sess.binding_id;
    }
    bsf_rx_identity_copy(tx->dest_host, v->dest_host, SIZE_MAX);
    cand_add(tx, v->dest_host);
    cand_add_routes(px, tx, v->dest_realm, v->dest_host);
    return 0;
}

int bsf_rx_proxy_pick_open(rx_tx_t *tx)
{
    for (size_t i = 0; i < tx->n_cand; i++)
        if (!tx->tried[i] && bsf_rx_node_peer_open(tx->cand[i]))
            return (int)i;
    return -1;
}

int bsf_rx_proxy_route_first(bsf_rx_proxy_t *px, rx_tx_t *tx, bsf_rx_result_t *res)
{
    int first = bsf_rx_proxy_pick_open(tx);
    if (first < 0) {
        *res = bsf_rx_proxy_rc(RC_UNABLE_TO_DELIVER, "no connected peer towards the destination");
        return -1;
    }
    if (tx->kind != BSF_RX_AAR_I)
        return first;
    bsf_rx_session_t ns;
    memset(&ns, 0, sizeof ns);
    bsf_rx_identity_copy(ns.af_peer, tx->from, SIZE_MAX);
    bsf_rx_identity_copy(ns.pcf_peer, tx->cand[first], SIZE_MAX);
    bsf_rx_identity_copy(ns.pcf_host, tx->dest_host, SIZE_MAX);
    ns.has_binding = tx->has_binding;
    ns.binding_id = tx->binding_id;
    bsf_rx_session_add_t added =
        bsf_rx_sessions_put(&px->sessions, tx->sid, tx->sid_len, &ns, tx->arrived_ns);
    if (added == BSF_RX_SESSION_FULL || added == BSF_RX_SESSION_NOMEM) {
        bsf_rx_metrics_count_session(px->metrics, BSF_RX_SESSION_EV_REFUSED, 1);
        *res = bsf_rx_proxy_rc(RC_TOO_BUSY, "too many Rx sessions");
        return -1;
    }
    tx->opened_session = true;
    if (added == BSF_RX_SESSION_ADDED)
        bsf_rx_metrics_count_session(px->metrics, BSF_RX_SESSION_EV_OPENED, 1);
    return first;
}

static bsf_rx_retry_policy_t retry_policy(bsf_rx_proxy_t *px, bsf_rx_kind_t kind)
{
    bsf_rx_retry_policy_t p = {bsf_rx_kind_retry_enabled(&px->s, kind),
                               &px->retry_codes,
                               px->s.retry_on_timeout,
                               px->s.max_retries,
                               px->s.cycle_back,
                               (bsf_rx_originator_t)px->s.retry_originator};
    return p;
}

int bsf_rx_proxy_pick_retry(bsf_rx_proxy_t *px, rx_tx_t *tx, const bsf_rx_outcome_t *o)
{
    bsf_rx_retry_policy_t pol = retry_policy(px, tx->kind);
    if (!bsf_rx_retry_wanted(&pol, o))
        return -1;
    size_t cur = tx->current;
    for (size_t guard = 0; guard < 2 * BSF_RX_PX_MAX_CANDIDATES + 2; guard++) {
        int i = bsf_rx_retry_next(&pol, tx->retries, tx->n_cand, tx->tried, cur);
        if (i < 0)
            return -1;
        if (bsf_rx_node_peer_open(tx->cand[i]))
            return i;
        tx->tried[i] = true;
        cur = (size_t)i;
    }
    return -1;
}
