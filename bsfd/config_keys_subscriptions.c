/* Configuration keys of subscriptions to binding events (/subscriptions) and of the
 * notifications they cause (issue 11; docs/nbsf-management.md, docs/architecture.md). */
#include <stdio.h>

#include "bsfd/config.h"

static const bsf_config_key_t keys[] = {
    BSF_CFG_DURATION_KEY("subscriptions.max_expiry", sub_max_expiry_ms, "1d", "0", "3650d",
        "Longest lifetime the BSF grants a subscription: an `expiry` further away, or none, is "
        "answered with now + this (TS 29.521 4.2.6.2: the BSF may shorten it and says so in "
        "the answer). Expired subscriptions are removed by the site that created them. 0: "
        "the expiry asked is granted, and a subscription without one never expires."),
    BSF_CFG_UINT_KEY("notify.queue_per_subscriber", notify_queue_per_subscriber, "1000", 1,
        1000000,
        "Notifications waiting per notifUri (one in flight at a time, in event order); when "
        "full the oldest waiting one is dropped (bsf_notifications_dropped_total, a log line)."),
    BSF_CFG_UINT_KEY("notify.max_subscribers", notify_max_subscribers, "100000", 1, 10000000,
        "notifUris with notifications in flight or waiting; a notification for one more is "
        "dropped (counted and logged)."),
    BSF_CFG_UINT_KEY("notify.handoff_max", notify_handoff_max, "100000", 1, 10000000,
        "Notifications committed by the engine and not yet taken by the SBI client's thread "
        "(the hand-off between them; bsf_notifications_handoff). When the client thread falls "
        "this far behind, the oldest there is dropped (bsf_notifications_dropped_total"
        "{reason=\"handoff_full\"}, a log line each); the registration is never held up."),
    BSF_CFG_UINT_KEY("notify.retries", notify_retries, "3", 0, 20,
        "Retries of a notification answered 5xx (or 429), timed out, or whose connection "
        "failed, before it is dropped (counted and logged). 307/308 are followed, not retried."),
    BSF_CFG_UINT_KEY("notify.timeout_ms", notify_timeout_ms, "2000", 50, 60000,
        "Deadline of one attempt of a notification (3gpp-Sbi-Max-Rsp-Time)."),
    BSF_CFG_UINT_KEY("notify.backoff_ms", notify_backoff_ms, "100", 1, 600000,
        "Delay before the first retry of a notification; doubles at each retry up to "
        "notify.backoff_max_ms (a Retry-After in the answer is honoured)."),
    BSF_CFG_UINT_KEY("notify.backoff_max_ms", notify_backoff_max_ms, "5000", 1, 600000,
        "Longest delay between two attempts of a notification."),
    BSF_CFG_UINT_KEY("notify.sub_cache_mb", notify_sub_cache_mb, "64", 0, 65536,
        "Memory (MiB) of the engine's cache of decoded subscriptions per SUPI / GPSI, least "
        "recently used out first: a binding event of a subscribed UE then reads no "
        "subscription from the store. 0: only the UE at hand. Whether a UE has any "
        "subscription at all is answered from a set of the subscribed SUPIs / GPSIs counted "
        "from the store at start, whatever this is."),
    BSF_CFG_UINT_KEY("notify.priority", notify_priority, "24", 0, 31,
        "3gpp-Sbi-Message-Priority of notifications (TS 29.500 6.8; lower is more urgent)."),
};

static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    if (cfg->notify_backoff_max_ms < cfg->notify_backoff_ms) {
        snprintf(err, err_cap, "notify.backoff_max_ms (%u) is below notify.backoff_ms (%u)",
                 cfg->notify_backoff_max_ms, cfg->notify_backoff_ms);
        return -1;
    }
    return 0;
}

const bsf_config_section_t bsf_config_subscriptions_section = {keys, sizeof keys / sizeof keys[0],
                                                               finish};
