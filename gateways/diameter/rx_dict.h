/* The 3GPP Rx application (TS 29.214) in freeDiameter 1.2.1's dictionary.
 *
 * freeDiameter ships no Rx dictionary and its pieces do not fit together:
 *   - dict_dcca_3gpp.fdx defines vendor 10415 and the Rx AVPs;
 *   - dict_nasreq.fdx defines AA-Request/Answer (265) with NASREQ rules: Auth-Request-Type
 *     required in AAR and AAA, Result-Code in AAA, so a correct Rx AAR is answered 5005 and an
 *     AAA carrying only Experimental-Result is silently dropped;
 *   - dict_dcca.fdx (needed by dict_dcca_3gpp) depends on dict_nasreq, which must stay.
 *
 * bsf_rx_dict_init() expects the three extensions loaded (BSF_RX_DICT_EXTENSIONS), then
 * defines the Rx application (16777236, vendor 10415), resolves every command and AVP an Rx
 * node needs, and rewrites the command rules that contradict TS 29.214. freeDiameter keys
 * commands by code only, so the rules are shared by every application on the node. The
 * dictionary cannot express "Result-Code or Experimental-Result": applications check that.
 *
 * Call order: fd_core_initialize, fd_core_parseconf (loading the extensions),
 * bsf_rx_dict_init, bsf_rx_dict_advertise, dispatch registrations, fd_core_start. The
 * resolved objects are read-only afterwards and shared between threads without locks. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_DICT_H
#define BSF_GATEWAYS_DIAMETER_RX_DICT_H

#include <stddef.h>
#include <stdint.h>

#include <freeDiameter/freeDiameter-host.h>
#include <freeDiameter/libfdcore.h>

#include "gateways/diameter/rx_commands.h"

/* Default code and vendor of OCNF-SERVICE-COOKIE (diameter.cookie_avp_code / _vendor). */
#define BSF_RX_COOKIE_CODE 3001u
#define BSF_RX_COOKIE_VENDOR 21274u

/* Extensions to load, in this order, before bsf_rx_dict_init(). NULL-terminated. */
#define BSF_RX_DICT_EXTENSIONS {"dict_nasreq.fdx", "dict_dcca.fdx", "dict_dcca_3gpp.fdx", NULL}

/* Experimental-Result-Code values of TS 29.214 (vendor 10415). */
enum bsf_rx_exp_result {
    BSF_RX_EXP_INVALID_SERVICE_INFORMATION = 5061,
    BSF_RX_EXP_FILTER_RESTRICTIONS = 5062,
    BSF_RX_EXP_REQUESTED_SERVICE_NOT_AUTHORIZED = 5063,
    BSF_RX_EXP_DUPLICATED_AF_SESSION = 5064,
    BSF_RX_EXP_IP_CAN_SESSION_NOT_AVAILABLE = 5065,
    BSF_RX_EXP_UNAUTHORIZED_NON_EMERGENCY_SESSION = 5066,
    BSF_RX_EXP_UNAUTHORIZED_SPONSORED_DATA_CONNECTIVITY = 5067,
    BSF_RX_EXP_TEMPORARY_NETWORK_FAILURE = 5068,
};

/* Flags of bsf_rx_dict_init(). */
#define BSF_RX_DICT_F_STRICT 0x1u /* require Specific-Action in RAR and Abort-Cause in ASR */
#define BSF_RX_DICT_F_KEEP_NASREQ_RULES 0x2u /* resolve only (reproduces pitfall 1; tests) */

typedef struct bsf_rx_dict {
    struct dictionary *dict;
    struct dict_object *vendor_3gpp;
    struct dict_object *app; /* Rx application 16777236 */

    /* Commands (requests and answers are distinct objects). */
    struct dict_object *cmd_aar, *cmd_aaa;
    struct dict_object *cmd_rar, *cmd_raa;
    struct dict_object *cmd_str, *cmd_sta;
    struct dict_object *cmd_asr, *cmd_asa;

    /* RFC 6733 base AVPs. */
    struct dict_object *session_id, *origin_host, *origin_realm, *destination_host,
        *destination_realm, *auth_application_id, *result_code, *experimental_result,
        *experimental_result_code, *vendor_id, *auth_session_state, *termination_cause,
        *route_record, *origin_state_id, *re_auth_request_type, *auth_request_type,
        *error_message, *failed_avp, *proxy_info, *proxy_host, *proxy_state;

    /* NASREQ (RFC 7155) AVPs used by Rx. */
    struct dict_object *framed_ip_address, *framed_ipv6_prefix, *called_station_id, *class_avp;

    /* Credit-control (RFC 4006) AVPs used by Rx. */
    struct dict_object *subscription_id, *subscription_id_type, *subscription_id_data;

    /* Rx AVPs (vendor 10415). */
    struct dict_object *media_component_description, *media_component_number,
        *media_sub_component, *flow_number, *flow_description, *flow_status, *flow_usage,
        *media_type, *max_requested_bandwidth_ul, *max_requested_bandwidth_dl, *codec_data,
        *af_application_identifier, *af_charging_identifier, *specific_action,
        *rx_request_type, *abort_cause, *ip_domain_id, *service_info_status,
        *supported_features, *feature_list_id, *feature_list, *service_urn,
        *sponsored_connectivity_data, *required_access_info, *acceptable_service_info,
        *ip_can_type, *rat_type, *access_network_charging_identifier, *flows,
        *sip_forking_indication;

    /* OCNF-SERVICE-COOKIE (seed §3.3), defined by bsf_rx_dict_define_cookie; else NULL. */
    struct dict_object *cookie;
    /* DRMP (RFC 7944, code 301), defined by bsf_rx_dict_define_drmp; else NULL. */
    struct dict_object *drmp;
    /* OC-Message-Priority, defined by bsf_rx_dict_define_oc_priority; else NULL. */
    struct dict_object *oc_priority;
} bsf_rx_dict_t;

/* Resolves and fixes the Rx dictionary in `dict` (normally fd_g_config->cnf_dict).
 * Returns 0, or an errno-style code with the reason in err: EINVAL bad arguments; ENOENT an
 * object is missing (the message names it and its extension); EEXIST conflicting data;
 * another libfdproto error. */
int bsf_rx_dict_init(bsf_rx_dict_t *rx, struct dictionary *dict, unsigned flags, char *err,
                     size_t errlen);

/* Advertises Rx (auth, vendor 10415) in CER/CEA. After bsf_rx_dict_init, before
 * fd_core_start. */
int bsf_rx_dict_advertise(const bsf_rx_dict_t *rx, char *err, size_t errlen);

/* Defines the OCNF-SERVICE-COOKIE AVP: OctetString, `code` under `vendor` (the vendor is
 * created when the dictionary lacks it), V flag set, M flag clear so that a PCF which does
 * not know it ignores it. Sets rx->cookie. Returns 0 or an errno-style code. */
int bsf_rx_dict_define_cookie(bsf_rx_dict_t *rx, uint32_t code, uint32_t vendor, char *err,
                              size_t errlen);

/* Defines the DRMP AVP (RFC 7944: code 301, no vendor, Enumerated, values 0-15) as an
 * Integer32 when the dictionary lacks it. Sets rx->drmp. Returns 0 or an errno-style code. */
int bsf_rx_dict_define_drmp(bsf_rx_dict_t *rx, char *err, size_t errlen);

/* Defines Oracle's OC-Message-Priority (a message priority 0-31, seed §3.26) as an Unsigned32
 * `code` of `vendor` (0: none), V flag with a vendor, M flag clear: Oracle does not publish
 * its code, so it is the operator's to set (bsfd: diameter.congestion.oc_priority_avp_code).
 * Sets rx->oc_priority. Returns 0 or an errno-style code. */
int bsf_rx_dict_define_oc_priority(bsf_rx_dict_t *rx, uint32_t code, uint32_t vendor, char *err,
                                   size_t errlen);

/* Creates a request of `cmd` (e.g. rx->cmd_aar) with a fresh End-to-End id, the Rx
 * application id in its header and the P bit. Returns 0 or an errno-style code. */
int bsf_rx_dict_new_request(const bsf_rx_dict_t *rx, struct dict_object *cmd, struct msg **out);

/* Short command name: "AAR", "RAA", "CER", ...; "REQ" / "ANS" for other codes. */
const char *bsf_rx_dict_cmd_name(uint32_t code, int is_request);

#endif
