/*
 * rx_dict.h - the 3GPP Rx application (TS 29.214) for a freeDiameter 1.2.1 node.
 *
 * freeDiameter 1.2.1 ships no Rx dictionary.  The pieces exist, but they do not fit together:
 *   - dict_dcca_3gpp.fdx defines vendor 10415 and the Rx AVPs (Media-Component-Description, ...);
 *   - dict_nasreq.fdx defines AA-Request/Answer (265) and Framed-IP-Address, but with NASREQ
 *     (RFC 7155) rules: Auth-Request-Type is required in AAR and AAA and Result-Code in AAA, so a
 *     correct Rx AAR is answered 5005 DIAMETER_MISSING_AVP and an AAA carrying only
 *     Experimental-Result is silently dropped;
 *   - dict_dcca.fdx (which dict_dcca_3gpp needs) declares a dependency on dict_nasreq, so NASREQ
 *     cannot simply be left out.
 *
 * rx_dict_init() therefore expects the three extensions to be loaded (see RX_DICT_EXTENSIONS),
 * then:
 *   1. defines the Rx application (Auth-Application-Id 16777236, vendor 10415);
 *   2. resolves every command and AVP an Rx node needs into struct rx_dict, failing with a
 *      message naming the missing object;
 *   3. rewrites the command rules that contradict TS 29.214 (freeDiameter commands are keyed by
 *      code only, so these rules are shared by every application on the node):
 *        AAR  Auth-Request-Type required        -> removed
 *        AAA  Auth-Request-Type required        -> removed
 *        AAA, STA, RAA, ASA  Result-Code required -> optional (0..1); Experimental-Result 0..1
 *        RAR  Re-Auth-Request-Type required     -> optional (Rx RAR does not carry it)
 *      and adds the Rx-specific occurrence limits (0..1 / 0..n) on AAR/AAA/RAR/ASR/STR;
 *   4. with RX_DICT_F_STRICT, also makes the Rx-mandatory AVPs required
 *      (RAR: Specific-Action 1..n, ASR: Abort-Cause 1).
 *
 * The dictionary cannot express "Result-Code or Experimental-Result": check that in the
 * application.
 *
 * Call order on a libfdcore program:
 *     fd_core_initialize(); fd_core_parseconf(conf that loads RX_DICT_EXTENSIONS);
 *     rx_dict_init(&rx, fd_g_config->cnf_dict, 0, err, sizeof err);
 *     rx_dict_advertise(&rx, ...);    -- Rx in CER/CEA (Vendor-Specific-Application-Id)
 *     fd_disp_register(...) with rx.app / rx.cmd_*;  fd_core_start();
 * rx_dict_init() edits the shared dictionary: call it before fd_core_start(), once.
 *
 * Messages created from rx.cmd_aar etc. carry the NASREQ / base application id in their
 * header: use rx_dict_new_request(), which sets 16777236.
 */
#ifndef RX_DICT_H
#define RX_DICT_H

#include <stddef.h>
#include <stdint.h>

#include <freeDiameter/freeDiameter-host.h>
#include <freeDiameter/libfdcore.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RX_APP_ID       16777236u /* 3GPP Rx, TS 29.214 */
#define RX_VENDOR_3GPP  10415u

/* Command codes used on Rx. */
#define RX_CMD_AA  265u /* AAR / AAA */
#define RX_CMD_RA  258u /* RAR / RAA */
#define RX_CMD_ST  275u /* STR / STA */
#define RX_CMD_AS  274u /* ASR / ASA */

/* Extensions that must be loaded (in this order) before rx_dict_init(). NULL-terminated. */
#define RX_DICT_EXTENSIONS { "dict_nasreq.fdx", "dict_dcca.fdx", "dict_dcca_3gpp.fdx", NULL }

/* Experimental-Result-Code values of TS 29.214 (vendor 10415). */
enum rx_exp_result {
	RX_EXP_INVALID_SERVICE_INFORMATION = 5061,
	RX_EXP_FILTER_RESTRICTIONS = 5062,
	RX_EXP_REQUESTED_SERVICE_NOT_AUTHORIZED = 5063,
	RX_EXP_DUPLICATED_AF_SESSION = 5064,
	RX_EXP_IP_CAN_SESSION_NOT_AVAILABLE = 5065,
	RX_EXP_UNAUTHORIZED_NON_EMERGENCY_SESSION = 5066,
	RX_EXP_UNAUTHORIZED_SPONSORED_DATA_CONNECTIVITY = 5067,
	RX_EXP_TEMPORARY_NETWORK_FAILURE = 5068,
};

/* Flags for rx_dict_init(). */
#define RX_DICT_F_STRICT 0x1u /* enforce Rx-mandatory AVPs of RAR (Specific-Action) and ASR (Abort-Cause) */
#define RX_DICT_F_KEEP_NASREQ_RULES 0x2u /* resolve only, leave the NASREQ/base rules as they are:
                                          * reproduces pitfall 1 (for tests of the tests only) */

/*
 * Resolved dictionary objects.  Filled by rx_dict_init(); read-only afterwards, so it can be
 * shared between threads without locking.
 */
struct rx_dict {
	struct dictionary *dict;
	struct dict_object *vendor_3gpp;
	struct dict_object *app;            /* Rx application 16777236 */

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
	    *error_message, *failed_avp, *proxy_info;

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
};

/*
 * Resolve and fix the Rx dictionary in `dict` (normally fd_g_config->cnf_dict).
 * Returns 0, or an errno-style code with a human-readable reason in err (always
 * NUL-terminated when errlen > 0):
 *   EINVAL  bad arguments;
 *   ENOENT  a required extension object is missing (message names it and the extension);
 *   EEXIST  an object exists with conflicting data (e.g. another app 16777236);
 *   other   error returned by libfdproto.
 */
int rx_dict_init(struct rx_dict *rx, struct dictionary *dict, unsigned flags, char *err, size_t errlen);

/* Advertise Rx (auth, vendor 10415) in CER/CEA. Call after rx_dict_init(), before fd_core_start(). */
int rx_dict_advertise(const struct rx_dict *rx, char *err, size_t errlen);

/*
 * Create a request from `cmd` (e.g. rx->cmd_aar) with a fresh End-to-End id and the Rx
 * application id in its header.  Returns 0 or an errno-style code.
 */
int rx_dict_new_request(const struct rx_dict *rx, struct dict_object *cmd, struct msg **out);

/* Short command name: "AAR", "RAA", "CER", ...; "REQ" / "ANS" for other codes. */
const char *rx_dict_cmd_name(uint32_t code, int is_request);

#ifdef __cplusplus
}
#endif

#endif /* RX_DICT_H */
