/* Settings of the log backend, replication between sites and the message feed (keys in
 * config_keys_replication.c). */
#ifndef BSF_BSFD_CONFIG_REPLICATION_H
#define BSF_BSFD_CONFIG_REPLICATION_H

typedef struct {
    char backend[16]; /* "embedded" or "kafka" */
} bsf_replication_settings_t;

#endif
