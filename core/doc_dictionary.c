#include "core/doc_dictionary.h"

#include <string.h>

#include "core/pcf_binding.h"

int bsf_doc_dictionary_pack(msgpack_sbuffer *out)
{
    static const char *const names[] = {
        "ipv6Prefix", "addIpv6Prefixes", "ipDomain", "macAddr48", "addMacAddrs", "pcfSmFqdn",
        "pcfSmIpEndPoints", "suppFeat", "pcfSetId", "recoveryTime", "paraCom", "bindLevel",
        "NF_INSTANCE", "NF_SET", "ipv4FrameRouteList", "ipv6FrameRouteList", "ipv6Address",
        "transport", "TCP", "ims", "2001:db8::/64",
        /* event envelopes (docs/events.md) */
        "BindingDeregistered", "BindingUpdated", "pcf_request", "replaced_by_collision",
        "reregistered", "replacedBy", "reason", "cookie", "createdHlc", "originTs",
        "senderTs", "bindingId", "binding", "hlc", "seq", "site", "type", "BindingRegistered"};
    msgpack_packer pk;
    msgpack_packer_init(&pk, out, msgpack_sbuffer_write);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (msgpack_pack_str(&pk, strlen(names[i])) ||
            msgpack_pack_str_body(&pk, names[i], strlen(names[i])))
            return -1;
    bsf_ip_end_point_t ep = {.has_ipv4 = true, .ipv4 = {{192, 0, 2, 1}}, .has_port = true,
                             .port = 8080};
    bsf_pcf_binding_t b = {
        .supi = "imsi-001010000000000",
        .gpsi = "msisdn-490000000000",
        .has_ipv4 = true,
        .ipv4 = {{10, 0, 0, 1}},
        .dnn = "internet",
        .has_snssai = true,
        .snssai = {1, true, 1},
        .pcf_fqdn = "pcf1.example.com",
        .pcf_ip_end_points = {1, &ep},
        .pcf_diam_host = "pcf1.diam.example.com",
        .pcf_diam_realm = "example.com",
        .pcf_id = "00000000-0000-4000-8000-000000000000",
    };
    return bsf_pcf_binding_encode(&b, &pk);
}
