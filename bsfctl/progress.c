#include "bsfctl/progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"

#define BAR_WIDTH 30
#define REDRAW_NS 100000000u

static void format_duration(double secs, char *out, size_t cap)
{
    unsigned long s = secs > 0 ? (unsigned long)(secs + 0.5) : 0;
    if (s >= 3600)
        snprintf(out, cap, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf(out, cap, "%lu:%02lu", s / 60, s % 60);
}

void bsfctl_progress_format(const char *label, uint64_t done, uint64_t total, double secs,
                            char *out, size_t cap)
{
    double rate = secs > 0 ? (double)done / secs : 0;
    if (!total) {
        snprintf(out, cap, "%s %llu events  %.0f/s", label, (unsigned long long)done, rate);
        return;
    }
    uint64_t shown = done < total ? done : total;
    char bar[BAR_WIDTH + 1], eta[32] = "?";
    size_t full = (size_t)(shown * BAR_WIDTH / total);
    memset(bar, '#', full);
    memset(bar + full, '.', BAR_WIDTH - full);
    bar[BAR_WIDTH] = '\0';
    if (rate > 0)
        format_duration((double)(total - shown) / rate, eta, sizeof eta);
    snprintf(out, cap, "%s [%s] %3u%%  %llu/%llu events  %.0f/s  ETA %s", label, bar,
             (unsigned)(shown * 100 / total), (unsigned long long)done,
             (unsigned long long)total, rate, eta);
}

void bsfctl_progress_start(bsfctl_progress_t *p, const char *label, uint64_t total)
{
    *p = (bsfctl_progress_t){.label = label, .total = total, .t0_ns = bsf_clock_mono_ns(),
                             .tty = isatty(STDERR_FILENO) == 1};
}

void bsfctl_progress_add(bsfctl_progress_t *p, uint64_t n)
{
    p->done += n;
    if (!p->tty)
        return;
    uint64_t now = bsf_clock_mono_ns();
    if (p->drawn && now - p->drawn_ns < REDRAW_NS)
        return;
    char line[256];
    bsfctl_progress_format(p->label, p->done, p->total, (double)(now - p->t0_ns) / 1e9, line,
                           sizeof line);
    fprintf(stderr, "\r%s\033[K", line);
    p->drawn = true;
    p->drawn_ns = now;
}

void bsfctl_progress_end(bsfctl_progress_t *p)
{
    if (p->tty && p->drawn)
        fprintf(stderr, "\r\033[K");
    p->drawn = false;
}
