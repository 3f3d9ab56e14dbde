/* Socket addresses as text (see sockaddr_text.h). */
#include "common/sockaddr_text.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>

void bsf_sockaddr_format(const struct sockaddr_storage *ss, char *out, size_t cap)
{
    char ip[INET6_ADDRSTRLEN];
    int n = -1;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        if (inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip))
            n = snprintf(out, cap, "%s:%u", ip, ntohs(a->sin_port));
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        if (inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip))
            n = snprintf(out, cap, "[%s]:%u", ip, ntohs(a->sin6_port));
    }
    if (cap && (n < 0 || (size_t)n >= cap))
        out[0] = '\0';
}
