/* The service manager's protocol (systemd's sd_notify, libsystemd): READY=1 once bsfd serves
 * (after the Kafka catch-up), STATUS= lines, STOPPING=1, and WATCHDOG=1 keep-alives while the
 * main thread waits for a stop signal. Without NOTIFY_SOCKET (not run by systemd, or built
 * without libsystemd) every call does nothing. Main thread only. */
#ifndef BSF_BSFD_SERVICE_NOTIFY_H
#define BSF_BSFD_SERVICE_NOTIFY_H

#include <signal.h>

void bsf_service_notify_ready(void);
void bsf_service_notify_stopping(void);
/* A free-form status line (systemctl status shows it). */
void bsf_service_notify_status(const char *status);
/* Waits for one of `signals` (blocked in every thread) and returns it. With a watchdog
 * (WatchdogSec=, WATCHDOG_USEC) it wakes at half the period to send WATCHDOG=1: a main
 * thread that hangs (e.g. in a shutdown that does not end) gets the process restarted. */
int bsf_service_notify_wait(const sigset_t *signals);

#endif
