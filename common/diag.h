/* Diagnostics: leveled log lines on stderr, as text ("2026-11-30T03:35:54.123Z INFO sbi: ...")
 * or as JSON lines ({"ts":"…","level":"INFO","module":"sbi","msg":"…"}). A level per module
 * (log.modules) overrides the process-wide one (log.level, also changed at run time); a
 * thread may name the request it works for (the correlation), which every line it writes
 * meanwhile carries. */
#ifndef BSF_COMMON_DIAG_H
#define BSF_COMMON_DIAG_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { BSF_LOG_ERROR = 0, BSF_LOG_WARN, BSF_LOG_INFO, BSF_LOG_DEBUG } bsf_log_level_t;
typedef enum { BSF_LOG_TEXT = 0, BSF_LOG_JSON } bsf_log_format_t;

/* The process-wide level and format: any thread, at any time (atomic). */
void bsf_log_set_level(bsf_log_level_t level);
bsf_log_level_t bsf_log_get_level(void);
void bsf_log_set_format(bsf_log_format_t format);
/* Parses "error", "warn", "info" or "debug". Returns 0 or BSF_EBADINPUT (unknown name;
 * *out unchanged). Any thread. */
int bsf_log_level_parse(const char *s, bsf_log_level_t *out);
/* Parses "text" or "json". Returns 0 or BSF_EBADINPUT (*out unchanged). */
int bsf_log_format_parse(const char *s, bsf_log_format_t *out);
/* The modules that write lines (NULL-terminated), for checks of log.modules. */
extern const char *const bsf_log_modules[];
/* Checks `spec`, "module=level" items separated by ',' or '\n' ("" = none), against the known
 * modules and levels. Returns 0, or BSF_EBADINPUT with the item at fault named in err. Any
 * thread. */
int bsf_log_module_levels_check(const char *spec, char *err, size_t err_cap);
/* Replaces the per-module levels by those of `spec` (checked as above; nothing changes on an
 * error). Any thread (each level is atomic; a line written meanwhile sees the old or the new
 * level of its module). Returns 0 or BSF_EBADINPUT. */
int bsf_log_set_module_levels(const char *spec, char *err, size_t err_cap);
/* Whether a line of `level` from `module` is written. Any thread. */
bool bsf_log_enabled(bsf_log_level_t level, const char *module);
/* The calling thread's correlation (e.g. a request's 3gpp-Sbi-Correlation-Info or a binding
 * id), added to its lines until cleared with NULL. The text is copied (at most 127 bytes). */
void bsf_log_set_correlation(const char *id);
/* Writes one line (one fputs, so lines of threads do not mix). Any thread; never fails
 * (a line that cannot be written is lost). */
void bsf_log(bsf_log_level_t level, const char *module, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define BSF_ERROR(mod, ...) bsf_log(BSF_LOG_ERROR, mod, __VA_ARGS__)
#define BSF_WARN(mod, ...) bsf_log(BSF_LOG_WARN, mod, __VA_ARGS__)
#define BSF_INFO(mod, ...) bsf_log(BSF_LOG_INFO, mod, __VA_ARGS__)
#define BSF_DEBUG(mod, ...)                                                                     \
    do {                                                                                       \
        if (bsf_log_enabled(BSF_LOG_DEBUG, mod))                                               \
            bsf_log(BSF_LOG_DEBUG, mod, __VA_ARGS__);                                          \
    } while (0)

#endif
