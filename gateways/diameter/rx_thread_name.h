/* Names freeDiameter's threads after their role, from the callbacks libfdcore runs on them,
 * so that `top -H`, `ps -L` and /proc/PID/task/TID/comm tell them apart (libfdcore leaves
 * them all named after the process). One thread-local test per call once named. */
#ifndef BSF_GATEWAYS_DIAMETER_RX_THREAD_NAME_H
#define BSF_GATEWAYS_DIAMETER_RX_THREAD_NAME_H

#define BSF_RX_THREAD_RECEIVER "fd-receiver" /* reads one connection */
#define BSF_RX_THREAD_PEER "fd-peer"         /* a neighbour's state machine: parses */
#define BSF_RX_THREAD_ROUTING_IN "fd-routing-in"
#define BSF_RX_THREAD_DISPATCH "fd-dispatch"
#define BSF_RX_THREAD_ROUTING_OUT "fd-routing-out"
#define BSF_RX_THREAD_SENDER "fd-sender" /* writes to one connection */

/* Names the calling thread `role` (one of the above; at most 15 characters) unless it
 * already has that name. */
void bsf_rx_thread_name(const char *role);

#endif
