/* Vendor-Id and Product-Name of our CER/CEA (rx_capabilities.h). */
#include "gateways/diameter/rx_capabilities.h"

#include <string.h>

#include "gateways/diameter/rx_settings.h"

#define CMD_CAPABILITIES_EXCHANGE 257
#define AVP_VENDOR_ID 266
#define AVP_PRODUCT_NAME 269

int bsf_rx_capabilities_rewrite(struct msg *msg, uint32_t vendor_id)
{
    struct msg_hdr *mh = NULL;
    if (!msg || fd_msg_hdr(msg, &mh) != 0 || mh->msg_code != CMD_CAPABILITIES_EXCHANGE ||
        mh->msg_appl != 0)
        return 0;
    struct avp *a = NULL;
    int rc = fd_msg_browse(msg, MSG_BRW_FIRST_CHILD, &a, NULL);
    while (rc == 0 && a) {
        struct avp_hdr *h = NULL;
        if ((rc = fd_msg_avp_hdr(a, &h)) != 0)
            break;
        /* libfdcore made these AVPs itself: their values are set (never a raw buffer). */
        if (!(h->avp_flags & AVP_FLAG_VENDOR) && h->avp_value) {
            union avp_value v;
            memset(&v, 0, sizeof v);
            if (h->avp_code == AVP_VENDOR_ID) {
                v.u32 = vendor_id;
                rc = fd_msg_avp_setvalue(a, &v);
            } else if (h->avp_code == AVP_PRODUCT_NAME) {
                v.os.data = (uint8_t *)BSF_RX_PRODUCT_NAME;
                v.os.len = strlen(BSF_RX_PRODUCT_NAME);
                rc = fd_msg_avp_setvalue(a, &v); /* copies the bytes */
            }
            if (rc)
                break;
        }
        rc = fd_msg_browse(a, MSG_BRW_NEXT, &a, NULL);
    }
    return rc;
}
