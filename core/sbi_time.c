#include "core/sbi_time.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int parse_digits(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

static int month_index(const char *s)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    for (int i = 0; i < 12; i++)
        if (memcmp(months + 3 * i, s, 3) == 0)
            return i;
    return -1;
}

int64_t bsf_sbi_time_parse(const char *s, size_t n)
{
    /* "Sun, 04 Aug 2019 08:49:37[.845] GMT" */
    if (n < 29 || s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' || s[16] != ' ' ||
        s[19] != ':' || s[22] != ':')
        return -1;
    int day = parse_digits(s + 5, 2), mon = month_index(s + 8), year = parse_digits(s + 12, 4);
    int hh = parse_digits(s + 17, 2), mm = parse_digits(s + 20, 2), ss = parse_digits(s + 23, 2);
    if (day < 1 || day > 31 || mon < 0 || year < 0 || hh < 0 || hh > 23 || mm < 0 || mm > 59 ||
        ss < 0 || ss > 60)
        return -1;
    size_t i = 25;
    int ms = 0;
    if (s[i] == '.') {
        if (n < i + 4)
            return -1;
        ms = parse_digits(s + i + 1, 3);
        if (ms < 0)
            return -1;
        i += 4;
    }
    if (n != i + 4 || s[i] != ' ')
        return -1;
    const char *zone = s + i + 1;
    int offset_min;
    if (memcmp(zone, "GMT", 3) == 0 || memcmp(zone, "UTC", 3) == 0)
        offset_min = 0;
    else if (memcmp(zone, "IST", 3) == 0)
        offset_min = 330;
    else if (memcmp(zone, "PST", 3) == 0)
        offset_min = -480;
    else
        return -1;
    struct tm tm = {.tm_year = year - 1900, .tm_mon = mon, .tm_mday = day,
                    .tm_hour = hh, .tm_min = mm, .tm_sec = ss};
    int64_t secs = (int64_t)timegm(&tm) - (int64_t)offset_min * 60;
    return secs * 1000 + ms;
}

int64_t bsf_rfc3339_parse_ms(const char *s, size_t n)
{
    /* YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM) */
    if (n < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
        s[13] != ':' || s[16] != ':')
        return -1;
    int y = parse_digits(s, 4), mo = parse_digits(s + 5, 2), d = parse_digits(s + 8, 2), h = parse_digits(s + 11, 2),
        mi = parse_digits(s + 14, 2), se = parse_digits(s + 17, 2);
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 ||
        mi > 59 || se < 0 || se > 60)
        return -1;
    size_t i = 19;
    int ms = 0, scale = 100;
    if (i < n && s[i] == '.') {
        size_t start = ++i;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, scale /= 10)
            ms += scale > 0 ? (s[i] - '0') * scale : 0;
        if (i == start)
            return -1;
    }
    int offset_min = 0;
    if (i + 1 == n && (s[i] == 'Z' || s[i] == 'z')) {
        offset_min = 0;
    } else if (i + 6 == n && (s[i] == '+' || s[i] == '-') && s[i + 3] == ':') {
        int oh = parse_digits(s + i + 1, 2), om = parse_digits(s + i + 4, 2);
        if (oh < 0 || oh > 23 || om < 0 || om > 59)
            return -1;
        offset_min = (oh * 60 + om) * (s[i] == '-' ? -1 : 1);
    } else {
        return -1;
    }
    struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d, .tm_hour = h,
                    .tm_min = mi, .tm_sec = se};
    int64_t secs = (int64_t)timegm(&tm) - (int64_t)offset_min * 60;
    return secs < 0 ? -1 : secs * 1000 + ms;
}
