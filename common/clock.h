/* Clocks: wall time for timestamps, monotonic time for timeouts and measurements. */
#ifndef BSF_COMMON_CLOCK_H
#define BSF_COMMON_CLOCK_H

#include <stdint.h>

/* Never fail; any thread. Deadlines and timed waits: common/deadline.h. */
uint64_t bsf_clock_wall_ms(void);
uint64_t bsf_clock_mono_ns(void);

#endif
