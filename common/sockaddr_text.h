/* Socket addresses as text for logs, metrics labels and the message feed. */
#ifndef BSF_COMMON_SOCKADDR_TEXT_H
#define BSF_COMMON_SOCKADDR_TEXT_H

#include <stddef.h>
#include <sys/socket.h>

/* Longest text with its NUL: "[v6 address]:65535". */
#define BSF_SOCKADDR_TEXT_MAX 64

/* Writes "a.b.c.d:port" or "[v6]:port" into out (empty for other families or when it does
 * not fit). */
void bsf_sockaddr_format(const struct sockaddr_storage *ss, char *out, size_t cap);

#endif
