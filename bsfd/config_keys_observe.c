/* Configuration keys of the diagnostics (issue 15 §4): the log's format and the per-module
 * levels beside log.level. */
#include <stdio.h>

#include "bsfd/config.h"
#include "common/diag.h"

static const char *const log_format_choices[] = {"text", "json", NULL};

static const bsf_config_key_t keys[] = {
    BSF_CFG_ENUM_TEXT_KEY("log.format", log_format, "text", log_format_choices,
        "Log lines on stderr: `text` (`<time> <LEVEL> <module>: <message>`) or `json` (one "
        "object per line: `ts`, `level`, `module`, `msg`, and `correlation` when the line is "
        "about one request or binding)."),
    BSF_CFG_LIST_KEY("log.modules", log_modules, "", 511,
        "Levels per module over `log.level`, `module=level` items (e.g. "
        "`sbi=debug,engine=warn`). Modules: bsfd, config, diameter, engine, feed, kafka, nrf, "
        "ops, replication, retention, sbi, store."),
};

static int finish(bsf_config_t *cfg, char *err, size_t err_cap)
{
    char why[256];
    if (bsf_log_module_levels_check(cfg->log_modules, why, sizeof why)) {
        snprintf(err, err_cap, "log.modules: %s", why);
        return -1;
    }
    return 0;
}

const bsf_config_section_t bsf_config_observe_section = {keys, sizeof keys / sizeof keys[0],
                                                         finish};
