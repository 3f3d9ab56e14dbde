/* Diagnostics: leveled log lines on stderr ("2026-11-30T03:35:54.123Z INFO sbi: ...").
 * The level is process-wide: set at start-up and by a run-time change of log.level. */
#ifndef BSF_COMMON_DIAG_H
#define BSF_COMMON_DIAG_H

typedef enum { BSF_LOG_ERROR = 0, BSF_LOG_WARN, BSF_LOG_INFO, BSF_LOG_DEBUG } bsf_log_level_t;

void bsf_log_set_level(bsf_log_level_t level);
bsf_log_level_t bsf_log_get_level(void);
/* Parses "error", "warn", "info" or "debug". Returns 0 or BSF_EBADINPUT (unknown name;
 * *out unchanged). Any thread. */
int bsf_log_level_parse(const char *s, bsf_log_level_t *out);
/* Writes one line (one fputs, so lines of threads do not mix). Any thread; never fails
 * (a line that cannot be written is lost). */
void bsf_log(bsf_log_level_t level, const char *module, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define BSF_ERROR(mod, ...) bsf_log(BSF_LOG_ERROR, mod, __VA_ARGS__)
#define BSF_WARN(mod, ...) bsf_log(BSF_LOG_WARN, mod, __VA_ARGS__)
#define BSF_INFO(mod, ...) bsf_log(BSF_LOG_INFO, mod, __VA_ARGS__)
#define BSF_DEBUG(mod, ...)                                                                     \
    do {                                                                                       \
        if (bsf_log_get_level() >= BSF_LOG_DEBUG)                                              \
            bsf_log(BSF_LOG_DEBUG, mod, __VA_ARGS__);                                          \
    } while (0)

#endif
