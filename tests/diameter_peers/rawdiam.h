/* Diameter messages on the wire without freeDiameter (RFC 6733 §3, §4): the header, a walk
 * over the top-level AVPs, and building messages into a growable buffer. Used by pcf_fast,
 * which answers at a fraction of a freeDiameter peer's cost. No dictionary: the caller
 * knows the codes. */
#ifndef RAWDIAM_H
#define RAWDIAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RD_HEADER_LEN 20u
#define RD_MAX_MESSAGE (1u << 20) /* longer messages are refused as corrupt */

#define RD_FLAG_REQUEST 0x80u
#define RD_FLAG_PROXIABLE 0x40u
#define RD_FLAG_ERROR 0x20u

#define RD_AVP_VENDOR 0x80u
#define RD_AVP_MANDATORY 0x40u

#define RD_RX_APP 16777236u
#define RD_VENDOR_3GPP 10415u

/* Command codes */
#define RD_CC_CER 257u
#define RD_CC_DWR 280u
#define RD_CC_DPR 282u
#define RD_CC_AAR 265u
#define RD_CC_STR 275u

/* Base protocol AVP codes (RFC 6733) */
#define RD_AVP_SESSION_ID 263u
#define RD_AVP_ORIGIN_HOST 264u
#define RD_AVP_ORIGIN_REALM 296u
#define RD_AVP_DEST_REALM 283u
#define RD_AVP_RESULT_CODE 268u
#define RD_AVP_EXPERIMENTAL_RESULT 297u
#define RD_AVP_EXPERIMENTAL_RESULT_CODE 298u
#define RD_AVP_AUTH_APP_ID 258u
#define RD_AVP_HOST_IP 257u
#define RD_AVP_VENDOR_ID 266u
#define RD_AVP_PRODUCT_NAME 269u
#define RD_AVP_SUPPORTED_VENDOR 265u
#define RD_AVP_VSAI 260u
#define RD_AVP_INBAND_SECURITY 299u
#define RD_AVP_TERMINATION_CAUSE 295u
#define RD_AVP_DISCONNECT_CAUSE 273u

typedef struct {
    uint8_t flags;
    uint32_t length, code, app, hbh, e2e;
} rd_header_t;

/* Reads the header of the message starting at p (at least RD_HEADER_LEN bytes). Returns
 * false when it is not a Diameter message (version, length). */
bool rd_header(const uint8_t *p, rd_header_t *h);

/* The first top-level AVP (code, vendor; vendor 0 = none) of the message msg[0..len):
 * true with its data, false when absent or when the message does not parse. */
bool rd_find(const uint8_t *msg, size_t len, uint32_t code, uint32_t vendor, const uint8_t **data,
             size_t *data_len);
/* The same inside a grouped AVP's data[0..len). */
bool rd_find_in(const uint8_t *avps, size_t len, uint32_t code, uint32_t vendor,
                const uint8_t **data, size_t *data_len);
/* The message's Result-Code, else its Experimental-Result-Code, else 0. */
uint32_t rd_result_code(const uint8_t *msg, size_t len);

/* A growable output buffer; `failed` once an allocation failed (the content is then
 * incomplete and must not be sent). */
typedef struct {
    uint8_t *data;
    size_t len, cap;
    bool failed;
} rd_buf_t;

void rd_buf_free(rd_buf_t *b);
/* Drops the first n bytes (already written out). */
void rd_buf_consume(rd_buf_t *b, size_t n);

/* Starts a message; returns its offset, to give to rd_end. */
size_t rd_begin(rd_buf_t *b, uint8_t flags, uint32_t code, uint32_t app, uint32_t hbh,
                uint32_t e2e);
/* Writes the message length. */
void rd_end(rd_buf_t *b, size_t start);

void rd_avp(rd_buf_t *b, uint32_t code, uint8_t flags, uint32_t vendor, const void *data,
            size_t len);
void rd_avp_u32(rd_buf_t *b, uint32_t code, uint8_t flags, uint32_t vendor, uint32_t value);
void rd_avp_str(rd_buf_t *b, uint32_t code, uint8_t flags, const char *s);
/* Origin-Host and Origin-Realm. */
void rd_origin(rd_buf_t *b, const char *host, const char *realm);
/* The answer to a base-protocol request h (DWA, DPA): Result-Code 2001 and the origin. */
void rd_answer_base(rd_buf_t *b, const rd_header_t *h, const char *host, const char *realm);
/* Starts a CER or CEA (h: the CER being answered, or NULL for a CER with ids 1/1) advertising
 * Rx, from the IPv4 address `ip` (network order); more AVPs may follow; returns the offset to
 * give to rd_end. */
size_t rd_capabilities(rd_buf_t *b, const rd_header_t *h, const char *host, const char *realm,
                       const void *ip, const char *product);

/* Writes what it can of b on the non-blocking socket fd and drops it from b. Returns 0, or -1
 * when the connection failed or b's content is incomplete (an allocation failed). */
int rd_write(int fd, rd_buf_t *b);
/* A grouped AVP: its children follow rd_group_begin, rd_group_end writes its length. */
size_t rd_group_begin(rd_buf_t *b, uint32_t code, uint8_t flags, uint32_t vendor);
void rd_group_end(rd_buf_t *b, size_t start);

/* Reads once from fd onto the end of the input in[0..*len) (capacity *cap), first doubling
 * the buffer (from `first` bytes) when less than `room` is free; adds what it read to *len.
 * Returns read()'s result: -1 with errno set, ENOMEM when the buffer could not grow (*in is
 * then unchanged and still the caller's). */
ssize_t rd_read(int fd, uint8_t **in, size_t *len, size_t *cap, size_t room, size_t first);

#endif
