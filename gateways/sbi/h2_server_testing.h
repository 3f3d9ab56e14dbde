/* For fuzz targets and tests only: one HTTP/2 server connection driven without a listener.
 * The bytes are fed, in chunks of `chunk` bytes (0: all at once), through the same nghttp2
 * session, callbacks, request assembly, limits and handler calls as a real connection; the
 * server's output goes to a socketpair and is discarded. Runs on the calling thread, which
 * must not be a worker. Returns 0; 1 when memory is still accounted to the connection after
 * it closed (a leak); -1 when the set-up failed (no memory, descriptors). */
#ifndef BSF_GATEWAYS_SBI_H2_SERVER_TESTING_H
#define BSF_GATEWAYS_SBI_H2_SERVER_TESTING_H

#include "gateways/sbi/h2_server.h"

int bsf_h2_server_feed_for_testing(const bsf_h2_config_t *cfg, const bsf_h2_handler_t *handler,
                                   const uint8_t *data, size_t len, size_t chunk);

#endif
