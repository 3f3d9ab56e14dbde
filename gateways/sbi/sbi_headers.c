/* Values of the TS 29.500 custom headers; see sbi_headers.h. */
#include "gateways/sbi/sbi_headers.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* IMF-fixdate with `ms` milliseconds (ms < 0: none). Day and month names by hand: strftime's
 * follow the locale. */
static size_t imf_fixdate(int64_t secs, int ms, char out[BSF_SBI_TIME_HEADER_MAX])
{
    static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    if (secs < 0)
        return 0;
    time_t t = (time_t)secs;
    struct tm tm;
    if (!gmtime_r(&t, &tm) || tm.tm_year + 1900 > 9999)
        return 0;
    char frac[8] = "";
    if (ms >= 0)
        snprintf(frac, sizeof frac, ".%03d", ms);
    int n = snprintf(out, BSF_SBI_TIME_HEADER_MAX, "%s, %02d %s %04d %02d:%02d:%02d%s GMT",
                     days[tm.tm_wday], tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
    return n < 0 || n >= BSF_SBI_TIME_HEADER_MAX ? 0 : (size_t)n;
}

size_t bsf_sbi_time_format_header(int64_t ms, char out[BSF_SBI_TIME_HEADER_MAX])
{
    return ms < 0 ? 0 : imf_fixdate(ms / 1000, (int)(ms % 1000), out);
}

size_t bsf_sbi_http_date(int64_t secs, char out[BSF_SBI_TIME_HEADER_MAX])
{
    return imf_fixdate(secs, -1, out);
}

size_t bsf_sbi_user_agent(const char *nf_instance_id, const char *fqdn, char *out, size_t cap)
{
    int n = fqdn && *fqdn ? snprintf(out, cap, "BSF-%s %s", nf_instance_id, fqdn)
                          : snprintf(out, cap, "BSF-%s", nf_instance_id);
    return n < 0 || (size_t)n >= cap ? 0 : (size_t)n;
}

bool bsf_sbi_priority_valid(int priority)
{
    return priority >= 0 && priority <= 31;
}

bool bsf_sbi_header_value_valid(const char *v, size_t max)
{
    size_t n = strnlen(v, max + 1);
    if (n > max)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)v[i];
        if ((ch < ' ' && ch != '\t') || ch == 0x7f)
            return false;
    }
    return true;
}
