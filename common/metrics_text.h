/* Prometheus text exposition (format 0.0.4) into a bsf_text_t: a family's HELP and TYPE lines,
 * then its samples, so that every module writes its families in the one shape and only says
 * what they are. The writers print names, labels and help texts as given (no escaping: they
 * are the caller's constants or validated values) and values in the format each one names.
 * Like bsf_text_printf they return nothing: an allocation failure sets `t->failed` and later
 * writes are dropped. The buffer is the caller's, one thread at a time; nothing is kept. */
#ifndef BSF_COMMON_METRICS_TEXT_H
#define BSF_COMMON_METRICS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "common/text.h"

/* "# HELP <name> <help>\n# TYPE <name> <type>\n"; type is "counter", "gauge" or "histogram". */
void bsf_metrics_family(bsf_text_t *t, const char *name, const char *type, const char *help);

/* "<name> <v>\n", or "<name>{<labels>} <v>\n" when labels is a rendered set `a="x",b="y"`
 * (NULL or "": none); v as %llu. */
void bsf_metrics_u64(bsf_text_t *t, const char *name, const char *labels, uint64_t v);

/* "<name>{<key>=\"<value>\"} <v>\n" (v as %llu). */
void bsf_metrics_u64_label(bsf_text_t *t, const char *name, const char *key, const char *value,
                           uint64_t v);

/* Like bsf_metrics_u64 for a signed value (%lld): seconds until a date, negative once past. */
void bsf_metrics_i64(bsf_text_t *t, const char *name, const char *labels, int64_t v);

/* "<name>{<key1>=\"<value1>\",<key2>=\"<value2>\"} <v>\n" (v as %llu), for label values of
 * any length. */
void bsf_metrics_u64_label2(bsf_text_t *t, const char *name, const char *key1,
                            const char *value1, const char *key2, const char *value2, uint64_t v);

/* Like bsf_metrics_u64 with v as %.<decimals>f (seconds: 3, 6 or 9 as each metric had). */
void bsf_metrics_double(bsf_text_t *t, const char *name, const char *labels, int decimals,
                        double v);

/* A family with one unlabelled sample, for tables of counters and gauges. */
typedef struct {
    const char *name;
    const char *type; /* "counter" or "gauge" */
    const char *help;
    uint64_t value;   /* printed as %llu */
} bsf_metric_row_t;

/* Writes each row: its family lines and "<name> <value>\n". */
void bsf_metrics_rows(bsf_text_t *t, const bsf_metric_row_t *rows, size_t n);

/* The length of the array `a`; a pointer does not compile (GCC and clang builtins). */
#define BSF_METRICS_COUNT(a)                                                                     \
    (sizeof(a) / sizeof((a)[0]) +                                                                \
     0 * sizeof(struct {                                                                         \
         _Static_assert(!__builtin_types_compatible_p(__typeof__(a), __typeof__(&(a)[0])),       \
                        "an array, not a pointer");                                              \
         int ok;                                                                                 \
     }))

/* bsf_metrics_rows over the array `rows`, its length derived. */
#define BSF_METRICS_ROWS(t, rows) bsf_metrics_rows((t), (rows), BSF_METRICS_COUNT(rows))

/* A family with its one unlabelled sample, v as %llu (a table's row on its own). */
void bsf_metrics_u64_family(bsf_text_t *t, const char *name, const char *type, const char *help,
                            uint64_t v);

/* The same with a double value (%.<decimals>f). */
void bsf_metrics_double_family(bsf_text_t *t, const char *name, const char *type,
                               const char *help, int decimals, double v);

/* A family with one label: its lines, then "<name>{<key>=\"<labels[i]>\"} <values[i]>\n" for
 * each of the n label values, in order. */
void bsf_metrics_labelled_family(bsf_text_t *t, const char *name, const char *type,
                                 const char *help, const char *key, const char *const *labels,
                                 const uint64_t *values, size_t n);

/* bsf_metrics_labelled_family over the arrays `labels` and `values`, whose one length is
 * derived and checked at compile time: one value per label. */
#define BSF_METRICS_LABELLED_FAMILY(t, name, type, help, key, labels, values)                    \
    do {                                                                                         \
        _Static_assert(BSF_METRICS_COUNT(labels) == BSF_METRICS_COUNT(values),                   \
                       "one value per label");                                                   \
        bsf_metrics_labelled_family((t), (name), (type), (help), (key), (labels), (values),      \
                                    BSF_METRICS_COUNT(values));                                  \
    } while (0)

/* One series of a histogram (the family lines are written apart, once for all series):
 * "<name>_bucket{[labels,]le=\"%g\"} <cumulative>" for each finite bound, then le="+Inf",
 * "<name>_sum[{labels}] %.<sum_decimals>f" and "<name>_count[{labels}] <count>". */
typedef struct {
    const char *name;
    const char *labels;     /* NULL or "": none; else a rendered set `a="x"` */
    const double *bounds;   /* n_bounds finite upper bounds, ascending */
    size_t n_bounds;
    const uint64_t *counts; /* n_bounds + 1 counts per bucket (not cumulative), +Inf last */
    double sum;
    int sum_decimals;
    uint64_t count;
} bsf_metrics_histogram_t;

void bsf_metrics_histogram(bsf_text_t *t, const bsf_metrics_histogram_t *h);

#endif
