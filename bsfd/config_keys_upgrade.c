/* Configuration keys of upgrades (issue 15 §3): which version of the event contract this
 * site writes (docs/events.md, "Versions"; the procedure in docs/operations.md). */
#include "bsfd/config.h"
#include "core/event.h"

static const bsf_config_key_t keys[] = {
    BSF_CFG_UINT_KEY("events.write_version", events_write_version, "1", BSF_EVENT_VERSION_OLDEST,
        BSF_EVENT_VERSION,
        "Version of the event contract this site writes to its log and Kafka topic "
        "(docs/events.md). Every version from 1 to 2 is read whatever this says. Keep 1 while "
        "any site of the set runs a release that reads only version 1 (the releases before "
        "this key); set 2 (smaller registration events) once every site runs this release or "
        "a later one. Read at start."),
    BSF_CFG_UINT_KEY("store.migration_batch", store_migration_batch, "10000", 1, 1000000,
        "Records rewritten per transaction by the record migration at start (an older "
        "release's records into the current format, docs/operations.md \"Upgrading\"): "
        "each batch commits with its position, so a process killed midway resumes from "
        "the last batch. Read at start."),
};

const bsf_config_section_t bsf_config_upgrade_section = {keys, sizeof keys / sizeof keys[0],
                                                         NULL};
