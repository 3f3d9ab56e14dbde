/* The member writers of the document encoders. */
#include "core/member_pack.h"

#include <stdio.h>
#include <string.h>

int bsf_pack_cstr(msgpack_packer *pk, const char *s)
{
    size_t n = strlen(s);
    return msgpack_pack_str(pk, n) || msgpack_pack_str_body(pk, s, n);
}

int bsf_pack_opt(msgpack_packer *pk, const char *key, const char *value)
{
    return value && (bsf_pack_cstr(pk, key) || bsf_pack_cstr(pk, value));
}

static int pack_end_point(msgpack_packer *pk, const bsf_ip_end_point_t *e)
{
    size_t members = (e->has_ipv4 || e->has_ipv6) + (e->transport != NULL) + e->has_port;
    char t[BSF_IPV6_TEXT_MAX];
    if (msgpack_pack_map(pk, members))
        return -1;
    if (e->has_ipv4) {
        bsf_ipv4_format(&e->ipv4, t);
        if (bsf_pack_cstr(pk, "ipv4Address") || bsf_pack_cstr(pk, t))
            return -1;
    } else if (e->has_ipv6) {
        bsf_ipv6_addr_format(e->ipv6, t);
        if (bsf_pack_cstr(pk, "ipv6Address") || bsf_pack_cstr(pk, t))
            return -1;
    }
    if (bsf_pack_opt(pk, "transport", e->transport))
        return -1;
    return e->has_port && (bsf_pack_cstr(pk, "port") || msgpack_pack_uint16(pk, e->port));
}

int bsf_pack_end_points(msgpack_packer *pk, const bsf_ip_end_points_t *eps)
{
    if (msgpack_pack_array(pk, eps->n))
        return -1;
    for (size_t i = 0; i < eps->n; i++)
        if (pack_end_point(pk, &eps->items[i]))
            return -1;
    return 0;
}

int bsf_pack_snssai(msgpack_packer *pk, const bsf_snssai_t *s)
{
    if (msgpack_pack_map(pk, 1 + s->has_sd) || bsf_pack_cstr(pk, "sst") ||
        msgpack_pack_uint8(pk, s->sst))
        return -1;
    if (!s->has_sd)
        return 0;
    char sd[8];
    snprintf(sd, sizeof sd, "%06X", (unsigned)s->sd & 0xffffffu);
    return bsf_pack_cstr(pk, "sd") || bsf_pack_cstr(pk, sd);
}

int bsf_pack_array_opt(msgpack_packer *pk, const char *key, const void *items, size_t n,
                       size_t size, bsf_pack_item_fn pack)
{
    if (!n)
        return 0;
    if (bsf_pack_cstr(pk, key) || msgpack_pack_array(pk, n))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (pack(pk, (const char *)items + i * size))
            return -1;
    return 0;
}
