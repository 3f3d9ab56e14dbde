/* AVP helpers and locally made answers. */
#include "gateways/diameter/rx_avp.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

/* RFC 6733 §7.5: a missing AVP goes into Failed-AVP with a zero-filled value of the minimum
 * length of its type (failed_data NULL, failed_len that length); a present one as received. */
static const void *failed_value(const bsf_rx_result_t *res, const uint8_t *zeros)
{
    return res->failed_data ? res->failed_data : (const void *)zeros;
}

static size_t failed_value_len(const bsf_rx_result_t *res)
{
    if (res->failed_data)
        return res->failed_len;
    return res->failed_len < BSF_RX_FAILED_ZERO_MAX ? res->failed_len : BSF_RX_FAILED_ZERO_MAX;
}

/* Parses one AVP's value (and a grouped AVP's children; parsing again is harmless).
 * freeDiameter leaves relayed messages unparsed. */
static int parse_avp(struct avp *a)
{
    struct avp_hdr *h = NULL;
    if (fd_msg_avp_hdr(a, &h) != 0)
        return EBADMSG;
    if (h->avp_value)
        return 0; /* a parsed value: nothing to do */
    struct fd_pei pei;
    memset(&pei, 0, sizeof pei);
    int rc = fd_msg_parse_dict(a, fd_g_config->cnf_dict, &pei);
    if (pei.pei_avp_free && pei.pei_avp)
        fd_msg_free(pei.pei_avp);
    return rc ? EBADMSG : 0;
}

static int find_in(msg_or_avp *parent, struct dict_object *model, struct avp **out)
{
    struct dict_avp_data d;
    *out = NULL;
    if (!model || fd_dict_getval(model, &d) != 0)
        return ENOENT;
    struct avp *a = NULL;
    if (fd_msg_browse(parent, MSG_BRW_FIRST_CHILD, &a, NULL) != 0)
        return EBADMSG;
    while (a) {
        struct avp_hdr *h = NULL;
        if (fd_msg_avp_hdr(a, &h) != 0)
            return EBADMSG;
        uint32_t vendor = (h->avp_flags & AVP_FLAG_VENDOR) ? h->avp_vendor : 0;
        if (h->avp_code == d.avp_code && vendor == d.avp_vendor) {
            /* A grouped AVP has children, never a value. */
            if (parse_avp(a) != 0 || (d.avp_basetype != AVP_TYPE_GROUPED && !h->avp_value))
                return EBADMSG;
            *out = a;
            return 0;
        }
        if (fd_msg_browse(a, MSG_BRW_NEXT, &a, NULL) != 0)
            return EBADMSG;
    }
    return ENOENT;
}

int bsf_rx_avp_find(struct msg *msg, struct dict_object *model, struct avp **out)
{
    return find_in(msg, model, out);
}

int bsf_rx_avp_want(struct dict_object *model, bsf_rx_avp_want_t *w)
{
    struct dict_avp_data d;
    memset(w, 0, sizeof *w);
    if (!model || fd_dict_getval(model, &d) != 0)
        return ENOENT;
    w->model = model;
    w->code = d.avp_code;
    w->vendor = d.avp_vendor;
    w->grouped = d.avp_basetype == AVP_TYPE_GROUPED;
    return 0;
}

void bsf_rx_avp_collect(struct msg *msg, const bsf_rx_avp_want_t *wants, size_t n,
                        struct avp **found, int *rc)
{
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        found[i] = NULL;
        rc[i] = ENOENT;
        left += wants[i].model != NULL;
    }
    struct avp *a = NULL;
    int brc = fd_msg_browse(msg, MSG_BRW_FIRST_CHILD, &a, NULL);
    while (brc == 0 && a && left) {
        struct avp_hdr *h = NULL;
        if (fd_msg_avp_hdr(a, &h) != 0) {
            brc = EBADMSG;
            break;
        }
        uint32_t vendor = (h->avp_flags & AVP_FLAG_VENDOR) ? h->avp_vendor : 0;
        for (size_t i = 0; i < n; i++) {
            const bsf_rx_avp_want_t *w = &wants[i];
            if (!w->model || rc[i] != ENOENT || w->code != h->avp_code || w->vendor != vendor)
                continue;
            /* The first AVP of its kind decides, as in find_in. */
            left--;
            if (parse_avp(a) != 0 || (!w->grouped && !h->avp_value)) {
                rc[i] = EBADMSG;
            } else {
                rc[i] = 0;
                found[i] = a;
            }
        }
        brc = fd_msg_browse(a, MSG_BRW_NEXT, &a, NULL);
    }
    if (brc != 0) /* the walk failed: what was not found cannot be said absent */
        for (size_t i = 0; i < n; i++)
            if (rc[i] == ENOENT && wants[i].model)
                rc[i] = EBADMSG;
}

int bsf_rx_avp_copy_text(struct avp *a, char *out, size_t cap)
{
    const uint8_t *d;
    size_t n;
    out[0] = '\0';
    bsf_rx_avp_os(a, &d, &n);
    if (n >= cap)
        return ENOSPC;
    if (n)
        memcpy(out, d, n);
    out[n] = '\0';
    return 0;
}

int bsf_rx_avp_find_child(struct avp *parent, struct dict_object *model, struct avp **out)
{
    return find_in(parent, model, out);
}

void bsf_rx_avp_os(struct avp *a, const uint8_t **data, size_t *len)
{
    struct avp_hdr *h = NULL;
    *data = NULL;
    *len = 0;
    if (fd_msg_avp_hdr(a, &h) == 0 && h->avp_value) {
        *data = h->avp_value->os.data;
        *len = h->avp_value->os.len;
    }
}

uint32_t bsf_rx_avp_u32(struct avp *a)
{
    struct avp_hdr *h = NULL;
    return fd_msg_avp_hdr(a, &h) == 0 && h->avp_value ? h->avp_value->u32 : 0;
}

int32_t bsf_rx_avp_i32(struct avp *a)
{
    struct avp_hdr *h = NULL;
    return fd_msg_avp_hdr(a, &h) == 0 && h->avp_value ? h->avp_value->i32 : 0;
}

int bsf_rx_avp_text(struct msg *msg, struct dict_object *model, char *out, size_t cap)
{
    struct avp *a;
    out[0] = '\0';
    int rc = bsf_rx_avp_find(msg, model, &a);
    return rc ? rc : bsf_rx_avp_copy_text(a, out, cap);
}

static int new_os_avp(struct dict_object *model, const void *data, size_t len, struct avp **out)
{
    union avp_value v;
    memset(&v, 0, sizeof v);
    v.os.data = (uint8_t *)data;
    v.os.len = len;
    int rc = fd_msg_avp_new(model, 0, out);
    if (rc)
        return rc;
    rc = fd_msg_avp_setvalue(*out, &v); /* copies the bytes */
    if (rc) {
        fd_msg_free(*out);
        *out = NULL;
    }
    return rc;
}

int bsf_rx_avp_set_os(struct msg *msg, struct dict_object *model, const void *data, size_t len)
{
    struct avp *old = NULL;
    int rc = bsf_rx_avp_find(msg, model, &old);
    if (rc != 0 && rc != ENOENT && rc != EBADMSG)
        return rc;
    return bsf_rx_avp_replace_os(msg, old, model, data, len);
}

int bsf_rx_avp_replace_os(struct msg *msg, struct avp *old, struct dict_object *model,
                          const void *data, size_t len)
{
    struct avp *a = NULL;
    int rc;
    if ((rc = new_os_avp(model, data, len, &a)) != 0)
        return rc;
    if (old) {
        rc = fd_msg_avp_add(old, MSG_BRW_NEXT, a);
        if (rc == 0)
            fd_msg_free(old); /* unlinks it */
    } else {
        rc = fd_msg_avp_add(msg, MSG_BRW_LAST_CHILD, a);
    }
    if (rc)
        fd_msg_free(a);
    return rc;
}

int bsf_rx_avp_add_u32(msg_or_avp *parent, struct dict_object *model, uint32_t val)
{
    struct avp *a = NULL;
    union avp_value v;
    memset(&v, 0, sizeof v);
    v.u32 = val;
    int rc = fd_msg_avp_new(model, 0, &a);
    if (rc == 0 && (rc = fd_msg_avp_setvalue(a, &v)) == 0 &&
        (rc = fd_msg_avp_add(parent, MSG_BRW_LAST_CHILD, a)) == 0)
        return 0;
    if (a)
        fd_msg_free(a);
    return rc;
}

void bsf_rx_avp_strip_local_route_record(const bsf_rx_dict_t *rx, struct msg *msg,
                                         const char *peer)
{
    struct avp *last = NULL;
    struct avp_hdr *h = NULL;
    if (!peer || fd_msg_browse(msg, MSG_BRW_LAST_CHILD, &last, NULL) != 0 || !last ||
        fd_msg_avp_hdr(last, &h) != 0)
        return;
    if (h->avp_code != 282 || (h->avp_flags & AVP_FLAG_VENDOR) || parse_avp(last) != 0 ||
        !h->avp_value)
        return;
    (void)rx;
    size_t n = strlen(peer);
    if (h->avp_value->os.len == n && strncasecmp((const char *)h->avp_value->os.data, peer, n) == 0)
        fd_msg_free(last);
}

void bsf_rx_avp_answer_info(const bsf_rx_dict_t *rx, struct msg *ans, bsf_rx_answer_info_t *out)
{
    memset(out, 0, sizeof *out);
    struct msg_hdr *hdr = NULL;
    if (fd_msg_hdr(ans, &hdr) == 0)
        out->e_bit = (hdr->msg_flags & CMD_FLAG_ERROR) != 0;
    /* One walk for the three of them. */
    bsf_rx_avp_want_t w[3];
    struct avp *found[3], *c = NULL;
    int rc[3];
    bsf_rx_avp_want(rx->experimental_result, &w[0]);
    bsf_rx_avp_want(rx->result_code, &w[1]);
    bsf_rx_avp_want(rx->origin_host, &w[2]);
    bsf_rx_avp_collect(ans, w, 3, found, rc);
    if (rc[0] == 0 && bsf_rx_avp_find_child(found[0], rx->experimental_result_code, &c) == 0) {
        out->code = bsf_rx_avp_u32(c);
        out->experimental = true;
    } else if (rc[1] == 0) {
        out->code = bsf_rx_avp_u32(found[1]);
    }
    if (rc[2] != 0 || bsf_rx_avp_copy_text(found[2], out->origin, sizeof out->origin) != 0)
        out->origin[0] = '\0';
}

static int add_result(const bsf_rx_dict_t *rx, struct msg *ans, const bsf_rx_result_t *res)
{
    int rc;
    if (res->vendor) {
        struct avp *er = NULL;
        if ((rc = fd_msg_avp_new(rx->experimental_result, 0, &er)) != 0)
            return rc;
        if ((rc = bsf_rx_avp_add_u32(er, rx->vendor_id, res->vendor)) != 0 ||
            (rc = bsf_rx_avp_add_u32(er, rx->experimental_result_code, res->code)) != 0 ||
            (rc = fd_msg_avp_add(ans, MSG_BRW_LAST_CHILD, er)) != 0) {
            fd_msg_free(er);
            return rc;
        }
    } else if ((rc = bsf_rx_avp_add_u32(ans, rx->result_code, res->code)) != 0) {
        return rc;
    }
    if (res->message) {
        struct avp *em = NULL;
        if ((rc = new_os_avp(rx->error_message, res->message, strlen(res->message), &em)) != 0)
            return rc;
        if ((rc = fd_msg_avp_add(ans, MSG_BRW_LAST_CHILD, em)) != 0) {
            fd_msg_free(em);
            return rc;
        }
    }
    if (res->failed_model) {
        struct avp *fa = NULL, *inner = NULL;
        uint8_t zeros[BSF_RX_FAILED_ZERO_MAX] = {0};
        if ((rc = fd_msg_avp_new(rx->failed_avp, 0, &fa)) != 0)
            return rc;
        if (res->failed_u32) {
            rc = bsf_rx_avp_add_u32(fa, res->failed_model, res->failed_u32_value);
        } else if ((rc = new_os_avp(res->failed_model, failed_value(res, zeros),
                                    failed_value_len(res), &inner)) == 0 &&
                   (rc = fd_msg_avp_add(fa, MSG_BRW_LAST_CHILD, inner)) != 0) {
            fd_msg_free(inner);
        }
        if (rc == 0)
            rc = fd_msg_avp_add(ans, MSG_BRW_LAST_CHILD, fa);
        if (rc) {
            fd_msg_free(fa);
            return rc;
        }
    }
    return 0;
}

/* fd_msg_new_answer_from_req copies the request's Session-Id, which a relayed request carries
 * unparsed (libfdcore does not parse relayed messages): it takes the first top-level AVP of
 * code 263 and vendor 0 whatever its flags, parses it and asserts (aborts the process) when
 * that leaves no value, e.g. for one with the V bit set and an empty body (found by
 * tests/fuzz/fuzz_rx_avp). Such AVPs are removed from the request first: the answer then has
 * no Session-Id, as the request had none that parses. */
static void drop_unparsable_session_ids(struct msg *m)
{
    struct avp *a = NULL;
    if (fd_msg_browse(m, MSG_BRW_FIRST_CHILD, &a, NULL) != 0)
        return;
    while (a) {
        struct avp *next = NULL;
        struct avp_hdr *h = NULL;
        if (fd_msg_browse(a, MSG_BRW_NEXT, &next, NULL) != 0 || fd_msg_avp_hdr(a, &h) != 0)
            return;
        if (h->avp_code == AC_SESSION_ID && h->avp_vendor == 0) {
            if (parse_avp(a) == 0 && h->avp_value)
                return; /* the one libfdproto will copy, and it is sound */
            fd_msg_free(a); /* unlinks it from the request */
        }
        a = next;
    }
}

/* Proxy-Info { Proxy-Host } { Proxy-State } of the request, copied into the answer (RFC 6733
 * §6.7.4). Not by libfdproto: it encodes and parses each Proxy-Info again and, when that
 * fails (e.g. a child with reserved flag bits), returns an error leaking the half-built
 * answer, and the request gets no answer (found by tests/fuzz/fuzz_rx_avp). Here a Proxy-Info
 * whose two AVPs do not parse is left out; other AVPs inside it are not copied. */
static int copy_proxy_info(const bsf_rx_dict_t *rx, struct msg *ans)
{
    struct msg *req = NULL;
    struct avp *a = NULL;
    if (fd_msg_answ_getq(ans, &req) != 0 || !req ||
        fd_msg_browse(req, MSG_BRW_FIRST_CHILD, &a, NULL) != 0)
        return 0;
    for (struct avp *next = NULL; a; a = next) {
        struct avp_hdr *h = NULL;
        if (fd_msg_browse(a, MSG_BRW_NEXT, &next, NULL) != 0)
            next = NULL;
        struct avp *host = NULL, *state = NULL, *pi = NULL, *c = NULL;
        if (fd_msg_avp_hdr(a, &h) != 0 || h->avp_code != AC_PROXY_INFO || h->avp_vendor != 0 ||
            parse_avp(a) != 0 || bsf_rx_avp_find_child(a, rx->proxy_host, &host) != 0 ||
            bsf_rx_avp_find_child(a, rx->proxy_state, &state) != 0)
            continue;
        const uint8_t *hd = NULL, *sd = NULL;
        size_t hl = 0, sl = 0;
        bsf_rx_avp_os(host, &hd, &hl);
        bsf_rx_avp_os(state, &sd, &sl);
        int rc = fd_msg_avp_new(rx->proxy_info, 0, &pi);
        if (rc == 0 && (rc = new_os_avp(rx->proxy_host, hd, hl, &c)) == 0 &&
            (rc = fd_msg_avp_add(pi, MSG_BRW_LAST_CHILD, c)) != 0)
            fd_msg_free(c);
        c = NULL;
        if (rc == 0 && (rc = new_os_avp(rx->proxy_state, sd, sl, &c)) == 0 &&
            (rc = fd_msg_avp_add(pi, MSG_BRW_LAST_CHILD, c)) != 0)
            fd_msg_free(c);
        if (rc == 0 && (rc = fd_msg_avp_add(ans, MSG_BRW_LAST_CHILD, pi)) == 0)
            continue;
        if (pi)
            fd_msg_free(pi);
        return rc;
    }
    return 0;
}

/* Fills an answer made with fd_msg_new_answer_from_req. */
static int fill_answer(const bsf_rx_dict_t *rx, struct msg *ans, const bsf_rx_result_t *res)
{
    struct msg_hdr *hdr = NULL;
    int rc = fd_msg_hdr(ans, &hdr);
    if (rc)
        return rc;
    bool protocol_error = res->vendor == 0 && res->code >= 3000 && res->code < 4000;
    if (protocol_error)
        hdr->msg_flags |= CMD_FLAG_ERROR;
    else
        hdr->msg_flags &= (uint8_t)~CMD_FLAG_ERROR;
    if ((rc = fd_msg_add_origin(ans, 0)) != 0)
        return rc;
    /* TS 29.214 answers carry Auth-Application-Id; the generic error answer (E bit) does not. */
    if (!protocol_error && hdr->msg_appl == BSF_RX_APP_ID &&
        (rc = bsf_rx_avp_add_u32(ans, rx->auth_application_id, BSF_RX_APP_ID)) != 0)
        return rc;
    if ((rc = add_result(rx, ans, res)) != 0)
        return rc;
    return copy_proxy_info(rx, ans);
}

int bsf_rx_avp_make_answer(const bsf_rx_dict_t *rx, struct msg **req, const bsf_rx_result_t *res)
{
    struct msg *m = *req;
    bool protocol_error = res->vendor == 0 && res->code >= 3000 && res->code < 4000;
    drop_unparsable_session_ids(m);
    int rc = fd_msg_new_answer_from_req(
        rx->dict, &m, MSGFL_ANSW_NOPROXYINFO | (protocol_error ? MSGFL_ANSW_ERROR : 0));
    if (rc)
        return rc;
    /* From here m is the answer; its request is freed with it. */
    rc = fill_answer(rx, m, res);
    if (rc) {
        fd_msg_free(m); /* frees the request too: nothing can be answered */
        *req = NULL;
        return rc;
    }
    *req = m;
    return 0;
}

int bsf_rx_avp_answer_ref(const bsf_rx_dict_t *rx, const bsf_rx_request_ref_t *ref,
                          const bsf_rx_result_t *res)
{
    struct dict_object *cmd = NULL;
    command_code_t code = ref->code;
    int rc = fd_dict_search(rx->dict, DICT_COMMAND, CMD_BY_CODE_R, &code, &cmd, ENOENT);
    if (rc || !cmd)
        return rc ? rc : ENOENT;
    struct msg *q = NULL;
    if ((rc = fd_msg_new(cmd, 0, &q)) != 0)
        return rc;
    struct msg_hdr *h = NULL;
    struct avp *sid = NULL;
    if ((rc = fd_msg_hdr(q, &h)) == 0) {
        h->msg_appl = ref->app;
        h->msg_flags = ref->flags | CMD_FLAG_REQUEST;
        h->msg_hbhid = ref->hbh;
        h->msg_eteid = ref->e2e;
        rc = fd_msg_source_set(q, (DiamId_t)ref->from, strlen(ref->from));
    }
    if (rc == 0 && ref->sid && (rc = new_os_avp(rx->session_id, ref->sid, ref->sid_len, &sid)) == 0 &&
        (rc = fd_msg_avp_add(q, MSG_BRW_FIRST_CHILD, sid)) != 0)
        fd_msg_free(sid);
    if (rc == 0)
        rc = bsf_rx_avp_make_answer(rx, &q, res); /* on failure q is freed or unchanged */
    if (rc == 0 && (rc = fd_msg_send(&q, NULL, NULL)) == 0)
        return 0;
    if (q)
        fd_msg_free(q);
    return rc;
}
