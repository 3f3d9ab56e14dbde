#include "engine/command.h"

#include <stdlib.h>
#include <string.h>

bsf_command_t *bsf_command_new(bsf_command_kind_t kind)
{
    bsf_command_t *cmd = calloc(1, sizeof *cmd);
    if (!cmd)
        return NULL;
    if (!msgpack_zone_init(&cmd->zone, 2048)) {
        free(cmd);
        return NULL;
    }
    cmd->kind = kind;
    cmd->origin_ts_ms = cmd->sender_ts_ms = -1;
    msgpack_sbuffer_init(&cmd->body);
    return cmd;
}

void bsf_command_free(bsf_command_t *cmd)
{
    if (!cmd)
        return;
    msgpack_zone_destroy(&cmd->zone);
    msgpack_sbuffer_destroy(&cmd->body);
    free(cmd);
}

void bsf_command_reset_outcome(bsf_command_t *cmd)
{
    cmd->status = BSF_CMD_OK;
    /* what a problem's readers look at (1.4 KB cleared per command was 1 % of the writer) */
    cmd->problem.cause = 0;
    cmd->problem.detail[0] = '\0';
    cmd->problem.n_params = 0;
    msgpack_sbuffer_clear(&cmd->body);
    cmd->log_position = 0;
}
