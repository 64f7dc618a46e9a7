/* SPDX-License-Identifier: GPL-2.0 */
/* srpt_cmd.c: the handler of received IUs, LIO callbacks of commands. */
#ifndef SRPT_CMD_H
#define SRPT_CMD_H

#include "srpt_base.h"

void srpt_handle_iu(struct srpt_rdma_ch *ch, struct srpt_cmd *cmd);
int srpt_write_pending(struct se_cmd *se_cmd);
int srpt_queue_data_in(struct se_cmd *se_cmd);
int srpt_queue_status(struct se_cmd *se_cmd);
void srpt_queue_tm_rsp(struct se_cmd *se_cmd);
void srpt_aborted_task(struct se_cmd *se_cmd);
void srpt_release_cmd(struct se_cmd *se_cmd);
int srpt_check_stop_free(struct se_cmd *se_cmd);

#endif /* SRPT_CMD_H */
