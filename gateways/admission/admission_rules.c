/* Pure rules of admission control (see admission_rules.h). */
#include "gateways/admission/admission_rules.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/text_list.h"

static const char *const state_names[] = {"NORMAL", "DOC", "L1", "L2", "CONGESTED"};

const char *bsf_adm_state_name(bsf_adm_state_t s)
{
    return (unsigned)s <= BSF_ADM_CONGESTED ? state_names[s] : "?";
}

bsf_adm_state_t bsf_adm_level(const uint32_t thresholds[BSF_ADM_LEVELS], uint64_t value)
{
    bsf_adm_state_t s = BSF_ADM_NORMAL;
    for (int i = 0; i < BSF_ADM_LEVELS; i++)
        if (thresholds[i] != UINT32_MAX && value >= thresholds[i])
            s = (bsf_adm_state_t)(i + 1);
    return s;
}

bsf_adm_state_t bsf_adm_machine_step(bsf_adm_machine_t *c, bsf_adm_state_t candidate,
                                     uint32_t sample_count)
{
    if (candidate == c->state) {
        c->streak = 0; /* anti-flapping: a change must hold without interruption */
    } else if (candidate == c->candidate && c->streak > 0) {
        c->streak++;
    } else {
        c->candidate = candidate;
        c->streak = 1;
    }
    if (c->streak >= (sample_count ? sample_count : 1)) {
        c->state = candidate;
        c->streak = 0;
    }
    return c->state;
}

bool bsf_adm_discard(const bsf_adm_shedding_t *sh, bsf_adm_state_t s, uint32_t priority,
                     uint32_t draw)
{
    if (s == BSF_ADM_NORMAL || (unsigned)s > BSF_ADM_CONGESTED)
        return false;
    if (priority > BSF_ADM_PRIORITY_MAX)
        priority = BSF_ADM_PRIORITY_MAX;
    int level = (int)s - 1;
    if (!sh->by_percentage)
        return priority >= sh->discard_priority[level];
    return draw < sh->discard_pct[level][priority];
}

unsigned bsf_adm_overload_level(const bsf_adm_overload_thresholds_t *t, unsigned current,
                                uint64_t value)
{
    unsigned up = 0;
    for (unsigned k = 0; k < BSF_ADM_OVERLOAD_LEVELS; k++)
        if (t->onset[k] != UINT32_MAX && value >= t->onset[k])
            up = k + 1;
    if (up >= current)
        return up;
    /* Below the current level's onset: stay until the value is under its abatement, and
     * fall only as far as the lower levels' abatements allow. */
    while (current > up && value < t->abatement[current - 1])
        current--;
    return current;
}

static const char *const op_names[BSF_ADM_OP_COUNT] = {"discovery", "register", "deregister",
                                                        "update", "other"};

const char *bsf_adm_op_name(bsf_adm_op_t op)
{
    return (unsigned)op < BSF_ADM_OP_COUNT ? op_names[op] : "?";
}

bsf_adm_op_t bsf_adm_op_of(const char *m)
{
    if (!m)
        return BSF_ADM_OP_OTHER;
    if (strcmp(m, "GET") == 0)
        return BSF_ADM_OP_DISCOVERY;
    if (strcmp(m, "POST") == 0)
        return BSF_ADM_OP_REGISTER;
    if (strcmp(m, "DELETE") == 0)
        return BSF_ADM_OP_DEREGISTER;
    if (strcmp(m, "PATCH") == 0)
        return BSF_ADM_OP_UPDATE;
    return BSF_ADM_OP_OTHER;
}

int bsf_adm_priority_parse(const char *v)
{
    if (!v || !isdigit((unsigned char)v[0]))
        return -1;
    int n = 0;
    for (const char *p = v; *p; p++) {
        if (!isdigit((unsigned char)*p) || p - v >= 2)
            return -1;
        n = n * 10 + (*p - '0');
    }
    return n <= BSF_ADM_PRIORITY_MAX ? n : -1;
}

/* Four numbers of one item each: strictly increasing from 1 to max (`rising`), or not
 * increasing from 0 to max. */
static int parse_four(const char *list, uint32_t max, bool rising, uint32_t out[BSF_ADM_LEVELS],
                      char *why, size_t cap)
{
    char item[32];
    bool too_long;
    int n = 0;
    for (const char *cursor = list; bsf_text_list_next(&cursor, item, sizeof item, &too_long);) {
        const char *p = item;
        long v = too_long ? -1 : bsf_text_list_number(&p, (long)max);
        bool order_ok = !n || (rising ? (uint32_t)v > out[n - 1] : (uint32_t)v <= out[n - 1]);
        if (n == BSF_ADM_LEVELS || v < (rising ? 1 : 0) || *p || !order_ok) {
            n = -1;
            break;
        }
        out[n++] = (uint32_t)v;
    }
    if (n == BSF_ADM_LEVELS)
        return 0;
    snprintf(why, cap, "four %s numbers from %d to %u are needed, for DOC, L1, L2, CONGESTED",
             rising ? "strictly increasing" : "not increasing", rising ? 1 : 0, max);
    return -1;
}

int bsf_adm_parse_levels(const char *list, uint32_t max, uint32_t out[BSF_ADM_LEVELS],
                         char *why, size_t cap)
{
    return parse_four(list, max, true, out, why, cap);
}

int bsf_adm_parse_discard_priorities(const char *list, uint32_t out[BSF_ADM_LEVELS], char *why,
                                     size_t cap)
{
    return parse_four(list, BSF_ADM_PRIORITY_MAX + 1, false, out, why, cap);
}

static int state_of(const char *name, size_t len)
{
    for (int s = BSF_ADM_DOC; s <= BSF_ADM_CONGESTED; s++)
        if (strlen(state_names[s]) == len && strncasecmp(state_names[s], name, len) == 0)
            return s;
    return -1;
}

/* The "LO-HI:PCT" ranges after a state's name, into row. Returns false on a syntax error. */
static bool parse_ranges(const char **pp, uint8_t row[BSF_ADM_PRIORITY_MAX + 1], bool *any)
{
    const char *p = *pp;
    while (*p == ' ') {
        while (*p == ' ')
            p++;
        long lo = bsf_text_list_number(&p, BSF_ADM_PRIORITY_MAX), hi = -1, pct = -1;
        if (lo >= 0 && *p == '-') {
            p++;
            hi = bsf_text_list_number(&p, BSF_ADM_PRIORITY_MAX);
        }
        if (hi >= lo && *p == ':') {
            p++;
            pct = bsf_text_list_number(&p, 100);
        }
        if (lo < 0 || hi < lo || pct < 0 || (*p && *p != ' ')) /* lo < 0: not a number */
            return false;
        for (long q = lo; q <= hi; q++)
            row[q] = (uint8_t)pct;
        *any = true;
    }
    *pp = p;
    return true;
}

int bsf_adm_parse_percentages(const char *list,
                              uint8_t out[BSF_ADM_LEVELS][BSF_ADM_PRIORITY_MAX + 1], char *why,
                              size_t cap)
{
    char item[256];
    bool too_long;
    memset(out, 0, sizeof(uint8_t[BSF_ADM_LEVELS][BSF_ADM_PRIORITY_MAX + 1]));
    for (const char *cursor = list; bsf_text_list_next(&cursor, item, sizeof item, &too_long);) {
        size_t name_len = strcspn(item, " ");
        int s = too_long ? -1 : state_of(item, name_len);
        const char *p = item + name_len;
        bool ranges = false;
        if (s < 0 || !parse_ranges(&p, out[s - 1], &ranges) || !ranges || *p) {
            snprintf(why, cap,
                     "'%.64s' is not STATE LO-HI:PERCENT... (STATE: DOC, L1, L2, CONGESTED; "
                     "priorities 0-31, percent 0-100)",
                     item);
            return -1;
        }
    }
    return 0;
}

int bsf_adm_parse_overload(const char *list, uint32_t max, bsf_adm_overload_thresholds_t *out,
                           char *why, size_t cap)
{
    char item[48];
    bool too_long;
    unsigned n = 0;
    for (const char *cursor = list; bsf_text_list_next(&cursor, item, sizeof item, &too_long);) {
        const char *p = item;
        long on = too_long ? -1 : bsf_text_list_number(&p, (long)max), ab = -1;
        if (on >= 1 && *p == ':') {
            p++;
            ab = bsf_text_list_number(&p, on);
        }
        bool ok = n < BSF_ADM_OVERLOAD_LEVELS && ab >= 1 && !*p &&
                  (!n || ((uint32_t)on > out->onset[n - 1] &&
                          (uint32_t)ab > out->abatement[n - 1]));
        if (!ok) {
            n = 0;
            break;
        }
        out->onset[n] = (uint32_t)on;
        out->abatement[n++] = (uint32_t)ab;
    }
    if (n == BSF_ADM_OVERLOAD_LEVELS)
        return 0;
    snprintf(why, cap,
             "three ONSET:ABATEMENT items are needed (L1, L2, L3), from 1 to %u, abatement "
             "not above onset, both increasing",
             max);
    return -1;
}

int bsf_adm_parse_op_values(const char *list, uint32_t max, uint32_t out[BSF_ADM_OP_COUNT],
                            char *why, size_t cap)
{
    char item[64];
    bool too_long;
    for (const char *cursor = list; bsf_text_list_next(&cursor, item, sizeof item, &too_long);) {
        size_t name_len = strcspn(item, "=");
        int which = -1;
        for (int i = 0; i < BSF_ADM_OP_COUNT && !too_long; i++)
            if (strlen(op_names[i]) == name_len && strncasecmp(op_names[i], item, name_len) == 0)
                which = i;
        const char *p = item + name_len;
        long v = which >= 0 && *p == '=' ? (p++, bsf_text_list_number(&p, (long)max)) : -1;
        if (v < 0 || *p) {
            snprintf(why, cap,
                     "'%.64s' is not OPERATION=N (discovery, register, deregister, update, "
                     "other; N 0-%u)",
                     item, max);
            return -1;
        }
        out[which] = (uint32_t)v;
    }
    return 0;
}

bool bsf_adm_bucket_take(bsf_adm_bucket_t *b, uint32_t rate, uint32_t burst, uint64_t now_ns)
{
    if (!rate)
        return true;
    double cap = burst ? burst : rate;
    if (b->last_ns == 0) {
        b->tokens = cap;
    } else if (now_ns > b->last_ns) {
        b->tokens += (double)(now_ns - b->last_ns) * rate / 1e9;
        if (b->tokens > cap)
            b->tokens = cap;
    }
    b->last_ns = now_ns;
    if (b->tokens < 1.0)
        return false;
    b->tokens -= 1.0;
    return true;
}
