/* af_build.c - see af_build.h */
#include "af_build.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rxpeer_build.h"

/* TS 29.214 values used below. */
#define AF_MEDIA_TYPE_AUDIO 0
#define AF_FLOW_STATUS_ENABLED 2
#define AF_FLOW_USAGE_NO_INFORMATION 0
#define AF_SUB_ID_E164 0
#define AF_SUB_ID_SIP_URI 2

/* Media-Sub-Component: one flow, downlink and uplink filters. */
static int af_build_sub_component(const bsf_rx_dict_t *rx, struct avp *mcd, const char *ue)
{
	char down[160], up[160];
	struct avp *msc = NULL;
	int ret;

	/* the remote end (the other party's media) in the UE's address family */
	const char *remote = strchr(ue, ':') ? "2001:db8:ffff::10" : "198.51.100.10";
	snprintf(down, sizeof down, "permit out 17 from %s 49000 to %s 50000", remote, ue);
	snprintf(up, sizeof up, "permit in 17 from %s 50000 to %s 49000", ue, remote);
	if ((ret = rxpeer_add_grouped(mcd, rx->media_sub_component, &msc)) != 0)
		return ret;
	if ((ret = rxpeer_add_u32(msc, rx->flow_number, 1)) != 0 ||
	    (ret = rxpeer_add_str(msc, rx->flow_description, down)) != 0 ||
	    (ret = rxpeer_add_str(msc, rx->flow_description, up)) != 0 ||
	    (ret = rxpeer_add_i32(msc, rx->flow_usage, AF_FLOW_USAGE_NO_INFORMATION)) != 0)
		return ret;
	return 0;
}

/* Media-Component-Description for one audio stream. */
static int af_build_media(const bsf_rx_dict_t *rx, struct msg *m, uint32_t number, const char *ue)
{
	static const char codec[] = "uplink\noffer\nm=audio 49000 RTP/AVP 0 8 96\na=rtpmap:96 AMR/8000\n";
	struct avp *mcd = NULL;
	int ret;

	if ((ret = rxpeer_add_grouped(m, rx->media_component_description, &mcd)) != 0)
		return ret;
	if ((ret = rxpeer_add_u32(mcd, rx->media_component_number, number)) != 0 ||
	    (ret = af_build_sub_component(rx, mcd, ue)) != 0 ||
	    (ret = rxpeer_add_i32(mcd, rx->media_type, AF_MEDIA_TYPE_AUDIO)) != 0 ||
	    (ret = rxpeer_add_u32(mcd, rx->max_requested_bandwidth_ul, 64000)) != 0 ||
	    (ret = rxpeer_add_u32(mcd, rx->max_requested_bandwidth_dl, 64000)) != 0 ||
	    (ret = rxpeer_add_i32(mcd, rx->flow_status, AF_FLOW_STATUS_ENABLED)) != 0 ||
	    (ret = rxpeer_add_str(mcd, rx->codec_data, codec)) != 0)
		return ret;
	return 0;
}

static int af_build_subscription(const bsf_rx_dict_t *rx, struct msg *m, const char *sub)
{
	struct avp *g = NULL;
	int ret;
	int sip = strncmp(sub, "sip:", 4) == 0 || strncmp(sub, "tel:", 4) == 0;
	if ((ret = rxpeer_add_grouped(m, rx->subscription_id, &g)) != 0)
		return ret;
	if ((ret = rxpeer_add_i32(g, rx->subscription_id_type, sip ? AF_SUB_ID_SIP_URI : AF_SUB_ID_E164)) != 0 ||
	    (ret = rxpeer_add_str(g, rx->subscription_id_data, sub)) != 0)
		return ret;
	return 0;
}

/* The AVPs in TS 29.214 clause 5.6.1 order. */
static int af_build_aar_avps(const bsf_rx_dict_t *rx, const struct af_aar *p, struct msg *m)
{
	int ret = 0;

	if (p->sid && (ret = rxpeer_add_session_id(m, rx, p->sid)) != 0)
		return ret;
	if ((ret = rxpeer_add_u32(m, rx->auth_application_id, p->app_avp)) != 0 ||
	    (ret = fd_msg_add_origin(m, 0)) != 0 ||
	    (ret = rxpeer_add_destination(m, rx, p->dest_host, p->dest_realm)) != 0)
		return ret;
	if (p->ip_domain_id && (ret = rxpeer_add_str(m, rx->ip_domain_id, p->ip_domain_id)) != 0)
		return ret;
	if (p->af_app_id && (ret = rxpeer_add_str(m, rx->af_application_identifier, p->af_app_id)) != 0)
		return ret;
	if (p->media && (ret = af_build_media(rx, m, p->media_number ? p->media_number : 1,
	    p->ue_text ? p->ue_text : "any")) != 0)
		return ret;
	for (size_t i = 0; i < p->n_actions; i++)
		if ((ret = rxpeer_add_i32(m, rx->specific_action, (int32_t)p->actions[i])) != 0)
			return ret;
	if (p->subscription && (ret = af_build_subscription(rx, m, p->subscription)) != 0)
		return ret;
	if (p->ipv4 && (ret = rxpeer_add_os(m, rx->framed_ip_address, p->ipv4, p->ipv4_len)) != 0)
		return ret;
	if (p->ipv6 && (ret = rxpeer_add_os(m, rx->framed_ipv6_prefix, p->ipv6, p->ipv6_len)) != 0)
		return ret;
	if (p->called_station_id && (ret = rxpeer_add_str(m, rx->called_station_id, p->called_station_id)) != 0)
		return ret;
	if (p->rx_request_type >= 0 && (ret = rxpeer_add_i32(m, rx->rx_request_type, p->rx_request_type)) != 0)
		return ret;
	if (p->has_drmp && (ret = rxpeer_add_i32(m, rx->drmp, (int32_t)p->drmp)) != 0)
		return ret;
	if (p->has_oc_priority && (ret = rxpeer_add_u32(m, rx->oc_priority, p->oc_priority)) != 0)
		return ret;
	return 0;
}

int af_build_aar(const bsf_rx_dict_t *rx, const struct af_aar *p, struct msg **out)
{
	struct msg *m = NULL;
	struct msg_hdr *h = NULL;
	int ret;

	if (p->dest_realm == NULL)
		return EINVAL;
	if ((ret = bsf_rx_dict_new_request(rx, rx->cmd_aar, &m)) != 0)
		return ret;
	if ((ret = fd_msg_hdr(m, &h)) == 0) {
		h->msg_appl = p->app_hdr;
		ret = af_build_aar_avps(rx, p, m);
	}
	if (ret != 0) {
		fd_msg_free(m);
		return ret;
	}
	*out = m;
	return 0;
}

int af_build_str(const bsf_rx_dict_t *rx, const char *sid, const char *dest_realm, const char *dest_host,
    uint32_t cause, struct msg **out)
{
	struct msg *m = NULL;
	int ret;

	if (sid == NULL || dest_realm == NULL)
		return EINVAL;
	if ((ret = bsf_rx_dict_new_request(rx, rx->cmd_str, &m)) != 0)
		return ret;
	if ((ret = rxpeer_add_session_id(m, rx, sid)) != 0 ||
	    (ret = fd_msg_add_origin(m, 0)) != 0 ||
	    (ret = rxpeer_add_destination(m, rx, dest_host, dest_realm)) != 0 ||
	    (ret = rxpeer_add_u32(m, rx->auth_application_id, BSF_RX_APP_ID)) != 0 ||
	    (ret = rxpeer_add_i32(m, rx->termination_cause, (int32_t)cause)) != 0) {
		fd_msg_free(m);
		return ret;
	}
	*out = m;
	return 0;
}
