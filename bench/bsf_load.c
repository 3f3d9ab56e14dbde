/* bsf-load: an HTTP/2 (h2c) load generator for Nbsf_Management.
 *
 *   bsf-load [--target HOST:PORT] [--mode register|discover] [--count N] [--start K]
 *            [--range R] [--connections C] [--streams S] [--rate R] [--pid PID]
 *            [--pcfs P] [--resource pcf|ue|mbs] [--key ipv4|ipv6|mac] [--notify URL] [--json]
 *            [--priority N]
 *
 * register: POSTs N bindings (IPv4 10.0.0.0 + index for index = K..K+N-1, SUPI, GPSI,
 *           unique unless --range R < N: then indexes K..K+R-1 again and again, each later
 *           one replacing a binding, the churn of bench/retention_soak.sh;
 *           PCF addresses of PCF number index % P, P = 16 by default: pcfFqdn
 *           pcf<n>.example.com, pcfDiamHost pcf<n>.diam.example.com);
 * discover: N GETs ?ipv4Addr= for indexes drawn uniformly from K..K+R-1 (R defaults to N);
 * --key ipv6: pcfBindings carry ipv6Prefix 2001:db8:<index>::/64 instead of the IPv4
 *           address, and discovery asks for the /128 2001:db8:<index>::1 inside it;
 * --key mac: macAddr48 02-00-<index as 4 bytes> instead (an Ethernet PDU session);
 * --key-mix: registration `index` has the address kind index % 3 (ipv4, ipv6, mac), and
 *           discovery draws only indexes of the --key kind among K..K+R-1;
 * Keeps C connections with S streams in flight each (with --rate, at most R requests per
 * second are started, paced every millisecond), and reports requests/s, latency
 * percentiles, the status codes and, with --pid, the target's CPU time per request.
 * --notify URL: PDU-session registrations carry vendorSpecific-000111 with notificationUrl
 * URL<index> (the audit's target, bench/audit.sh).
 * --priority N: discoveries carry 3gpp-Sbi-Message-Priority N (the probe of
 * bench/admission.sh: --streams 1 --rate 200, one request every 5 ms). */
#include <arpa/inet.h>
#include <inttypes.h>
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

typedef enum { MODE_REGISTER, MODE_DISCOVER } mode_t_;

typedef struct {
    const char *host;
    int port;
    mode_t_ mode;
    uint64_t count, start, range;
    unsigned connections, streams;
    int pid;
    int json;
    uint64_t rate; /* requests started per second; 0 = as fast as the streams allow */
    unsigned pcfs; /* register: bindings spread over this many PCFs */
    int resource;  /* 0 pcfBindings, 1 pcf-ue-bindings, 2 pcf-mbs-bindings (--resource) */
    const char *notify; /* --notify: notificationUrl prefix, or NULL */
    int key;            /* pcfBindings' UE address: 0 ipv4Addr, 1 ipv6Prefix, 2 macAddr48 */
    int key_mix;        /* --key-mix: the kind is index % 3 */
    const char *priority; /* --priority: 3gpp-Sbi-Message-Priority of every request, or NULL */
} options_t;

typedef struct load load_t;

typedef struct {
    load_t *load;
    uv_tcp_t tcp;
    uv_connect_t connect;
    nghttp2_session *session;
    unsigned in_flight;
    char rbuf[65536];
    int writing;
    char *wbuf;
    size_t wlen, wcap;
    uv_write_t wreq;
} conn_t;

typedef struct {
    conn_t *conn;
    uint64_t start_ns;
    int status;
    char body[768];
    size_t body_len, body_off;
} req_t;

struct load {
    options_t o;
    uv_loop_t *loop;
    conn_t *conns;
    uint64_t issued, done;
    uint64_t status_counts[600];
    uint64_t *latencies; /* ns, one per request */
    uint64_t t0, t1;
    uint32_t rng;
    uv_timer_t pace; /* --rate */
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t next_rand(load_t *l)
{
    l->rng ^= l->rng << 13;
    l->rng ^= l->rng >> 17;
    l->rng ^= l->rng << 5;
    return l->rng;
}

static void ipv4_of(uint64_t index, char *out)
{
    uint32_t a = 0x0a000000u + (uint32_t)index; /* 10.0.0.0 + index */
    snprintf(out, 16, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
}

/* The UE address member of registration `index` (--key), e.g. "ipv4Addr":"10.0.0.1". */
static void addr_member(int key, uint64_t index, char *out, size_t cap)
{
    uint32_t i = (uint32_t)index;
    if (key == 1)
        snprintf(out, cap, "\"ipv6Prefix\":\"2001:db8:%x:%x::/64\"", i >> 16, i & 0xffff);
    else if (key == 2)
        snprintf(out, cap, "\"macAddr48\":\"02-00-%02x-%02x-%02x-%02x\"", i >> 24,
                 (i >> 16) & 255, (i >> 8) & 255, i & 255);
    else {
        char ip[16];
        ipv4_of(index, ip);
        snprintf(out, cap, "\"ipv4Addr\":\"%s\"", ip);
    }
}

/* The discovery query of registration `index` (--key): ipv4Addr, a /128 in the /64, or MAC. */
static void addr_query(int key, uint64_t index, const char *ip, char *out, size_t cap)
{
    uint32_t i = (uint32_t)index;
    if (key == 1)
        snprintf(out, cap, "ipv6Prefix=2001:db8:%x:%x::1/128", i >> 16, i & 0xffff);
    else if (key == 2)
        snprintf(out, cap, "macAddr48=02-00-%02x-%02x-%02x-%02x", i >> 24, (i >> 16) & 255,
                 (i >> 8) & 255, i & 255);
    else
        snprintf(out, cap, "ipv4Addr=%s", ip);
}

static void flush(conn_t *c);

static void on_written(uv_write_t *w, int status)
{
    conn_t *c = w->data;
    c->writing = 0;
    if (status == UV_ECANCELED || c->load->done == c->load->o.count)
        return; /* closing at the end of the run */
    if (status < 0) {
        fprintf(stderr, "write failed: %s\n", uv_strerror(status));
        exit(1);
    }
    flush(c);
}

static void flush(conn_t *c)
{
    if (c->writing)
        return;
    c->wlen = 0;
    for (;;) {
        const uint8_t *data;
        ssize_t n = nghttp2_session_mem_send(c->session, &data);
        if (n <= 0)
            break;
        if (c->wlen + (size_t)n > c->wcap) {
            c->wcap = (c->wlen + (size_t)n) * 2;
            c->wbuf = realloc(c->wbuf, c->wcap);
        }
        memcpy(c->wbuf + c->wlen, data, (size_t)n);
        c->wlen += (size_t)n;
    }
    if (!c->wlen)
        return;
    uv_buf_t b = uv_buf_init(c->wbuf, (unsigned)c->wlen);
    c->wreq.data = c;
    c->writing = 1;
    uv_write(&c->wreq, (uv_stream_t *)&c->tcp, &b, 1, on_written);
}

static ssize_t body_read(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len,
                         uint32_t *flags, nghttp2_data_source *src, void *user)
{
    (void)s;
    (void)id;
    (void)user;
    req_t *r = src->ptr;
    size_t n = r->body_len - r->body_off;
    if (n > len)
        n = len;
    memcpy(buf, r->body + r->body_off, n);
    r->body_off += n;
    if (r->body_off == r->body_len)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

#define NV(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE}

/* The body and path of registration `index` for the chosen resource. Returns the length. */
static size_t register_body(const load_t *l, uint64_t index, const char *ip, char *body,
                            size_t cap, char *path, size_t path_cap)
{
    unsigned pcf = (unsigned)(index % l->o.pcfs);
    if (l->o.resource == 1) {
        snprintf(path, path_cap, "/nbsf-management/v1/pcf-ue-bindings");
        return (size_t)snprintf(
            body, cap,
            "{\"supi\":\"imsi-00101%010" PRIu64 "\",\"gpsi\":\"msisdn-49%010" PRIu64 "\","
            "\"pcfForUeFqdn\":\"pcf%u.example.com\",\"pcfForUeIpEndPoints\":[{\"ipv4Address\":"
            "\"192.0.2.%u\",\"port\":8080}],\"pcfId\":\"5a1c6a4e-0000-4000-8000-0000000000%02u\"}",
            index, index, pcf, pcf, pcf);
    }
    if (l->o.resource == 2) {
        snprintf(path, path_cap, "/nbsf-management/v1/pcf-mbs-bindings");
        return (size_t)snprintf(
            body, cap,
            "{\"mbsSessionId\":{\"tmgi\":{\"mbsServiceId\":\"%06X\",\"plmnId\":{\"mcc\":"
            "\"%03u\",\"mnc\":\"01\"}}},\"pcfFqdn\":\"pcf%u.example.com\",\"pcfIpEndPoints\":"
            "[{\"ipv4Address\":\"192.0.2.%u\",\"port\":8080}],"
            "\"pcfId\":\"5a1c6a4e-0000-4000-8000-0000000000%02u\"}",
            (unsigned)(index & 0xFFFFFF), (unsigned)(index >> 24) % 1000, pcf, pcf, pcf);
    }
    snprintf(path, path_cap, "/nbsf-management/v1/pcfBindings");
    char addr[64];
    (void)ip;
    addr_member(l->o.key_mix ? (int)(index % 3) : l->o.key, index, addr, sizeof addr);
    size_t n = (size_t)snprintf(
                body, cap,
                "{\"supi\":\"imsi-00101%010" PRIu64 "\",\"gpsi\":\"msisdn-49%010" PRIu64 "\","
                "%s,\"dnn\":\"internet\",\"snssai\":{\"sst\":1,\"sd\":\"000001\"},"
                "\"pcfFqdn\":\"pcf%u.example.com\",\"pcfIpEndPoints\":[{\"ipv4Address\":"
                "\"192.0.2.%u\",\"port\":8080}],\"pcfDiamHost\":\"pcf%u.diam.example.com\","
                "\"pcfDiamRealm\":\"example.com\",\"pcfId\":\"5a1c6a4e-0000-4000-8000-0000000000%02u\"}",
                index, index, addr, pcf, pcf, pcf, pcf);
    if (l->o.notify && n < cap) /* the closing brace gives way to the vendor attribute */
        n = n - 1 + (size_t)snprintf(body + n - 1, cap - n + 1,
                                     ",\"vendorSpecific-000111\":{\"notificationUrl\":\"%s%" PRIu64
                                     "\"}}",
                                     l->o.notify, index);
    return n < cap ? n : cap - 1;
}

/* The discovery path of `index` for the chosen resource. */
static void discover_path(const load_t *l, uint64_t index, const char *ip, char *path,
                          size_t cap)
{
    if (l->o.resource == 1)
        snprintf(path, cap, "/nbsf-management/v1/pcf-ue-bindings?supi=imsi-00101%010" PRIu64,
                 index);
    else if (l->o.resource == 2)
        snprintf(path, cap,
                 "/nbsf-management/v1/pcf-mbs-bindings?mbs-session-id=%%7B%%22tmgi%%22%%3A%%7B"
                 "%%22mbsServiceId%%22%%3A%%22%06X%%22%%2C%%22plmnId%%22%%3A%%7B%%22mcc%%22%%3A"
                 "%%22%03u%%22%%2C%%22mnc%%22%%3A%%2201%%22%%7D%%7D%%7D",
                 (unsigned)(index & 0xFFFFFF), (unsigned)(index >> 24) % 1000);
    else {
        char q[96];
        addr_query(l->o.key, index, ip, q, sizeof q);
        snprintf(path, cap, "/nbsf-management/v1/pcfBindings?%s", q);
    }
}

static void issue(conn_t *c)
{
    load_t *l = c->load;
    uint64_t allowed = l->o.rate ? 1 + (now_ns() - l->t0) * l->o.rate / 1000000000u : UINT64_MAX;
    while (c->in_flight < l->o.streams && l->issued < l->o.count && l->issued < allowed) {
        uint64_t index = l->o.start + (l->o.mode == MODE_REGISTER
                                           ? l->issued % l->o.range
                                           : next_rand(l) % l->o.range);
        if (l->o.key_mix && l->o.mode == MODE_DISCOVER)
            index = index - index % 3 + (uint64_t)l->o.key;
        l->issued++;
        req_t *r = calloc(1, sizeof *r);
        r->conn = c;
        r->start_ns = now_ns();
        char ip[16], authority[64], path[256];
        ipv4_of(index, ip);
        snprintf(authority, sizeof authority, "%s:%d", l->o.host, l->o.port);
        int32_t id;
        if (l->o.mode == MODE_REGISTER) {
            r->body_len = register_body(l, index, ip, r->body, sizeof r->body, path, sizeof path);
            char len[16];
            snprintf(len, sizeof len, "%zu", r->body_len);
            nghttp2_nv nva[] = {NV(":method", "POST"), NV(":scheme", "http"),
                                NV(":authority", authority), NV(":path", path),
                                NV("content-type", "application/json"),
                                NV("content-length", len)};
            nghttp2_data_provider prd = {.source.ptr = r, .read_callback = body_read};
            id = nghttp2_submit_request(c->session, NULL, nva, 6, &prd, r);
        } else {
            discover_path(l, index, ip, path, sizeof path);
            nghttp2_nv nva[] = {NV(":method", "GET"), NV(":scheme", "http"),
                                NV(":authority", authority), NV(":path", path),
                                NV("3gpp-sbi-message-priority",
                                   l->o.priority ? l->o.priority : "")};
            id = nghttp2_submit_request(c->session, NULL, nva, l->o.priority ? 5 : 4, NULL, r);
        }
        if (id < 0) {
            fprintf(stderr, "submit failed: %s\n", nghttp2_strerror(id));
            exit(1);
        }
        c->in_flight++;
    }
}

static int on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name,
                     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                     void *user)
{
    (void)flags;
    (void)user;
    if (f->hd.type != NGHTTP2_HEADERS || namelen != 7 || memcmp(name, ":status", 7))
        return 0;
    req_t *r = nghttp2_session_get_stream_user_data(s, f->hd.stream_id);
    if (r && valuelen == 3)
        r->status = (value[0] - '0') * 100 + (value[1] - '0') * 10 + (value[2] - '0');
    return 0;
}

static int on_close(nghttp2_session *s, int32_t id, uint32_t err, void *user)
{
    (void)err;
    conn_t *c = user;
    load_t *l = c->load;
    req_t *r = nghttp2_session_get_stream_user_data(s, id);
    if (!r)
        return 0;
    l->latencies[l->done++] = now_ns() - r->start_ns;
    l->status_counts[r->status > 0 && r->status < 600 ? r->status : 0]++;
    c->in_flight--;
    free(r);
    if (l->done == l->o.count) {
        l->t1 = now_ns();
        /* Every answer is in: close the connections; uv_run returns once they are closed. */
        for (unsigned i = 0; i < l->o.connections; i++)
            if (!uv_is_closing((uv_handle_t *)&l->conns[i].tcp))
                uv_close((uv_handle_t *)&l->conns[i].tcp, NULL);
        if (l->o.rate) /* --rate: the pacing timer too */
            uv_close((uv_handle_t *)&l->pace, NULL);
    } else {
        issue(c);
    }
    return 0;
}

static void on_alloc(uv_handle_t *h, size_t s, uv_buf_t *b)
{
    (void)s;
    conn_t *c = h->data;
    *b = uv_buf_init(c->rbuf, sizeof c->rbuf);
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    conn_t *c = st->data;
    if (n < 0) {
        if (!uv_is_closing((uv_handle_t *)st))
            uv_close((uv_handle_t *)st, NULL);
        return;
    }
    if (nghttp2_session_mem_recv(c->session, (uint8_t *)b->base, (size_t)n) < 0) {
        fprintf(stderr, "HTTP/2 error from server\n");
        exit(1);
    }
    flush(c);
    if (!uv_is_closing((uv_handle_t *)st) && !nghttp2_session_want_read(c->session) &&
        !nghttp2_session_want_write(c->session))
        uv_close((uv_handle_t *)st, NULL);
}

static void on_connect(uv_connect_t *req, int status)
{
    conn_t *c = req->data;
    if (status < 0) {
        fprintf(stderr, "connect failed: %s\n", uv_strerror(status));
        exit(1);
    }
    uv_tcp_nodelay(&c->tcp, 1);
    nghttp2_session_callbacks *cbs;
    nghttp2_session_callbacks_new(&cbs);
    nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs, on_close);
    nghttp2_session_client_new(&c->session, cbs, c);
    nghttp2_session_callbacks_del(cbs);
    nghttp2_settings_entry iv[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 1024},
                                   {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20}};
    nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, iv, 2);
    if (c->load->t0 == 0)
        c->load->t0 = now_ns();
    issue(c);
    flush(c);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

/* --rate: every millisecond, start what the rate allows on every connection. */
static void on_pace(uv_timer_t *t)
{
    load_t *l = t->data;
    for (unsigned i = 0; i < l->o.connections; i++)
        if (l->conns[i].session) {
            issue(&l->conns[i]);
            flush(&l->conns[i]);
        }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* utime + stime of a process in clock ticks, from /proc. */
static long long proc_cpu_ticks(int pid)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    long long ut = 0, st = 0;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lld %lld", &ut, &st) != 2)
        return -1;
    return ut + st;
}

static void usage(void)
{
    fprintf(stderr, "usage: bsf-load [--target HOST:PORT] [--mode register|discover] [--count N] "
                    "[--start K] [--range R] [--connections C] [--streams S] [--rate R] "
                    "[--pid PID] [--pcfs P] [--resource pcf|ue|mbs] [--key ipv4|ipv6|mac] "
                    "[--key-mix] [--notify URL] [--priority N] [--json]\n");
    exit(2);
}

/* Fills l->o from the command line; exits 2 on bad usage. `host` holds the target's host. */
static void parse_args(load_t *l, int argc, char **argv, char *host, size_t host_cap)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            l->o.json = 1;
            continue;
        }
        if (strcmp(a, "--key-mix") == 0) {
            l->o.key_mix = 1;
            continue;
        }
        if (i + 1 >= argc)
            usage();
        const char *v = argv[++i];
        if (strcmp(a, "--target") == 0) {
            const char *colon = strrchr(v, ':');
            if (!colon || (size_t)(colon - v) >= host_cap)
                usage();
            memcpy(host, v, (size_t)(colon - v));
            host[colon - v] = '\0';
            l->o.port = atoi(colon + 1);
        } else if (strcmp(a, "--mode") == 0) {
            l->o.mode = strcmp(v, "discover") == 0 ? MODE_DISCOVER : MODE_REGISTER;
        } else if (strcmp(a, "--count") == 0) {
            l->o.count = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--range") == 0) {
            l->o.range = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--start") == 0) {
            l->o.start = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--connections") == 0) {
            l->o.connections = (unsigned)atoi(v);
        } else if (strcmp(a, "--streams") == 0) {
            l->o.streams = (unsigned)atoi(v);
        } else if (strcmp(a, "--rate") == 0) {
            l->o.rate = strtoull(v, NULL, 10);
        } else if (strcmp(a, "--pid") == 0) {
            l->o.pid = atoi(v);
        } else if (strcmp(a, "--resource") == 0) {
            l->o.resource = strcmp(v, "ue") == 0 ? 1 : strcmp(v, "mbs") == 0 ? 2 : 0;
        } else if (strcmp(a, "--key") == 0) {
            l->o.key = strcmp(v, "ipv6") == 0 ? 1 : strcmp(v, "mac") == 0 ? 2 : 0;
        } else if (strcmp(a, "--pcfs") == 0) {
            l->o.pcfs = (unsigned)atoi(v);
        } else if (strcmp(a, "--notify") == 0) {
            l->o.notify = v;
        } else if (strcmp(a, "--priority") == 0) {
            l->o.priority = v;
        } else {
            usage();
        }
    }
    l->o.host = host;
    if (!l->o.count || !l->o.connections || !l->o.streams || !l->o.pcfs || l->o.pcfs > 100)
        usage();
    if (!l->o.range)
        l->o.range = l->o.count;
}

/* Opens every connection and runs the loop until the load is done. */
static void run_load(load_t *l)
{
    struct sockaddr_in sa;
    uv_ip4_addr(l->o.host, l->o.port, &sa);
    for (unsigned i = 0; i < l->o.connections; i++) {
        conn_t *c = &l->conns[i];
        c->load = l;
        uv_tcp_init(l->loop, &c->tcp);
        c->tcp.data = c;
        c->connect.data = c;
        uv_tcp_connect(&c->connect, &c->tcp, (struct sockaddr *)&sa, on_connect);
    }
    if (l->o.rate) {
        uv_timer_init(l->loop, &l->pace);
        l->pace.data = l;
        uv_timer_start(&l->pace, on_pace, 1, 1);
    }
    uv_run(l->loop, UV_RUN_DEFAULT);
}

/* Prints rate, latency percentiles, the target's CPU per request (-1: unknown) and statuses. */
static void report(load_t *l, double cpu_us, uint64_t ok)
{
    qsort(l->latencies, l->done, sizeof *l->latencies, cmp_u64);
    double secs = (double)(l->t1 - l->t0) / 1e9;
    double rps = (double)l->done / secs;
    double p50 = (double)l->latencies[l->done / 2] / 1e6;
    double p99 = (double)l->latencies[(size_t)((double)l->done * 0.99)] / 1e6;
    double max = (double)l->latencies[l->done - 1] / 1e6;
    const char *mode = l->o.mode == MODE_REGISTER ? "register" : "discover";
    if (l->o.json) {
        printf("{\"mode\":\"%s\",\"requests\":%" PRIu64 ",\"seconds\":%.3f,\"rps\":%.0f,"
               "\"p50_ms\":%.3f,\"p99_ms\":%.3f,\"max_ms\":%.3f,\"ok\":%" PRIu64
               ",\"cpu_us_per_request\":%.2f,\"status\":{",
               mode, l->done, secs, rps, p50, p99, max, ok, cpu_us);
        int first = 1;
        for (int s = 0; s < 600; s++)
            if (l->status_counts[s]) {
                printf("%s\"%d\":%" PRIu64, first ? "" : ",", s, l->status_counts[s]);
                first = 0;
            }
        printf("}}\n");
        return;
    }
    printf("%s: %" PRIu64 " requests in %.2f s = %.0f req/s; latency p50 %.3f ms, p99 %.3f ms,"
           " max %.3f ms",
           mode, l->done, secs, rps, p50, p99, max);
    if (cpu_us >= 0)
        printf("; target CPU %.2f us/request", cpu_us);
    printf("\nstatus:");
    for (int s = 0; s < 600; s++)
        if (l->status_counts[s])
            printf(" %d=%" PRIu64, s, l->status_counts[s]);
    printf("\n");
}

int main(int argc, char **argv)
{
    load_t l = {.o = {.host = "127.0.0.1", .port = 8080, .mode = MODE_REGISTER, .count = 100000,
                      .connections = 4, .streams = 64, .pcfs = 16},
                .rng = 2463534242u};
    char host[64] = "127.0.0.1";
    parse_args(&l, argc, argv, host, sizeof host);
    l.latencies = malloc(sizeof *l.latencies * l.o.count);
    l.conns = calloc(l.o.connections, sizeof *l.conns);
    l.loop = uv_default_loop();
    long long cpu0 = l.o.pid ? proc_cpu_ticks(l.o.pid) : -1;
    run_load(&l);
    long long cpu1 = l.o.pid ? proc_cpu_ticks(l.o.pid) : -1;
    if (l.done != l.o.count) {
        fprintf(stderr, "only %" PRIu64 " of %" PRIu64 " requests completed\n", l.done, l.o.count);
        return 1;
    }
    double cpu_us = cpu0 >= 0 && cpu1 >= 0
                        ? (double)(cpu1 - cpu0) / (double)sysconf(_SC_CLK_TCK) * 1e6 / (double)l.done
                        : -1;
    uint64_t ok = l.status_counts[201] + l.status_counts[200];
    report(&l, cpu_us, ok);
    for (unsigned i = 0; i < l.o.connections; i++) {
        nghttp2_session_del(l.conns[i].session);
        free(l.conns[i].wbuf);
    }
    uv_loop_close(l.loop);
    free(l.latencies);
    free(l.conns);
    return ok == l.done ? 0 : 1;
}
