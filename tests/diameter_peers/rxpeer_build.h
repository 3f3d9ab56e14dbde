/*
 * rxpeer_build.h - helpers to add AVPs to messages or grouped AVPs.
 *
 * All functions return 0 or an errno-style code from libfdproto; on error the partially built
 * AVP is freed, the parent is left as it was before the call.
 */
#ifndef RXPEER_BUILD_H
#define RXPEER_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "gateways/diameter/rx_dict.h"

/* `parent` is a struct msg * or a grouped struct avp *. */
int rxpeer_add_u32(void *parent, struct dict_object *model, uint32_t v);
int rxpeer_add_i32(void *parent, struct dict_object *model, int32_t v);
int rxpeer_add_os(void *parent, struct dict_object *model, const void *data, size_t len);
int rxpeer_add_str(void *parent, struct dict_object *model, const char *s);
/* Create an empty grouped AVP, add it to parent and return it for its children. */
int rxpeer_add_grouped(void *parent, struct dict_object *model, struct avp **out);

/* Session-Id as the first AVP (RFC 6733 requires it first). */
int rxpeer_add_session_id(struct msg *m, const bsf_rx_dict_t *rx, const char *sid);
/* Destination-Host (if host != NULL and non-empty) and Destination-Realm (if realm != NULL). */
int rxpeer_add_destination(struct msg *m, const bsf_rx_dict_t *rx, const char *host, const char *realm);
/* Experimental-Result { Vendor-Id, Experimental-Result-Code }. */
int rxpeer_add_exp_result(struct msg *m, const bsf_rx_dict_t *rx, uint32_t vendor, uint32_t code);

#endif /* RXPEER_BUILD_H */
