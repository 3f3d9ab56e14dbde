/* The bound on a stop (seed §3.40, shutdown.grace_period): once armed, the process exits with
 * status 1 when the stop has not finished in time, whatever it waits for. */
#ifndef BSF_BSFD_GRACE_TIMER_H
#define BSF_BSFD_GRACE_TIMER_H

#include <stdint.h>

/* The period the next bsf_grace_timer_arm uses (shutdown.grace_period; 30 s until set). Any
 * thread: it changes at run time. */
void bsf_grace_timer_set_period(uint64_t ms);
uint64_t bsf_grace_timer_period(void);
/* Arms the timer: a detached thread that logs and calls _exit(1) after the period. Returns 0,
 * or -1 when the thread cannot start (the stop is then unbounded; logged). */
int bsf_grace_timer_arm(void);

#endif
