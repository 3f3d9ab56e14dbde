/* `diameter.cpus`: the CPUs the Diameter node's threads may run on, as a list of CPU
 * numbers and ranges ("0", "2-3"). Pure. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_CPUS_H
#define BSF_GATEWAYS_DIAMETER_RX_CPUS_H

#include <sched.h>
#include <stddef.h>

/* Parses the list (items separated by '\n', as the configuration stores lists) into *out.
 * Returns the number of CPUs in the set (0 for an empty list), or -1 with the reason in
 * why. */
int bsf_rx_cpus_parse(const char *list, cpu_set_t *out, char *why, size_t cap);

#endif
