/* An IPv4 or IPv6 literal ("127.0.0.1", "::1") as a socket address, for code that hands
 * addresses to a library (freeDiameter's endpoint list) rather than to connect or bind.
 *
 * Header-only (static inline) so that the standalone Rx test peers, built without the
 * product's libraries, use the same parse. Any thread; touches the caller's memory only. */
#ifndef BSF_COMMON_IP_LITERAL_H
#define BSF_COMMON_IP_LITERAL_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

/* Writes `text` into *ss (zeroed first; port 0). Returns the length of the address written
 * (sizeof a sockaddr_in or sockaddr_in6), or 0 when `text` is neither literal (*ss zeroed). */
static inline socklen_t bsf_ip_literal_parse(const char *text, struct sockaddr_storage *ss)
{
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    memset(ss, 0, sizeof *ss);
    if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        return sizeof *v4;
    }
    if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        return sizeof *v6;
    }
    memset(ss, 0, sizeof *ss); /* a failed inet_pton may have written part of it */
    return 0;
}

#endif
