// SPDX-License-Identifier: GPL-2.0
/*
 * SRP requests (SRP_CMD through LIO, task management, logout and other
 * initiator IUs), their responses and the LIO callbacks of a command's
 * life. Data movement and the send queue are srpt_sq.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>
#include "srpt_cmd.h"
#include "srpt_data.h"
#include "srpt_life.h"
#include "srpt_proto.h"
#include "srpt_sq.h"
#include "srpt_tasks.h"
#include "srpt_trace.h"

/* Answer a request LIO never had: @status, its sense @key, @asc_ascq. */
static void srpt_send_status(struct srpt_cmd *cmd, u8 status, u8 key,
			     u16 asc_ascq)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 sense_len = 0;

	if (status == SAM_STAT_CHECK_CONDITION)
		sense_len = srpt_fixed_sense(cmd->sense, sizeof(cmd->sense),
					     key, asc_ascq >> 8, asc_ascq);
	cmd->rsp_len = srpt_build_rsp(cmd->rsp_buf, ch->max_rsp_size, cmd->tag,
				      0, status, cmd->sense, sense_len, 0, 0,
				      0);
	srpt_send_rsp(cmd);
}

static void srpt_send_tm_status(struct srpt_cmd *cmd,
				enum srpt_tm_rsp_code code)
{
	struct srpt_rdma_ch *ch = cmd->ch;

	/* Behind the responses queued before it: srpt_ch_wait_answered(). */
	cmd->in_order = true;
	cmd->rsp_len = srpt_build_tm_rsp(cmd->rsp_buf, ch->max_rsp_size,
					 cmd->tag, 0, code);
	srpt_send_rsp(cmd);
}

/* The TCM_*_TAG of an SRP task attribute, or -1. */
static int srpt_task_attr(u8 attr)
{
	static const u8 tcm_tag[] = {
		[0] = TCM_SIMPLE_TAG,
		[1] = TCM_HEAD_TAG,
		[2] = TCM_ORDERED_TAG,
		[4] = TCM_ACA_TAG,
	};

	return attr < ARRAY_SIZE(tcm_tag) && tcm_tag[attr] ? tcm_tag[attr] : -1;
}

/* Answer an SRP_CMD that cannot be executed, saying why. */
static void srpt_refuse_cmd(struct srpt_cmd *cmd, enum srpt_cmd_err err)
{
	static const struct {
		const char *why;
		u16 asc_ascq;
	} refusal[] = {
		[SRPT_CMD_BAD_IU] = { "malformed", SRPT_ASC_INVALID_IU_FIELD },
		[SRPT_CMD_BAD_FMT] = { "unsupported buffer format",
				       SRPT_ASC_INVALID_IU_FIELD },
		[SRPT_CMD_TOO_BIG] = { "data length too large",
				       SRPT_ASC_INVALID_IU_FIELD },
		[SRPT_CMD_BAD_CDB] = { "CDB longer than the IU carries",
				       SRPT_ASC_INVALID_CDB_FIELD },
	};
	struct srpt_rdma_ch *ch = cmd->ch;

	if (WARN_ON_ONCE(err >= ARRAY_SIZE(refusal) || !refusal[err].why))
		err = SRPT_CMD_BAD_IU;
	pr_warn_ratelimited("%s: rejecting SRP_CMD (IU length %u, opcode %#x): %s\n",
			    ch->sess_name, cmd->iu->len,
			    cmd->iu->len > 32 ? ((u8 *)cmd->iu->buf)[32] : 0,
			    refusal[err].why);
	srpt_send_status(cmd, SAM_STAT_CHECK_CONDITION, ILLEGAL_REQUEST,
			 refusal[err].asc_ascq);
}

/* Hand a parsed SRP_CMD (task attribute @attr, TCM_*_TAG) to LIO. */
static void srpt_submit_cmd(struct srpt_cmd *cmd,
			    struct srpt_cmd_info *ci, int attr)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	int dir, ret;

	ret = srpt_alloc_data(cmd, ci);
	srpt_free_table(cmd);	/* the descriptors are in cmd->rw now */
	if (ret) {
		pr_warn_ratelimited("%s: no data buffer for %u bytes: %d\n",
				    ch->sess_name, ci->data_len, ret);
		if (ret == -E2BIG)
			srpt_send_status(cmd, SAM_STAT_CHECK_CONDITION,
					 ILLEGAL_REQUEST,
					 SRPT_ASC_INVALID_IU_FIELD);
		else
			srpt_send_status(cmd, SAM_STAT_BUSY, 0, 0);
		return;
	}
	if (ci->fmt == SRP_NO_DATA_DESC)
		dir = DMA_NONE;
	else
		dir = ci->data_out ? DMA_TO_DEVICE : DMA_FROM_DEVICE;

	memset(&cmd->se_cmd, 0, sizeof(cmd->se_cmd));
	cmd->se_cmd.tag = ci->tag;
	ret = target_init_cmd(&cmd->se_cmd, ch->sess, cmd->sense,
			      scsilun_to_int(&ci->lun), ci->data_len, attr, dir,
			      TARGET_SCF_ACK_KREF);
	if (ret) {
		/* The session is going away: drop the command. */
		srpt_free_data(cmd);
		srpt_repost_iu(cmd, true);
		srpt_put_cmd(cmd);
		return;
	}
	cmd->lio = true;
	srpt_cmd_set_state(cmd, SRPT_CMD_IN_LIO);
	if (target_submit_prep(&cmd->se_cmd, (unsigned char *)ci->cdb,
			       cmd->data_sg, cmd->data_nents, NULL, 0, NULL, 0,
			       GFP_KERNEL))
		return;		/* LIO sent CHECK CONDITION */
	target_submit(&cmd->se_cmd);
}

/*
 * Parse the SRP_CMD in cmd->iu; with a fetched indirect table, check that
 * too. Return: its task attribute (TCM_*_TAG), or -1 after answering it.
 */
static int srpt_check_cmd(struct srpt_cmd *cmd, struct srpt_cmd_info *ci)
{
	struct srpt_recv_iu *iu = cmd->iu;
	struct srpt_rdma_ch *ch = cmd->ch;
	enum srpt_cmd_err err;
	int attr;

	err = srpt_parse_cmd(iu->buf, iu->len, ch->imm_data_offset,
			     SRPT_MAX_DATA_LEN, ci);
	cmd->tag = ci->tag;
	/* Once per command: not again after its indirect table came in. */
	if (!cmd->table && (!err || err == SRPT_CMD_EXT_TABLE))
		trace_srpt_cmd_recv(ch, ci);
	attr = srpt_task_attr(ci->task_attr);
	if (err == SRPT_CMD_EXT_TABLE && cmd->table)
		err = srpt_parse_table(ci, cmd->table);
	if ((!err || err == SRPT_CMD_EXT_TABLE) && attr < 0)
		err = SRPT_CMD_BAD_IU;
	if (err && err != SRPT_CMD_EXT_TABLE) {
		srpt_free_table(cmd);
		srpt_refuse_cmd(cmd, err);
		return -1;
	}
	return attr;
}

/* srpt_fetch_table() is done: go on with the command, or fail it. */
static void srpt_table_done(struct srpt_cmd *cmd, int err)
{
	struct srpt_cmd_info ci;
	int attr;

	if (err) {
		/* The channel is closing: nobody will see this. */
		srpt_send_status(cmd, SAM_STAT_CHECK_CONDITION, ABORTED_COMMAND,
				 0);
		return;
	}
	attr = srpt_check_cmd(cmd, &ci);
	if (attr >= 0)
		srpt_submit_cmd(cmd, &ci, attr);
}

static void srpt_handle_cmd(struct srpt_rdma_ch *ch, struct srpt_cmd *cmd)
{
	struct srpt_cmd_info ci;
	int attr, ret;

	attr = srpt_check_cmd(cmd, &ci);
	if (attr < 0)
		return;
	if (!ci.ext_table) {
		srpt_submit_cmd(cmd, &ci, attr);
		return;
	}
	/* The descriptors are in initiator memory: fetch them first. */
	ret = srpt_fetch_table(cmd, &ci.table, srpt_table_done);
	if (ret) {
		pr_warn_ratelimited("%s: no buffer for an indirect table of %u bytes: %d\n",
				    ch->sess_name, ci.table.len, ret);
		srpt_send_status(cmd, SAM_STAT_BUSY, 0, 0);
	}
}

/* Most tasks one ABORT TASK SET aborts: a channel has fewer commands. */
#define SRPT_TASK_SET_MAX	(2 * SRPT_MAX_CREDITS)

/**
 * struct srpt_task_set - an ABORT TASK SET or CLEAR TASK SET in progress
 * @work: aborts the tasks, then answers @tmf
 * @tmf: the SRP_TSK_MGMT command
 * @lun: its LUN
 * @left: ABORT TASKs not yet released by LIO, plus one while submitting
 * @done: completed when @left drops to 0
 * @n_chs: entries in @chs
 * @chs: the channels pinned for it (srpt_ch_pin()), @tmf's first
 * @n: entries in @tasks
 * @tasks: the tasks it aborts
 */
struct srpt_task_set {
	struct work_struct	work;
	struct srpt_cmd		*tmf;
	u64			lun;
	atomic_t		left;
	struct completion	done;
	u32			n_chs;
	struct srpt_rdma_ch	**chs;
	u32			n;
	struct srpt_task	tasks[] __counted_by(n);
};

/* An ABORT TASK of @ts is over (LIO released it, or never took it). */
static void srpt_task_set_put(struct srpt_task_set *ts)
{
	if (atomic_dec_and_test(&ts->left))
		complete(&ts->done);
}

static void srpt_unpin_chs(struct srpt_rdma_ch **chs, u32 n)
{
	while (n--)
		srpt_ch_put(chs[n]);
	kvfree(chs);
}

/*
 * Abort the tasks of @ts with LIO's ABORT TASK, each on its channel's
 * session in a command outside the pools, all at once (an abort waits for
 * the backend to give its task up: one by one, later tasks would complete
 * meanwhile). The function completes once LIO released them all (the
 * tasks are gone then); its SRP_RSP goes behind the responses of tasks
 * that completed instead, and carries their credits.
 */
static void srpt_task_set_work(struct work_struct *w)
{
	struct srpt_task_set *ts = container_of(w, struct srpt_task_set, work);
	struct srpt_cmd *tmf = ts->tmf, *subs, *sub;
	u32 i;

	subs = kvcalloc(ts->n, sizeof(*subs), GFP_KERNEL);
	for (i = 0; subs && i < ts->n; i++) {
		sub = &subs[i];
		sub->ch = ts->tasks[i].ch;
		sub->sub_tmr = true;
		sub->sub_set = ts;
		sub->tag = ts->tasks[i].tag;
		atomic_inc(&ts->left);
		if (target_submit_tmr(&sub->se_cmd, sub->ch->sess, NULL,
				      ts->tasks[i].lun, NULL, TMR_ABORT_TASK,
				      GFP_KERNEL, sub->tag,
				      TARGET_SCF_ACK_KREF))
			srpt_task_set_put(ts);	/* the session is going away */
	}
	srpt_task_set_put(ts);
	wait_for_completion(&ts->done);
	kvfree(subs);
	srpt_ch_wait_answered(tmf->ch, ts->lun, NULL);
	srpt_send_tm_status(tmf, subs || !ts->n ? SRPT_TM_COMPLETE :
						  SRPT_TM_FAILED);
	/* Done with the sessions: see srpt_ch_pin(). */
	srpt_unpin_chs(ts->chs, ts->n_chs);
	kvfree(ts);
}

/*
 * The device of the LU @lun names for @ch, whether its TAS bit is set,
 * and whether target ports of this fabric alone export it. Return: 0,
 * -ENODEV (no such LUN) or -EOPNOTSUPP (another fabric exports it).
 */
static int srpt_lu_dev(struct srpt_rdma_ch *ch, u64 lun,
		       const struct se_device **devp, bool *tas)
{
	const struct target_core_fabric_ops *ops = ch->sess->se_tpg->se_tpg_tfo;
	struct se_node_acl *nacl = ch->sess->se_node_acl;
	struct se_device *dev = NULL;
	struct se_dev_entry *deve;
	struct se_lun *se_lun;
	int ret = -ENODEV;

	rcu_read_lock();
	hlist_for_each_entry_rcu(deve, &nacl->lun_entry_hlist, link) {
		if (deve->mapped_lun == lun && deve->se_lun) {
			dev = rcu_dereference(deve->se_lun->lun_se_dev);
			break;
		}
	}
	if (dev) {
		ret = 0;
		*devp = dev;
		*tas = dev->dev_attrib.emulate_tas;
		spin_lock(&dev->se_port_lock);
		list_for_each_entry(se_lun, &dev->dev_sep_list, lun_dev_link) {
			if (se_lun->lun_tpg->se_tpg_tfo != ops)
				ret = -EOPNOTSUPP;
		}
		spin_unlock(&dev->se_port_lock);
	}
	rcu_read_unlock();
	return ret;
}

/*
 * Pin the channels whose tasks a function of @ch may abort, @ch first:
 * @ch alone, or (@clear) every other live channel too.
 * Return: the channels (srpt_unpin_chs()), *@n_chs of them; NULL if @ch
 * is no longer live (or no memory).
 */
static struct srpt_rdma_ch **srpt_pin_chs(struct srpt_rdma_ch *ch,
					  bool clear, u32 *n_chs)
{
	struct srpt_rdma_ch **chs;
	int max = 8, n;

	for (;;) {
		chs = kvcalloc(max, sizeof(*chs), GFP_KERNEL);
		if (!chs)
			return NULL;
		if (!srpt_ch_pin(ch)) {
			kvfree(chs);
			return NULL;
		}
		chs[0] = ch;
		n = clear ? 1 + srpt_ch_pin_live(chs + 1, max - 1, ch) : 1;
		if (n <= max) {
			*n_chs = n;
			return chs;
		}
		srpt_unpin_chs(chs, max);	/* more logged in meanwhile */
		max = n + 8;
	}
}

/*
 * Start an ABORT TASK SET or (@clear) a CLEAR TASK SET for @tmf on @lun,
 * or answer it if it cannot be done.
 *
 * ABORT TASK SET: LIO keeps a task set per session, one per channel: the
 * set is the channel's tasks on the LU. CLEAR TASK SET: LIO reports one
 * task set for all I_T nexuses (control mode page TST 000): the tasks of
 * every channel on the LU's device; other nexuses' are answered TASK
 * ABORTED if the LU has TAS, else end without a response as in LIO's
 * LOGICAL UNIT RESET (no unit attention). Another fabric's tasks are out
 * of reach: if one exports the LU, the function is not supported.
 */
static void srpt_task_set(struct srpt_cmd *tmf, u64 lun, bool clear)
{
	struct srpt_rdma_ch *ch = tmf->ch, **chs;
	const struct se_device *dev = NULL;
	struct srpt_task_set *ts;
	u32 n_chs, max = 0, n = 0, i;
	bool tas = false;
	int ret = 0;

	if (clear)
		ret = srpt_lu_dev(ch, lun, &dev, &tas);
	if (ret) {
		if (ret == -EOPNOTSUPP)
			pr_info_ratelimited("%s: CLEAR TASK SET of LUN %llu not supported: another fabric exports the LU\n",
					    ch->sess_name, lun);
		srpt_send_tm_status(tmf, ret == -ENODEV ?
				    SRPT_TM_INVALID_FIELDS :
				    SRPT_TM_NOT_SUPPORTED);
		return;
	}
	chs = srpt_pin_chs(ch, clear, &n_chs);
	for (i = 0; chs && i < n_chs; i++)
		max += READ_ONCE(chs[i]->n_cmds);
	if (!clear)
		max = min_t(u32, max, SRPT_TASK_SET_MAX);
	ts = chs ? kvzalloc(struct_size(ts, tasks, max), GFP_KERNEL) : NULL;
	if (!ts) {
		if (chs)
			srpt_unpin_chs(chs, n_chs);
		srpt_send_tm_status(tmf, SRPT_TM_FAILED);
		return;
	}
	ts->n = max;
	for (i = 0; i < n_chs; i++)
		n += srpt_ch_tasks(chs[i], dev, lun,
				   tas && !srpt_same_nexus(chs[i], ch),
				   ts->tasks + n, max - n);
	ts->n = n;
	ts->tmf = tmf;
	ts->lun = lun;
	ts->chs = chs;
	ts->n_chs = n_chs;
	atomic_set(&ts->left, 1);
	init_completion(&ts->done);
	INIT_WORK(&ts->work, srpt_task_set_work);
	srpt_queue_work(&ts->work);
}

static void srpt_handle_tsk_mgmt(struct srpt_rdma_ch *ch,
				 struct srpt_cmd *cmd)
{
	struct srpt_recv_iu *iu = cmd->iu;
	struct srpt_tsk_info ti;
	int tmf;

	if (srpt_parse_tsk_mgmt(iu->buf, iu->len, &ti)) {
		cmd->tag = ti.tag;
		pr_warn_ratelimited("%s: short SRP_TSK_MGMT (%u bytes)\n",
				    ch->sess_name, iu->len);
		srpt_send_tm_status(cmd, SRPT_TM_INVALID_FIELDS);
		return;
	}
	cmd->tag = ti.tag;
	/* LIO does ABORT TASK and LOGICAL UNIT RESET; the others are ours. */
	switch (ti.function) {
	case SRP_TSK_ABORT_TASK:
		tmf = TMR_ABORT_TASK;
		break;
	case SRP_TSK_LUN_RESET:
		tmf = TMR_LUN_RESET;
		break;
	case SRP_TSK_ABORT_TASK_SET:
	case SRP_TSK_CLEAR_TASK_SET:
		srpt_task_set(cmd, scsilun_to_int(&ti.lun),
			      ti.function == SRP_TSK_CLEAR_TASK_SET);
		return;
	case SRP_TSK_CLEAR_ACA:
		/* LIO has no ACA (NormACA 0): there is none to clear. */
		srpt_send_tm_status(cmd, SRPT_TM_COMPLETE);
		return;
	default:
		pr_info_ratelimited("%s: task management function %#x not supported\n",
				    ch->sess_name, ti.function);
		srpt_send_tm_status(cmd, SRPT_TM_NOT_SUPPORTED);
		return;
	}
	memset(&cmd->se_cmd, 0, sizeof(cmd->se_cmd));
	cmd->se_cmd.tag = ti.tag;
	cmd->lio = true;
	srpt_cmd_set_state(cmd, SRPT_CMD_IN_LIO);
	if (target_submit_tmr(&cmd->se_cmd, ch->sess, NULL,
			      scsilun_to_int(&ti.lun), NULL, tmf, GFP_KERNEL,
			      ti.task_tag, TARGET_SCF_ACK_KREF)) {
		cmd->lio = false;
		srpt_cmd_set_state(cmd, SRPT_CMD_RECEIVED);
		srpt_send_tm_status(cmd, SRPT_TM_FAILED);
	}
}

/**
 * srpt_handle_iu() - execute a received IU
 * @ch: live channel
 * @cmd: free command, cmd->iu holding the IU
 *
 * Context: the channel's receive completion or a context that returned a
 * command to the pool; one at a time per channel, in arrival order.
 */
void srpt_handle_iu(struct srpt_rdma_ch *ch, struct srpt_cmd *cmd)
{
	struct srpt_recv_iu *iu = cmd->iu;
	u8 opcode = srpt_iu_opcode(iu->buf, iu->len);

	switch (opcode) {
	case SRP_CMD:
		srpt_ch_count(ch, SRPT_STAT_CMDS, 1);
		srpt_handle_cmd(ch, cmd);
		break;
	case SRP_TSK_MGMT:
		srpt_ch_count(ch, SRPT_STAT_TMFS, 1);
		srpt_handle_tsk_mgmt(ch, cmd);
		break;
	case SRP_I_LOGOUT:
		pr_info("%s: initiator logged out\n", ch->sess_name);
		srpt_repost_iu(cmd, true);
		srpt_put_cmd(cmd);
		srpt_close_ch(ch);
		break;
	case SRP_CRED_RSP:
		/* Answers to target requests consume no credit. */
		if (!srpt_cred_rsp_recv(cmd, srpt_iu_tag(iu->buf, iu->len)))
			pr_debug("%s: SRP_CRED_RSP without an SRP_CRED_REQ\n",
				 ch->sess_name);
		srpt_put_cmd(cmd);
		break;
	case SRP_AER_RSP:
		/* This target sends no SRP_AER_REQ; accepted all the same. */
		srpt_repost_iu(cmd, false);
		srpt_put_cmd(cmd);
		break;
	default:
		pr_warn_ratelimited("%s: invalid IU type %#x (%u bytes): logging the channel out\n",
				    ch->sess_name, opcode, iu->len);
		cmd->tag = srpt_iu_tag(iu->buf, iu->len);
		srpt_repost_iu(cmd, true);
		cmd->rsp_len = srpt_build_t_logout(cmd->rsp_buf,
						   ch->max_rsp_size, cmd->tag,
						   SRPT_T_LOGOUT_INVALID_IU);
		/* Close once sent: on siw, a drain flushes an unsent SEND. */
		cmd->close_after = true;
		srpt_send_rsp(cmd);
		break;
	}
}

/* Send the SRP_RSP of a LIO command, after its data-in if @with_data. */
static void srpt_send_cmd_rsp(struct srpt_cmd *cmd, bool with_data)
{
	struct se_cmd *se = &cmd->se_cmd;
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 do_resid = 0, di_resid = 0;
	u8 flags = 0;

	if (se->se_cmd_flags & (SCF_UNDERFLOW_BIT | SCF_OVERFLOW_BIT)) {
		bool under = se->se_cmd_flags & SCF_UNDERFLOW_BIT;

		if (se->data_direction == DMA_FROM_DEVICE) {
			flags = under ? SRP_RSP_FLAG_DIUNDER :
					SRP_RSP_FLAG_DIOVER;
			di_resid = se->residual_count;
		} else if (se->data_direction == DMA_TO_DEVICE) {
			flags = under ? SRP_RSP_FLAG_DOUNDER :
					SRP_RSP_FLAG_DOOVER;
			do_resid = se->residual_count;
		}
	}
	cmd->rsp_len = srpt_build_rsp(cmd->rsp_buf, ch->max_rsp_size, cmd->tag,
				      0, se->scsi_status, se->sense_buffer,
				      se->scsi_sense_length, flags, do_resid,
				      di_resid);
	cmd->rsp_with_data = with_data;
	srpt_send_rsp(cmd);
}

/**
 * srpt_write_pending() - LIO wants the data-out of a command
 * @se_cmd: command
 *
 * Immediate data is already here; else srpt_start_read() fetches it.
 *
 * Return: 0.
 */
int srpt_write_pending(struct se_cmd *se_cmd)
{
	struct srpt_cmd *cmd = container_of(se_cmd, struct srpt_cmd, se_cmd);

	if (cmd->imm || !cmd->n_rw || !se_cmd->data_length) {
		if (cmd->imm)
			srpt_ch_count(cmd->ch, SRPT_STAT_BYTES_IN,
				      se_cmd->data_length);
		target_execute_cmd(se_cmd);
		return 0;
	}
	srpt_start_read(cmd);
	return 0;
}

/**
 * srpt_queue_data_in() - RDMA WRITE the data-in of a command, then SRP_RSP
 * @se_cmd: command
 *
 * Return: 0.
 */
int srpt_queue_data_in(struct se_cmd *se_cmd)
{
	struct srpt_cmd *cmd = container_of(se_cmd, struct srpt_cmd, se_cmd);

	srpt_send_cmd_rsp(cmd, cmd->n_rw && se_cmd->data_length);
	return 0;
}

/**
 * srpt_queue_status() - send the SRP_RSP of a command without data-in
 * @se_cmd: command
 *
 * Return: 0.
 */
int srpt_queue_status(struct se_cmd *se_cmd)
{
	srpt_send_cmd_rsp(container_of(se_cmd, struct srpt_cmd, se_cmd),
			  false);
	return 0;
}

/**
 * srpt_queue_tm_rsp() - send the SRP_RSP of a task management function
 * @se_cmd: the TMR command
 */
void srpt_queue_tm_rsp(struct se_cmd *se_cmd)
{
	struct srpt_cmd *cmd = container_of(se_cmd, struct srpt_cmd, se_cmd);
	enum srpt_tm_rsp_code code;
	struct se_tmr_req *tmr;

	if (cmd->sub_tmr) {
		/* Part of an ABORT TASK SET: no response of its own. */
		transport_generic_free_cmd(se_cmd, 0);
		return;
	}
	/* Tasks that completed instead of being aborted answer first. */
	tmr = se_cmd->se_tmr_req;
	if (tmr->function == TMR_ABORT_TASK)
		srpt_ch_wait_answered(cmd->ch, se_cmd->orig_fe_lun,
				      &tmr->ref_task_tag);
	else if (tmr->function == TMR_LUN_RESET)
		srpt_ch_wait_answered(cmd->ch, se_cmd->orig_fe_lun, NULL);

	switch (se_cmd->se_tmr_req->response) {
	case TMR_FUNCTION_COMPLETE:
	case TMR_TASK_DOES_NOT_EXIST:
		code = SRPT_TM_COMPLETE;
		break;
	case TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED:
	case TMR_FUNCTION_REJECTED:
		code = SRPT_TM_NOT_SUPPORTED;
		break;
	case TMR_LUN_DOES_NOT_EXIST:
		code = SRPT_TM_INVALID_FIELDS;
		break;
	default:
		code = SRPT_TM_FAILED;
		break;
	}
	srpt_send_tm_status(cmd, code);
}

/**
 * srpt_aborted_task() - LIO aborted a command that gets no response
 * @se_cmd: command
 *
 * Nothing is sent (the initiator gave the task up) unless cmd->clear_tas:
 * then srpt_release_cmd() answers TASK ABORTED. It releases the buffers
 * and the request's credit either way.
 */
void srpt_aborted_task(struct se_cmd *se_cmd)
{
	struct srpt_cmd *cmd = container_of(se_cmd, struct srpt_cmd, se_cmd);

	pr_debug("%s: task %#llx aborted\n", cmd->ch->sess_name, cmd->tag);
	cmd->tas_rsp = READ_ONCE(cmd->clear_tas);
	/* A TASK ABORTED response is counted when it is sent, not here. */
	if (!cmd->tas_rsp)
		srpt_ch_count(cmd->ch, SRPT_STAT_ABORTS, 1);
}

/**
 * srpt_check_stop_free() - LIO is done with a command
 * @se_cmd: command
 *
 * Return: 1 if the command was released.
 */
int srpt_check_stop_free(struct se_cmd *se_cmd)
{
	return target_put_sess_cmd(se_cmd);
}

/**
 * srpt_release_cmd() - last reference to a command dropped
 * @se_cmd: command
 */
void srpt_release_cmd(struct se_cmd *se_cmd)
{
	struct srpt_cmd *cmd = container_of(se_cmd, struct srpt_cmd, se_cmd);

	if (cmd->sub_tmr) {
		srpt_task_set_put(cmd->sub_set);
		return;
	}

	srpt_free_data(cmd);
	if (cmd->tas_rsp) {
		/* LIO is done with it: the response is ours (no LIO). */
		cmd->lio = false;
		srpt_send_status(cmd, SAM_STAT_TASK_ABORTED, 0, 0);
		return;
	}
	srpt_repost_iu(cmd, true);
	srpt_put_cmd(cmd);
}
