#include "common/metrics_text.h"

void bsf_metrics_family(bsf_text_t *t, const char *name, const char *type, const char *help)
{
    bsf_text_printf(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The "{labels}" of a sample, or nothing. */
static void labels_of(const char *labels, const char **open, const char **set, const char **close)
{
    bool some = labels && labels[0];
    *open = some ? "{" : "";
    *set = some ? labels : "";
    *close = some ? "}" : "";
}

void bsf_metrics_u64(bsf_text_t *t, const char *name, const char *labels, uint64_t v)
{
    const char *open, *set, *close;
    labels_of(labels, &open, &set, &close);
    bsf_text_printf(t, "%s%s%s%s %llu\n", name, open, set, close, (unsigned long long)v);
}

void bsf_metrics_i64(bsf_text_t *t, const char *name, const char *labels, int64_t v)
{
    const char *open, *set, *close;
    labels_of(labels, &open, &set, &close);
    bsf_text_printf(t, "%s%s%s%s %lld\n", name, open, set, close, (long long)v);
}

void bsf_metrics_u64_label(bsf_text_t *t, const char *name, const char *key, const char *value,
                           uint64_t v)
{
    bsf_text_printf(t, "%s{%s=\"%s\"} %llu\n", name, key, value, (unsigned long long)v);
}

void bsf_metrics_u64_label2(bsf_text_t *t, const char *name, const char *key1,
                            const char *value1, const char *key2, const char *value2, uint64_t v)
{
    bsf_text_printf(t, "%s{%s=\"%s\",%s=\"%s\"} %llu\n", name, key1, value1, key2, value2,
                    (unsigned long long)v);
}

void bsf_metrics_double(bsf_text_t *t, const char *name, const char *labels, int decimals,
                        double v)
{
    const char *open, *set, *close;
    labels_of(labels, &open, &set, &close);
    bsf_text_printf(t, "%s%s%s%s %.*f\n", name, open, set, close, decimals, v);
}

void bsf_metrics_rows(bsf_text_t *t, const bsf_metric_row_t *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        bsf_metrics_u64_family(t, rows[i].name, rows[i].type, rows[i].help, rows[i].value);
}

void bsf_metrics_u64_family(bsf_text_t *t, const char *name, const char *type, const char *help,
                            uint64_t v)
{
    bsf_metrics_family(t, name, type, help);
    bsf_metrics_u64(t, name, NULL, v);
}

void bsf_metrics_double_family(bsf_text_t *t, const char *name, const char *type,
                               const char *help, int decimals, double v)
{
    bsf_metrics_family(t, name, type, help);
    bsf_metrics_double(t, name, NULL, decimals, v);
}

void bsf_metrics_labelled_family(bsf_text_t *t, const char *name, const char *type,
                                 const char *help, const char *key, const char *const *labels,
                                 const uint64_t *values, size_t n)
{
    bsf_metrics_family(t, name, type, help);
    for (size_t i = 0; i < n; i++)
        bsf_metrics_u64_label(t, name, key, labels[i], values[i]);
}

void bsf_metrics_histogram(bsf_text_t *t, const bsf_metrics_histogram_t *h)
{
    bool labelled = h->labels && h->labels[0];
    const char *labels = labelled ? h->labels : "", *comma = labelled ? "," : "";
    uint64_t cum = 0;
    for (size_t b = 0; b <= h->n_bounds; b++) {
        cum += h->counts[b];
        if (b < h->n_bounds)
            bsf_text_printf(t, "%s_bucket{%s%sle=\"%g\"} %llu\n", h->name, labels, comma,
                            h->bounds[b], (unsigned long long)cum);
        else
            bsf_text_printf(t, "%s_bucket{%s%sle=\"+Inf\"} %llu\n", h->name, labels, comma,
                            (unsigned long long)cum);
    }
    const char *open, *set, *close;
    labels_of(h->labels, &open, &set, &close);
    bsf_text_printf(t, "%s_sum%s%s%s %.*f\n%s_count%s%s%s %llu\n", h->name, open, set, close,
                    h->sum_decimals, h->sum, h->name, open, set, close,
                    (unsigned long long)h->count);
}
