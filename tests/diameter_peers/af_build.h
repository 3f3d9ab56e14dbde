/*
 * af_build.h - the requests of a fake AF (P-CSCF): AAR (initial / update) and STR, including
 * deliberately malformed variants for negative tests.
 */
#ifndef AF_BUILD_H
#define AF_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "gateways/diameter/rx_dict.h"

struct af_aar {
	const char *sid;            /* Session-Id; NULL omits it (malformed) */
	const char *dest_realm;     /* required */
	const char *dest_host;      /* NULL or "": none */
	const uint8_t *ipv4;        /* Framed-IP-Address value (normally 4 octets), or NULL */
	size_t ipv4_len;
	const uint8_t *ipv6;        /* Framed-IPv6-Prefix value (RFC 3162 encoding), or NULL */
	size_t ipv6_len;
	const char *ue_text;        /* UE address text for Flow-Description, or NULL */
	const char *called_station_id;
	const char *ip_domain_id;
	const char *af_app_id;      /* AF-Application-Identifier */
	const char *subscription;   /* Subscription-Id: "sip:..." -> SIP URI, else E.164 */
	int media;                  /* add one Media-Component-Description (audio, 2 flows) */
	uint32_t media_number;
	const uint32_t *actions;    /* Specific-Action values */
	size_t n_actions;
	int rx_request_type;        /* 0 INITIAL, 1 UPDATE, -1 omit */
	uint32_t app_hdr;           /* application id in the header (BSF_RX_APP_ID) */
	uint32_t app_avp;           /* Auth-Application-Id value (BSF_RX_APP_ID) */
	int has_drmp, has_oc_priority; /* add DRMP / OC-Message-Priority with these values */
	uint32_t drmp, oc_priority;
};

/* Build an AAR. 0 or an errno-style code. */
int af_build_aar(const bsf_rx_dict_t *rx, const struct af_aar *p, struct msg **out);

/* Build an STR (Termination-Cause `cause`). */
int af_build_str(const bsf_rx_dict_t *rx, const char *sid, const char *dest_realm, const char *dest_host,
    uint32_t cause, struct msg **out);

#endif /* AF_BUILD_H */
