#include "audit/audit_decide.h"

bsf_audit_due_t bsf_audit_decide_due(const bsf_audit_settings_t *s, int64_t now_ms,
                                     int64_t created_ms, int64_t last_audited_ms,
                                     uint32_t attempts, bool has_url)
{
    int64_t base = last_audited_ms > created_ms ? last_audited_ms : created_ms;
    int64_t age = now_ms - base;
    if (age < 0 || (uint64_t)age < s->min_ttl_ms)
        return BSF_AUDIT_SKIP;
    if ((uint64_t)age >= s->max_ttl_ms && attempts >= s->min_attempts)
        return BSF_AUDIT_REMOVE_MAX_TTL;
    return s->query_pcf && has_url ? BSF_AUDIT_QUERY : BSF_AUDIT_MARK_SUSPECTED;
}

bsf_audit_next_t bsf_audit_decide_answer(const bsf_audit_settings_t *s,
                                         bsf_audit_answer_kind_t answer, unsigned not_found,
                                         unsigned distinct)
{
    if (answer == BSF_AUDIT_ANSWER_FOUND)
        return BSF_AUDIT_CONFIRM;
    if (answer == BSF_AUDIT_ANSWER_FAILED)
        return BSF_AUDIT_FAIL;
    unsigned need = s->total_404 ? s->total_404 : 1;
    unsigned have = s->require_different_pcf ? distinct : not_found;
    if (have >= need)
        return BSF_AUDIT_REMOVE_NOT_FOUND;
    return s->require_different_pcf ? BSF_AUDIT_ASK_ALTERNATE : BSF_AUDIT_ASK_SAME;
}
