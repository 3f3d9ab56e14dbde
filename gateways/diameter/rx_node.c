/* libfdcore set-up for the Rx gateway. */
#include "gateways/diameter/rx_node.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/diag.h"
#include "common/ip_literal.h"
#include "common/metrics_text.h"
#include "gateways/diameter/rx_routes.h"
#include "gateways/diameter/rx_tls.h"
#include "common/error.h"

/* libfdcore 1.2.1 exports (without declaring it in libfdcore.h) the function its own peer
 * expiry uses to end one peer: it queues a TERMINATE event to the peer's state machine,
 * which sends DPR with the Disconnect-Cause named by `reason` (a dictionary name:
 * REBOOTING, BUSY, DO_NOT_WANT_TO_TALK_TO_YOU), closes the connection after the DPA and
 * leaves the peer object for the peer's next CER to revive. Its first parameter is a
 * struct fd_peer, whose first member is the public struct peer_hdr. */
extern int fd_psm_terminate(struct peer_hdr *peer, char *reason);

/* freeDiameter's callbacks without user data read these; written once in bsf_rx_node_init,
 * before libfdcore starts its threads. */
static char *node_accept;      /* '\n'-separated identities, "*" = any */
static bool node_accept_any;
static bool node_tls_required; /* accepted peers must use TLS */
static int64_t node_cert_not_after; /* 0: no TLS */
static int node_min_level; /* freeDiameter log lines below this level print nothing */

static void node_logger(int level, const char *format, va_list args)
{
    /* libfdcore logs several debug lines per message whatever fd_g_debug_lvl says (its
     * LOG_D / LOG_N call fd_log unconditionally, under a global lock): drop the ones that
     * would print nothing before formatting them. */
    if (level < node_min_level)
        return;
    char line[1024];
    vsnprintf(line, sizeof line, format, args);
    /* libfdcore announces its normal shutdown at FATAL level. */
    if (strncmp(line, "Initiating freeDiameter shutdown", 32) == 0)
        BSF_DEBUG("diameter", "freeDiameter: %s", line);
    else if (level >= FD_LOG_FATAL)
        BSF_ERROR("diameter", "freeDiameter: %s", line);
    else if (level >= FD_LOG_ERROR)
        BSF_WARN("diameter", "freeDiameter: %s", line);
    else
        BSF_DEBUG("diameter", "freeDiameter: %s", line);
}

#define BSF_RX_NODE_IDENTITY_LEN_MAX 255

/* An incoming connection from a peer that is not in our ConnectPeer list. */
static int node_validate(struct peer_info *info, int *auth, int (**cb2)(struct peer_info *))
{
    (void)cb2;
    *auth = 0; /* no opinion: libfdcore refuses it with 3010 */
    if (info->pi_diamidlen > BSF_RX_NODE_IDENTITY_LEN_MAX) {
        /* An FQDN has at most 255 octets (RFC 1035). libfdcore answers a refused CER with
         * 3010 DIAMETER_UNKNOWN_PEER: the callback cannot choose the code. */
        *auth = -1;
        BSF_WARN("diameter", "refusing a peer whose Origin-Host has %zu bytes (%.64s...)",
                 info->pi_diamidlen, info->pi_diamid);
        return 0;
    }
    /* Over TLS the certificate must name the identity the CER claims: libfdcore checks the
     * chain, not that (its connection on the TLS port is made before the CER names anyone). */
    const gnutls_datum_t *certs = info->runtime.pir_cert_list;
    if (certs && (!info->runtime.pir_cert_list_size ||
                  !bsf_rx_tls_cert_names(certs[0].data, certs[0].size, info->pi_diamid))) {
        *auth = -1;
        BSF_WARN("diameter", "refusing peer %s: its TLS certificate does not name it",
                 info->pi_diamid);
        return 0;
    }
    bool ok = node_accept_any;
    for (const char *p = node_accept; !ok && p && *p;) {
        size_t n = strcspn(p, "\n");
        ok = n == strlen(info->pi_diamid) && strncasecmp(p, info->pi_diamid, n) == 0;
        p += n;
        if (*p)
            p++;
    }
    if (ok) {
        *auth = 1;
        /* PI_SEC_DEFAULT: libfdcore refuses the peer unless its connection is TLS (it came to
         * the TLS port); PI_SEC_NONE: a clear connection is fine. */
        info->config.pic_flags.sec = node_tls_required ? PI_SEC_DEFAULT : PI_SEC_NONE;
        BSF_INFO("diameter", "accepting peer %s", info->pi_diamid);
    } else {
        BSF_WARN("diameter", "refusing unknown peer %s (not in diameter.accept)", info->pi_diamid);
    }
    return 0;
}

/* Address families of the listen list: bit 0 IPv4, bit 1 IPv6. */
static int listen_families(const char *list)
{
    int fam = 0;
    char item[128];
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, "\n");
        snprintf(item, sizeof item, "%.*s", (int)n, p);
        fam |= strchr(item, ':') ? 2 : 1;
        p += n;
        if (*p)
            p++;
    }
    return fam;
}

static int write_conf(FILE *f, const bsf_diameter_settings_t *s)
{
    static const char *const exts[] = BSF_RX_DICT_EXTENSIONS;
    fprintf(f, "Identity = \"%s\";\nRealm = \"%s\";\n", s->identity, s->realm);
    bool tls = s->tls_cert[0] != '\0';
    fprintf(f, "Port = %u;\nSecPort = %u;\n", (unsigned)s->port, tls ? (unsigned)s->tls_port : 0u);
    if (tls) {
        fprintf(f, "TLS_Cred = \"%s\", \"%s\";\nTLS_CA = \"%s\";\nTLS_Prio = \"%s\";\n",
                s->tls_cert, s->tls_key, s->tls_ca, s->tls_priority);
        if (s->tls_crl[0])
            fprintf(f, "TLS_CRL = \"%s\";\n", s->tls_crl);
    }
    fprintf(f, "%s", s->sctp ? "Prefer_TCP;\n" : "No_SCTP;\n");
    int fam = listen_families(s->listen);
    if (fam == 1)
        fprintf(f, "No_IPv6;\n");
    else if (fam == 2)
        fprintf(f, "No_IP;\n");
    fprintf(f, "AppServThreads = %u;\nTcTimer = %u;\nTwTimer = %u;\n", (unsigned)s->threads,
            (unsigned)s->reconnect_s, (unsigned)s->watchdog_s);
    for (const char *const *e = exts; *e; e++)
        fprintf(f, "LoadExtension = \"%s/%s\";\n", s->extensions_dir, *e);
    char item[1024], why[256];
    for (const char *p = s->peers; p && *p;) {
        size_t n = strcspn(p, "\n");
        snprintf(item, sizeof item, "%.*s", (int)n, p);
        p += n;
        if (*p)
            p++;
        bsf_rx_peer_cfg_t pc;
        if (bsf_rx_peer_parse(item, &pc, why, sizeof why))
            return EINVAL; /* checked by the configuration already */
        /* A peer's own TLS version: the node's priority string, then only that version
         * (GnuTLS applies a priority string's operations in order). */
        char prio[sizeof s->tls_priority + 64] = "";
        if (pc.tls_version[0])
            snprintf(prio, sizeof prio, "TLS_Prio = \"%s:-VERS-ALL:+VERS-TLS%s\";",
                     s->tls_priority, pc.tls_version);
        fprintf(f, "ConnectPeer = \"%s\" { ConnectTo = \"%s\"; Port = %u; %s %s %s };\n", pc.id,
                pc.host, (unsigned)pc.port, pc.tls ? "" : "No_TLS;",
                s->sctp ? "Prefer_TCP;" : "No_SCTP;", prio);
    }
    return ferror(f) ? EIO : 0;
}

/* Replaces the configured endpoints by exactly our listen addresses: libfdcore 1.2.1 drops
 * loopback and private addresses given as ListenOn unless EP_ACCEPTALL is set (pitfall 2). */
static int set_listen(const char *list, char *err, size_t cap)
{
    int rc = fd_ep_filter(&fd_g_config->cnf_endpoints, 0); /* empties the list */
    if (rc) {
        snprintf(err, cap, "diameter: cannot reset the listen addresses: %s", bsf_strerror(rc));
        return -1;
    }
    char item[128];
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, "\n");
        snprintf(item, sizeof item, "%.*s", (int)n, p);
        p += n;
        if (*p)
            p++;
        struct sockaddr_storage ss;
        socklen_t sl = bsf_ip_literal_parse(item, &ss);
        if (!sl) {
            snprintf(err, cap, "diameter.listen: '%s' is not an IP address", item);
            return -1;
        }
        rc = fd_ep_add_merge(&fd_g_config->cnf_endpoints, (sSA *)&ss, sl,
                             EP_FL_CONF | EP_ACCEPTALL);
        if (rc) {
            snprintf(err, cap, "diameter.listen: cannot use %s: %s", item, bsf_strerror(rc));
            return -1;
        }
    }
    return 0;
}

int bsf_rx_node_init(const bsf_diameter_settings_t *s, bsf_rx_dict_t *rx, char *err, size_t cap)
{
    free(node_accept);
    node_accept = strdup(s->accept);
    if (!node_accept) {
        snprintf(err, cap, "diameter: out of memory");
        return -1;
    }
    node_accept_any = false;
    node_tls_required = s->tls_required;
    node_cert_not_after = 0;
    if (s->tls_cert[0] && bsf_rx_tls_cert_not_after(s->tls_cert, &node_cert_not_after, err, cap))
        return -1;
    for (const char *p = s->accept; *p;) {
        size_t n = strcspn(p, "\n");
        if (n == 1 && p[0] == '*')
            node_accept_any = true;
        p += n;
        if (*p)
            p++;
    }
    fd_g_debug_lvl = bsf_log_get_level() >= BSF_LOG_DEBUG ? FD_LOG_NOTICE : FD_LOG_ERROR;
    node_min_level = bsf_log_get_level() >= BSF_LOG_DEBUG ? FD_LOG_ANNOYING : FD_LOG_ERROR;
    int rc = fd_log_handler_register(node_logger);
    if (rc == 0)
        rc = fd_core_initialize();
    if (rc) {
        snprintf(err, cap, "diameter: cannot initialise freeDiameter: %s", bsf_strerror(rc));
        return -1;
    }
    /* The configuration goes through an anonymous in-memory file: nothing on disk. */
    int fd = memfd_create("bsfd-freediameter.conf", MFD_CLOEXEC);
    if (fd < 0) {
        snprintf(err, cap, "diameter: memfd_create: %s", bsf_strerror(errno));
        return -1;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        snprintf(err, cap, "diameter: fdopen: %s", bsf_strerror(errno));
        close(fd);
        return -1;
    }
    rc = write_conf(f, s);
    if (fflush(f) != 0 && rc == 0)
        rc = errno;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (rc == 0)
        rc = fd_core_parseconf(path);
    fclose(f);
    if (rc) {
        snprintf(err, cap, "diameter: freeDiameter refused the configuration: %s", bsf_strerror(rc));
        return -1;
    }
    if (set_listen(s->listen, err, cap))
        return -1;
    if ((rc = bsf_rx_dict_init(rx, fd_g_config->cnf_dict, 0, err, cap)) != 0 ||
        (rc = bsf_rx_dict_define_cookie(rx, s->cookie_avp_code, s->cookie_avp_vendor, err, cap)) !=
            0 ||
        (rc = bsf_rx_dict_define_drmp(rx, err, cap)) != 0 ||
        (s->oc_priority_code &&
         (rc = bsf_rx_dict_define_oc_priority(rx, s->oc_priority_code, s->oc_priority_vendor,
                                              err, cap)) != 0) ||
        (s->advertise_rx && (rc = bsf_rx_dict_advertise(rx, err, cap)) != 0))
        return -1;
    if ((rc = fd_peer_validate_register(node_validate)) != 0) {
        snprintf(err, cap, "diameter: fd_peer_validate_register: %s", bsf_strerror(rc));
        return -1;
    }
    return 0;
}

int bsf_rx_node_start(char *err, size_t cap)
{
    int rc = fd_core_start();
    if (rc == 0)
        rc = fd_core_waitstartcomplete();
    if (rc) {
        snprintf(err, cap, "diameter: freeDiameter did not start (port in use?): %s",
                 bsf_strerror(rc));
        return -1;
    }
    return 0;
}

void bsf_rx_node_stop(void)
{
    fd_core_shutdown();
    fd_core_wait_shutdown_complete();
    free(node_accept);
    node_accept = NULL;
}

bool bsf_rx_node_peer_open(const char *id)
{
    struct peer_hdr *p = NULL;
    if (!id || !id[0] || fd_peer_getbyid((DiamId_t)id, strlen(id), 1, &p) != 0 || !p)
        return false;
    return fd_peer_get_state(p) == STATE_OPEN;
}

int bsf_rx_node_route_to(struct msg *msg, const char *peer_id)
{
    struct peer_hdr *p = NULL;
    int rc = fd_peer_getbyid((DiamId_t)peer_id, strlen(peer_id), 1, &p);
    if (rc || !p)
        return rc ? rc : ENOENT;
    if (fd_peer_get_state(p) != STATE_OPEN || !p->info.runtime.pir_realm)
        return ENOENT;
    struct rt_data *rtd = NULL, *old = NULL;
    if ((rc = fd_rtd_init(&rtd)) != 0)
        return rc;
    rc = fd_rtd_candidate_add(rtd, p->info.pi_diamid, p->info.pi_diamidlen,
                              p->info.runtime.pir_realm, p->info.runtime.pir_realmlen);
    if (rc == 0)
        rc = fd_msg_rt_get(msg, &old);
    if (rc == 0)
        rc = fd_msg_rt_associate(msg, rtd);
    if (rc) {
        fd_rtd_free(&rtd);
        return rc;
    }
    if (old)
        fd_rtd_free(&old);
    return 0;
}

void bsf_rx_node_write_peers(bsf_text_t *out)
{
    if (node_cert_not_after) {
        bsf_metrics_family(out, "dgw_tls_cert_expiration_seconds", "gauge",
                           "End of validity of the Diameter certificate (seed 3.10.2).");
        bsf_metrics_i64(out, "dgw_tls_cert_expiration_seconds", NULL, node_cert_not_after);
    }
    bsf_metrics_family(out, "ocbsf_diam_peer_up", "gauge",
                       "1 when the Diameter neighbour is connected.");
    if (pthread_rwlock_rdlock(&fd_g_peers_rw) != 0)
        return;
    for (struct fd_list *li = fd_g_peers.next; li != &fd_g_peers; li = li->next) {
        struct peer_hdr *p = (struct peer_hdr *)li;
        bsf_metrics_u64_label(out, "ocbsf_diam_peer_up", "peer", p->info.pi_diamid,
                              fd_peer_get_state(p) == STATE_OPEN);
    }
    pthread_rwlock_unlock(&fd_g_peers_rw);
}

int bsf_rx_node_disconnect(struct peer_hdr *peer, const char *cause)
{
    return fd_psm_terminate(peer, (char *)cause);
}
