/* Values of the TS 29.500 custom headers; see sbi_headers.h. */
#include "gateways/sbi/sbi_headers.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

size_t bsf_sbi_time_format_header(int64_t ms, char out[BSF_SBI_TIME_HEADER_MAX])
{
    static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    if (ms < 0)
        return 0;
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    if (!gmtime_r(&secs, &tm) || tm.tm_year + 1900 > 9999)
        return 0;
    int n = snprintf(out, BSF_SBI_TIME_HEADER_MAX, "%s, %02d %s %04d %02d:%02d:%02d.%03d GMT",
                     days[tm.tm_wday], tm.tm_mday, months[tm.tm_mon], tm.tm_year + 1900,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
    return n < 0 || n >= BSF_SBI_TIME_HEADER_MAX ? 0 : (size_t)n;
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
