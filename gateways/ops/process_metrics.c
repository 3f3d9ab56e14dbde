#include "gateways/ops/process_metrics.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/metrics_text.h"
#include "common/version.h"

typedef struct {
    unsigned long long utime, stime, starttime, vsize;
    long long rss;
} proc_stat_t;

/* /proc/self/stat: fields 14, 15 (user, system ticks), 22 (start, ticks after boot), 23
 * (virtual size, bytes), 24 (resident pages). The command name (field 2) may hold spaces and
 * parentheses, so parsing starts after its last ')'. Returns 0 or -1. */
static int read_stat(proc_stat_t *st)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "re");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    /* after ")": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt(13) */
    int got = sscanf(p + 1,
                     " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d "
                     "%*d %*d %llu %llu %lld",
                     &st->utime, &st->stime, &st->starttime, &st->vsize, &st->rss);
    return got == 5 ? 0 : -1;
}

/* Boot time (seconds since the epoch), the `btime` line of /proc/stat; 0 when unknown. */
static unsigned long long boot_time(void)
{
    FILE *f = fopen("/proc/stat", "re");
    if (!f)
        return 0;
    char line[256];
    unsigned long long btime = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "btime %llu", &btime) == 1)
            break;
    fclose(f);
    return btime;
}

/* Entries of /proc/self/fd, less the one opendir holds; -1 when unreadable. */
static long open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1;
}

static void write_stat(bsf_text_t *out)
{
    proc_stat_t st;
    if (read_stat(&st))
        return;
    double tick = (double)sysconf(_SC_CLK_TCK), page = (double)sysconf(_SC_PAGESIZE);
    bsf_metrics_double_family(out, "process_cpu_seconds_total", "counter",
                              "User and system CPU time spent.", 2,
                              (double)(st.utime + st.stime) / tick);
    bsf_metrics_double_family(out, "process_resident_memory_bytes", "gauge",
                              "Resident memory size.", 0, (double)st.rss * page);
    bsf_metrics_u64_family(out, "process_virtual_memory_bytes", "gauge", "Virtual memory size.",
                           st.vsize);
    unsigned long long btime = boot_time();
    if (btime)
        bsf_metrics_double_family(out, "process_start_time_seconds", "gauge",
                                  "Start time of the process since the epoch.", 2,
                                  (double)btime + (double)st.starttime / tick);
}

void bsf_process_metrics_write(bsf_text_t *out)
{
    /* The label value is ours (digits, letters, '.', '+'): no escaping needed. */
    bsf_metrics_family(out, "bsf_build_info", "gauge", "The running build; the value is always 1.");
    bsf_metrics_u64_label(out, "bsf_build_info", "version", bsf_version(), 1);
    write_stat(out);
    long fds = open_fds();
    if (fds >= 0)
        bsf_metrics_u64_family(out, "process_open_fds", "gauge", "Open file descriptors.",
                               (uint64_t)fds);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        bsf_metrics_u64_family(out, "process_max_fds", "gauge",
                               "Maximum number of open file descriptors.", rl.rlim_cur);
}
