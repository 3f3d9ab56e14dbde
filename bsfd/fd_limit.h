/* Descriptors at start-up: the soft RLIMIT_NOFILE is raised to the hard limit, and the SBI
 * connection limit is sized to what the limit leaves after the store, Kafka, Diameter and
 * the ops listener. Main thread, before the servers start. */
#ifndef BSF_BSFD_FD_LIMIT_H
#define BSF_BSFD_FD_LIMIT_H

/* Descriptors kept back for everything but SBI connections. */
#define BSF_FD_RESERVE 256

/* Raises the soft limit to the hard one; returns the soft limit now in force (logs it). */
unsigned long bsf_fd_limit_raise(void);

/* The per-worker connection limit: `configured` (0: none) capped so that `workers` workers
 * together stay within the soft limit minus BSF_FD_RESERVE (at least 1). Logs a cap. */
unsigned bsf_fd_limit_connections(unsigned configured, unsigned workers);

#endif
