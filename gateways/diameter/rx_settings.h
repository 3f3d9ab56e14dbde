/* Settings of the Rx Diameter gateway (their keys are declared in
 * bsfd/config_keys_diameter.c; docs/rx-gateway.md explains them). */
#ifndef BSF_GATEWAYS_DIAMETER_RX_SETTINGS_H
#define BSF_GATEWAYS_DIAMETER_RX_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#define BSF_RX_LIST_MAX 4096 /* characters of one list setting */

typedef enum {
    BSF_RX_ORIGINATOR_ANY = 0,
    BSF_RX_ORIGINATOR_INTERMEDIATE,
    BSF_RX_ORIGINATOR_DESTINATION,
} bsf_rx_originator_t;

typedef struct {
    bool enabled;
    char identity[256]; /* our Diameter identity (Origin-Host) */
    char realm[256];
    char listen[BSF_RX_LIST_MAX]; /* list of IP literals */
    uint32_t port;                /* 0: do not listen */
    bool sctp;                    /* SCTP besides TCP (when the kernel has it) */
    char extensions_dir[256];     /* where freeDiameter's dict_*.fdx are */
    uint32_t threads;             /* freeDiameter dispatch threads */
    char cpus[256];               /* CPUs of the node's threads ("0\n2-3"); "" = any */
    bool tcp_nodelay;             /* TCP_NODELAY on the connections (libfdcore clears it) */
    bool advertise_rx;            /* Rx in CER/CEA (else Relay only: requests take the
                                   * cheaper relay path; see docs/rx-gateway.md) */
    /* TLS (seed §3.10.2): on when tls_cert is set; PEM files. */
    char tls_cert[256], tls_key[256], tls_ca[256], tls_crl[256];
    char tls_priority[256]; /* GnuTLS priority string */
    uint32_t tls_port;      /* TLS from the connection's start (SecPort); 0: none */
    bool tls_required;      /* peers connecting to `port` must not stay in clear */
    uint32_t reconnect_s;         /* TcTimer */
    uint32_t watchdog_s;          /* TwTimer */
    char peers[BSF_RX_LIST_MAX];  /* "ID=HOST:PORT [tls]" items we connect to */
    char accept[BSF_RX_LIST_MAX]; /* identities allowed to connect to us; "*" = any */
    char routes[BSF_RX_LIST_MAX]; /* "realm=R host=H peer=ID priority=N" items */

    bool validate_realm;         /* seed §3.12 Validate.Realm */
    bool validate_binding_realm; /* Validate.Binding.Realm */
    bool overwrite_realm;        /* Overwrite.Realm */

    bool pcf_cookie;            /* derived from bindings.pcf_cookie (seed §3.3) */
    uint32_t cookie_avp_code;   /* OCNF-SERVICE-COOKIE */
    uint32_t cookie_avp_vendor;

    uint32_t timeout_ms; /* interface level (seed §3.22) */
    uint32_t timeout_aar_ms, timeout_str_ms, timeout_rar_ms, timeout_asr_ms; /* 0: inherit */

    char retry[64];          /* commands that are retried: aar, str, rar, asr */
    char retry_codes[1024];  /* result-code patterns (5***, 3002, ...) */
    bool retry_on_timeout;
    uint32_t max_retries;
    bool cycle_back;
    bool update_destination_host;
    int retry_originator; /* bsf_rx_originator_t */

    char stale_codes[1024]; /* PCF answer codes to an AAR that remove the binding */

    uint32_t max_sessions;
    uint32_t session_idle_s;
    uint32_t max_pending; /* requests in flight before new ones get 3004 */

    /* Congestion control (seed §3.26, rx_congestion.h); lists are '\n'-separated. */
    bool congestion;
    uint32_t congestion_interval_ms;
    uint32_t congestion_samples;
    char congestion_cpu[64];    /* CPU % thresholds: DOC, L1, L2, CONGESTED */
    char congestion_queue[128]; /* pending-request thresholds */
    int congestion_mode;        /* 0 priority, 1 percentage */
    char congestion_discard_priorities[64];
    char congestion_discard_percentages[512];
    char congestion_priorities[256];
    char congestion_priority_rules[2048];
    uint32_t congestion_code;   /* Result-Code of a discarded request */
    uint32_t congestion_vendor; /* non-zero: sent as Experimental-Result of this vendor */
    uint32_t oc_priority_code;   /* OC-Message-Priority AVP; 0: not read */
    uint32_t oc_priority_vendor;

    /* Connection repaving (seed §3.45, rx_repaving.h). */
    bool repaving;
    uint32_t repaving_jitter_ms;   /* MAX_STAGGER_JITTER_MS */
    uint32_t repaving_interval_ms; /* CONNECTION_DISCONNECT_INTERVAL_MS */
    uint32_t repaving_delay_min;   /* REINVOCATION_DELAY_MIN */
    int repaving_cause;            /* DPR_DISCONNECT_CAUSE: bsf_rx_disconnect_cause_t */

    uint32_t vendor_id; /* Vendor-Id of our CER/CEA (RFC 6733 §5.3.3) */
} bsf_diameter_settings_t;

/* Product-Name of our CER/CEA (RFC 6733 §5.3.7), in place of libfdcore's "freeDiameter". */
#define BSF_RX_PRODUCT_NAME "bsf"

#endif
