/* One message copied to the feed: what a gateway hands to bsf_feed_offer.
 *
 * Every pointer is borrowed for the duration of the call only (bsf_feed_offer copies what it
 * keeps); strings are NUL-terminated, NULL when absent. Numbers that are 0 are "absent". */
#ifndef BSF_FEED_FEED_RECORD_H
#define BSF_FEED_FEED_RECORD_H

#include <stddef.h>
#include <stdint.h>

typedef enum { BSF_FEED_SBI, BSF_FEED_DIAMETER } bsf_feed_protocol_t;
typedef enum { BSF_FEED_INGRESS, BSF_FEED_EGRESS } bsf_feed_direction_t;
typedef enum { BSF_FEED_REQUEST, BSF_FEED_RESPONSE } bsf_feed_kind_t;

/* A header (SBI) or an AVP rendered as text (Diameter). */
typedef struct {
    const char *name;
    const char *value;
} bsf_feed_header_t;

typedef struct {
    bsf_feed_protocol_t protocol;
    /* ingress: the peer sent the request to the BSF; egress: the BSF sent it to the peer. */
    bsf_feed_direction_t direction;
    bsf_feed_kind_t kind;
    /* Pairs a request record with its response record: the same value in both, unique in the
     * process (bsf_feed_transaction_id gives one). */
    uint64_t transaction_id;
    const char *local; /* "ip:port" of the BSF's end of the connection */
    const char *peer;  /* "ip:port" of the other end */
    const char *peer_host; /* Diameter: the neighbour's Diameter identity */
    /* Wall-clock milliseconds of the transaction as known when the record is made:
     * received = the BSF got the request (ingress) or the response (egress),
     * sent = the BSF sent the response (ingress) or the request (egress). */
    uint64_t received_ms;
    uint64_t sent_ms;
    const char *correlation_info; /* 3gpp-Sbi-Correlation-Info header (SBI) */
    const char *session_id;       /* Session-Id AVP (Diameter) */
    const char *binding_id;       /* the PCF binding the message is about, when known */

    /* SBI */
    const char *method;
    const char *path; /* path and query as sent */
    int status;       /* response status; 0 in a request */

    /* Diameter */
    uint32_t command_code;
    uint32_t command_flags; /* the header's flag byte (R, P, E, T) */
    uint32_t application_id;
    uint32_t hop_by_hop;
    uint32_t end_to_end;
    uint32_t result_code; /* Result-Code or Experimental-Result-Code; 0 in a request */

    const bsf_feed_header_t *headers;
    size_t n_headers;
    const void *payload; /* the message body (SBI) or the whole message (Diameter) */
    size_t payload_len;
} bsf_feed_record_t;

#endif
