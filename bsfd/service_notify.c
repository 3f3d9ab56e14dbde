#include "bsfd/service_notify.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/diag.h"
#include "common/error.h"

#ifdef BSF_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>

static void notify(const char *state)
{
    int rc = sd_notify(0, state);
    if (rc < 0)
        BSF_WARN("bsfd", "sd_notify(%s): %s", state, bsf_strerror(-rc));
}

/* The watchdog period in microseconds, 0 without one. */
static uint64_t watchdog_usec(void)
{
    uint64_t usec = 0;
    return sd_watchdog_enabled(0, &usec) > 0 ? usec : 0;
}
#else
static void notify(const char *state)
{
    (void)state;
}

static uint64_t watchdog_usec(void)
{
    return 0;
}
#endif

void bsf_service_notify_ready(void)
{
    notify("READY=1\nSTATUS=serving");
}

void bsf_service_notify_stopping(void)
{
    notify("STOPPING=1\nSTATUS=stopping");
}

void bsf_service_notify_status(const char *status)
{
    char line[256];
    snprintf(line, sizeof line, "STATUS=%s", status);
    notify(line);
}

int bsf_service_notify_wait(const sigset_t *signals)
{
    uint64_t usec = watchdog_usec();
    if (!usec) {
        int sig = 0;
        sigwait(signals, &sig);
        return sig;
    }
    BSF_INFO("bsfd", "systemd watchdog every %llu ms", (unsigned long long)usec / 1000u);
    uint64_t half = usec / 2;
    struct timespec period = {.tv_sec = (time_t)(half / 1000000u),
                              .tv_nsec = (long)(half % 1000000u) * 1000};
    for (;;) {
        notify("WATCHDOG=1");
        int sig = sigtimedwait(signals, NULL, &period);
        if (sig > 0)
            return sig;
        if (errno != EAGAIN && errno != EINTR)
            BSF_WARN("bsfd", "sigtimedwait: %s", bsf_strerror(errno));
    }
}
