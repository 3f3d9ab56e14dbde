/* Configuration keys of the write path (issue 16): the engine's commit window. */
#include "bsfd/config.h"

static const bsf_config_key_t keys[] = {
    BSF_CFG_UINT_KEY("store.commit_window_us", store_commit_window_us, "500", 0, 100000,
        "Commit window in microseconds: when the engine takes fewer than "
        "`store.commit_window_batch` commands from its queue, it waits up to this long for "
        "more before their write transaction runs, so that one commit's fsyncs cover more "
        "registrations (less CPU per registration at low rates, at most this much added "
        "latency). 0: commit at once."),
    BSF_CFG_UINT_KEY("store.commit_window_batch", store_commit_window_batch, "64", 1, 65536,
        "A batch of at least this many commands commits at once, without the commit window "
        "(capped at `store.max_batch`)."),
};

const bsf_config_section_t bsf_config_write_path_section = {keys, sizeof keys / sizeof keys[0],
                                                            NULL};
