/* The Rx application and command rules on top of freeDiameter's dictionaries (see
 * rx_dict.h for what is changed and why). */
#include "gateways/diameter/rx_dict.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/err_format.h"

/* A `struct dict_object *` member of bsf_rx_dict_t by its offset. */
#define RX_FIELD(rx, off) (*(struct dict_object **)((char *)(rx) + (off)))

/* ---- AVPs ------------------------------------------------------------------------------ */

typedef struct {
    size_t off; /* member of bsf_rx_dict_t */
    uint32_t code;
    uint32_t vendor;
    const char *name;   /* for error messages */
    const char *source; /* the extension or RFC that defines it */
} rx_avp_ref_t;

#define AVP(field, code, vendor, name, source)                                                  \
    {offsetof(bsf_rx_dict_t, field), code, vendor, name, source}

static const rx_avp_ref_t rx_avps[] = {
    AVP(session_id, 263, 0, "Session-Id", "libfdcore base"),
    AVP(origin_host, 264, 0, "Origin-Host", "libfdcore base"),
    AVP(origin_realm, 296, 0, "Origin-Realm", "libfdcore base"),
    AVP(destination_host, 293, 0, "Destination-Host", "libfdcore base"),
    AVP(destination_realm, 283, 0, "Destination-Realm", "libfdcore base"),
    AVP(auth_application_id, 258, 0, "Auth-Application-Id", "libfdcore base"),
    AVP(result_code, 268, 0, "Result-Code", "libfdcore base"),
    AVP(experimental_result, 297, 0, "Experimental-Result", "libfdcore base"),
    AVP(experimental_result_code, 298, 0, "Experimental-Result-Code", "libfdcore base"),
    AVP(vendor_id, 266, 0, "Vendor-Id", "libfdcore base"),
    AVP(auth_session_state, 277, 0, "Auth-Session-State", "libfdcore base"),
    AVP(termination_cause, 295, 0, "Termination-Cause", "libfdcore base"),
    AVP(route_record, 282, 0, "Route-Record", "libfdcore base"),
    AVP(origin_state_id, 278, 0, "Origin-State-Id", "libfdcore base"),
    AVP(re_auth_request_type, 285, 0, "Re-Auth-Request-Type", "libfdcore base"),
    AVP(auth_request_type, 274, 0, "Auth-Request-Type", "libfdcore base"),
    AVP(error_message, 281, 0, "Error-Message", "libfdcore base"),
    AVP(failed_avp, 279, 0, "Failed-AVP", "libfdcore base"),
    AVP(proxy_info, 284, 0, "Proxy-Info", "libfdcore base"),
    AVP(proxy_host, 280, 0, "Proxy-Host", "libfdcore base"),
    AVP(proxy_state, 33, 0, "Proxy-State", "libfdcore base"),
    AVP(framed_ip_address, 8, 0, "Framed-IP-Address", "dict_nasreq.fdx"),
    AVP(framed_ipv6_prefix, 97, 0, "Framed-IPv6-Prefix", "dict_nasreq.fdx"),
    AVP(called_station_id, 30, 0, "Called-Station-Id", "dict_nasreq.fdx"),
    AVP(class_avp, 25, 0, "Class", "dict_nasreq.fdx"),
    AVP(subscription_id, 443, 0, "Subscription-Id", "dict_dcca.fdx"),
    AVP(subscription_id_type, 450, 0, "Subscription-Id-Type", "dict_dcca.fdx"),
    AVP(subscription_id_data, 444, 0, "Subscription-Id-Data", "dict_dcca.fdx"),
    AVP(abort_cause, 500, BSF_RX_VENDOR_3GPP, "Abort-Cause", "dict_dcca_3gpp.fdx"),
    AVP(access_network_charging_identifier, 502, BSF_RX_VENDOR_3GPP, "Access-Network-Charging-Identifier", "dict_dcca_3gpp.fdx"),
    AVP(af_application_identifier, 504, BSF_RX_VENDOR_3GPP, "AF-Application-Identifier", "dict_dcca_3gpp.fdx"),
    AVP(af_charging_identifier, 505, BSF_RX_VENDOR_3GPP, "AF-Charging-Identifier", "dict_dcca_3gpp.fdx"),
    AVP(flow_description, 507, BSF_RX_VENDOR_3GPP, "Flow-Description", "dict_dcca_3gpp.fdx"),
    AVP(flow_number, 509, BSF_RX_VENDOR_3GPP, "Flow-Number", "dict_dcca_3gpp.fdx"),
    AVP(flows, 510, BSF_RX_VENDOR_3GPP, "Flows", "dict_dcca_3gpp.fdx"),
    AVP(flow_status, 511, BSF_RX_VENDOR_3GPP, "Flow-Status", "dict_dcca_3gpp.fdx"),
    AVP(flow_usage, 512, BSF_RX_VENDOR_3GPP, "Flow-Usage", "dict_dcca_3gpp.fdx"),
    AVP(specific_action, 513, BSF_RX_VENDOR_3GPP, "Specific-Action", "dict_dcca_3gpp.fdx"),
    AVP(max_requested_bandwidth_dl, 515, BSF_RX_VENDOR_3GPP, "Max-Requested-Bandwidth-DL", "dict_dcca_3gpp.fdx"),
    AVP(max_requested_bandwidth_ul, 516, BSF_RX_VENDOR_3GPP, "Max-Requested-Bandwidth-UL", "dict_dcca_3gpp.fdx"),
    AVP(media_component_description, 517, BSF_RX_VENDOR_3GPP, "Media-Component-Description", "dict_dcca_3gpp.fdx"),
    AVP(media_component_number, 518, BSF_RX_VENDOR_3GPP, "Media-Component-Number", "dict_dcca_3gpp.fdx"),
    AVP(media_sub_component, 519, BSF_RX_VENDOR_3GPP, "Media-Sub-Component", "dict_dcca_3gpp.fdx"),
    AVP(media_type, 520, BSF_RX_VENDOR_3GPP, "Media-Type", "dict_dcca_3gpp.fdx"),
    AVP(sip_forking_indication, 523, BSF_RX_VENDOR_3GPP, "SIP-Forking-Indication", "dict_dcca_3gpp.fdx"),
    AVP(codec_data, 524, BSF_RX_VENDOR_3GPP, "Codec-Data", "dict_dcca_3gpp.fdx"),
    AVP(service_urn, 525, BSF_RX_VENDOR_3GPP, "Service-URN", "dict_dcca_3gpp.fdx"),
    AVP(acceptable_service_info, 526, BSF_RX_VENDOR_3GPP, "Acceptable-Service-Info", "dict_dcca_3gpp.fdx"),
    AVP(service_info_status, 527, BSF_RX_VENDOR_3GPP, "Service-Info-Status", "dict_dcca_3gpp.fdx"),
    AVP(sponsored_connectivity_data, 530, BSF_RX_VENDOR_3GPP, "Sponsored-Connectivity-Data", "dict_dcca_3gpp.fdx"),
    AVP(rx_request_type, 533, BSF_RX_VENDOR_3GPP, "Rx-Request-Type", "dict_dcca_3gpp.fdx"),
    AVP(required_access_info, 536, BSF_RX_VENDOR_3GPP, "Required-Access-Info", "dict_dcca_3gpp.fdx"),
    AVP(ip_domain_id, 537, BSF_RX_VENDOR_3GPP, "IP-Domain-Id", "dict_dcca_3gpp.fdx"),
    AVP(supported_features, 628, BSF_RX_VENDOR_3GPP, "Supported-Features", "dict_dcca_3gpp.fdx"),
    AVP(feature_list_id, 629, BSF_RX_VENDOR_3GPP, "Feature-List-ID", "dict_dcca_3gpp.fdx"),
    AVP(feature_list, 630, BSF_RX_VENDOR_3GPP, "Feature-List", "dict_dcca_3gpp.fdx"),
    AVP(ip_can_type, 1027, BSF_RX_VENDOR_3GPP, "IP-CAN-Type", "dict_dcca_3gpp.fdx"),
    AVP(rat_type, 1032, BSF_RX_VENDOR_3GPP, "RAT-Type", "dict_dcca_3gpp.fdx"),
};
static int rx_dict_resolve_avps(bsf_rx_dict_t *rx, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof rx_avps / sizeof rx_avps[0]; i++) {
        const rx_avp_ref_t *a = &rx_avps[i];
        struct dict_avp_request req = {.avp_vendor = a->vendor, .avp_code = a->code};
        struct dict_object *obj = NULL;
        int ret = fd_dict_search(rx->dict, DICT_AVP, AVP_BY_CODE_AND_VENDOR, &req, &obj, ENOENT);
        if (ret != 0 || obj == NULL)
            return bsf_err_format(err, errlen, ret ? ret : ENOENT,
                                  "AVP %s (code %u, vendor %u) not in the dictionary: load %s",
                                  a->name, a->code, a->vendor, a->source);
        RX_FIELD(rx, a->off) = obj;
    }
    return 0;
}

/* ---- commands and application ---------------------------------------------------------- */

typedef struct {
    size_t off;
    command_code_t code;
    int request;
    const char *name;
} rx_cmd_ref_t;

#define CMD(field, code, req, name) {offsetof(bsf_rx_dict_t, field), code, req, name}

static const rx_cmd_ref_t rx_cmds[] = {
    CMD(cmd_aar, BSF_RX_CMD_AA, 1, "AA-Request"),
    CMD(cmd_aaa, BSF_RX_CMD_AA, 0, "AA-Answer"),
    CMD(cmd_rar, BSF_RX_CMD_RA, 1, "Re-Auth-Request"),
    CMD(cmd_raa, BSF_RX_CMD_RA, 0, "Re-Auth-Answer"),
    CMD(cmd_str, BSF_RX_CMD_ST, 1, "Session-Termination-Request"),
    CMD(cmd_sta, BSF_RX_CMD_ST, 0, "Session-Termination-Answer"),
    CMD(cmd_asr, BSF_RX_CMD_AS, 1, "Abort-Session-Request"),
    CMD(cmd_asa, BSF_RX_CMD_AS, 0, "Abort-Session-Answer"),
};

static int rx_dict_resolve_cmds(bsf_rx_dict_t *rx, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof rx_cmds / sizeof rx_cmds[0]; i++) {
        const rx_cmd_ref_t *c = &rx_cmds[i];
        struct dict_object *obj = NULL;
        command_code_t code = c->code;
        int ret = fd_dict_search(rx->dict, DICT_COMMAND, c->request ? CMD_BY_CODE_R : CMD_BY_CODE_A,
                                 &code, &obj, ENOENT);
        if (ret != 0 || obj == NULL)
            return bsf_err_format(err, errlen, ret ? ret : ENOENT,
                                  "command %s (%u) not in the dictionary: load dict_nasreq.fdx",
                                  c->name, c->code);
        RX_FIELD(rx, c->off) = obj;
    }
    return 0;
}

/* Finds vendor 10415 and finds or creates application 16777236 under it. */
static int rx_dict_define_app(bsf_rx_dict_t *rx, char *err, size_t errlen)
{
    vendor_id_t vid = BSF_RX_VENDOR_3GPP;
    application_id_t aid = BSF_RX_APP_ID;
    int ret = fd_dict_search(rx->dict, DICT_VENDOR, VENDOR_BY_ID, &vid, &rx->vendor_3gpp, ENOENT);
    if (ret != 0 || rx->vendor_3gpp == NULL)
        return bsf_err_format(err, errlen, ret ? ret : ENOENT,
                              "vendor 10415 (3GPP) not in the dictionary: load dict_dcca_3gpp.fdx");
    ret = fd_dict_search(rx->dict, DICT_APPLICATION, APPLICATION_BY_ID, &aid, &rx->app, ENOENT);
    if (ret == 0 && rx->app != NULL)
        return 0; /* already defined, e.g. by a previous bsf_rx_dict_init() */
    struct dict_application_data data = {.application_id = BSF_RX_APP_ID,
                                         .application_name = "3GPP Rx"};
    ret = fd_dict_new(rx->dict, DICT_APPLICATION, &data, rx->vendor_3gpp, &rx->app);
    if (ret != 0)
        return bsf_err_format(err, errlen, ret, "cannot define application 16777236 (3GPP Rx): %s",
                              strerror(ret));
    return 0;
}

/* ---- command rules --------------------------------------------------------------------- */

#define RX_RULE_REMOVE 0 /* pseudo position: delete the rule */

typedef struct {
    size_t cmd_off;
    size_t avp_off;
    int position; /* enum rule_position, or RX_RULE_REMOVE */
    int min;
    int max; /* -1: unbounded */
} rx_rule_edit_t;

#define RULE(cmd, avp, pos, min, max)                                                           \
    {offsetof(bsf_rx_dict_t, cmd), offsetof(bsf_rx_dict_t, avp), pos, min, max}
#define OPT1(cmd, avp) RULE(cmd, avp, RULE_OPTIONAL, 0, 1)
#define OPTN(cmd, avp) RULE(cmd, avp, RULE_OPTIONAL, 0, -1)
#define DROP(cmd, avp) RULE(cmd, avp, RX_RULE_REMOVE, 0, 0)

/* TS 29.214 clause 5.6: what differs from the NASREQ / base rules, plus Rx occurrence
 * limits. */
static const rx_rule_edit_t rx_rules[] = {
    /* AA-Request */
    DROP(cmd_aar, auth_request_type),
    OPT1(cmd_aar, destination_host),
    OPT1(cmd_aar, ip_domain_id),
    OPT1(cmd_aar, auth_session_state),
    OPT1(cmd_aar, af_application_identifier),
    OPTN(cmd_aar, media_component_description),
    OPT1(cmd_aar, service_info_status),
    OPT1(cmd_aar, af_charging_identifier),
    OPT1(cmd_aar, sip_forking_indication),
    OPTN(cmd_aar, specific_action),
    OPTN(cmd_aar, subscription_id),
    OPTN(cmd_aar, supported_features),
    OPT1(cmd_aar, framed_ip_address),
    OPT1(cmd_aar, framed_ipv6_prefix),
    OPT1(cmd_aar, called_station_id),
    OPT1(cmd_aar, service_urn),
    OPT1(cmd_aar, sponsored_connectivity_data),
    OPT1(cmd_aar, rx_request_type),
    OPTN(cmd_aar, required_access_info),
    /* AA-Answer */
    DROP(cmd_aaa, auth_request_type),
    OPT1(cmd_aaa, result_code),
    OPT1(cmd_aaa, experimental_result),
    OPT1(cmd_aaa, auth_session_state),
    OPTN(cmd_aaa, access_network_charging_identifier),
    OPT1(cmd_aaa, acceptable_service_info),
    OPT1(cmd_aaa, ip_can_type),
    OPT1(cmd_aaa, rat_type),
    OPTN(cmd_aaa, flows),
    OPTN(cmd_aaa, supported_features),
    OPTN(cmd_aaa, subscription_id),
    OPTN(cmd_aaa, class_avp),
    OPT1(cmd_aaa, error_message),
    OPT1(cmd_aaa, failed_avp),
    /* Session-Termination-Request / Answer */
    OPT1(cmd_str, destination_host),
    OPTN(cmd_str, required_access_info),
    OPTN(cmd_str, class_avp),
    OPT1(cmd_sta, result_code),
    OPT1(cmd_sta, experimental_result),
    OPT1(cmd_sta, error_message),
    OPT1(cmd_sta, failed_avp),
    /* Re-Auth-Request / Answer */
    OPT1(cmd_rar, re_auth_request_type),
    OPTN(cmd_rar, access_network_charging_identifier),
    OPTN(cmd_rar, flows),
    OPTN(cmd_rar, subscription_id),
    OPT1(cmd_rar, abort_cause),
    OPT1(cmd_rar, ip_can_type),
    OPT1(cmd_rar, rat_type),
    OPT1(cmd_raa, result_code),
    OPT1(cmd_raa, experimental_result),
    /* Abort-Session-Answer */
    OPT1(cmd_asa, result_code),
    OPT1(cmd_asa, experimental_result),
};
/* Applied on top of rx_rules with BSF_RX_DICT_F_STRICT or without it. */
static const rx_rule_edit_t rx_rules_lenient[] = {
    OPTN(cmd_rar, specific_action),
    OPT1(cmd_asr, abort_cause),
};
static const rx_rule_edit_t rx_rules_strict[] = {
    RULE(cmd_rar, specific_action, RULE_REQUIRED, 1, -1),
    RULE(cmd_asr, abort_cause, RULE_REQUIRED, 1, 1),
};

/* freeDiameter's "-1 = default" minimum. */
static int rx_rule_min(int position, int min)
{
    if (min >= 0)
        return min;
    return position == RULE_OPTIONAL ? 0 : 1;
}

static const char *rx_obj_name(struct dict_object *obj, char *buf, size_t len)
{
    enum dict_object_type t;
    if (fd_dict_gettype(obj, &t) == 0) {
        if (t == DICT_AVP) {
            struct dict_avp_data d;
            if (fd_dict_getval(obj, &d) == 0)
                return d.avp_name;
        } else if (t == DICT_COMMAND) {
            struct dict_cmd_data d;
            if (fd_dict_getval(obj, &d) == 0)
                return d.cmd_name;
        }
    }
    snprintf(buf, len, "%p", (void *)obj);
    return buf;
}

/* Makes the rule of `avp` in `parent` equal to the edit (or absent for RX_RULE_REMOVE). */
static int rx_dict_rule_apply(bsf_rx_dict_t *rx, const rx_rule_edit_t *e, char *err,
                              size_t errlen)
{
    struct dict_object *parent = RX_FIELD(rx, e->cmd_off);
    struct dict_object *avp = RX_FIELD(rx, e->avp_off);
    struct dict_rule_request req = {.rule_parent = parent, .rule_avp = avp};
    struct dict_object *rule = NULL;
    char b1[32], b2[32];
    int ret = fd_dict_search(rx->dict, DICT_RULE, RULE_BY_AVP_AND_PARENT, &req, &rule, ENOENT);
    if (ret != 0 && ret != ENOENT)
        return bsf_err_format(err, errlen, ret, "rule lookup failed: %s", strerror(ret));
    if (rule != NULL) {
        struct dict_rule_data cur;
        ret = fd_dict_getval(rule, &cur);
        if (ret != 0)
            return bsf_err_format(err, errlen, ret, "cannot read rule: %s", strerror(ret));
        if (e->position != RX_RULE_REMOVE && (int)cur.rule_position == e->position &&
            rx_rule_min((int)cur.rule_position, cur.rule_min) == e->min && cur.rule_max == e->max)
            return 0; /* already as wanted */
        if (cur.rule_position == RULE_FIXED_HEAD || cur.rule_position == RULE_FIXED_TAIL)
            return bsf_err_format(err, errlen, EEXIST, "refusing to change fixed rule of %s in %s",
                                  rx_obj_name(avp, b1, sizeof b1),
                                  rx_obj_name(parent, b2, sizeof b2));
        ret = fd_dict_delete(rule);
        if (ret != 0)
            return bsf_err_format(err, errlen, ret, "cannot delete rule of %s in %s: %s",
                                  rx_obj_name(avp, b1, sizeof b1),
                                  rx_obj_name(parent, b2, sizeof b2), strerror(ret));
    }
    if (e->position == RX_RULE_REMOVE)
        return 0;
    struct dict_rule_data data = {.rule_avp = avp,
                                  .rule_position = (enum rule_position)e->position,
                                  .rule_order = 0,
                                  .rule_min = e->min,
                                  .rule_max = e->max};
    ret = fd_dict_new(rx->dict, DICT_RULE, &data, parent, NULL);
    if (ret != 0)
        return bsf_err_format(err, errlen, ret, "cannot add rule of %s in %s: %s",
                              rx_obj_name(avp, b1, sizeof b1), rx_obj_name(parent, b2, sizeof b2),
                              strerror(ret));
    return 0;
}

static int rx_dict_rules_apply(bsf_rx_dict_t *rx, const rx_rule_edit_t *rules, size_t n,
                               char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        int ret = rx_dict_rule_apply(rx, &rules[i], err, errlen);
        if (ret != 0)
            return ret;
    }
    return 0;
}

/* ---- public API ------------------------------------------------------------------------ */

int bsf_rx_dict_init(bsf_rx_dict_t *rx, struct dictionary *dict, unsigned flags, char *err,
                     size_t errlen)
{
    int ret;
    if (err && errlen)
        err[0] = '\0';
    if (rx == NULL || dict == NULL)
        return bsf_err_format(err, errlen, EINVAL, "bsf_rx_dict_init: NULL argument");
    memset(rx, 0, sizeof *rx);
    rx->dict = dict;
    if ((ret = rx_dict_define_app(rx, err, errlen)) != 0)
        return ret;
    if ((ret = rx_dict_resolve_cmds(rx, err, errlen)) != 0)
        return ret;
    if ((ret = rx_dict_resolve_avps(rx, err, errlen)) != 0)
        return ret;
    if (flags & BSF_RX_DICT_F_KEEP_NASREQ_RULES)
        return 0;
    ret = rx_dict_rules_apply(rx, rx_rules, sizeof rx_rules / sizeof rx_rules[0], err, errlen);
    if (ret != 0)
        return ret;
    if (flags & BSF_RX_DICT_F_STRICT)
        return rx_dict_rules_apply(rx, rx_rules_strict,
                                   sizeof rx_rules_strict / sizeof rx_rules_strict[0], err,
                                   errlen);
    return rx_dict_rules_apply(rx, rx_rules_lenient,
                               sizeof rx_rules_lenient / sizeof rx_rules_lenient[0], err, errlen);
}

int bsf_rx_dict_advertise(const bsf_rx_dict_t *rx, char *err, size_t errlen)
{
    if (rx == NULL || rx->app == NULL)
        return bsf_err_format(err, errlen, EINVAL,
                              "bsf_rx_dict_advertise: dictionary not initialised");
    int ret = fd_disp_app_support(rx->app, rx->vendor_3gpp, 1, 0);
    if (ret != 0)
        return bsf_err_format(err, errlen, ret, "fd_disp_app_support(Rx) failed: %s",
                              strerror(ret));
    return 0;
}

/* Defines (or finds, when the dictionary has it with the same base type) the AVP `code` of
 * `vendor` (0: none; a missing vendor is created), flags V when vendor != 0 and M clear, so
 * that a peer which does not know it ignores it. */
static int define_avp(bsf_rx_dict_t *rx, uint32_t code, uint32_t vendor, const char *name,
                      enum dict_avp_basetype type, struct dict_object **out, char *err,
                      size_t errlen)
{
    if (rx == NULL || rx->dict == NULL)
        return bsf_err_format(err, errlen, EINVAL, "%s AVP: no dictionary", name);
    int ret = 0;
    if (vendor) {
        struct dict_object *vobj = NULL;
        vendor_id_t vid = vendor;
        ret = fd_dict_search(rx->dict, DICT_VENDOR, VENDOR_BY_ID, &vid, &vobj, ENOENT);
        if (ret == ENOENT || (ret == 0 && vobj == NULL)) {
            struct dict_vendor_data vd = {.vendor_id = vendor, .vendor_name = (char *)name};
            ret = fd_dict_new(rx->dict, DICT_VENDOR, &vd, NULL, &vobj);
        }
        if (ret != 0)
            return bsf_err_format(err, errlen, ret, "cannot define vendor %u: %s", vendor,
                                  strerror(ret));
    }
    struct dict_avp_request req = {.avp_vendor = vendor, .avp_code = code};
    struct dict_object *obj = NULL;
    ret = fd_dict_search(rx->dict, DICT_AVP, AVP_BY_CODE_AND_VENDOR, &req, &obj, ENOENT);
    if (ret == 0 && obj != NULL) {
        struct dict_avp_data d;
        if (fd_dict_getval(obj, &d) != 0 || d.avp_basetype != type)
            return bsf_err_format(err, errlen, EEXIST,
                                  "AVP %u (vendor %u) exists with another type than %s's", code,
                                  vendor, name);
        *out = obj;
        return 0;
    }
    struct dict_avp_data data = {.avp_code = code,
                                 .avp_vendor = vendor,
                                 .avp_name = (char *)name,
                                 .avp_flag_mask = AVP_FLAG_VENDOR | AVP_FLAG_MANDATORY,
                                 .avp_flag_val = vendor ? AVP_FLAG_VENDOR : 0,
                                 .avp_basetype = type};
    ret = fd_dict_new(rx->dict, DICT_AVP, &data, NULL, out);
    if (ret != 0)
        return bsf_err_format(err, errlen, ret, "cannot define %s (%u/%u): %s", name, code,
                              vendor, strerror(ret));
    return 0;
}

int bsf_rx_dict_define_cookie(bsf_rx_dict_t *rx, uint32_t code, uint32_t vendor, char *err,
                              size_t errlen)
{
    if (vendor == 0)
        return bsf_err_format(err, errlen, EINVAL, "cookie AVP: vendor missing");
    return define_avp(rx, code, vendor, "OCNF-SERVICE-COOKIE", AVP_TYPE_OCTETSTRING,
                      &rx->cookie, err, errlen);
}

int bsf_rx_dict_define_drmp(bsf_rx_dict_t *rx, char *err, size_t errlen)
{
    return define_avp(rx, 301, 0, "DRMP", AVP_TYPE_INTEGER32, &rx->drmp, err, errlen);
}

int bsf_rx_dict_define_oc_priority(bsf_rx_dict_t *rx, uint32_t code, uint32_t vendor, char *err,
                                   size_t errlen)
{
    return define_avp(rx, code, vendor, "OC-Message-Priority", AVP_TYPE_UNSIGNED32,
                      &rx->oc_priority, err, errlen);
}

int bsf_rx_dict_new_request(const bsf_rx_dict_t *rx, struct dict_object *cmd, struct msg **out)
{
    struct msg *m = NULL;
    struct msg_hdr *hdr = NULL;
    if (rx == NULL || cmd == NULL || out == NULL)
        return EINVAL;
    int ret = fd_msg_new(cmd, MSGFL_ALLOC_ETEID, &m);
    if (ret != 0)
        return ret;
    if ((ret = fd_msg_hdr(m, &hdr)) != 0) {
        fd_msg_free(m);
        return ret;
    }
    hdr->msg_appl = BSF_RX_APP_ID;
    hdr->msg_flags |= CMD_FLAG_PROXIABLE; /* every Rx command is proxiable */
    *out = m;
    return 0;
}

const char *bsf_rx_dict_cmd_name(uint32_t code, int is_request)
{
    switch (code) {
    case BSF_RX_CMD_AA:
        return is_request ? "AAR" : "AAA";
    case BSF_RX_CMD_RA:
        return is_request ? "RAR" : "RAA";
    case BSF_RX_CMD_ST:
        return is_request ? "STR" : "STA";
    case BSF_RX_CMD_AS:
        return is_request ? "ASR" : "ASA";
    case 257:
        return is_request ? "CER" : "CEA";
    case 280:
        return is_request ? "DWR" : "DWA";
    case 282:
        return is_request ? "DPR" : "DPA";
    default:
        return is_request ? "REQ" : "ANS";
    }
}
