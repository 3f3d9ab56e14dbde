/* Configuration keys of admission control (issue 14; docs/admission.md): the shared
 * congestion state (congestion.*), overload control (overload.*), rate limits (ratelimit.*),
 * the SBI's priorities (admission.*) and the Server header. Defaults are the seed's: §3.4
 * (thresholds, discard priorities, default priorities), §3.26 (interval, sample count),
 * §3.27 table 3-32 (overload onset/abatement). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bsfd/config.h"
#include "core/problem.h"
#include "gateways/admission/message_profile.h"

static const char *const shedding_choices[] = {"priority", "percentage", NULL};
static const char *const refuse_choices[] = {"DOC", "L1", "L2", "CONGESTED", "never", NULL};

static const bsf_config_key_t keys[] = {
    BSF_CFG_BOOL_KEY("admission.enabled", admission.enabled, "true",
        "Admission control of the SBI (seeds 3.4, 3.27, 3.28): requests are discarded by "
        "priority while bsfd is congested, 3gpp-Sbi-Oci is sent while it is overloaded. The "
        "decision is made when a request's headers are complete, before its body is read."),
    BSF_CFG_LIST_KEY("admission.priorities", admission.priorities,
        "discovery=15;register=20;deregister=16;update=20;other=20", 127,
        "Priority (0 most important, 31 least) of a request without a valid "
        "3gpp-Sbi-Message-Priority, by operation: `discovery` (GET), `register` (POST), "
        "`deregister` (DELETE), `update` (PATCH), `other`."),
    BSF_CFG_UINT_KEY("congestion.interval_ms", admission.interval_ms, "200", 50, 2147483647,
        "stateCalculationInterval: how often the shared congestion state is computed. When only "
        "diameter.congestion.interval_ms is set, that value is used."),
    BSF_CFG_UINT_KEY("congestion.sample_count", admission.sample_count, "5", 1, 2147483647,
        "stateChangeSampleCount: consecutive samples a new state must hold before it applies. "
        "When only diameter.congestion.sample_count is set, that value is used."),
    BSF_CFG_LIST_KEY("congestion.cpu_thresholds", admission.cpu, "75;80;85;90", 63,
        "bsfd's CPU use (% of the CPUs it may run on) from which DOC, L1, L2 and CONGESTED hold "
        "for the SBI; strictly increasing, 1-100; empty: CPU not watched."),
    BSF_CFG_LIST_KEY("congestion.pending_thresholds", admission.pending, "175;200;225;250", 127,
        "SBI requests admitted and not yet answered from which DOC, L1, L2 and CONGESTED hold; "
        "strictly increasing; empty: not watched."),
    BSF_CFG_LIST_KEY("congestion.receiving_thresholds", admission.receiving, "", 127,
        "SBI requests admitted whose body is still coming from which DOC, L1, L2 and CONGESTED "
        "hold; empty (the default): not watched, since stalled bodies are bounded by "
        "sbi.body_timeout_s and sbi.worker_memory_mb and must not let a peer make bsfd shed "
        "others' requests."),
    BSF_CFG_LIST_KEY("congestion.memory_thresholds", admission.memory, "80;85;90;95", 63,
        "bsfd's resident memory (% of the cgroup's memory.max, else of the RAM) from which DOC, "
        "L1, L2 and CONGESTED hold; empty: not watched."),
    BSF_CFG_ENUM_KEY("congestion.shedding", admission.mode, "priority", shedding_choices,
        "SBI load shedding by `priority` (discard_priorities) or by `percentage` "
        "(discard_percentages)."),
    BSF_CFG_LIST_KEY("congestion.discard_priorities", admission.discard_priorities,
        "30;24;18;14", 63,
        "Priority mode: in DOC, L1, L2, CONGESTED an SBI request whose priority is greater than "
        "or equal to this is discarded (0-31; 32 = none); not increasing."),
    BSF_CFG_LIST_KEY("congestion.discard_percentages", admission.discard_percentages,
        "DOC 30-31:50;L1 24-29:50 30-31:75;L2 18-23:50 24-29:75 30-31:100;CONGESTED 14-31:100",
        511,
        "Percentage mode: `STATE LO-HI:PERCENT ...` per state: SBI requests with a priority in "
        "LO-HI are discarded with that probability."),
    BSF_CFG_UINT_KEY("congestion.response_status", admission.status, "503", 400, 599,
        "Seed 3.5: the HTTP status a discarded SBI request is answered with (4xx or 5xx)."),
    BSF_CFG_STRING_KEY("congestion.response_cause", admission.cause, "NF_CONGESTION_RISK", 63,
        "ProblemDetails cause of a discarded SBI request (TS 29.500: NF_CONGESTION_RISK or "
        "NF_CONGESTION; [A-Z0-9_]; empty: none)."),
    BSF_CFG_UINT_KEY("congestion.retry_after_s", admission.retry_after_s, "1", 0, 3600,
        "Retry-After (seconds) of a discarded SBI request; 0: none."),
    BSF_CFG_BOOL_KEY("overload.enabled", admission.overload, "true",
        "Overload control (seed 3.27, TS 29.500 6.4): levels L1-L3 from the same inputs, with "
        "onset and abatement; while overloaded every SBI answer carries 3gpp-Sbi-Oci (scope "
        "the NF instance)."),
    BSF_CFG_LIST_KEY("overload.cpu_thresholds", admission.ov_cpu, "44:41;49:47;52:50", 63,
        "CPU use `ONSET:ABATEMENT` (%) of L1, L2, L3; empty: not watched."),
    BSF_CFG_LIST_KEY("overload.pending_thresholds", admission.ov_pending,
        "1260:1050;1575:1470;1890:1785", 127,
        "Pending requests (SBI and Diameter) `ONSET:ABATEMENT` of L1, L2, L3; empty: not "
        "watched."),
    BSF_CFG_LIST_KEY("overload.memory_thresholds", admission.ov_memory, "80:75;90:85;95:91", 63,
        "Memory use `ONSET:ABATEMENT` (%) of L1, L2, L3; empty: not watched."),
    BSF_CFG_LIST_KEY("overload.reduction", admission.reduction, "10;25;50", 31,
        "OCI Overload Reduction Metric (%) advertised in L1, L2, L3."),
    BSF_CFG_UINT_KEY("overload.validity_s", admission.validity_s, "10", 1, 3600,
        "OCI Period of Validity (seconds); the OCI's timestamp is renewed after half of it."),
    BSF_CFG_BOOL_KEY("overload.lci", admission.lci, "true",
        "Load control (TS 29.500 6.3): every SBI answer carries 3gpp-Sbi-Lci with bsfd's CPU "
        "load (steps of 5 %) from the first load sample on (congestion.interval_ms after the "
        "start)."),
    BSF_CFG_BOOL_KEY("overload.honour_oci", admission.client_oci, "true",
        "The SBI client honours the OCI its producers send (NRF, PCFs): it drops that share of "
        "its requests to the producer for the validity period (Loss algorithm)."),
    BSF_CFG_LIST_KEY("sbi.errors", admission.errors, "", 1023,
        "Seed 3.33: the HTTP status and cause of error conditions, `CONDITION=STATUS[:CAUSE]` "
        "items; CONDITION is the lowercase cause id (e.g. `existing_binding_info_found=409`, "
        "`optional_ie_incorrect=411:OptionalInformationElementIsIncorrect`; docs/admission.md "
        "lists them), STATUS 400-599."),
    BSF_CFG_BOOL_KEY("sbi.server_header", admission.server_header, "true",
        "Seed 3.26.1: every SBI answer carries `Server: BSF-<nf.instance_id>`."),
    BSF_CFG_UINT_KEY("ratelimit.consumer_rate", admission.rate_per_consumer, "0", 0, 10000000,
        "Seed 3.28: requests per second one consumer (the NF instance of its User-Agent, else "
        "its address) may send; over it, requests above the cut-off priority get 429. 0: none."),
    BSF_CFG_UINT_KEY("ratelimit.burst", admission.rate_burst, "0", 0, 10000000,
        "Requests a consumer may send at once (bucket size); 0: one second's worth."),
    BSF_CFG_LIST_KEY("ratelimit.routes", admission.route_rates, "", 127,
        "Requests per second per operation, all consumers together: `register=N`, "
        "`discovery=N`, `deregister=N`, `update=N`, `other=N`; over it, 429."),
    BSF_CFG_LIST_KEY("admission.message_priority_profile", admission.message_profile, "", 2047,
        "Seed 3.1's message priority profile (messagePriority.messagePriorityProfile): rules "
        "separated by `;`, each `field=value` members separated by `,` with the seed's field "
        "names: messageID, rulePriority (lowest first; the first matching rule applies), "
        "interfaceType (`Nbsf_Management`: requests to the BSF and their answers; "
        "`Npcf_Binding_Audit`: the audit's requests to PCFs; `Nnrf`: the requests to the NRF), "
        "messageType (`Discovery`, `Register`, `Deregister`, `Update`, `Audit_Notify`, "
        "`NfRegister`, `AutonomousNfPatch`, `AutonomousNfDeRegistration`, `NfDiscover`, "
        "`AccessToken`, `Any`), requestPriorityOverride "
        "and responsePriorityAssign (`Always`, `IfNotPresent`, `Never`), requestPriorityValue "
        "and responsePriorityValue (0-31). Example: `messageID=reg,rulePriority=1,"
        "interfaceType=Nbsf_Management,messageType=Register,requestPriorityOverride=Always,"
        "requestPriorityValue=3,responsePriorityAssign=Always,responsePriorityValue=3`. "
        "Empty (the default): no profile; requests keep their header or their operation's "
        "default (admission.priorities) and answers carry none."),
    BSF_CFG_ENUM_KEY("admission.connection_refuse_state", admission.connection_refuse,
        "never", refuse_choices,
        "Seed 3.29: from this congestion state on (DOC, L1, L2, CONGESTED; `never`: never) a new "
        "SBI connection is closed as soon as it is accepted, before anything is read; the "
        "connections already open keep being served (and shed by priority). `never` by "
        "default: a consumer then gets seed 3.5's answer (503, Retry-After) rather than a "
        "closed connection."),
    BSF_CFG_UINT_KEY("admission.connection_max_streams", admission.connection_max_streams,
        "32", 0, 2147483647,
        "Seed 3.29: SETTINGS_MAX_CONCURRENT_STREAMS of an SBI connection opened while the "
        "congestion state is DOC or above (and new connections are not refused); 0 or more "
        "than sbi.max_concurrent_streams: sbi.max_concurrent_streams."),
    BSF_CFG_BOOL_KEY("sbi.error_detail.enhanced", admission.error_detail, "false",
        "Seed 3.11: the ProblemDetails detail of every SBI error answer is "
        "`<fqdn>:BSF_MGMT:<text> :EC-OBSF-BSF_MGMT-<CATEGORY>-<STATUS>-<ID>` (fqdn: nf.fqdn, "
        "else the host name; the error ids are listed in docs/operations.md)."),
    BSF_CFG_BOOL_KEY("sbi.error_log.enabled", admission.error_log, "false",
        "Seed 3.9: every SBI error answer is logged (WARN, module sbi) as one JSON object: "
        "errorStatus, errorTitle, errorDetails, errorCause, sender (BSF-<nf.instance_id>) "
        "and, with sbi.error_log.ue_id, subscriberId."),
    BSF_CFG_BOOL_KEY("sbi.error_log.ue_id", admission.error_log_ue_id, "false",
        "Seed 3.9 (Enable UE Identifier Information): the error log names the request's SUPI, "
        "else its GPSI (query or body). Personal data: off by default."),
    BSF_CFG_UINT_KEY("sbi.error_log.rate", admission.error_log_rate, "500", 1, 10000000,
        "Seed 3.9 burst filter: error log lines per second on average; beyond rate and burst "
        "they are dropped (counted in ocbsf_sbi_error_log_total{result=\"dropped\"})."),
    BSF_CFG_UINT_KEY("sbi.error_log.max_burst", admission.error_log_burst, "3000", 1,
        10000000, "Seed 3.9 burst filter: error log lines that may be written at once."),
    BSF_CFG_UINT_KEY("ratelimit.priority_cutoff", admission.rate_priority, "0", 0, 31,
        "Requests of this priority or a more important one (lower number) are never rate "
        "limited (seed 3.28: only those above the configured value are discarded)."),
};

/* The thresholds parse (the controller's checks) and the cause is a 3GPP cause name. */
static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    bsf_admission_config_t ac;
    char why[320];
    if (bsf_admission_settings_apply(&cfg->admission, &ac, why, sizeof why)) {
        snprintf(err, err_cap, "%s", why);
        return -1;
    }
    bsf_message_profile_t profile;
    if (bsf_message_profile_parse(cfg->admission.message_profile, &profile, why, sizeof why)) {
        snprintf(err, err_cap, "admission.message_priority_profile: %s", why);
        return -1;
    }
    bsf_cause_overrides_t errors;
    if (bsf_cause_overrides_parse(cfg->admission.errors, &errors, why, sizeof why)) {
        snprintf(err, err_cap, "sbi.errors: %s", why);
        return -1;
    }
    if (strspn(cfg->admission.cause, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
        strlen(cfg->admission.cause)) {
        snprintf(err, err_cap, "congestion.response_cause: only A-Z, 0-9 and _ are allowed");
        return -1;
    }
    return 0;
}

const bsf_config_section_t bsf_config_admission_section = {keys, sizeof keys / sizeof keys[0],
                                                           finish};
