/* SPDX-License-Identifier: GPL-2.0 */
/* Data buffers and RDMA contexts of commands (srpt_data.c). */
#ifndef SRPT_DATA_H
#define SRPT_DATA_H

#include "srpt_base.h"

int srpt_alloc_data(struct srpt_cmd *cmd, const struct srpt_cmd_info *ci);
void srpt_free_data(struct srpt_cmd *cmd);
int srpt_rw_init(struct srpt_cmd *cmd);
void srpt_rw_destroy(struct srpt_cmd *cmd);

#endif /* SRPT_DATA_H */
