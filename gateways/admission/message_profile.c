/* Seed §3.1's message priority profile (see message_profile.h). */
#include "gateways/admission/message_profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bsf_message_profile_t installed;

static const char *const interfaces[BSF_MP_INTERFACES] = {"Nbsf_Management",
                                                           "Npcf_Binding_Audit", "Nnrf"};
static const char *const types[] = {"Discovery",        "Register",
                                    "Deregister",       "Update",
                                    "Other",            "Audit_Notify",
                                    "Any",              "NfRegister",
                                    "AutonomousNfPatch", "AutonomousNfDeRegistration",
                                    "NfDiscover",       "AccessToken"};
#define N_TYPES ((int)(sizeof types / sizeof types[0]))
static const char *const modes[] = {"Never", "Always", "IfNotPresent"};

static int lookup(const char *v, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(v, names[i]) == 0)
            return i;
    return -1;
}

static int number(const char *v, unsigned long max, unsigned long *out)
{
    char *end;
    if (v[0] < '0' || v[0] > '9')
        return -1;
    *out = strtoul(v, &end, 10);
    return *end || *out > max ? -1 : 0;
}

/* One `field=value` member into the rule; -1 with the reason. */
static int member(bsf_mp_rule_t *r, const char *name, const char *v, bool *has_req_value,
                  bool *has_resp_value, char *why, size_t cap)
{
    unsigned long n;
    int i = 0;
    if (strcmp(name, "messageID") == 0)
        snprintf(r->message_id, sizeof r->message_id, "%s", v);
    else if (strcmp(name, "rulePriority") == 0 && number(v, 1000000, &n) == 0)
        r->rule_priority = (uint32_t)n;
    else if (strcmp(name, "interfaceType") == 0 && (i = lookup(v, interfaces, BSF_MP_INTERFACES)) >= 0)
        r->interface = (bsf_mp_interface_t)i;
    else if (strcmp(name, "messageType") == 0 && (i = lookup(v, types, N_TYPES)) >= 0 &&
             i != BSF_ADM_OP_OTHER)
        r->message_type = i;
    else if (strcmp(name, "requestPriorityOverride") == 0 && (i = lookup(v, modes, 3)) >= 0)
        r->request = (bsf_mp_mode_t)i;
    else if (strcmp(name, "responsePriorityAssign") == 0 && (i = lookup(v, modes, 3)) >= 0)
        r->response = (bsf_mp_mode_t)i;
    else if (strcmp(name, "requestPriorityValue") == 0 && number(v, 31, &n) == 0) {
        r->request_value = (uint8_t)n;
        *has_req_value = true;
    } else if (strcmp(name, "responsePriorityValue") == 0 && number(v, 31, &n) == 0) {
        r->response_value = (uint8_t)n;
        *has_resp_value = true;
    } else {
        snprintf(why, cap, "%s=%s: not a field of a message profile rule or not one of its "
                 "values", name, v);
        return -1;
    }
    return 0;
}

static int rule(char *text, bsf_mp_rule_t *r, char *why, size_t cap)
{
    *r = (bsf_mp_rule_t){.message_type = BSF_MP_ANY};
    bool req_value = false, resp_value = false, has_type = false;
    for (char *save = NULL, *m = strtok_r(text, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
        m += strspn(m, " ");
        char *eq = strchr(m, '=');
        if (!eq) {
            snprintf(why, cap, "%s: a member is field=value", m);
            return -1;
        }
        *eq = '\0';
        has_type |= strcmp(m, "messageType") == 0;
        if (member(r, m, eq + 1, &req_value, &resp_value, why, cap))
            return -1;
    }
    if (!has_type) {
        snprintf(why, cap, "a rule needs its messageType");
        return -1;
    }
    if ((r->request != BSF_MP_NEVER && !req_value) || (r->response != BSF_MP_NEVER && !resp_value)) {
        snprintf(why, cap, "rule %s: Always and IfNotPresent need their value (0-31)",
                 r->message_id[0] ? r->message_id : "without messageID");
        return -1;
    }
    return 0;
}

static int by_rule_priority(const void *a, const void *b)
{
    const bsf_mp_rule_t *x = a, *y = b;
    return x->rule_priority < y->rule_priority ? -1 : x->rule_priority > y->rule_priority;
}

int bsf_message_profile_parse(const char *list, bsf_message_profile_t *out, char *why,
                              size_t cap)
{
    *out = (bsf_message_profile_t){0};
    char buf[4096];
    if (strlen(list) >= sizeof buf) {
        snprintf(why, cap, "the profile is longer than %zu characters", sizeof buf - 1);
        return -1;
    }
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *t = strtok_r(buf, "\n", &save); t; t = strtok_r(NULL, "\n", &save)) {
        if (out->n == BSF_MP_MAX_RULES) {
            snprintf(why, cap, "more than %d rules", BSF_MP_MAX_RULES);
            return -1;
        }
        if (rule(t, &out->rules[out->n], why, cap))
            return -1;
        out->n++;
    }
    qsort(out->rules, out->n, sizeof out->rules[0], by_rule_priority);
    return 0;
}

const bsf_mp_rule_t *bsf_message_profile_match(const bsf_message_profile_t *p,
                                               bsf_mp_interface_t itf, int message_type)
{
    for (size_t i = 0; i < p->n; i++) {
        const bsf_mp_rule_t *r = &p->rules[i];
        if (r->interface == itf && (r->message_type == BSF_MP_ANY || r->message_type == message_type))
            return r;
    }
    return NULL;
}

int bsf_mp_request_priority(const bsf_mp_rule_t *r, int received)
{
    if (r->request == BSF_MP_ALWAYS || (r->request == BSF_MP_IF_NOT_PRESENT && received < 0))
        return r->request_value;
    return received;
}

int bsf_mp_response_priority(const bsf_mp_rule_t *r, int received)
{
    if (r->response == BSF_MP_ALWAYS)
        return r->response_value;
    if (r->response == BSF_MP_IF_NOT_PRESENT)
        return received >= 0 ? received : r->response_value;
    return -1;
}

void bsf_message_profile_install(const bsf_message_profile_t *p)
{
    installed = *p;
}

const bsf_message_profile_t *bsf_message_profile_installed(void)
{
    return &installed;
}

int bsf_message_profile_egress(bsf_mp_interface_t itf, int message_type, int priority)
{
    const bsf_mp_rule_t *r = bsf_message_profile_match(&installed, itf, message_type);
    return r ? bsf_mp_request_priority(r, priority) : priority;
}

int bsf_message_profile_nrf(int message_type)
{
    int p = bsf_message_profile_egress(BSF_MP_NNRF, message_type, -1);
    if (p >= 0)
        return p;
    /* seed §3.1 (upgrade impact): the NRF client's defaults */
    return message_type == BSF_MP_NF_PATCH ? 3 : message_type == BSF_MP_NF_DEREGISTER ? 2 : 1;
}
