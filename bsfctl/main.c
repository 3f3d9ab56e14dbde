/* bsfctl's command line: getopt_long options (anywhere on the line), one command, its own
 * --help, and only the options that command takes. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bsfctl/bsfctl.h"
#include "common/version.h"

enum {
    OPT_STORE = 1, OPT_BINDING, OPT_SUPI, OPT_GPSI, OPT_UE_ADDR, OPT_OUT, OPT_SINCE, OPT_UNTIL,
    OPT_KAFKA, OPT_TOPICS, OPT_OFFSET, OPT_FORMAT, OPT_MAP_SIZE, OPT_ARCHIVE, OPT_JSON,
    OPT_FROM_BEGINNING, OPT_HELP, OPT_VERSION, OPT_TO, OPT_FROM, OPT_FORCE, OPT_COUNT
};
#define BIT(o) (1u << (o))

typedef struct {
    const char *name;
    int (*run)(const bsfctl_options_t *o);
    unsigned options; /* BIT(OPT_...) the command takes (--store, --json, --help always) */
    const char *usage, *about;
} command_t;

#define TIME_OPTS (BIT(OPT_SINCE) | BIT(OPT_UNTIL))
#define KAFKA_OPTS (BIT(OPT_KAFKA) | BIT(OPT_TOPICS))

static const command_t commands[] = {
    {"history", bsfctl_history,
     BIT(OPT_BINDING) | BIT(OPT_SUPI) | BIT(OPT_GPSI) | BIT(OPT_UE_ADDR) | TIME_OPTS |
         BIT(OPT_ARCHIVE) | KAFKA_OPTS,
     "history (--binding ID | --supi SUPI | --gpsi GPSI | --ue-addr ADDR) [--since TIME]\n"
     "        [--until TIME] [--archive DIR | --kafka BROKERS --topics T1,T2] [--json]",
     "every event of a binding, subscriber or UE address (IPv4, IPv6 prefix or address, MAC),\n"
     "oldest first (HLC order), in one pass over the log or the topics; TIME is RFC 3339 or\n"
     "Unix milliseconds; --json: one JSON object per event"},
    {"digest", bsfctl_digest, 0, "digest [--json]",
     "SHA-256 of the projections (equal on every store with the same events)"},
    {"rebuild", bsfctl_rebuild, BIT(OPT_OUT) | BIT(OPT_MAP_SIZE) | BIT(OPT_ARCHIVE),
     "rebuild --out DIR [--map-size MB] [--archive DIR] [--json]",
     "replay the log into a fresh store at DIR and print its digest; the new store's map is\n"
     "MB MiB (default: twice the source's map)"},
    {"stats", bsfctl_stats, 0, "stats [--json]", "bindings, events and bytes of the store"},
    {"replay", bsfctl_replay,
     KAFKA_OPTS | BIT(OPT_FROM_BEGINNING) | BIT(OPT_OFFSET) | BIT(OPT_SINCE) | BIT(OPT_OUT) |
         BIT(OPT_MAP_SIZE),
     "replay --kafka BROKERS --topics T1,T2 [--from-beginning | --offset N | --since TIME]\n"
     "       --out DIR [--map-size MB] [--json]",
     "rebuild a store from the replicated log's topics into a new DIR and print its digest;\n"
     "from the beginning it equals a live site's"},
    {"export", bsfctl_export, KAFKA_OPTS | BIT(OPT_FORMAT) | TIME_OPTS | BIT(OPT_ARCHIVE),
     "export [--kafka BROKERS --topics T1,T2 | --archive DIR] [--format jsonl|msgpack]\n"
     "       [--since TIME] [--until TIME] [--json]",
     "every event, from the store's log or from the topics, as JSON lines (docs/events.md;\n"
     "--json is --format jsonl) or raw msgpack, on stdout"},
    {"backup", bsfctl_backup, BIT(OPT_TO), "backup --to PATH [--json]",
     "a compacted copy of the store in one file, consistent while bsfd serves (one LMDB read\n"
     "transaction, as mdb_copy -c), written to PATH.tmp.PID, fsynced and renamed to PATH;\n"
     "and its SHA-256 to PATH.sha256 (sha256sum -c reads it); prints its size, log position,\n"
     "site id and SHA-256"},
    {"restore", bsfctl_restore, BIT(OPT_FROM) | BIT(OPT_FORCE),
     "restore --from PATH [--force] [--json]",
     "checks the backup PATH (its SHA-256 against PATH.sha256 when there is one, an LMDB\n"
     "file of a schema this build reads, every database readable) and puts it in place as the store --store DIR; refused while a process has\n"
     "DIR open (LMDB's lock) and when DIR holds a store, unless --force. bsfd refuses a\n"
     "store of another site.id at start (docs/operations.md)"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static const struct option long_options[] = {
    {"store", required_argument, NULL, OPT_STORE},
    {"binding", required_argument, NULL, OPT_BINDING},
    {"supi", required_argument, NULL, OPT_SUPI},
    {"gpsi", required_argument, NULL, OPT_GPSI},
    {"ue-addr", required_argument, NULL, OPT_UE_ADDR},
    {"out", required_argument, NULL, OPT_OUT},
    {"since", required_argument, NULL, OPT_SINCE},
    {"until", required_argument, NULL, OPT_UNTIL},
    {"kafka", required_argument, NULL, OPT_KAFKA},
    {"topics", required_argument, NULL, OPT_TOPICS},
    {"offset", required_argument, NULL, OPT_OFFSET},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"map-size", required_argument, NULL, OPT_MAP_SIZE},
    {"archive", required_argument, NULL, OPT_ARCHIVE},
    {"json", no_argument, NULL, OPT_JSON},
    {"from-beginning", no_argument, NULL, OPT_FROM_BEGINNING},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {"to", required_argument, NULL, OPT_TO},
    {"from", required_argument, NULL, OPT_FROM},
    {"force", no_argument, NULL, OPT_FORCE},
    {NULL, 0, NULL, 0},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: bsfctl [--store DIR] COMMAND [options]   (bsfctl COMMAND --help)\n"
                 "commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %s\n", commands[i].usage);
    fprintf(out, "--store DIR is needed except where the events come from Kafka (--kafka);\n"
                 "history, export and rebuild take --archive DIR (the site's log.archive_dir)\n"
                 "to read the events log.retention moved out of the log first. On a terminal\n"
                 "rebuild, replay, export and history draw a progress bar on stderr.\n"
                 "backup copies a serving store into one file; restore puts one in place\n"
                 "(bsfd stopped) as --store DIR.\n"
                 "bsfctl --version\n");
}

static void command_help(const command_t *c)
{
    printf("usage: bsfctl --store DIR %s\n\n%s\n", c->usage, c->about);
}

static const char *option_name(int opt)
{
    for (const struct option *o = long_options; o->name; o++)
        if (o->val == opt)
            return o->name;
    return "?";
}

/* Stores one option's value in `o`. */
static void set_option(bsfctl_options_t *o, int opt, const char *arg)
{
    const char **slots[OPT_COUNT] = {
        [OPT_STORE] = &o->store, [OPT_BINDING] = &o->binding, [OPT_SUPI] = &o->supi,
        [OPT_GPSI] = &o->gpsi, [OPT_UE_ADDR] = &o->ue_addr, [OPT_OUT] = &o->out,
        [OPT_SINCE] = &o->since, [OPT_UNTIL] = &o->until, [OPT_KAFKA] = &o->kafka,
        [OPT_TOPICS] = &o->topics, [OPT_OFFSET] = &o->offset, [OPT_FORMAT] = &o->format,
        [OPT_MAP_SIZE] = &o->map_size, [OPT_ARCHIVE] = &o->archive, [OPT_TO] = &o->to,
        [OPT_FROM] = &o->from};
    if (opt == OPT_JSON)
        o->json = true;
    else if (opt == OPT_FROM_BEGINNING)
        o->from_beginning = true;
    else if (opt == OPT_FORCE)
        o->force = true;
    else if (opt > 0 && opt < OPT_COUNT && slots[opt])
        *slots[opt] = arg;
}

int main(int argc, char **argv)
{
    bsfctl_options_t o = {0};
    unsigned given = 0;
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
        if (opt == '?' || opt == ':') {
            fprintf(stderr, "bsfctl: %s %s\n", argv[optind - 1],
                    opt == ':' ? "needs a value" : "is not an option");
            usage(stderr);
            return 2;
        }
        given |= BIT(opt == 'h' ? OPT_HELP : opt);
        set_option(&o, opt, optarg);
    }
    if (given & BIT(OPT_VERSION)) {
        printf("bsfctl %s\n", bsf_version());
        return 0;
    }
    const command_t *c = NULL;
    for (size_t i = 0; optind < argc && i < N_COMMANDS; i++)
        if (strcmp(argv[optind], commands[i].name) == 0)
            c = &commands[i];
    if (optind < argc && !c) {
        fprintf(stderr, "bsfctl: unknown command %s\n", argv[optind]);
        usage(stderr);
        return 2;
    }
    if (given & BIT(OPT_HELP)) {
        if (c)
            command_help(c);
        else
            usage(stdout);
        return 0;
    }
    if (!c || optind + 1 < argc) {
        if (c)
            fprintf(stderr, "bsfctl: unexpected argument %s\n", argv[optind + 1]);
        usage(stderr);
        return 2;
    }
    unsigned allowed = c->options | BIT(OPT_STORE) | BIT(OPT_JSON);
    for (int i = 1; i < OPT_COUNT; i++)
        if ((given & BIT(i)) && !(allowed & BIT(i))) {
            fprintf(stderr, "bsfctl: %s does not take --%s\n", c->name, option_name(i));
            command_help(c);
            return 2;
        }
    /* The store is needed unless the events come from Kafka (replay writes to --out). */
    bool kafka_only = strcmp(c->name, "replay") == 0 ||
                      ((strcmp(c->name, "export") == 0 || strcmp(c->name, "history") == 0) &&
                       o.kafka);
    if (!o.store && !kafka_only) {
        fprintf(stderr, "bsfctl: %s needs --store DIR\n", c->name);
        return 2;
    }
    return c->run(&o);
}
