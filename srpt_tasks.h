/* SPDX-License-Identifier: GPL-2.0 */
/* A channel's tasks on a LU, for task management (srpt_tasks.c). */
#ifndef SRPT_TASKS_H
#define SRPT_TASKS_H

#include "srpt_base.h"

u32 srpt_ch_tasks(struct srpt_rdma_ch *ch, const struct se_device *dev,
		  u64 lun, bool tas, struct srpt_task *tasks, u32 max);
void srpt_ch_wait_answered(struct srpt_rdma_ch *ch, u64 lun, const u64 *tag);

#endif /* SRPT_TASKS_H */
