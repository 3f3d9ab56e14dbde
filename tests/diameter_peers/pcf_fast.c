/* pcf_fast: a cheap fake PCF for benchmarks. One process, one thread, no freeDiameter: it
 * serves several Diameter identities, each on its own listening port, and answers every
 * AAR and STR with 2001 at once.
 *
 *   pcf_fast --realm R --serve ID@ADDR:PORT [--serve ID@ADDR:PORT]... [--no-nodelay]
 *
 * Each accepted connection is one neighbour (normally the BSF): CER gets a CEA advertising
 * Rx (16777236, vendor 10415) with the identity of the port, DWR a DWA, DPR a DPA (then the
 * connection is closed). AAR gets an AAA and STR an STA: Session-Id copied, Result-Code
 * 2001, Auth-Application-Id 16777236, Origin-Host / Origin-Realm of the identity, the P bit
 * copied, the same Hop-by-Hop and End-to-End ids. Any other request gets 3001
 * DIAMETER_COMMAND_UNSUPPORTED (E bit). Answers the peer sends are ignored (pcf_fast sends
 * no request). No session table, no checks of the requests' content, no records: for the
 * functional PCF use pcf_peer.
 *
 * The answers to everything read in one go are written in one go. TCP_NODELAY is set on
 * the connections (--no-nodelay leaves Nagle's algorithm on, as freeDiameter does).
 * SIGINT / SIGTERM stop it; it then prints its counters on stderr. Exit codes: 0, 1 start-up
 * error, 2 bad command line. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rawdiam.h"

#define MAX_SERVE 128
#define M RD_AVP_MANDATORY

typedef struct {
    char identity[256];
    struct sockaddr_in addr;
    int fd;
    unsigned long answers;
} serve_t;

typedef struct {
    serve_t *serve;
    int fd;
    uint8_t *in;
    size_t in_len, in_cap;
    rd_buf_t out;
    bool want_out, closing;
} conn_t;

static serve_t serves[MAX_SERVE]; /* epoll data: a serve_t (listening socket) or a conn_t */
static volatile sig_atomic_t stop;
static const char *realm;
static bool nodelay = true;
static int ep;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: pcf_fast --realm R --serve ID@ADDR:PORT [--serve ...] [--no-nodelay]\n");
}

static int parse_serve(const char *arg, serve_t *s)
{
    const char *at = strchr(arg, '@'), *colon = strrchr(arg, ':');
    if (!at || !colon || colon < at || (size_t)(at - arg) >= sizeof s->identity || at == arg)
        return -1;
    memcpy(s->identity, arg, (size_t)(at - arg));
    s->identity[at - arg] = '\0';
    char host[64];
    size_t n = (size_t)(colon - at - 1);
    if (n == 0 || n >= sizeof host)
        return -1;
    memcpy(host, at + 1, n);
    host[n] = '\0';
    char *end = NULL;
    long port = strtol(colon + 1, &end, 10);
    memset(&s->addr, 0, sizeof s->addr);
    s->addr.sin_family = AF_INET;
    s->addr.sin_port = htons((uint16_t)port);
    if (*end || port <= 0 || port > 65535 || inet_pton(AF_INET, host, &s->addr.sin_addr) != 1)
        return -1;
    return 0;
}

static void answer_cea(conn_t *c, const rd_header_t *h, const uint8_t *msg)
{
    rd_buf_t *b = &c->out;
    size_t start = rd_capabilities(b, h, c->serve->identity, realm, &c->serve->addr.sin_addr,
                                   "pcf_fast");
    const uint8_t *d;
    size_t dl;
    if (rd_find(msg, h->length, RD_AVP_INBAND_SECURITY, 0, &d, &dl))
        rd_avp_u32(b, RD_AVP_INBAND_SECURITY, M, 0, 0); /* NO_INBAND_SECURITY, as asked */
    rd_end(b, start);
}

/* AAA / STA (2001), or 3001 with the E bit for any other request. */
static void answer_rx(conn_t *c, const rd_header_t *h, const uint8_t *msg)
{
    bool known = h->code == RD_CC_AAR || h->code == RD_CC_STR;
    rd_buf_t *b = &c->out;
    uint8_t flags = (uint8_t)((h->flags & RD_FLAG_PROXIABLE) | (known ? 0 : RD_FLAG_ERROR));
    size_t start = rd_begin(b, flags, h->code, h->app, h->hbh, h->e2e);
    const uint8_t *sid;
    size_t sid_len;
    if (rd_find(msg, h->length, RD_AVP_SESSION_ID, 0, &sid, &sid_len))
        rd_avp(b, RD_AVP_SESSION_ID, M, 0, sid, sid_len);
    if (known)
        rd_avp_u32(b, RD_AVP_AUTH_APP_ID, M, 0, RD_RX_APP);
    rd_origin(b, c->serve->identity, realm);
    rd_avp_u32(b, RD_AVP_RESULT_CODE, M, 0, known ? 2001 : 3001);
    rd_end(b, start);
    c->serve->answers++;
}

static void handle(conn_t *c, const uint8_t *msg, const rd_header_t *h)
{
    if (!(h->flags & RD_FLAG_REQUEST))
        return;
    switch (h->code) {
    case RD_CC_CER:
        answer_cea(c, h, msg);
        break;
    case RD_CC_DWR:
        rd_answer_base(&c->out, h, c->serve->identity, realm);
        break;
    case RD_CC_DPR:
        rd_answer_base(&c->out, h, c->serve->identity, realm);
        c->closing = true;
        break;
    default:
        answer_rx(c, h, msg);
        break;
    }
}

static void conn_close(conn_t *c)
{
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c->in);
    rd_buf_free(&c->out);
    free(c);
}

static void set_events(conn_t *c, bool want_out)
{
    if (want_out == c->want_out)
        return;
    struct epoll_event ev = {.events = EPOLLIN | (want_out ? EPOLLOUT : 0u), .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
    c->want_out = want_out;
}

/* Writes what is pending; returns -1 when the connection is to be closed. */
static int flush(conn_t *c)
{
    if (rd_write(c->fd, &c->out))
        return -1;
    set_events(c, c->out.len > 0);
    return c->closing && c->out.len == 0 ? -1 : 0;
}

/* Reads what is there and answers every complete message; -1: close. */
static int on_readable(conn_t *c)
{
    for (;;) {
        ssize_t n = rd_read(c->fd, &c->in, &c->in_len, &c->in_cap, 4096, 65536);
        if (n > 0)
            continue;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        return -1; /* closed or failed */
    }
    size_t at = 0;
    while (c->in_len - at >= RD_HEADER_LEN && !c->closing) {
        rd_header_t h;
        if (!rd_header(c->in + at, &h))
            return -1;
        if (c->in_len - at < h.length)
            break;
        handle(c, c->in + at, &h);
        at += h.length;
    }
    memmove(c->in, c->in + at, c->in_len - at);
    c->in_len -= at;
    return flush(c);
}

static void on_accept(serve_t *s)
{
    for (;;) {
        int fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        int one = 1;
        if (nodelay)
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conn_t *c = calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            continue;
        }
        c->serve = s;
        c->fd = fd;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
            close(fd);
            free(c);
        }
    }
}

int main(int argc, char **argv)
{
    size_t n_serve = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--realm") == 0 && i + 1 < argc) {
            realm = argv[++i];
        } else if (strcmp(argv[i], "--serve") == 0 && i + 1 < argc && n_serve < MAX_SERVE) {
            if (parse_serve(argv[++i], &serves[n_serve++]) != 0) {
                fprintf(stderr, "pcf_fast: bad --serve %s (ID@ADDR:PORT, IPv4)\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--no-nodelay") == 0) {
            nodelay = false;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!realm || !n_serve) {
        usage(stderr);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    ep = epoll_create1(EPOLL_CLOEXEC);
    for (size_t i = 0; i < n_serve; i++) {
        serve_t *s = &serves[i];
        int one = 1;
        s->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (s->fd < 0 || setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
            bind(s->fd, (struct sockaddr *)&s->addr, sizeof s->addr) != 0 ||
            listen(s->fd, 64) != 0) {
            fprintf(stderr, "pcf_fast: cannot listen for %s: %s\n", s->identity, strerror(errno));
            return 1;
        }
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = s};
        epoll_ctl(ep, EPOLL_CTL_ADD, s->fd, &ev);
    }
    struct epoll_event evs[64];
    while (!stop) {
        int n = epoll_wait(ep, evs, 64, 200);
        for (int i = 0; i < n; i++) {
            void *p = evs[i].data.ptr;
            if (p >= (void *)serves && p < (void *)(serves + MAX_SERVE)) {
                on_accept(p);
                continue;
            }
            conn_t *c = p;
            int rc = 0;
            if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                rc = on_readable(c);
            else if (evs[i].events & EPOLLOUT)
                rc = flush(c);
            if (rc)
                conn_close(c);
        }
    }
    for (size_t i = 0; i < n_serve; i++)
        fprintf(stderr, "pcf_fast: %s answered %lu requests\n", serves[i].identity,
                serves[i].answers);
    return 0;
}
