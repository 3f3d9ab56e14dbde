/* Our identity in the capabilities exchange. libfdcore 1.2.1 writes Vendor-Id 0 and
 * Product-Name "freeDiameter" into every CER/CEA it sends (compile-time constants of the
 * library, no setting); the gateway rewrites both in the CER/CEA as it is being sent. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_CAPABILITIES_H
#define BSF_GATEWAYS_DIAMETER_RX_CAPABILITIES_H

#include <stdint.h>

#include "gateways/diameter/rx_dict.h"

/* When `msg` is a CER or CEA: its top-level Vendor-Id becomes `vendor_id` and its
 * Product-Name BSF_RX_PRODUCT_NAME. Any other message is left alone (one header read). Returns
 * 0 (done or nothing to do) or an error of libfdproto (the message is then unchanged or has
 * only its Vendor-Id changed). Called from libfdcore's HOOK_MESSAGE_SENDING, on the thread
 * that sends the message (a peer's state machine or sender thread). */
int bsf_rx_capabilities_rewrite(struct msg *msg, uint32_t vendor_id);

#endif
