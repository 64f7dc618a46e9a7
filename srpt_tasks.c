// SPDX-License-Identifier: GPL-2.0
/*
 * A channel's task sets, for task management: its SCSI commands on a LU,
 * and the wait keeping a TMF's response behind those of its tasks. Reads
 * the command pool under ch->lock; calls nothing of the module's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include "srpt_tasks.h"

/*
 * A SCSI command of the pool handed to LIO on the LU (@dev, else @lun):
 * store its tag and LUN in @task and, with @tas, mark it to be answered
 * TASK ABORTED. Caller holds ch->lock.
 */
static bool srpt_cmd_on_lu(struct srpt_cmd *cmd, const struct se_device *dev,
			   u64 lun, bool tas, struct srpt_task *task)
{
	struct se_cmd *se = &cmd->se_cmd;

	if (!READ_ONCE(cmd->lio) ||
	    READ_ONCE(se->se_cmd_flags) & SCF_SCSI_TMR_CDB)
		return false;
	if (dev ? READ_ONCE(se->se_dev) != dev :
		  READ_ONCE(se->orig_fe_lun) != lun)
		return false;
	task->tag = READ_ONCE(cmd->tag);
	task->lun = READ_ONCE(se->orig_fe_lun);
	if (tas)
		WRITE_ONCE(cmd->clear_tas, true);
	return true;
}

/**
 * srpt_ch_tasks() - a channel's SCSI commands on a LU
 * @ch: channel, pinned (or the caller is its IU dispatch)
 * @dev: the LU's device: its commands on it, whatever LUN the channel's
 *	ACL maps it to; NULL: its commands on @lun
 * @lun: see @dev
 * @tas: mark them for TASK ABORTED if LIO aborts them (cmd->clear_tas)
 * @tasks: room for @max
 * @max: entries in @tasks
 *
 * The commands handed to LIO so far. One that completes meanwhile may be
 * included or not (an ABORT TASK for it finds nothing; a command that
 * reuses the tag before the ABORT TASK comes is aborted in its place).
 *
 * Return: how many were stored.
 */
u32 srpt_ch_tasks(struct srpt_rdma_ch *ch, const struct se_device *dev,
		  u64 lun, bool tas, struct srpt_task *tasks, u32 max)
{
	struct srpt_cmd_chunk *chunk;
	unsigned long flags;
	u32 i, n = 0;

	/* ch->lock: a command taken from the pool has clear_tas unset. */
	spin_lock_irqsave(&ch->lock, flags);
	list_for_each_entry(chunk, &ch->cmd_chunks, entry) {
		for (i = 0; i < chunk->n && n < max; i++) {
			if (srpt_cmd_on_lu(&chunk->cmds[i], dev, lun, tas,
					   &tasks[n]))
				tasks[n++].ch = ch;
		}
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	return n;
}

static bool srpt_cmd_unanswered(struct srpt_cmd *cmd, u64 lun, const u64 *tag)
{
	enum srpt_cmd_state state = READ_ONCE(cmd->state);

	return (state == SRPT_CMD_IN_LIO || state == SRPT_CMD_DATA_OUT) &&
	       !(READ_ONCE(cmd->se_cmd.se_cmd_flags) & SCF_SCSI_TMR_CDB) &&
	       READ_ONCE(cmd->se_cmd.orig_fe_lun) == lun &&
	       (!tag || READ_ONCE(cmd->tag) == *tag);
}

/* A task of @ch on @lun (with @tag, if given) whose response is due. */
static bool srpt_ch_unanswered(struct srpt_rdma_ch *ch, u64 lun,
			       const u64 *tag)
{
	struct srpt_cmd_chunk *chunk;
	unsigned long flags;
	bool found = false;
	u32 i;

	/* ch->lock: the pool may grow meanwhile. */
	spin_lock_irqsave(&ch->lock, flags);
	list_for_each_entry(chunk, &ch->cmd_chunks, entry) {
		for (i = 0; i < chunk->n && !found; i++)
			found = srpt_cmd_unanswered(&chunk->cmds[i], lun, tag);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	return found;
}

/* How long a TMF response waits for the responses it must follow. */
#define SRPT_TMF_ORDER_WAIT_MS	10000

/**
 * srpt_ch_wait_answered() - wait until tasks a TMF dealt with are answered
 * @ch: channel of the TMF
 * @lun: the TMF's LU
 * @tag: the task an ABORT TASK names, or NULL for every task on @lun
 *
 * LIO aborts only tasks not yet completed; a completed one gets its
 * response from the fabric callback a moment later, maybe after LIO
 * answered the TMF. The initiator must not see it after the TMF's (ib_srp
 * reuses the tag then), so the TMF response waits until those are queued
 * and goes behind them (cmd->in_order). Bounded by SRPT_TMF_ORDER_WAIT_MS;
 * a channel going away finishes its commands.
 *
 * Context: process.
 */
void srpt_ch_wait_answered(struct srpt_rdma_ch *ch, u64 lun, const u64 *tag)
{
	int ms;

	for (ms = 0; srpt_ch_unanswered(ch, lun, tag); ms++) {
		if (ms >= SRPT_TMF_ORDER_WAIT_MS) {
			pr_warn_ratelimited("%s: a task on LUN %llu is still unanswered %u s after a task management function\n",
					    ch->sess_name, lun,
					    SRPT_TMF_ORDER_WAIT_MS / 1000);
			return;
		}
		usleep_range(1000, 2000);
	}
}
