/* Key tables that must not compile (BAD=1..9) and one that must (BAD=0): the type checks of
 * the BSF_CFG_*_KEY macros (tests/CMakeLists.txt, config_key_types_*). */
#include "bsfd/config.h"
static const bsf_config_key_t keys[] = {
#if BAD == 1
    BSF_CFG_BOOL_KEY("x", site_id, "true", "d"),
#elif BAD == 2
    BSF_CFG_UINT_KEY("x", sbi_late_arrival, "1", 0, 1, "d"),
#elif BAD == 3
    BSF_CFG_UINT_KEY("x", site_id, "1", 0, 65536, "d"),
#elif BAD == 4
    BSF_CFG_STRING_KEY("x", store_path, "", 1024, "d"),
#elif BAD == 5
    BSF_CFG_ENUM_KEY("x", log_level, "info", NULL, "d"),
#elif BAD == 6
    BSF_CFG_LIST_KEY("x", sbi_workers, "", 10, "d"),
#elif BAD == 7
    BSF_CFG_UINT_KEY("x", site_id, "1", 5, 4, "d"),
#elif BAD == 8
    BSF_CFG_DURATION_KEY("x", store_tombstone_horizon_h, "7d", "0", "1d", "d"), /* unsigned */
#elif BAD == 9
    BSF_CFG_DURATION_KEY("x", log_archive_dir, "7d", "0", "1d", "d"),
#else
    BSF_CFG_UINT_KEY("x", site_id, "1", 0, 65535, "d"),
    BSF_CFG_DURATION_KEY("x", log_retention_ms, "7d", "0", "3650d", "d"),
    BSF_CFG_ENUM_KEY("x", discovery_multiple_match, "a", NULL, "d"),
#endif
};
const bsf_config_key_t *k(void);
const bsf_config_key_t *k(void)
{
    return keys;
}
