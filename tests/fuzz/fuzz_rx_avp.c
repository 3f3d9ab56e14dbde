/* libFuzzer target: the Rx gateway's AVP walk over a message from the wire. The bytes become a
 * message with libfdproto (fd_msg_parse_buffer, then, as on the dispatch path, fd_msg_parse_dict
 * with the gateway's dictionary when the first byte is odd; the relay path leaves it unparsed
 * and the gateway parses the AVPs it touches), then go through the gateway's own reading: one
 * walk for the request AVPs (rx_avp.c), Session-Id and identities as text, the UE address
 * query (rx_ue_addr.c), the priority AVPs, the answer outcome, the Route-Record strip, and a
 * local answer built from it (Failed-AVP carrying a fuzzed AVP value) encoded again. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/diag.h"
#include "gateways/diameter/rx_avp.h"
#include "gateways/diameter/rx_node.h"
#include "gateways/diameter/rx_ue_addr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { W_SID, W_APP, W_DREALM, W_DHOST, W_OHOST, W_OREALM, W_RRT, W_IP4, W_IP6, W_DOM, W_DNN, W_N };

static bsf_rx_dict_t rx;
static bsf_rx_avp_want_t wants[W_N];

static void init_once(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    bsf_log_set_level(BSF_LOG_ERROR); /* libfdcore reports every bad message */
    static bsf_diameter_settings_t s; /* large: not on the stack */
    memset(&s, 0, sizeof s);
    snprintf(s.identity, sizeof s.identity, "fuzz.localdomain");
    snprintf(s.realm, sizeof s.realm, "localdomain");
    snprintf(s.listen, sizeof s.listen, "127.0.0.1");
    snprintf(s.extensions_dir, sizeof s.extensions_dir, "/usr/lib/freeDiameter");
    s.threads = 1;
    s.reconnect_s = 30;
    s.watchdog_s = 30;
    s.cookie_avp_code = 3001;
    s.cookie_avp_vendor = 21274;
    s.oc_priority_code = 3002;
    s.oc_priority_vendor = 21274;
    char err[512];
    if (bsf_rx_node_init(&s, &rx, err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_rx_avp: %s\n", err);
        abort();
    }
    struct dict_object *models[W_N] = {
        rx.session_id,        rx.auth_application_id, rx.destination_realm,
        rx.destination_host,  rx.origin_host,         rx.origin_realm,
        rx.rx_request_type,   rx.framed_ip_address,   rx.framed_ipv6_prefix,
        rx.ip_domain_id,      rx.called_station_id};
    for (size_t i = 0; i < W_N; i++)
        bsf_rx_avp_want(models[i], &wants[i]);
}

/* A text AVP copied out must be NUL-terminated within its buffer. */
static void text(struct avp *a, int rc, char *buf, size_t cap)
{
    if (rc == 0 && bsf_rx_avp_copy_text(a, buf, cap) == 0 && memchr(buf, '\0', cap) == NULL)
        abort();
}

/* The request side: what rx_proxy_request.c and rx_proxy_route.c read. */
static void read_request(struct msg *m)
{
    struct avp *found[W_N];
    int rc[W_N];
    bsf_rx_avp_collect(m, wants, W_N, found, rc);
    for (size_t i = 0; i < W_N; i++)
        if ((rc[i] == 0) != (found[i] != NULL))
            abort(); /* found exactly when 0 */
    static char sid[1024], ident[4][256], dom[256], dnn[256];
    text(found[W_SID], rc[W_SID], sid, sizeof sid);
    for (int i = 0; i < 4; i++)
        text(found[W_DREALM + i], rc[W_DREALM + i], ident[i], sizeof ident[i]);
    if (rc[W_APP] == 0)
        (void)bsf_rx_avp_u32(found[W_APP]);
    if (rc[W_RRT] == 0)
        (void)bsf_rx_avp_i32(found[W_RRT]);
    bsf_rx_ue_avps_t ue = {0};
    dom[0] = dnn[0] = '\0';
    text(found[W_DOM], rc[W_DOM], dom, sizeof dom);
    text(found[W_DNN], rc[W_DNN], dnn, sizeof dnn);
    if (rc[W_IP4] == 0)
        bsf_rx_avp_os(found[W_IP4], &ue.ipv4, &ue.ipv4_len);
    if (rc[W_IP6] == 0)
        bsf_rx_avp_os(found[W_IP6], &ue.ipv6, &ue.ipv6_len);
    ue.ip_domain = memchr(dom, '\0', sizeof dom) ? dom : "";
    ue.dnn = memchr(dnn, '\0', sizeof dnn) ? dnn : "";
    bsf_discovery_query_t q;
    int bad6 = 0;
    (void)bsf_rx_ue_query_build(&ue, &q, &bad6);
    struct avp *a = NULL;
    if (bsf_rx_avp_find(m, rx.drmp, &a) == 0)
        (void)bsf_rx_avp_i32(a);
    if (bsf_rx_avp_find(m, rx.oc_priority, &a) == 0)
        (void)bsf_rx_avp_u32(a);
}

/* A local answer to the request, with Failed-AVP carrying the fuzzed Framed-IP-Address value
 * (or, missing, zero-filled), encoded again. */
static void answer(struct msg **pm)
{
    struct avp *a = NULL;
    bsf_rx_result_t res = {.code = 5014, .message = "fuzz", .failed_model = rx.framed_ip_address,
                           .failed_len = 4};
    if (bsf_rx_avp_find(*pm, rx.framed_ip_address, &a) == 0) {
        const uint8_t *d = NULL;
        bsf_rx_avp_os(a, &d, &res.failed_len);
        res.failed_data = d;
    }
    if (bsf_rx_avp_make_answer(&rx, pm, &res) == 0) {
        uint8_t *buf = NULL;
        size_t len = 0;
        if (fd_msg_bufferize(*pm, &buf, &len) == 0)
            free(buf);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    init_once();
    if (size < 2)
        return 0;
    int dispatch = data[0] & 1;
    data++;
    size--;
    uint8_t *buf = malloc(size); /* libfdproto takes the buffer */
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    struct msg *m = NULL;
    if (fd_msg_parse_buffer(&buf, size, &m) != 0) {
        free(buf);
        return 0;
    }
    if (dispatch) {
        struct fd_pei pei;
        memset(&pei, 0, sizeof pei);
        if (fd_msg_parse_dict(m, fd_g_config->cnf_dict, &pei) != 0) {
            if (pei.pei_avp_free && pei.pei_avp)
                fd_msg_free(pei.pei_avp);
            fd_msg_free(m);
            return 0; /* libfdcore answers or drops it itself */
        }
    }
    struct msg_hdr *hdr = NULL;
    if (fd_msg_hdr(m, &hdr) != 0)
        abort();
    if (hdr->msg_flags & CMD_FLAG_REQUEST) {
        read_request(m);
        answer(&m);
    } else {
        bsf_rx_answer_info_t info;
        bsf_rx_avp_answer_info(&rx, m, &info);
        if (!memchr(info.origin, '\0', sizeof info.origin))
            abort();
        bsf_rx_avp_strip_local_route_record(&rx, m, "peer.localdomain");
    }
    if (m)
        fd_msg_free(m);
    return 0;
}
