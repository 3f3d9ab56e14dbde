/*
 * rxpeer_msgjson.h - summary of a Diameter message as JSON members.
 *
 * rxpeer_msgjson_fields() appends members describing `m` to an object the caller has opened
 * (so the caller can add "type", "dir", ...).  Members (absent when the AVP is absent):
 *
 *   cmd, code, app, flags ("RPET" letters), request, hbh, e2e, peer (the neighbour it came from)
 *   session_id, origin_host, origin_realm, destination_host, destination_realm,
 *   auth_application_id, result_code, experimental_result {vendor_id, code}, error_message,
 *   error_reporting_host, failed_avp [{code, vendor}], origin_state_id,
 *   framed_ip (dotted; null + framed_ip_hex + framed_ip_len when the length is not 4),
 *   framed_ipv6_prefix ("addr/len"; null + framed_ipv6_prefix_hex when malformed),
 *   called_station_id, ip_domain_id, af_application_identifier, af_charging_identifier,
 *   rx_request_type, auth_session_state, termination_cause, re_auth_request_type,
 *   auth_request_type, abort_cause, service_info_status, specific_action [..],
 *   subscription_id [{type, data}], supported_features [{vendor_id, feature_list_id, feature_list}],
 *   media_components [{number, media_type, flow_status, max_bw_ul, max_bw_dl,
 *                      sub_components [{flow_number, flow_usage, flow_descriptions [..]}]}],
 *   route_record [..]        Route-Record values as received on the wire,
 *   route_record_local       the Route-Record freeDiameter 1.2.1 appends on receipt of every
 *                            routable message (answers included) -- see README, pitfall 3,
 *   avps [{code, vendor}]    every top-level AVP in order (freeDiameter's local addition excluded).
 *
 * Octet strings that are not printable ASCII are written as "<name>_hex".
 */
#ifndef RXPEER_MSGJSON_H
#define RXPEER_MSGJSON_H

#include "gateways/diameter/rx_dict.h"
#include "rxpeer_json.h"

void rxpeer_msgjson_fields(struct rxpeer_json *j, struct msg *m);

#endif /* RXPEER_MSGJSON_H */
