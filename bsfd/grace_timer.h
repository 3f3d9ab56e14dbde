/* The bound on a stop (seed §3.40, shutdown.grace_period): once armed, the process exits with
 * status 1 when the stop has not finished in time, whatever it waits for. Main thread. */
#ifndef BSF_BSFD_GRACE_TIMER_H
#define BSF_BSFD_GRACE_TIMER_H

#include <stdint.h>

/* Arms the timer: a detached thread that logs and calls _exit(1) after `ms` milliseconds.
 * Returns 0, or -1 when the thread cannot start (the stop is then unbounded; logged). */
int bsf_grace_timer_arm(uint64_t ms);

#endif
