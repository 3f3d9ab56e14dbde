#include "gateways/sbi/problem_json.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "gateways/sbi/json_codec.h"

static int dump_to(const char *buf, size_t size, void *data)
{
    return msgpack_sbuffer_write(data, buf, size);
}

/* Copies pcfSmFqdn and pcfSmIpEndPoints of the binding into the JSON object (every member
 * when `all`: an MbsBindingResp made by the engine). */
static int add_binding_resp(json_t *root, const msgpack_object *binding, bool all)
{
    for (uint32_t i = 0; i < binding->via.map.size; i++) {
        const msgpack_object_kv *kv = &binding->via.map.ptr[i];
        if (kv->key.type != MSGPACK_OBJECT_STR)
            continue;
        const char *k = kv->key.via.str.ptr;
        size_t kn = kv->key.via.str.size;
        bool fqdn = kn == 9 && memcmp(k, "pcfSmFqdn", 9) == 0;
        bool eps = kn == 16 && memcmp(k, "pcfSmIpEndPoints", 16) == 0;
        if (!fqdn && !eps && !all)
            continue;
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(kn < 31 ? kn : 31), k);
        msgpack_sbuffer text;
        msgpack_sbuffer_init(&text);
        json_t *value = NULL;
        if (bsf_json_write(&kv->val, &text, NULL, NULL) == 0)
            value = json_loadb(text.data, text.size, JSON_DECODE_ANY, NULL);
        msgpack_sbuffer_destroy(&text);
        if (!value || json_object_set_new(root, name, value))
            return -1;
    }
    return 0;
}

/* Problem texts may quote request input: keep them printable ASCII so they are valid JSON
 * strings whatever the client sent. */
static json_t *safe_string(const char *s)
{
    char buf[BSF_PROBLEM_TEXT_MAX + BSF_PROBLEM_PARAM_MAX];
    size_t i = 0;
    for (; s[i] && i + 1 < sizeof buf; i++)
        buf[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e ? '?' : s[i];
    buf[i] = '\0';
    return json_string(buf);
}

static int render(const bsf_problem_t *p, const char *instance, const msgpack_object *binding,
                  bool all, msgpack_sbuffer *out)
{
    json_t *root = json_object();
    if (!root)
        return -1;
    int rc = json_object_set_new(root, "title", json_string(bsf_cause_title(p->cause))) ||
             json_object_set_new(root, "status", json_integer(bsf_cause_status(p->cause))) ||
             json_object_set_new(root, "detail", safe_string(p->detail)) ||
             (bsf_cause_name(p->cause)[0] &&
              json_object_set_new(root, "cause", json_string(bsf_cause_name(p->cause))));
    if (!rc && instance && instance[0]) /* a URI reference: "" says nothing (RFC 9457 §3.1.5) */
        rc = json_object_set_new(root, "instance", json_string(instance));
    if (!rc && p->n_params) {
        json_t *params = json_array();
        rc = !params || json_object_set_new(root, "invalidParams", params);
        for (size_t i = 0; !rc && i < p->n_params; i++)
            rc = json_array_append_new(params, json_pack("{s:o, s:o}", "param",
                                                         safe_string(p->params[i].param), "reason",
                                                         safe_string(p->params[i].reason)));
    }
    if (!rc && binding && binding->type == MSGPACK_OBJECT_MAP)
        rc = add_binding_resp(root, binding, all);
    msgpack_sbuffer_clear(out);
    if (!rc)
        rc = json_dump_callback(root, dump_to, out, JSON_COMPACT);
    json_decref(root);
    return rc ? -1 : 0;
}

int bsf_problem_render(const bsf_problem_t *p, const char *instance,
                       const msgpack_object *binding, msgpack_sbuffer *out)
{
    return render(p, instance, binding, false, out);
}

int bsf_problem_render_ext(const bsf_problem_t *p, const char *instance,
                           const msgpack_object *ext, msgpack_sbuffer *out)
{
    return render(p, instance, ext, true, out);
}

int bsf_problem_render_custom(int status, const char *title, const char *cause,
                              const char *detail, const char *instance, msgpack_sbuffer *out)
{
    json_t *root = json_pack("{s:s, s:i, s:o, s:s}", "title", title, "status", status, "detail",
                             safe_string(detail), "cause", cause);
    if (!root)
        return -1;
    int rc = instance && instance[0] &&
             json_object_set_new(root, "instance", json_string(instance));
    msgpack_sbuffer_clear(out);
    if (!rc)
        rc = json_dump_callback(root, dump_to, out, JSON_COMPACT);
    json_decref(root);
    return rc ? -1 : 0;
}

bool bsf_problem_cause_valid(const char *cause)
{
    size_t n = 0;
    for (; cause[n]; n++)
        if (!((cause[n] >= 'A' && cause[n] <= 'Z') || (cause[n] >= '0' && cause[n] <= '9') ||
              cause[n] == '_'))
            return false;
    return n > 0 && n < 64;
}
