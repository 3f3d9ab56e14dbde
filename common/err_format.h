/* A reason for a failure, formatted into the caller's buffer, in one call that also gives
 * the failure's code back: `return bsf_err_format(err, cap, -EINVAL, "bad %s", what);` (the code is returned as
 * given, in the caller's convention: common/error.h's 0 or a negative code).
 *
 * Header-only (static inline) so that code built without the product's libraries (the
 * standalone Rx test peers, which compile gateways/diameter/rx_dict.c on its own) uses the
 * same function. Any thread; the buffer is the caller's. */
#ifndef BSF_COMMON_ERR_FORMAT_H
#define BSF_COMMON_ERR_FORMAT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Writes the formatted text into err[cap] (truncated to fit, always terminated); nothing when
 * err is NULL or cap is 0. */
static inline void bsf_err_vformat(char *err, size_t cap, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static inline void bsf_err_vformat(char *err, size_t cap, const char *fmt, va_list ap)
{
    if (err && cap)
        vsnprintf(err, cap, fmt, ap);
}

/* The same with the arguments inline. Returns `code`, unchanged. */
static inline int bsf_err_format(char *err, size_t cap, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline int bsf_err_format(char *err, size_t cap, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bsf_err_vformat(err, cap, fmt, ap);
    va_end(ap);
    return code;
}

#endif
