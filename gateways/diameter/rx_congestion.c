/* Congestion states and load shedding of the Diameter front end (see rx_congestion.h). */
#include "gateways/diameter/rx_congestion.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/text_list.h"

const char *bsf_rx_cong_state_name(bsf_rx_cong_state_t s)
{
    return bsf_adm_state_name(s);
}

bsf_rx_cong_state_t bsf_rx_cong_level(const uint32_t thresholds[BSF_RX_CONG_LEVELS],
                                      uint64_t value)
{
    return bsf_adm_level(thresholds, value);
}

bsf_rx_cong_state_t bsf_rx_cong_sample(bsf_rx_cong_t *c, const bsf_rx_cong_rules_t *r,
                                       uint32_t cpu_pct, uint64_t queue)
{
    bsf_rx_cong_state_t by_cpu = bsf_adm_level(r->cpu_pct, cpu_pct);
    bsf_rx_cong_state_t by_queue = bsf_adm_level(r->queue, queue);
    bsf_adm_machine_t m = {c->state, c->candidate, c->streak};
    bsf_adm_machine_step(&m, by_cpu > by_queue ? by_cpu : by_queue, r->sample_count);
    c->state = m.state;
    c->candidate = m.candidate;
    c->streak = m.streak;
    return c->state;
}

static bool holds(const bsf_rx_priority_condition_t *c, int drmp, int64_t oc)
{
    int64_t have = c->oc ? oc : drmp;
    if (have < 0 || have > (c->oc ? BSF_RX_PRIORITY_MAX : 15))
        return false; /* the request lacks the AVP, or its value is out of range */
    switch (c->cmp) {
    case BSF_RX_CMP_EQ:
        return have == c->value;
    case BSF_RX_CMP_NE:
        return have != c->value;
    case BSF_RX_CMP_LT:
        return have < c->value;
    case BSF_RX_CMP_LE:
        return have <= c->value;
    case BSF_RX_CMP_GT:
        return have > c->value;
    default:
        return have >= c->value;
    }
}

static bool rule_matches(const bsf_rx_priority_rule_t *rule, bsf_rx_kind_t kind, int drmp,
                         int64_t oc)
{
    if (rule->kinds && !(rule->kinds & (1u << kind)))
        return false;
    for (size_t i = 0; i < rule->n_conditions; i++)
        if (!holds(&rule->conditions[i], drmp, oc))
            return false;
    return true;
}

uint32_t bsf_rx_cong_priority(const bsf_rx_cong_rules_t *r, bsf_rx_kind_t kind, int drmp,
                              int64_t oc)
{
    for (size_t i = 0; i < r->n_priority_rules; i++)
        if (rule_matches(&r->priority_rules[i], kind, drmp, oc))
            return r->priority_rules[i].priority;
    /* Seed §3.26: with both, OC-Message-Priority wins. */
    if (oc >= 0 && oc <= BSF_RX_PRIORITY_MAX)
        return (uint32_t)oc;
    if (drmp >= 0 && drmp <= 15)
        return (uint32_t)drmp;
    /* The command's own priority, by kind (none for other requests). */
    const uint8_t own[BSF_RX_KIND_COUNT] = {
        [BSF_RX_AAR_I] = r->priority_aar, [BSF_RX_AAR_U] = r->priority_aar,
        [BSF_RX_STR] = r->priority_str,   [BSF_RX_RAR] = r->priority_rar,
        [BSF_RX_ASR] = r->priority_asr,   [BSF_RX_OTHER] = BSF_RX_PRIORITY_NONE,
    };
    uint8_t p = (unsigned)kind < BSF_RX_KIND_COUNT ? own[kind] : BSF_RX_PRIORITY_NONE;
    return p == BSF_RX_PRIORITY_NONE ? r->priority_default : p;
}

bool bsf_rx_cong_discard(const bsf_rx_cong_rules_t *r, bsf_rx_cong_state_t s, uint32_t priority,
                         uint32_t draw)
{
    bsf_adm_shedding_t sh = {.by_percentage = r->by_percentage};
    memcpy(sh.discard_priority, r->discard_priority, sizeof sh.discard_priority);
    memcpy(sh.discard_pct, r->discard_pct, sizeof sh.discard_pct);
    return bsf_adm_discard(&sh, s, priority, draw);
}

int bsf_rx_cong_parse_levels(const char *list, uint32_t max, uint32_t out[BSF_RX_CONG_LEVELS],
                             char *why, size_t cap)
{
    return bsf_adm_parse_levels(list, max, out, why, cap);
}

int bsf_rx_cong_parse_discard_priorities(const char *list, uint32_t out[BSF_RX_CONG_LEVELS],
                                         char *why, size_t cap)
{
    return bsf_adm_parse_discard_priorities(list, out, why, cap);
}

int bsf_rx_cong_parse_percentages(const char *list, bsf_rx_cong_rules_t *r, char *why, size_t cap)
{
    return bsf_adm_parse_percentages(list, r->discard_pct, why, cap);
}

int bsf_rx_cong_parse_priorities(const char *list, bsf_rx_cong_rules_t *r, char *why, size_t cap)
{
    static const char *const names[] = {"default", "aar", "str", "rar", "asr"};
    uint8_t *slots[] = {&r->priority_default, &r->priority_aar, &r->priority_str,
                        &r->priority_rar, &r->priority_asr};
    r->priority_default = 0;
    r->priority_aar = r->priority_str = r->priority_rar = r->priority_asr = BSF_RX_PRIORITY_NONE;
    char item[64];
    bool too_long;
    for (const char *cursor = list; bsf_text_list_next(&cursor, item, sizeof item, &too_long);) {
        size_t name_len = strcspn(item, "=");
        int which = -1;
        for (int i = 0; i < 5 && !too_long; i++)
            if (strlen(names[i]) == name_len && strncasecmp(names[i], item, name_len) == 0)
                which = i;
        const char *p = item + name_len;
        long v = which >= 0 && *p == '=' ? (p++, bsf_text_list_number(&p, BSF_RX_PRIORITY_MAX)) : -1;
        if (v < 0 || *p) {
            snprintf(why, cap, "'%.64s' is not COMMAND=PRIORITY (default, aar, str, rar, asr; 0-31)",
                     item);
            return -1;
        }
        *slots[which] = (uint8_t)v;
    }
    return 0;
}

/* "==", "!=", "<=", ">=", "<", ">" at *p: 0 and advances *p, or -1. */
static int comparison(const char **p, bsf_rx_cmp_t *out)
{
    static const struct {
        const char *text;
        bsf_rx_cmp_t cmp;
    } ops[] = {{"==", BSF_RX_CMP_EQ}, {"!=", BSF_RX_CMP_NE}, {"<=", BSF_RX_CMP_LE},
               {">=", BSF_RX_CMP_GE}, {"<", BSF_RX_CMP_LT},  {">", BSF_RX_CMP_GT}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        size_t len = strlen(ops[i].text);
        if (strncmp(*p, ops[i].text, len) == 0) {
            *p += len;
            *out = ops[i].cmp;
            return 0;
        }
    }
    return -1;
}

/* One word of a priority rule at *p (up to a space); advances *p. Returns false when the word
 * is not one of the rule's, repeats `cmd=` or `priority=`, or is a condition too many. */
static bool rule_word(const char **p, bsf_rx_priority_rule_t *rule, bool *has_priority)
{
    static const struct {
        const char *name;
        uint32_t kinds;
    } commands[] = {{"aar", 1u << BSF_RX_AAR_I | 1u << BSF_RX_AAR_U},
                    {"aar-i", 1u << BSF_RX_AAR_I},
                    {"aar-u", 1u << BSF_RX_AAR_U},
                    {"str", 1u << BSF_RX_STR},
                    {"rar", 1u << BSF_RX_RAR},
                    {"asr", 1u << BSF_RX_ASR}};
    if (strncmp(*p, "cmd=", 4) == 0) {
        size_t len = strcspn(*p + 4, " ");
        if (rule->kinds)
            return false;
        for (size_t i = 0; i < sizeof commands / sizeof commands[0] && !rule->kinds; i++)
            if (strlen(commands[i].name) == len && strncasecmp(*p + 4, commands[i].name, len) == 0)
                rule->kinds = commands[i].kinds;
        *p += 4 + len;
        return rule->kinds != 0;
    }
    if (strncmp(*p, "priority=", 9) == 0) {
        *p += 9;
        long v = *has_priority ? -1 : bsf_text_list_number(p, BSF_RX_PRIORITY_MAX);
        rule->priority = v >= 0 ? (uint8_t)v : 0;
        *has_priority = true;
        return v >= 0;
    }
    bool drmp = strncmp(*p, "drmp", 4) == 0, oc = strncmp(*p, "oc", 2) == 0;
    if ((!drmp && !oc) || rule->n_conditions == BSF_RX_RULE_CONDITIONS)
        return false;
    *p += drmp ? 4 : 2;
    bsf_rx_priority_condition_t *c = &rule->conditions[rule->n_conditions++];
    c->oc = oc;
    long v = comparison(p, &c->cmp) == 0 ? bsf_text_list_number(p, drmp ? 15 : BSF_RX_PRIORITY_MAX) : -1;
    c->value = v >= 0 ? (uint32_t)v : 0;
    return v >= 0;
}

int bsf_rx_cong_parse_priority_rules(const char *list, bsf_rx_cong_rules_t *r, char *why,
                                     size_t cap)
{
    char item[128];
    bool too_long;
    r->n_priority_rules = 0;
    for (const char *cursor = list; bsf_text_list_next(&cursor, item, sizeof item, &too_long);) {
        bsf_rx_priority_rule_t rule = {0};
        bool ok = !too_long && r->n_priority_rules < BSF_RX_PRIORITY_RULES_MAX, priority = false;
        const char *p = item;
        while (ok && *p) {
            while (*p == ' ')
                p++;
            ok = *p && rule_word(&p, &rule, &priority) && (*p == ' ' || !*p);
        }
        if (!ok || !priority) {
            if (r->n_priority_rules == BSF_RX_PRIORITY_RULES_MAX)
                snprintf(why, cap, "at most %d rules", BSF_RX_PRIORITY_RULES_MAX);
            else
                snprintf(why, cap,
                         "'%.64s' is not [cmd=aar|aar-i|aar-u|str|rar|asr] [drmpOPn|ocOPn ...] "
                         "priority=N "
                         "(OP: == != < <= > >=, at most %d conditions; DRMP 0-15, "
                         "OC-Message-Priority and priority 0-31)",
                         item, BSF_RX_RULE_CONDITIONS);
            return -1;
        }
        r->priority_rules[r->n_priority_rules++] = rule;
    }
    return 0;
}

int bsf_rx_cong_rules_from_settings(const bsf_diameter_settings_t *s, bsf_rx_cong_rules_t *r,
                                    char *why, size_t cap)
{
    char reason[256];
    const char *key = NULL;
    memset(r, 0, sizeof *r);
    r->sample_count = s->congestion_samples;
    r->by_percentage = s->congestion_mode == 1;
    if (bsf_rx_cong_parse_levels(s->congestion_cpu, 100, r->cpu_pct, reason, sizeof reason))
        key = "diameter.congestion.cpu_thresholds";
    else if (bsf_rx_cong_parse_levels(s->congestion_queue, 100000000, r->queue, reason,
                                      sizeof reason))
        key = "diameter.congestion.queue_thresholds";
    else if (bsf_rx_cong_parse_discard_priorities(s->congestion_discard_priorities,
                                                  r->discard_priority, reason, sizeof reason))
        key = "diameter.congestion.discard_priorities";
    else if (bsf_rx_cong_parse_percentages(s->congestion_discard_percentages, r, reason,
                                           sizeof reason))
        key = "diameter.congestion.discard_percentages";
    else if (bsf_rx_cong_parse_priorities(s->congestion_priorities, r, reason, sizeof reason))
        key = "diameter.congestion.priorities";
    else if (bsf_rx_cong_parse_priority_rules(s->congestion_priority_rules, r, reason,
                                              sizeof reason))
        key = "diameter.congestion.priority_rules";
    if (!key)
        return 0;
    snprintf(why, cap, "%s: %s", key, reason);
    return -1;
}
