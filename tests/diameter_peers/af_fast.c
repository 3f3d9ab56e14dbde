/* af_fast: a cheap fake AF (P-CSCF) load generator for benchmarks. One process, one thread,
 * one connection, no freeDiameter: it does CER/CEA with the BSF, runs a closed-loop load and
 * prints one JSON report, then leaves with DPR/DPA.
 *
 *   af_fast --identity ID --realm R --connect ADDR:PORT --dest-realm R --n N --ip A.B.C.D
 *           [--count K] [--mix] [--window W] [--timeout-ms T] [--no-media]
 *
 * `window` request chains run at once. Each takes the next session: an AAR-I (Framed-IP-
 * Address = --ip + i modulo --count) and, with --mix, on a 2001 answer an AAR-U and then an
 * STR (the Oracle mix AAR-I : AAR-U+STR = 1 : 2). The requests carry what af_peer's load
 * mode puts in them (AF-Application-Identifier, one Media-Component-Description with two flow
 * filters and codec data unless --no-media, Rx-Request-Type), so the BSF parses the same
 * messages. DWR gets a DWA. A request unanswered after --timeout-ms (10000) counts as a
 * timeout and its chain goes on with the next session.
 *
 * The report has af_peer's load-report members: sessions, requests, answers, timeouts,
 * elapsed_s, answers_per_s, latency_ms {p50, p90, p99, max, mean}, result_codes, and
 * cpu {user_s, sys_s, us_per_answer} of this process. Exit codes: 0, 1 connection or
 * protocol failure, 2 bad command line. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rawdiam.h"

#define MAX_WINDOW 1024u /* chain index in the low 10 bits of the Hop-by-Hop id */

#define AVP_FRAMED_IP 8u
/* TS 29.214 (vendor 10415) */
#define AVP_AF_APP_ID 504u
#define AVP_MEDIA_COMPONENT 517u
#define AVP_MEDIA_COMPONENT_NUMBER 518u
#define AVP_MEDIA_SUB_COMPONENT 519u
#define AVP_FLOW_NUMBER 509u
#define AVP_FLOW_DESCRIPTION 507u
#define AVP_FLOW_USAGE 512u
#define AVP_MEDIA_TYPE 520u
#define AVP_MAX_BW_UL 516u
#define AVP_MAX_BW_DL 515u
#define AVP_FLOW_STATUS 511u
#define AVP_CODEC_DATA 524u
#define AVP_RX_REQUEST_TYPE 533u

#define M RD_AVP_MANDATORY
#define V3 RD_VENDOR_3GPP

typedef struct {
    const char *identity, *realm, *dest_realm;
    struct sockaddr_in peer;
    uint64_t sessions;
    bool mix, media;
    uint32_t window, timeout_ms, count;
    uint32_t ip_base; /* host order */
} options_t;

typedef struct {
    bool busy;
    uint64_t session; /* index of the chain's current session */
    int step;         /* 0 AAR-I, 1 AAR-U, 2 STR */
    uint32_t hbh;
    uint64_t sent_ns;
} chain_t;

typedef struct {
    options_t o;
    int fd;
    uint32_t boot; /* Session-Id part that differs between runs */
    chain_t chains[MAX_WINDOW];
    uint64_t next_session, requests, answers, timeouts, seq;
    double *latency_ms;
    size_t n_latency, cap_latency;
    uint64_t codes[6000]; /* result codes 0..5999 */
    uint64_t other_codes;
    rd_buf_t out;
    uint8_t *in;
    size_t in_len, in_cap;
} af_t;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: af_fast --identity ID --realm R --connect ADDR:PORT --dest-realm R --n N "
               "--ip A.B.C.D [--count K] [--mix] [--window W] [--timeout-ms T] [--no-media]\n");
}

static bool parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || !*s || *end || v < lo || v > hi)
        return false;
    *out = (uint32_t)v;
    return true;
}

static int parse_args(int argc, char **argv, options_t *o)
{
    memset(o, 0, sizeof *o);
    o->window = 64;
    o->timeout_ms = 10000;
    o->media = true;
    o->count = 0;
    bool have_peer = false, have_ip = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint32_t n32;
        if (strcmp(a, "--mix") == 0) {
            o->mix = true;
        } else if (strcmp(a, "--no-media") == 0) {
            o->media = false;
        } else if (!v) {
            return -1;
        } else if (strcmp(a, "--identity") == 0) {
            o->identity = argv[++i];
        } else if (strcmp(a, "--realm") == 0) {
            o->realm = argv[++i];
        } else if (strcmp(a, "--dest-realm") == 0) {
            o->dest_realm = argv[++i];
        } else if (strcmp(a, "--n") == 0) {
            char *end = NULL;
            o->sessions = strtoull(v, &end, 10);
            if (*end || !o->sessions)
                return -1;
            i++;
        } else if (strcmp(a, "--window") == 0 && parse_u32(v, 1, MAX_WINDOW, &n32)) {
            o->window = n32;
            i++;
        } else if (strcmp(a, "--timeout-ms") == 0 && parse_u32(v, 1, 3600000, &n32)) {
            o->timeout_ms = n32;
            i++;
        } else if (strcmp(a, "--count") == 0 && parse_u32(v, 1, UINT32_MAX, &n32)) {
            o->count = n32;
            i++;
        } else if (strcmp(a, "--ip") == 0) {
            struct in_addr in;
            if (inet_pton(AF_INET, v, &in) != 1)
                return -1;
            o->ip_base = ntohl(in.s_addr);
            have_ip = true;
            i++;
        } else if (strcmp(a, "--connect") == 0) {
            char host[64];
            const char *colon = strrchr(v, ':');
            if (!colon || (size_t)(colon - v) >= sizeof host || !parse_u32(colon + 1, 1, 65535, &n32))
                return -1;
            memcpy(host, v, (size_t)(colon - v));
            host[colon - v] = '\0';
            o->peer.sin_family = AF_INET;
            o->peer.sin_port = htons((uint16_t)n32);
            if (inet_pton(AF_INET, host, &o->peer.sin_addr) != 1)
                return -1;
            have_peer = true;
            i++;
        } else {
            return -1;
        }
    }
    if (!o->identity || !o->realm || !o->dest_realm || !o->sessions || !have_peer || !have_ip)
        return -1;
    return 0;
}

static void session_id(af_t *af, uint64_t session, char *sid, size_t cap)
{
    snprintf(sid, cap, "%s;%u;%llu", af->o.identity, af->boot, (unsigned long long)session);
}

static void media(af_t *af, const char *ue)
{
    static const char codec[] = "uplink\noffer\nm=audio 49000 RTP/AVP 0 8 96\na=rtpmap:96 AMR/8000\n";
    char down[160], up[160];
    snprintf(down, sizeof down, "permit out 17 from 198.51.100.10 49000 to %s 50000", ue);
    snprintf(up, sizeof up, "permit in 17 from %s 50000 to 198.51.100.10 49000", ue);
    rd_buf_t *b = &af->out;
    size_t mcd = rd_group_begin(b, AVP_MEDIA_COMPONENT, M, V3);
    rd_avp_u32(b, AVP_MEDIA_COMPONENT_NUMBER, M, V3, 1);
    size_t msc = rd_group_begin(b, AVP_MEDIA_SUB_COMPONENT, M, V3);
    rd_avp_u32(b, AVP_FLOW_NUMBER, M, V3, 1);
    rd_avp(b, AVP_FLOW_DESCRIPTION, M, V3, down, strlen(down));
    rd_avp(b, AVP_FLOW_DESCRIPTION, M, V3, up, strlen(up));
    rd_avp_u32(b, AVP_FLOW_USAGE, M, V3, 0);
    rd_group_end(b, msc);
    rd_avp_u32(b, AVP_MEDIA_TYPE, M, V3, 0);
    rd_avp_u32(b, AVP_MAX_BW_UL, M, V3, 64000);
    rd_avp_u32(b, AVP_MAX_BW_DL, M, V3, 64000);
    rd_avp_u32(b, AVP_FLOW_STATUS, M, V3, 2);
    rd_avp(b, AVP_CODEC_DATA, M, V3, codec, strlen(codec));
    rd_group_end(b, mcd);
}

/* Queues the chain's next request. */
static void send_request(af_t *af, chain_t *c)
{
    char sid[300], ue[16];
    session_id(af, c->session, sid, sizeof sid);
    uint32_t ip = af->o.ip_base + (uint32_t)(c->session % af->o.count);
    struct in_addr in = {.s_addr = htonl(ip)};
    inet_ntop(AF_INET, &in, ue, sizeof ue);
    c->hbh = (uint32_t)(++af->seq << 10) | (uint32_t)(c - af->chains);
    rd_buf_t *b = &af->out;
    bool str = c->step == 2;
    size_t start = rd_begin(b, RD_FLAG_REQUEST | RD_FLAG_PROXIABLE, str ? RD_CC_STR : RD_CC_AAR,
                            RD_RX_APP, c->hbh, (uint32_t)af->seq);
    rd_avp(b, RD_AVP_SESSION_ID, M, 0, sid, strlen(sid));
    rd_avp_u32(b, RD_AVP_AUTH_APP_ID, M, 0, RD_RX_APP);
    rd_origin(b, af->o.identity, af->o.realm);
    rd_avp_str(b, RD_AVP_DEST_REALM, M, af->o.dest_realm);
    if (str) {
        rd_avp_u32(b, RD_AVP_TERMINATION_CAUSE, M, 0, 1); /* DIAMETER_LOGOUT */
    } else {
        rd_avp(b, AVP_AF_APP_ID, M, V3, "IMS Services", strlen("IMS Services"));
        if (af->o.media)
            media(af, ue);
        if (c->step == 0)
            rd_avp(b, AVP_FRAMED_IP, M, 0, &in.s_addr, 4);
        rd_avp_u32(b, AVP_RX_REQUEST_TYPE, M, V3, c->step == 0 ? 0 : 1);
    }
    rd_end(b, start);
    c->sent_ns = now_ns();
    af->requests++;
}

/* The chain takes the next session, or stops when there is none. */
static void next_session(af_t *af, chain_t *c)
{
    if (af->next_session == af->o.sessions) {
        c->busy = false;
        return;
    }
    c->busy = true;
    c->session = af->next_session++;
    c->step = 0;
    send_request(af, c);
}

static void record(af_t *af, uint64_t sent_ns, uint32_t code)
{
    if (af->n_latency == af->cap_latency) {
        size_t cap = af->cap_latency ? 2 * af->cap_latency : 65536;
        double *p = realloc(af->latency_ms, cap * sizeof *p);
        if (!p)
            return;
        af->latency_ms = p;
        af->cap_latency = cap;
    }
    af->latency_ms[af->n_latency++] = (double)(now_ns() - sent_ns) / 1e6;
    if (code < sizeof af->codes / sizeof af->codes[0])
        af->codes[code]++;
    else
        af->other_codes++;
}

/* One message from the BSF. Returns -1 when the BSF disconnects us. */
static int handle(af_t *af, const uint8_t *msg, const rd_header_t *h)
{
    if (h->flags & RD_FLAG_REQUEST) {
        if (h->code == RD_CC_DWR) {
            rd_answer_base(&af->out, h, af->o.identity, af->o.realm);
            return 0;
        }
        if (h->code == RD_CC_DPR) {
            rd_answer_base(&af->out, h, af->o.identity, af->o.realm);
            fprintf(stderr, "af_fast: the BSF sent DPR\n");
            return -1;
        }
        return 0; /* RAR / ASR are not part of the load */
    }
    chain_t *c = &af->chains[h->hbh & (MAX_WINDOW - 1)];
    if (!c->busy || c->hbh != h->hbh)
        return 0; /* late answer to a request that timed out */
    uint32_t code = rd_result_code(msg, h->length);
    record(af, c->sent_ns, code);
    af->answers++;
    if (af->o.mix && code == 2001 && c->step < 2) {
        c->step++;
        send_request(af, c);
    } else {
        next_session(af, c);
    }
    return 0;
}

/* Reads what is there; handles every complete message. -1: connection gone or corrupt. */
static int read_some(af_t *af, bool *progress)
{
    ssize_t n = rd_read(af->fd, &af->in, &af->in_len, &af->in_cap, 65536, 262144);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
        return -1;
    if (n < 0)
        return 0;
    *progress = true;
    size_t at = 0;
    while (af->in_len - at >= RD_HEADER_LEN) {
        rd_header_t h;
        if (!rd_header(af->in + at, &h))
            return -1;
        if (af->in_len - at < h.length)
            break;
        if (handle(af, af->in + at, &h))
            return -1;
        at += h.length;
    }
    memmove(af->in, af->in + at, af->in_len - at);
    af->in_len -= at;
    return 0;
}

static void expire(af_t *af)
{
    uint64_t now = now_ns(), limit = (uint64_t)af->o.timeout_ms * 1000000u;
    for (uint32_t i = 0; i < af->o.window; i++) {
        chain_t *c = &af->chains[i];
        if (c->busy && now - c->sent_ns > limit) {
            af->timeouts++;
            next_session(af, c);
        }
    }
}

static bool busy(const af_t *af)
{
    for (uint32_t i = 0; i < af->o.window; i++)
        if (af->chains[i].busy)
            return true;
    return false;
}

/* CER/CEA on the blocking socket. */
static int capabilities(af_t *af)
{
    static const uint8_t loopback[4] = {127, 0, 0, 1};
    rd_end(&af->out, rd_capabilities(&af->out, NULL, af->o.identity, af->o.realm, loopback,
                                     "af_fast"));
    if (rd_write(af->fd, &af->out) || af->out.len)
        return -1;
    uint8_t head[RD_HEADER_LEN];
    if (recv(af->fd, head, sizeof head, MSG_WAITALL) != (ssize_t)sizeof head)
        return -1;
    rd_header_t h;
    if (!rd_header(head, &h) || h.code != RD_CC_CER || (h.flags & RD_FLAG_REQUEST))
        return -1;
    uint8_t *msg = malloc(h.length);
    if (!msg)
        return -1;
    memcpy(msg, head, sizeof head);
    ssize_t body = (ssize_t)(h.length - RD_HEADER_LEN);
    int rc = recv(af->fd, msg + RD_HEADER_LEN, (size_t)body, MSG_WAITALL) == body &&
                     rd_result_code(msg, h.length) == 2001
                 ? 0
                 : -1;
    free(msg);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double pct(const af_t *af, double p)
{
    if (!af->n_latency)
        return 0;
    size_t i = (size_t)(p / 100.0 * (double)(af->n_latency - 1) + 0.5);
    return af->latency_ms[i];
}

static void report(af_t *af, double elapsed_s)
{
    qsort(af->latency_ms, af->n_latency, sizeof *af->latency_ms, cmp_double);
    double sum = 0;
    for (size_t i = 0; i < af->n_latency; i++)
        sum += af->latency_ms[i];
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double user = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
    double sys = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    printf("{\"sessions\":%llu,\"requests\":%llu,\"answers\":%llu,\"timeouts\":%llu,"
           "\"elapsed_s\":%.3f,\"answers_per_s\":%.1f,"
           "\"latency_ms\":{\"p50\":%.3f,\"p90\":%.3f,\"p99\":%.3f,\"max\":%.3f,\"mean\":%.3f},"
           "\"result_codes\":{",
           (unsigned long long)af->o.sessions, (unsigned long long)af->requests,
           (unsigned long long)af->answers, (unsigned long long)af->timeouts, elapsed_s,
           elapsed_s > 0 ? (double)af->answers / elapsed_s : 0.0, pct(af, 50), pct(af, 90),
           pct(af, 99), af->n_latency ? af->latency_ms[af->n_latency - 1] : 0.0,
           af->n_latency ? sum / (double)af->n_latency : 0.0);
    const char *sep = "";
    for (size_t c = 0; c < sizeof af->codes / sizeof af->codes[0]; c++)
        if (af->codes[c]) {
            printf("%s\"%zu\":%llu", sep, c, (unsigned long long)af->codes[c]);
            sep = ",";
        }
    if (af->other_codes)
        printf("%s\"other\":%llu", sep, (unsigned long long)af->other_codes);
    printf("},\"cpu\":{\"user_s\":%.3f,\"sys_s\":%.3f,\"us_per_answer\":%.2f}}\n", user, sys,
           af->answers ? (user + sys) / (double)af->answers * 1e6 : 0.0);
    fflush(stdout);
}

/* DPR, and the DPA (or the connection's end) within a second. */
static void leave(af_t *af)
{
    size_t start = rd_begin(&af->out, RD_FLAG_REQUEST, RD_CC_DPR, 0, 2, 2);
    rd_origin(&af->out, af->o.identity, af->o.realm);
    rd_avp_u32(&af->out, RD_AVP_DISCONNECT_CAUSE, M, 0, 0); /* REBOOTING */
    rd_end(&af->out, start);
    rd_write(af->fd, &af->out);
    struct pollfd p = {.fd = af->fd, .events = POLLIN};
    uint64_t until = now_ns() + 1000000000u;
    while (now_ns() < until && poll(&p, 1, 100) >= 0) {
        uint8_t buf[4096];
        ssize_t n = read(af->fd, buf, sizeof buf);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
            break;
    }
}

int main(int argc, char **argv)
{
    static af_t af;
    if (parse_args(argc, argv, &af.o)) {
        usage(stderr);
        return 2;
    }
    if (!af.o.count)
        af.o.count = (uint32_t)(af.o.sessions < UINT32_MAX ? af.o.sessions : UINT32_MAX);
    af.boot = (uint32_t)time(NULL) ^ (uint32_t)getpid() << 16;
    af.fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (af.fd < 0 || connect(af.fd, (struct sockaddr *)&af.o.peer, sizeof af.o.peer) != 0) {
        fprintf(stderr, "af_fast: cannot connect: %s\n", strerror(errno));
        return 1;
    }
    setsockopt(af.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (capabilities(&af)) {
        fprintf(stderr, "af_fast: capabilities exchange failed\n");
        return 1;
    }
    fcntl(af.fd, F_SETFL, fcntl(af.fd, F_GETFL) | O_NONBLOCK);
    uint64_t t0 = now_ns(), next_expiry = t0 + 100000000u;
    for (uint32_t i = 0; i < af.o.window; i++)
        next_session(&af, &af.chains[i]);
    int rc = 0;
    while (busy(&af)) {
        if (rd_write(af.fd, &af.out)) {
            rc = 1;
            break;
        }
        struct pollfd p = {.fd = af.fd, .events = POLLIN | (af.out.len ? POLLOUT : 0)};
        int n = poll(&p, 1, 100);
        if (n > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
            bool got = true;
            while (got) { /* until the socket is drained */
                got = false;
                if (read_some(&af, &got)) {
                    rc = 1;
                    break;
                }
            }
            if (rc)
                break;
        }
        uint64_t now = now_ns();
        if (now >= next_expiry) {
            expire(&af);
            next_expiry = now + 100000000u;
        }
    }
    double elapsed = (double)(now_ns() - t0) / 1e9;
    if (rc)
        fprintf(stderr, "af_fast: the connection to the BSF was lost\n");
    report(&af, elapsed);
    if (!rc)
        leave(&af);
    close(af.fd);
    free(af.latency_ms);
    free(af.in);
    rd_buf_free(&af.out);
    return rc;
}
