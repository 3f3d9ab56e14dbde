/* Settings of the log backend, replication between sites and the message feed (their keys
 * are declared in bsfd/config_keys_replication.c). */
#ifndef BSF_REPLICATION_REPLICATION_SETTINGS_H
#define BSF_REPLICATION_REPLICATION_SETTINGS_H

typedef struct {
    char backend[16]; /* "embedded" or "kafka" */
} bsf_replication_settings_t;

#endif
