#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bsfctl/bsfctl.h"
#include "common/version.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: bsfctl --store DIR COMMAND [options]\n"
            "commands:\n"
            "  history (--binding ID | --supi SUPI | --gpsi GPSI | --ue-addr ADDR)\n"
            "          [--since TIME] [--until TIME] [--json]\n"
            "          every event of a binding, subscriber or UE address (IPv4, IPv6 prefix or\n"
            "          address, MAC), oldest first; TIME is RFC 3339 or Unix milliseconds\n"
            "  digest  SHA-256 of the projections (equal on every store with the same events)\n"
            "  rebuild --out DIR [--map-size MB] [--archive DIR]\n"
            "          replay the log into a fresh store at DIR and print its digest; the new\n"
            "          store's map is MB MiB (default: twice the source's map)\n"
            "  stats [--json]\n"
            "          bindings, events and bytes of the store\n"
            "the replicated log (Kafka):\n"
            "  replay --kafka BROKERS --topics T1,T2 [--from-beginning | --offset N | --since TIME]\n"
            "         --out DIR [--map-size MB]\n"
            "          rebuild a store from the topics into a new DIR (progress on stderr) and\n"
            "          print its digest; from the beginning it equals a live site's\n"
            "  export [--kafka BROKERS --topics T1,T2] [--format jsonl|msgpack]\n"
            "         [--since TIME] [--until TIME]\n"
            "          every event, from the store's log (--store) or from the topics, as JSON\n"
            "          lines (docs/events.md) or raw msgpack, on stdout\n"
            "  history ... --kafka BROKERS --topics T1,T2\n"
            "          read the topics instead of the store's log (HLC order)\n"
            "history, export and rebuild on a store take --archive DIR (the site's\n"
            "log.archive_dir): the events that left the log by log.retention, read first\n");
}

int main(int argc, char **argv)
{
    bsfctl_options_t o = {0};
    const char *command = NULL;
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        printf("bsfctl %s\n", bsf_version());
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = strcmp(a, "--store") == 0     ? &o.store
                            : strcmp(a, "--binding") == 0 ? &o.binding
                            : strcmp(a, "--supi") == 0    ? &o.supi
                            : strcmp(a, "--gpsi") == 0    ? &o.gpsi
                            : strcmp(a, "--ue-addr") == 0 ? &o.ue_addr
                            : strcmp(a, "--out") == 0     ? &o.out
                            : strcmp(a, "--since") == 0   ? &o.since
                            : strcmp(a, "--until") == 0   ? &o.until
                            : strcmp(a, "--kafka") == 0   ? &o.kafka
                            : strcmp(a, "--topics") == 0  ? &o.topics
                            : strcmp(a, "--offset") == 0  ? &o.offset
                            : strcmp(a, "--format") == 0  ? &o.format
                            : strcmp(a, "--map-size") == 0 ? &o.map_size
                            : strcmp(a, "--archive") == 0 ? &o.archive
                                                          : NULL;
        if (slot) {
            if (i + 1 >= argc) {
                fprintf(stderr, "bsfctl: %s needs a value\n", a);
                return 2;
            }
            *slot = argv[++i];
        } else if (strcmp(a, "--json") == 0) {
            o.json = true;
        } else if (strcmp(a, "--from-beginning") == 0) {
            o.from_beginning = true;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (!command && a[0] != '-') {
            command = a;
        } else {
            fprintf(stderr, "bsfctl: unexpected argument %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    /* The store is needed unless the events come from Kafka (replay writes to --out). */
    bool kafka_only = command && (strcmp(command, "replay") == 0 ||
                                  ((strcmp(command, "export") == 0 ||
                                    strcmp(command, "history") == 0) && o.kafka));
    if (!command || (!o.store && !kafka_only)) {
        usage(stderr);
        return 2;
    }
    if (strcmp(command, "history") == 0)
        return bsfctl_history(&o);
    if (strcmp(command, "digest") == 0)
        return bsfctl_digest(&o);
    if (strcmp(command, "rebuild") == 0)
        return bsfctl_rebuild(&o);
    if (strcmp(command, "stats") == 0)
        return bsfctl_stats(&o);
    if (strcmp(command, "replay") == 0)
        return bsfctl_replay(&o);
    if (strcmp(command, "export") == 0)
        return bsfctl_export(&o);
    fprintf(stderr, "bsfctl: unknown command %s\n", command);
    usage(stderr);
    return 2;
}
