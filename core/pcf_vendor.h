/* The vendor-specific attribute of a PcfBinding that names the PCF's audit endpoint (seed
 * §3.34): "vendorSpecific-000111": {"version": 1, "notificationUrl": "<PCF URL>",
 * "createBindingTime": "<date-time>"}. TS 29.500 §6.6.3 vendor-specific members are kept
 * (decoded, stored, echoed) like the binding's own members. No I/O. */
#ifndef BSF_CORE_PCF_VENDOR_H
#define BSF_CORE_PCF_VENDOR_H

#include <msgpack.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/member_parse.h"

#define BSF_PCF_VENDOR_KEY "vendorSpecific-000111"
#define BSF_NOTIFICATION_URL_MAX 1024

typedef struct {
    bool present;
    bool has_version;
    uint32_t version;
    const char *notification_url;    /* absolute http:// or https:// URI, or NULL */
    const char *create_binding_time; /* RFC 3339 date-time, or NULL */
} bsf_pcf_vendor_t;

/* Decodes the attribute's object `o` (at JSON pointer `ptr`) into `out` (strings in
 * c->zone). Unknown members are ignored. Returns 0, or -1 with c->problem set
 * (OPTIONAL_IE_INCORRECT and the member's pointer). */
int bsf_pcf_vendor_decode(bsf_member_ctx_t *c, const msgpack_object *o, const char *ptr,
                          bsf_pcf_vendor_t *out);

/* Writes the attribute's canonical object (version, notificationUrl, createBindingTime, those
 * present). Returns 0 or -1 (packer error). */
int bsf_pcf_vendor_encode(const bsf_pcf_vendor_t *v, msgpack_packer *pk);

/* True when `s` (n bytes) is an absolute http(s) URI with an authority, printable ASCII,
 * at most BSF_NOTIFICATION_URL_MAX bytes. */
bool bsf_pcf_vendor_url_ok(const char *s, size_t n);

#endif
