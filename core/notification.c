/* Which events a binding change causes for a subscription, and the BsfNotification. */
#include "core/notification.h"

#include <string.h>

#include "core/member_pack.h"

bool bsf_notification_ue_matches(const bsf_subscription_t *s, const char *supi,
                                 const char *gpsi)
{
    return (supi && strcmp(s->supi, supi) == 0) ||
           (s->gpsi && gpsi && strcmp(s->gpsi, gpsi) == 0);
}

uint32_t bsf_notification_events(const bsf_subscription_t *s, const bsf_binding_change_t *c)
{
    uint32_t out = 0;
    if (c->ue) {
        if (!bsf_notification_ue_matches(s, c->ue->supi, c->ue->gpsi))
            return 0;
        out = 1u << (c->registration ? BSF_SUB_EVENT_UE_REGISTRATION
                                     : BSF_SUB_EVENT_UE_DEREGISTRATION);
        return s->events & out;
    }
    const bsf_pcf_binding_t *b = c->pdu;
    if (!b || !bsf_notification_ue_matches(s, b->supi, b->gpsi) ||
        !bsf_subscription_pair_matches(s, b->dnn, b->has_snssai ? &b->snssai : NULL))
        return 0;
    out = 1u << (c->registration ? BSF_SUB_EVENT_PDU_REGISTRATION
                                 : BSF_SUB_EVENT_PDU_DEREGISTRATION);
    if (c->first_or_last && b->dnn && b->has_snssai)
        out |= 1u << (c->registration ? BSF_SUB_EVENT_SNSSAI_DNN_REGISTRATION
                                      : BSF_SUB_EVENT_SNSSAI_DNN_DEREGISTRATION);
    return s->events & out;
}

static int pack_snssai(msgpack_packer *pk, const bsf_snssai_t *s)
{
    static const char hex[] = "0123456789ABCDEF";
    if (msgpack_pack_map(pk, 1 + s->has_sd) || bsf_pack_cstr(pk, "sst") ||
        msgpack_pack_uint8(pk, s->sst))
        return -1;
    if (!s->has_sd)
        return 0;
    char sd[7]; /* %06X, without snprintf's cost (once per notified event) */
    for (int i = 0; i < 6; i++)
        sd[i] = hex[((unsigned)s->sd >> (20 - 4 * i)) & 0xfu];
    sd[6] = 0;
    return bsf_pack_cstr(pk, "sd") || bsf_pack_cstr(pk, sd);
}

static int pack_ipv6_list(msgpack_packer *pk, const bsf_pcf_binding_t *b)
{
    char t[BSF_IPV6_TEXT_MAX];
    if (bsf_pack_cstr(pk, "ipv6Prefixes") || msgpack_pack_array(pk, b->has_ipv6 + b->n_add_ipv6))
        return -1;
    for (size_t i = 0; i < (size_t)b->has_ipv6 + b->n_add_ipv6; i++) {
        const bsf_ipv6_prefix_t *p = b->has_ipv6 ? (i ? &b->add_ipv6[i - 1] : &b->ipv6)
                                                 : &b->add_ipv6[i];
        bsf_ipv6_prefix_format(p, t);
        if (bsf_pack_cstr(pk, t))
            return -1;
    }
    return 0;
}

static int pack_mac_list(msgpack_packer *pk, const bsf_pcf_binding_t *b)
{
    char t[BSF_MAC48_TEXT_MAX];
    if (bsf_pack_cstr(pk, "macAddrs") || msgpack_pack_array(pk, b->has_mac + b->n_add_mac))
        return -1;
    for (size_t i = 0; i < (size_t)b->has_mac + b->n_add_mac; i++) {
        const bsf_mac48_t *m = b->has_mac ? (i ? &b->add_mac[i - 1] : &b->mac) : &b->add_mac[i];
        bsf_mac48_format(m, t);
        if (bsf_pack_cstr(pk, t))
            return -1;
    }
    return 0;
}

/* PcfForPduSessionInfo: the PCF and the session's UE addresses. */
static int pack_pdu_info(msgpack_packer *pk, const bsf_pcf_binding_t *b)
{
    bool v6 = b->has_ipv6 || b->n_add_ipv6, mac = b->has_mac || b->n_add_mac;
    size_t n = (b->dnn != NULL) + b->has_snssai + (b->pcf_fqdn != NULL) +
               (b->pcf_ip_end_points.n > 0) + b->has_ipv4 + (b->ip_domain != NULL) + v6 + mac +
               (b->pcf_id != NULL) + (b->pcf_set_id != NULL) + (b->bind_level != NULL);
    char t[BSF_IPV4_TEXT_MAX];
    if (msgpack_pack_map(pk, n) || bsf_pack_opt(pk, "dnn", b->dnn) ||
        (b->has_snssai && (bsf_pack_cstr(pk, "snssai") || pack_snssai(pk, &b->snssai))) ||
        bsf_pack_opt(pk, "pcfFqdn", b->pcf_fqdn))
        return -1;
    if (b->pcf_ip_end_points.n &&
        (bsf_pack_cstr(pk, "pcfIpEndPoints") || bsf_pack_end_points(pk, &b->pcf_ip_end_points)))
        return -1;
    if (b->has_ipv4) {
        bsf_ipv4_format(&b->ipv4, t);
        if (bsf_pack_cstr(pk, "ipv4Addr") || bsf_pack_cstr(pk, t))
            return -1;
    }
    if (bsf_pack_opt(pk, "ipDomain", b->ip_domain) || (v6 && pack_ipv6_list(pk, b)) ||
        (mac && pack_mac_list(pk, b)))
        return -1;
    return bsf_pack_opt(pk, "pcfId", b->pcf_id) || bsf_pack_opt(pk, "pcfSetId", b->pcf_set_id) ||
           bsf_pack_opt(pk, "bindLevel", b->bind_level);
}

/* PcfForUeInfo. */
static int pack_ue_info(msgpack_packer *pk, const bsf_pcf_ue_binding_t *b)
{
    const bsf_ip_end_points_t *eps = &b->pcf_for_ue_ip_end_points;
    size_t n = (b->pcf_for_ue_fqdn != NULL) + (eps->n > 0) + (b->pcf_id != NULL) +
               (b->pcf_set_id != NULL) + (b->bind_level != NULL);
    if (msgpack_pack_map(pk, n) || bsf_pack_opt(pk, "pcfFqdn", b->pcf_for_ue_fqdn))
        return -1;
    if (eps->n && (bsf_pack_cstr(pk, "pcfIpEndPoints") || bsf_pack_end_points(pk, eps)))
        return -1;
    return bsf_pack_opt(pk, "pcfId", b->pcf_id) || bsf_pack_opt(pk, "pcfSetId", b->pcf_set_id) ||
           bsf_pack_opt(pk, "bindLevel", b->bind_level);
}

int bsf_notification_encode_binding(const bsf_binding_change_t *c, msgpack_packer *pk)
{
    return c->ue ? pack_ue_info(pk, c->ue) : pack_pdu_info(pk, c->pdu);
}

static int pack_event(msgpack_packer *pk, bsf_sub_event_t e, const bsf_binding_change_t *c,
                      const char *binding, size_t len)
{
    bool pair = e == BSF_SUB_EVENT_SNSSAI_DNN_REGISTRATION ||
                e == BSF_SUB_EVENT_SNSSAI_DNN_DEREGISTRATION;
    if (msgpack_pack_map(pk, 2 + pair) || bsf_pack_cstr(pk, "event") ||
        bsf_pack_cstr(pk, bsf_sub_event_name(e)))
        return -1;
    if (c->ue)
        return bsf_pack_cstr(pk, "pcfForUeInfo") || pk->callback(pk->data, binding, len);
    if (bsf_pack_cstr(pk, "pcfForPduSessInfos") || msgpack_pack_array(pk, 1) ||
        pk->callback(pk->data, binding, len))
        return -1;
    return pair && (bsf_pack_cstr(pk, "matchSnssaiDnns") || msgpack_pack_array(pk, 1) ||
                    msgpack_pack_map(pk, 2) || bsf_pack_cstr(pk, "snssai") ||
                    pack_snssai(pk, &c->pdu->snssai) || bsf_pack_cstr(pk, "dnn") ||
                    bsf_pack_cstr(pk, c->pdu->dnn));
}

int bsf_notification_encode_with(const bsf_subscription_t *s, uint32_t events,
                                 const bsf_binding_change_t *c, const char *binding, size_t len,
                                 msgpack_packer *pk)
{
    size_t n = 0;
    for (int e = 0; e < BSF_SUB_EVENT_COUNT; e++)
        n += (events >> e) & 1u;
    if (msgpack_pack_map(pk, 2) || bsf_pack_cstr(pk, "notifCorreId") ||
        bsf_pack_cstr(pk, s->notif_corre_id) || bsf_pack_cstr(pk, "eventNotifs") ||
        msgpack_pack_array(pk, n))
        return -1;
    for (int e = 0; e < BSF_SUB_EVENT_COUNT; e++)
        if (((events >> e) & 1u) && pack_event(pk, (bsf_sub_event_t)e, c, binding, len))
            return -1;
    return 0;
}

int bsf_notification_encode(const bsf_subscription_t *s, uint32_t events,
                            const bsf_binding_change_t *c, msgpack_packer *pk)
{
    msgpack_sbuffer b;
    msgpack_packer bp;
    msgpack_sbuffer_init(&b);
    msgpack_packer_init(&bp, &b, msgpack_sbuffer_write);
    int rc = bsf_notification_encode_binding(c, &bp) ||
             bsf_notification_encode_with(s, events, c, b.data, b.size, pk);
    msgpack_sbuffer_destroy(&b);
    return rc ? -1 : 0;
}
