/* Translation of the admission settings (see admission_settings.h). */
#include "gateways/admission/admission_settings.h"

#include <stdio.h>
#include <string.h>

#include "common/text_list.h"

/* Three percentages, one per overload level. */
static int parse_reduction(const char *list, uint8_t out[BSF_ADM_OVERLOAD_LEVELS], char *why,
                           size_t cap)
{
    char item[16];
    bool cut;
    unsigned n = 0;
    for (const char *c = list; bsf_text_list_next(&c, item, sizeof item, &cut);) {
        unsigned v;
        char extra;
        if (cut || n == BSF_ADM_OVERLOAD_LEVELS || sscanf(item, "%u%c", &v, &extra) != 1 ||
            v > 100) {
            n = 0;
            break;
        }
        out[n++] = (uint8_t)v;
    }
    if (n == BSF_ADM_OVERLOAD_LEVELS)
        return 0;
    snprintf(why, cap, "three percentages (0-100) are needed, for L1, L2, L3");
    return -1;
}

/* A watched resource's thresholds, or none when the list is empty. */
static int levels_or_none(const char *list, uint32_t max, uint32_t out[BSF_ADM_LEVELS],
                          char *why, size_t cap)
{
    if (!list[0]) {
        for (int i = 0; i < BSF_ADM_LEVELS; i++)
            out[i] = UINT32_MAX;
        return 0;
    }
    return bsf_adm_parse_levels(list, max, out, why, cap);
}

static int overload_or_none(const char *list, uint32_t max, bsf_adm_overload_thresholds_t *out,
                            char *why, size_t cap)
{
    if (!list[0]) {
        for (int i = 0; i < BSF_ADM_OVERLOAD_LEVELS; i++)
            out->onset[i] = out->abatement[i] = UINT32_MAX;
        return 0;
    }
    return bsf_adm_parse_overload(list, max, out, why, cap);
}

int bsf_admission_settings_apply(const bsf_admission_settings_t *s, bsf_admission_config_t *c,
                                 char *why, size_t cap)
{
    char reason[256];
    const char *key = NULL;
    memset(c, 0, sizeof *c);
    c->sbi_enabled = s->enabled;
    c->interval_ms = s->interval_ms;
    c->sample_count = s->sample_count;
    c->shedding.by_percentage = s->mode == 1;
    c->overload_enabled = s->overload;
    c->validity_s = s->validity_s;
    const uint32_t defaults[BSF_ADM_OP_COUNT] = {15, 20, 16, 20, 20}; /* seed §3.4 table */
    memcpy(c->op_priority, defaults, sizeof defaults);
    if (levels_or_none(s->cpu, 100, c->cpu, reason, sizeof reason))
        key = "congestion.cpu_thresholds";
    else if (levels_or_none(s->pending, 100000000, c->pending, reason, sizeof reason))
        key = "congestion.pending_thresholds";
    else if (levels_or_none(s->memory, 100, c->memory, reason, sizeof reason))
        key = "congestion.memory_thresholds";
    else if (levels_or_none(s->receiving, 100000000, c->receiving, reason, sizeof reason))
        key = "congestion.receiving_thresholds";
    else if (bsf_adm_parse_discard_priorities(s->discard_priorities,
                                              c->shedding.discard_priority, reason,
                                              sizeof reason))
        key = "congestion.discard_priorities";
    else if (bsf_adm_parse_percentages(s->discard_percentages, c->shedding.discard_pct, reason,
                                       sizeof reason))
        key = "congestion.discard_percentages";
    else if (bsf_adm_parse_op_values(s->priorities, BSF_ADM_PRIORITY_MAX, c->op_priority,
                                     reason, sizeof reason))
        key = "admission.priorities";
    else if (bsf_adm_parse_op_values(s->route_rates, 10000000, c->route_rate, reason,
                                     sizeof reason))
        key = "ratelimit.routes";
    else if (overload_or_none(s->ov_cpu, 100, &c->ov_cpu, reason, sizeof reason))
        key = "overload.cpu_thresholds";
    else if (overload_or_none(s->ov_pending, 100000000, &c->ov_pending, reason, sizeof reason))
        key = "overload.pending_thresholds";
    else if (overload_or_none(s->ov_memory, 100, &c->ov_memory, reason, sizeof reason))
        key = "overload.memory_thresholds";
    else if (parse_reduction(s->reduction, c->reduction, reason, sizeof reason))
        key = "overload.reduction";
    if (!key)
        return 0;
    snprintf(why, cap, "%s: %s", key, reason);
    return -1;
}
