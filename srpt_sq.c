// SPDX-License-Identifier: GPL-2.0
/*
 * A channel's send queue: posting (receive buffers too), the command pool's
 * entries, credits and SRP_CRED_REQ (Documentation/ib_srpt.rst, "Pool and
 * credits"), the queues where RDMA READs and responses wait in order for
 * send queue slots (and MRs, on iWARP), completions, and the drain.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>
#include "srpt_sq.h"
#include "srpt_buf.h"
#include "srpt_data.h"
#include "srpt_life.h"
#include "srpt_proto.h"
#include "srpt_stats.h"
#include "srpt_trace.h"

static void srpt_sq_kick(struct srpt_rdma_ch *ch, struct srpt_cmd *add,
			 enum srpt_cmd_state state);

/**
 * srpt_wc_failed() - a work request of a channel failed
 * @ch: channel
 * @wc: its completion
 * @what: what it was, for the log
 *
 * Any failure, a flush too, means the QP is in error: unless we drain it,
 * the channel is dead (a failed unsignaled RDMA WRITE shows only as flushes).
 */
void srpt_wc_failed(struct srpt_rdma_ch *ch, struct ib_wc *wc,
		    const char *what)
{
	trace_srpt_wr_error(ch, wc, what);
	if (wc->status != IB_WC_WR_FLUSH_ERR) {
		srpt_ch_count(ch, SRPT_STAT_WR_ERRORS, 1);
		pr_warn_ratelimited("%s: %s failed: %s\n", ch->sess_name, what,
				    ib_wc_status_msg(wc->status));
	}
	srpt_close_ch(ch);
}

static void srpt_reset_cmd(struct srpt_cmd *cmd)
{
	WARN_ON_ONCE(cmd->table);	/* srpt_free_table() first */
	cmd->iu = NULL;
	cmd->rw = NULL;
	cmd->n_rw = 0;
	cmd->n_active = 0;
	cmd->n_wrs = 0;
	cmd->sq_held = 0;
	cmd->data_sg = NULL;
	cmd->data_nents = 0;
	cmd->imm = false;
	cmd->data_out = false;
	cmd->rw_ready = false;
	cmd->rsp_with_data = false;
	cmd->lio = false;
	cmd->close_after = false;
	cmd->logout = false;
	cmd->in_order = false;
	cmd->tas_rsp = false;
}

/* The states a command may enter each state from. */
static const u8 srpt_cmd_from[SRPT_CMD_NR] = {
	[SRPT_CMD_FREE]		= BIT(SRPT_CMD_RECEIVED) | BIT(SRPT_CMD_IN_LIO) |
				  BIT(SRPT_CMD_SENT),
	[SRPT_CMD_RECEIVED]	= BIT(SRPT_CMD_FREE) | BIT(SRPT_CMD_TABLE) |
				  BIT(SRPT_CMD_IN_LIO),
	[SRPT_CMD_TABLE]	= BIT(SRPT_CMD_RECEIVED),
	[SRPT_CMD_IN_LIO]	= BIT(SRPT_CMD_RECEIVED) | BIT(SRPT_CMD_DATA_OUT),
	[SRPT_CMD_DATA_OUT]	= BIT(SRPT_CMD_IN_LIO),
	[SRPT_CMD_RSP]		= BIT(SRPT_CMD_FREE) | BIT(SRPT_CMD_RECEIVED) |
				  BIT(SRPT_CMD_IN_LIO) | BIT(SRPT_CMD_SENT),
	[SRPT_CMD_SENT]		= BIT(SRPT_CMD_RSP),
};

/**
 * srpt_cmd_set_state() - move a command of a pool to another state
 * @cmd: command, owned by the caller's context
 * @new: the state it enters
 *
 * The only place a command's state changes; a move srpt_cmd_from[] does
 * not list is warned about once, and made. FREE from IN_LIO: aborted
 * without a response. The target's own requests enter RSP from FREE, or
 * from the state of a command bound for the pool.
 */
void srpt_cmd_set_state(struct srpt_cmd *cmd, enum srpt_cmd_state new)
{
	enum srpt_cmd_state old = cmd->state;

	WARN_ONCE(!(srpt_cmd_from[new] & BIT(old)),
		  "ib_srpt: command %#llx: state %d -> %d\n", cmd->tag, old, new);
	trace_srpt_cmd_state(cmd, old, new);
	WRITE_ONCE(cmd->state, new);
}

/*
 * ib_post_send(), or with fault injection (srpt_fault_post_send()) the
 * first work request of a chain only, failing the rest.
 */
static int srpt_ib_post_send(struct ib_qp *qp, struct ib_send_wr *wr,
			     const struct ib_send_wr **bad_wr)
{
	struct ib_send_wr *next = wr->next;
	int ret;

	if (!next || !srpt_fault_post_send())
		return ib_post_send(qp, wr, bad_wr);
	wr->next = NULL;
	ret = ib_post_send(qp, wr, bad_wr);
	wr->next = next;
	if (ret)
		return ret;
	*bad_wr = next;
	return -ENOMEM;
}

/* Post receive buffer @iu (synced for the device) to the QP of @ch. */
static int srpt_ib_post_recv(struct srpt_rdma_ch *ch, struct srpt_recv_iu *iu)
{
	struct ib_sge sge = {
		.addr = iu->dma,
		.length = ch->layout.size,
		.lkey = ch->sport->sdev->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &iu->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(ch->qp, &wr, NULL);
}

/*
 * Post @wr unless the channel drains; a real posting error is fatal. The
 * request buffer @recv of the response @wr carries, if not NULL, goes to
 * the receive queue first, in the same critical section (it is the
 * channel's own: one of an SRQ is posted there). If @cmd's chain went in
 * part (the WRs before the failing one may still move data), @cmd goes to
 * ch->post_failed, for srpt_ch_drain() to fail once they are flushed:
 * return -EINPROGRESS then.
 */
static int srpt_post_send(struct srpt_rdma_ch *ch, struct ib_send_wr *wr,
			  struct srpt_cmd *cmd, struct srpt_recv_iu *recv)
{
	const struct ib_send_wr *bad_wr = NULL;
	const char *what = "ib_post_send";
	int ret = -ESHUTDOWN;
	bool part = false;

	spin_lock_bh(&ch->post_lock);
	if (READ_ONCE(ch->state) < SRPT_CH_DRAINING) {
		ret = recv ? srpt_ib_post_recv(ch, recv) : 0;
		if (ret)
			what = "ib_post_recv";
		else
			ret = srpt_ib_post_send(ch->qp, wr, &bad_wr);
		part = ret && cmd && bad_wr && bad_wr != wr;
		if (part)
			list_add_tail(&cmd->entry, &ch->post_failed);
	}
	spin_unlock_bh(&ch->post_lock);
	if (ret && ret != -ESHUTDOWN) {
		pr_warn_ratelimited("%s: %s failed: %d%s\n",
				    ch->sess_name, what, ret,
				    part ? " (chain posted in part)" : "");
		srpt_close_ch(ch);
		if (part)
			ret = -EINPROGRESS;
	}
	return ret;
}

/**
 * srpt_post_recv() - post a receive buffer (to the QP, or its SRQ)
 * @ch: channel
 * @iu: buffer
 *
 * Return: 0, -ESHUTDOWN if the channel drains, or a posting error (which
 * closes the channel).
 */
int srpt_post_recv(struct srpt_rdma_ch *ch, struct srpt_recv_iu *iu)
{
	int ret = -ESHUTDOWN;

	if (iu->srq) {
		/* The SRQ outlives the channel: always back to it. */
		ret = srpt_srq_post(iu);
		if (ret)
			srpt_close_ch(ch);
		return ret;
	}
	ib_dma_sync_single_for_device(srpt_ch_dev(ch), iu->dma,
				      ch->layout.size, DMA_FROM_DEVICE);
	spin_lock_bh(&ch->post_lock);
	if (READ_ONCE(ch->state) < SRPT_CH_DRAINING)
		ret = srpt_ib_post_recv(ch, iu);
	spin_unlock_bh(&ch->post_lock);
	if (ret && ret != -ESHUTDOWN) {
		pr_warn_ratelimited("%s: ib_post_recv failed: %d\n",
				    ch->sess_name, ret);
		srpt_close_ch(ch);
	}
	return ret;
}

/**
 * srpt_repost_iu() - give the request buffer of a command back
 * @cmd: command; its request buffer (if it still has one) is reposted
 * @credit: the request used a credit, to return with the next response
 */
void srpt_repost_iu(struct srpt_cmd *cmd, bool credit)
{
	struct srpt_recv_iu *iu = cmd->iu;

	if (!iu)
		return;
	cmd->iu = NULL;
	if (!srpt_post_recv(cmd->ch, iu) && credit)
		atomic_inc(&cmd->ch->req_lim_delta);
}

/*
 * With no request left to answer (the last ended without a response: LIO
 * aborted it, a LOGICAL UNIT RESET of another nexus without TAS), returned
 * credits would wait while the initiator may wait for them: an SRP_CRED_REQ
 * carries them, one at a time (the initiator has one slot for answers).
 */
static bool srpt_cred_req_due(struct srpt_rdma_ch *ch)
{
	lockdep_assert_held(&ch->lock);
	return ch->cmds_busy == 1 && list_empty(&ch->iu_wait) &&
	       ch->state == SRPT_CH_LIVE && !ch->cred_req_out &&
	       atomic_read(&ch->req_lim_delta) > 0;
}

/*
 * The SRP_CRED_RSP to an SRP_CRED_REQ uses no credit, so it needs a buffer
 * beyond those the credits cover, or an initiator sending a full burst first
 * finds none (an RNR stall on IB and RoCE, a terminated connection on
 * iWARP): a spare is posted, the channel's own or one of its SRQ's. Whichever
 * buffer takes the SRP_CRED_RSP becomes the spare: srpt_cred_rsp_recv().
 */
static void srpt_post_cred_spare(struct srpt_rdma_ch *ch)
{
	struct srpt_srq *srq = ch->srq;
	struct srpt_recv_iu *iu = NULL;
	unsigned long flags;
	bool posted = false;

	if (srq)
		iu = srpt_srq_take_spare(srq, &posted);
	spin_lock_irqsave(&ch->lock, flags);
	if (!srq)
		swap(iu, ch->spare);
	ch->cred_spare = posted || iu;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!iu)
		return;
	iu->ch = ch;
	srpt_post_recv(ch, iu);
}

/**
 * srpt_cred_rsp_recv() - the initiator answered an SRP_CRED_REQ
 * @cmd: command holding the SRP_CRED_RSP; its receive buffer is posted
 *	again, or kept as the spare if one was posted for the SRP_CRED_REQ
 * @tag: the tag of the SRP_CRED_RSP
 *
 * Return: whether an SRP_CRED_REQ with @tag was outstanding.
 */
bool srpt_cred_rsp_recv(struct srpt_cmd *cmd, u64 tag)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	bool ours, spare = false;
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	ours = ch->cred_req_out && tag == ch->cred_req_tag;
	if (ours) {
		ch->cred_req_out = false;
		ch->cred_req_tag++;
		spare = ch->cred_spare;
		ch->cred_spare = false;
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!spare || !cmd->iu) {
		srpt_repost_iu(cmd, false);
	} else if (cmd->iu->srq) {
		srpt_srq_put_spare(cmd->iu->srq, cmd->iu);
		cmd->iu = NULL;
	} else {
		spin_lock_irqsave(&ch->lock, flags);
		ch->spare = cmd->iu;
		spin_unlock_irqrestore(&ch->lock, flags);
		cmd->iu = NULL;
	}
	return ours;
}

/**
 * srpt_put_cmd() - return a command to the channel's pool
 * @cmd: command that has no request buffer, data or work left
 *
 * The last busy one first carries leftover credits in an SRP_CRED_REQ.
 */
void srpt_put_cmd(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	unsigned long flags;
	bool dispatch, cred;
	u64 tag = 0;

	srpt_reset_cmd(cmd);
	spin_lock_irqsave(&ch->lock, flags);
	cred = srpt_cred_req_due(ch);
	if (cred) {
		ch->cred_req_out = true;
		tag = ch->cred_req_tag;
	} else {
		srpt_cmd_set_state(cmd, SRPT_CMD_FREE);
		list_add(&cmd->entry, &ch->free_cmds);
		ch->cmds_busy--;
	}
	/* A dispatch running now sees @cmd; else the dispatch work does. */
	dispatch = !list_empty(&ch->iu_wait) && !ch->iu_running &&
		   !ch->dispatch_queued;
	if (dispatch) {
		ch->dispatch_queued = true;
		srpt_ch_get(ch);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (dispatch)
		srpt_queue_work(&ch->dispatch_work);
	if (!cred) {
		/* Last: the release work may free @ch once every command is home. */
		srpt_ch_put(ch);
		return;
	}
	/* Still busy, still holding its reference to @ch. */
	srpt_post_cred_spare(ch);
	srpt_event(SRPT_EV_CRED_REQS);
	cmd->tag = tag;
	cmd->rsp_len = srpt_build_cred_req(cmd->rsp_buf, ch->max_rsp_size,
					   cmd->tag);
	srpt_send_rsp(cmd);
}

/*
 * Give @cmd's RDMA contexts back, if it has any, and start the commands
 * that wait for them or for the send queue slots srpt_sq_release() gave
 * back before: one kick per completion.
 */
static void srpt_rw_put(struct srpt_cmd *cmd)
{
	if (cmd->rw_ready)
		srpt_rw_destroy(cmd);
	srpt_sq_kick(cmd->ch, NULL, SRPT_CMD_FREE);
}

static bool srpt_pending_reads(struct srpt_cmd *cmd)
{
	return cmd->state == SRPT_CMD_DATA_OUT || cmd->state == SRPT_CMD_TABLE;
}

static bool srpt_pending_needs_rw(struct srpt_cmd *cmd)
{
	return srpt_pending_reads(cmd) || cmd->rsp_with_data;
}

/* Responses without data go first. */
static struct list_head *srpt_wait_list(struct srpt_cmd *cmd)
{
	return srpt_pending_needs_rw(cmd) || cmd->in_order ?
	       &cmd->ch->sq_wait : &cmd->ch->rsp_wait;
}

/*
 * @cmd enters @state (what it waits for) and the send queue: in one
 * critical section, as srpt_ch_wait_answered() takes a response due for
 * queued (a TMF's response must not pass that of a task it dealt with).
 */
static void srpt_start(struct srpt_cmd *cmd, enum srpt_cmd_state state)
{
	srpt_sq_kick(cmd->ch, cmd, state);
}

/*
 * Send queue slots: reserved before posting, released by the completion,
 * which then kicks the send queue (srpt_rw_put()).
 */
static bool srpt_sq_reserve(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 n = cmd->n_wrs;

	if (!srpt_pending_reads(cmd))
		n = 1 + (cmd->rsp_with_data ? cmd->n_wrs : 0);
	if (atomic_sub_return(n, &ch->sq_wr_avail) < 0) {
		atomic_add(n, &ch->sq_wr_avail);
		return false;
	}
	cmd->sq_held = n;
	return true;
}

static void srpt_sq_release(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;

	if (WARN_ON_ONCE(!cmd->sq_held))
		return;
	atomic_add(cmd->sq_held, &ch->sq_wr_avail);
	cmd->sq_held = 0;
}

/* Post what @cmd waits for; the send queue slots are held. */
static int srpt_post_pending(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 port = ch->sport->port_num;
	struct ib_send_wr send_wr = {}, *first = NULL;
	struct ib_cqe *cqe = &cmd->read_cqe;
	struct srpt_recv_iu *recv = NULL;
	struct ib_sge sge;
	u32 credits;
	int i;

	if (cmd->state == SRPT_CMD_RSP) {
		/*
		 * The request's buffer goes back with the response, its credit
		 * on it (srpt_post_send()); not if the channel drains: its
		 * buffers go with it. An SRQ's went back in srpt_send_rsp().
		 */
		swap(recv, cmd->iu);
		if (recv)
			ib_dma_sync_single_for_device(srpt_ch_dev(ch), recv->dma,
						      ch->layout.size,
						      DMA_FROM_DEVICE);
		/* Every credit given back so far rides on this response. */
		credits = atomic_xchg(&ch->req_lim_delta, 0) + !!recv;
		if (srpt_iu_set_req_lim_delta(cmd->rsp_buf, credits))
			atomic_add(credits, &ch->req_lim);
		else
			atomic_add(credits, &ch->req_lim_delta);
		sge.addr = cmd->rsp_dma;
		sge.length = cmd->rsp_len;
		sge.lkey = ch->sport->sdev->pd->local_dma_lkey;
		send_wr.wr_cqe = &cmd->rsp_cqe;
		send_wr.sg_list = &sge;
		send_wr.num_sge = 1;
		send_wr.opcode = IB_WR_SEND;
		send_wr.send_flags = IB_SEND_SIGNALED;
		ib_dma_sync_single_for_device(srpt_ch_dev(ch), cmd->rsp_dma,
					      cmd->rsp_len, DMA_TO_DEVICE);
		first = &send_wr;
		if (!cmd->rsp_with_data)
			return srpt_post_send(ch, first, cmd, recv);
	}
	if (cmd->state == SRPT_CMD_TABLE)
		cqe = &cmd->table_cqe;
	for (i = cmd->n_active - 1; i >= 0; i--)
		first = rdma_rw_ctx_wrs(&cmd->rw[i].rw, ch->qp, port,
					first ? NULL : cqe, first);
	return srpt_post_send(ch, first, cmd, recv);
}

/*
 * The response of @cmd was sent, or will never be: finish the command. A
 * request buffer it still has (its response was not posted) goes back now:
 * one of an SRQ must.
 */
static void srpt_cmd_done(struct srpt_cmd *cmd)
{
	srpt_repost_iu(cmd, false);
	if (cmd->logout)
		complete(&cmd->ch->logout_sent);
	srpt_rw_put(cmd);
	if (cmd->lio)
		transport_generic_free_cmd(&cmd->se_cmd, 0);
	else
		srpt_put_cmd(cmd);
}

/**
 * srpt_free_table() - free the indirect table of a command
 * @cmd: command; nothing is posted for the table any more
 */
void srpt_free_table(struct srpt_cmd *cmd)
{
	if (!cmd->table)
		return;
	/* Not rw_inline[0].len: the data transfer reuses that context. */
	srpt_res_add(SRPT_RES_TABLE_BYTES, -(long)cmd->table_sg.length);
	kfree(cmd->table);
	cmd->table = NULL;
}

/* The RDMA READ of @cmd's indirect table is over (@err 0) or will not be. */
static void srpt_table_fetched(struct srpt_cmd *cmd, int err)
{
	srpt_cmd_set_state(cmd, SRPT_CMD_RECEIVED);
	srpt_rw_put(cmd);
	cmd->rw_inline[0].sg = NULL;
	cmd->rw = NULL;
	cmd->n_rw = 0;
	cmd->data_out = false;
	if (err)
		srpt_free_table(cmd);
	cmd->table_done(cmd, err);
}

/**
 * srpt_fetch_table() - RDMA READ the indirect table of an SRP_CMD
 * @cmd: command (not handed to LIO yet) holding the SRP_CMD
 * @where: the table in initiator memory (at most SRPT_MAX_TABLE_DESC)
 * @done: called once cmd->table holds the table (err 0), or with an
 *	error and no table (the channel is going away, the READ failed)
 *
 * Return: 0 if @done will be called, -ENOMEM if no buffer is free.
 */
int srpt_fetch_table(struct srpt_cmd *cmd, const struct srpt_cmd_desc *where,
		     srpt_table_done_fn done)
{
	struct srpt_rw *rw = &cmd->rw_inline[0];

	if (WARN_ON_ONCE(cmd->table || cmd->rw || !where->len))
		return -EINVAL;
	cmd->table = kmalloc(where->len, GFP_KERNEL);
	if (!cmd->table)
		return -ENOMEM;
	srpt_res_add(SRPT_RES_TABLE_BYTES, where->len);
	memset(rw, 0, sizeof(*rw));
	sg_init_one(&cmd->table_sg, cmd->table, where->len);
	rw->sg = &cmd->table_sg;
	rw->nents = 1;
	rw->va = where->va;
	rw->rkey = where->rkey;
	rw->len = where->len;
	cmd->rw = rw;
	cmd->n_rw = 1;
	cmd->data_out = true;		/* the direction of an RDMA READ */
	cmd->table_done = done;
	srpt_start(cmd, SRPT_CMD_TABLE);
	return 0;
}

/*
 * What @cmd waits for cannot be done: the channel is going away
 * (-ESHUTDOWN) or the transfer cannot be set up (another error). Data-in
 * not moved is answered CHECK CONDITION, ABORTED COMMAND (the initiator
 * retries); srpt_send_rsp() counted the replaced response: an error is
 * counted unless it was one already.
 */
static void srpt_pending_failed(struct srpt_cmd *cmd, int err)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	sense_reason_t reason;
	bool was_error;
	u32 sense_len;

	if (cmd->state == SRPT_CMD_TABLE) {
		srpt_table_fetched(cmd, err);
		return;
	}
	if (cmd->state == SRPT_CMD_DATA_OUT) {
		srpt_cmd_set_state(cmd, SRPT_CMD_IN_LIO);
		reason = err == -ENOMEM ? TCM_OUT_OF_RESOURCES :
					  TCM_CHECK_CONDITION_ABORT_CMD;
		transport_generic_request_failure(&cmd->se_cmd, reason);
		return;
	}
	if (err == -ESHUTDOWN || !cmd->rsp_with_data) {
		srpt_cmd_set_state(cmd, SRPT_CMD_SENT);
		if (cmd->close_after)
			srpt_close_ch(ch);
		srpt_cmd_done(cmd);
		return;
	}
	was_error = srpt_rsp_outcome(cmd->rsp_buf, cmd->rsp_len) == SRPT_RSP_ERROR;
	sense_len = srpt_fixed_sense(cmd->sense, sizeof(cmd->sense),
				     ABORTED_COMMAND, 0, 0);
	cmd->rsp_len = srpt_build_rsp(cmd->rsp_buf, ch->max_rsp_size, cmd->tag,
				      0, SAM_STAT_CHECK_CONDITION, cmd->sense,
				      sense_len, 0, 0, 0);
	cmd->rsp_with_data = false;
	if (!was_error)
		srpt_ch_count(ch, SRPT_STAT_ERRORS, 1);
	trace_srpt_send_rsp(ch, cmd->tag, cmd->rsp_buf, cmd->rsp_len, false);
	srpt_start(cmd, SRPT_CMD_RSP);
}

/*
 * Start what @cmd waits for. Return -EAGAIN, with nothing held, if it
 * must wait for send queue slots or RDMA contexts.
 */
static int srpt_try_start(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	bool rw_idle;
	int ret;

	if (READ_ONCE(ch->state) >= SRPT_CH_DRAINING) {
		srpt_pending_failed(cmd, -ESHUTDOWN);
		return 0;
	}
	if (srpt_pending_needs_rw(cmd) && !cmd->rw_ready) {
		/* Only this context sets contexts up: see srpt_sq_kick(). */
		rw_idle = !atomic_read(&ch->rw_active);
		ret = srpt_rw_init(cmd);
		if (ret == -EAGAIN && !rw_idle)
			return ret;	/* retried when MRs come back */
		if (ret) {
			srpt_pending_failed(cmd, ret);
			return 0;
		}
		if (cmd->state == SRPT_CMD_DATA_OUT && !cmd->n_wrs) {
			/* Nothing to read after all. */
			srpt_cmd_set_state(cmd, SRPT_CMD_IN_LIO);
			srpt_rw_put(cmd);
			target_execute_cmd(&cmd->se_cmd);
			return 0;
		}
	}
	if (!srpt_sq_reserve(cmd))
		return -EAGAIN;
	ret = srpt_post_pending(cmd);
	if (ret) {
		srpt_sq_release(cmd);
		if (ret != -EINPROGRESS)
			srpt_pending_failed(cmd, -ESHUTDOWN);
	}
	return 0;
}

/*
 * Queue @add (if not NULL) in @state and start the waiting commands in order
 * (ch->rsp_wait, then ch->sq_wait) while the send queue and the MR pool
 * have room. One context at a time: others adding commands or giving
 * resources back ask it to look again, so failures that finish commands
 * (and queue their responses) while the channel drains loop here instead
 * of recursing.
 */
static void srpt_sq_kick(struct srpt_rdma_ch *ch, struct srpt_cmd *add,
			 enum srpt_cmd_state state)
{
	struct srpt_cmd *cmd;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&ch->lock, flags);
	if (add) {
		if (add->state != state)
			srpt_cmd_set_state(add, state);
		add->sq_waited = false;
		list_add_tail(&add->entry, srpt_wait_list(add));
	}
	if (ch->sq_kicking)
		ch->sq_kick_again = true;
	if (ch->sq_kicking || (list_empty(&ch->rsp_wait) &&
			       list_empty(&ch->sq_wait))) {
		spin_unlock_irqrestore(&ch->lock, flags);
		return;
	}
	/* Failing the last command must not free @ch under this loop. */
	srpt_ch_get(ch);
	ch->sq_kicking = true;
	for (;;) {
		ch->sq_kick_again = false;
		cmd = list_first_entry_or_null(&ch->rsp_wait, struct srpt_cmd,
					       entry);
		if (!cmd)
			cmd = list_first_entry_or_null(&ch->sq_wait,
						       struct srpt_cmd, entry);
		if (!cmd)
			break;
		list_del_init(&cmd->entry);
		spin_unlock_irqrestore(&ch->lock, flags);
		ret = srpt_try_start(cmd);
		spin_lock_irqsave(&ch->lock, flags);
		if (ret == -EAGAIN) {
			if (!cmd->sq_waited) {
				cmd->sq_waited = true;
				srpt_ch_count(ch, SRPT_STAT_SQ_WAITS, 1);
			}
			list_add(&cmd->entry, srpt_wait_list(cmd));
			if (!ch->sq_kick_again)
				break;
		}
	}
	ch->sq_kicking = false;
	spin_unlock_irqrestore(&ch->lock, flags);
	srpt_ch_put(ch);
}

/*
 * siw completes an RDMA READ twice when it flushes a QP whose READ was
 * taken up but not yet sent (from the outstanding-READ queue, again as the
 * WR in progress); a second finish would free the command under LIO.
 */
static bool srpt_wc_expected(struct srpt_cmd *cmd, struct ib_wc *wc,
			     enum srpt_cmd_state what)
{
	if (likely(READ_ONCE(cmd->state) == what))
		return true;
	pr_warn_ratelimited("%s: ignored a second completion (%s) of task %#llx from %s\n",
			    cmd->ch->sess_name, ib_wc_status_msg(wc->status),
			    cmd->tag, dev_name(&srpt_ch_dev(cmd->ch)->dev));
	return false;
}

static void srpt_rsp_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_cmd *cmd = container_of(wc->wr_cqe, struct srpt_cmd,
					    rsp_cqe);
	struct srpt_rdma_ch *ch = cmd->ch;

	if (unlikely(!srpt_wc_expected(cmd, wc, SRPT_CMD_RSP)))
		return;
	srpt_cmd_set_state(cmd, SRPT_CMD_SENT);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		srpt_wc_failed(ch, wc, "response send");
	} else {
		if (cmd->rsp_with_data)
			srpt_ch_count(ch, SRPT_STAT_BYTES_OUT, cmd->xfer_len);
		if (cmd->close_after)
			srpt_close_ch(ch);
	}
	srpt_sq_release(cmd);
	srpt_cmd_done(cmd);
}

static void srpt_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_cmd *cmd = container_of(wc->wr_cqe, struct srpt_cmd,
					    read_cqe);
	struct srpt_rdma_ch *ch = cmd->ch;

	if (unlikely(!srpt_wc_expected(cmd, wc, SRPT_CMD_DATA_OUT)))
		return;
	srpt_cmd_set_state(cmd, SRPT_CMD_IN_LIO);
	srpt_sq_release(cmd);
	/* Unmap the data (and free the MRs) before LIO looks at it. */
	srpt_rw_put(cmd);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		srpt_wc_failed(ch, wc, "RDMA READ");
		transport_generic_request_failure(&cmd->se_cmd,
						  TCM_CHECK_CONDITION_ABORT_CMD);
	} else {
		srpt_ch_count(ch, SRPT_STAT_BYTES_IN, cmd->xfer_len);
		target_execute_cmd(&cmd->se_cmd);
	}
}

static void srpt_table_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_cmd *cmd = container_of(wc->wr_cqe, struct srpt_cmd,
					    table_cqe);

	if (unlikely(!srpt_wc_expected(cmd, wc, SRPT_CMD_TABLE)))
		return;
	srpt_sq_release(cmd);
	if (unlikely(wc->status != IB_WC_SUCCESS))
		srpt_wc_failed(cmd->ch, wc, "RDMA READ of an indirect table");
	else
		srpt_event(SRPT_EV_TABLES_FETCHED);
	srpt_table_fetched(cmd, wc->status == IB_WC_SUCCESS ? 0 : -EIO);
}

/**
 * srpt_add_cmds() - add commands to the pool of a channel
 * @ch: channel
 * @n: how many
 *
 * Return: 0 or -ENOMEM.
 */
int srpt_add_cmds(struct srpt_rdma_ch *ch, u32 n)
{
	struct srpt_cmd_chunk *chunk = srpt_alloc_cmds(ch, n, GFP_KERNEL);
	unsigned long flags;
	u32 i;

	if (!chunk)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct srpt_cmd *cmd = &chunk->cmds[i];

		cmd->rsp_cqe.done = srpt_rsp_done;
		cmd->read_cqe.done = srpt_read_done;
		cmd->table_cqe.done = srpt_table_read_done;
	}
	spin_lock_irqsave(&ch->lock, flags);
	list_add_tail(&chunk->entry, &ch->cmd_chunks);
	for (i = 0; i < n; i++)
		list_add_tail(&chunk->cmds[i].entry, &ch->free_cmds);
	WRITE_ONCE(ch->n_cmds, ch->n_cmds + n);
	spin_unlock_irqrestore(&ch->lock, flags);
	return 0;
}

/**
 * srpt_send_rsp() - send the response built in cmd->rsp_buf
 * @cmd: command, after its data-in (RDMA WRITEs) if cmd->rsp_with_data;
 *	it ends once the response was sent or failed. Its request buffer, if
 *	it still has one, is posted again with the response, which returns
 *	the credit the request used
 */
void srpt_send_rsp(struct srpt_cmd *cmd)
{
	enum srpt_rsp_outcome outcome;

	trace_srpt_send_rsp(cmd->ch, cmd->tag, cmd->rsp_buf, cmd->rsp_len,
			    cmd->rsp_with_data);
	outcome = srpt_rsp_outcome(cmd->rsp_buf, cmd->rsp_len);
	if (outcome == SRPT_RSP_ERROR)
		srpt_ch_count(cmd->ch, SRPT_STAT_ERRORS, 1);
	else if (outcome == SRPT_RSP_ABORTED)
		srpt_ch_count(cmd->ch, SRPT_STAT_ABORTS, 1);
	if (cmd->iu && cmd->iu->srq)
		srpt_repost_iu(cmd, true);	/* others' too: now */
	srpt_start(cmd, SRPT_CMD_RSP);
}

/**
 * srpt_start_read() - RDMA READ the data-out of a command, then execute it
 * @cmd: LIO command with data to fetch; fails through
 *	transport_generic_request_failure() if the READ does
 */
void srpt_start_read(struct srpt_cmd *cmd)
{
	srpt_start(cmd, SRPT_CMD_DATA_OUT);
}

/* How long a release waits for its SRP_T_LOGOUT's HCA ack, then drains. */
#define SRPT_LOGOUT_WAIT	(2 * HZ)

/**
 * srpt_ch_send_logout() - send the SRP_T_LOGOUT srpt_logout_ch() asked for
 * @ch: channel being released (process context), before srpt_ch_drain()
 *
 * In a command of the pool, behind the queued responses (none free: left
 * out, their responses end the I/O anyway); waits until it was sent or
 * failed, at most SRPT_LOGOUT_WAIT.
 */
void srpt_ch_send_logout(struct srpt_rdma_ch *ch)
{
	struct srpt_cmd *cmd;
	unsigned long flags;

	if (ch->logout_reason < 0)
		return;
	spin_lock_irqsave(&ch->lock, flags);
	cmd = list_first_entry_or_null(&ch->free_cmds, struct srpt_cmd, entry);
	if (cmd) {
		list_del_init(&cmd->entry);
		ch->cmds_busy++;
		srpt_ch_get(ch);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!cmd) {
		pr_debug("%s: no free command for an SRP_T_LOGOUT\n",
			 ch->sess_name);
		return;
	}
	cmd->logout = true;
	cmd->rsp_len = srpt_build_t_logout(cmd->rsp_buf, ch->max_rsp_size, 0,
					   ch->logout_reason);
	srpt_send_rsp(cmd);
	if (!wait_for_completion_timeout(&ch->logout_sent, SRPT_LOGOUT_WAIT))
		pr_debug("%s: SRP_T_LOGOUT not sent in %u ms\n", ch->sess_name,
			 jiffies_to_msecs(SRPT_LOGOUT_WAIT));
}

/* How long an SRQ QP's drain waits for IB_EVENT_QP_LAST_WQE_REACHED. */
#define SRPT_LAST_WQE_WAIT	(10 * HZ)

/*
 * ib_drain_qp() for a QP on an SRQ, on both kernels (6.1 skips receives;
 * 6.12 polls the CQ itself, wrong for CQ pool CQs): error state, send queue
 * drained; once the QP took its last receive, the send queue again: its
 * marker completes behind the last receive completion, so then every
 * receive was handled. siw completes a receive in progress when the QP
 * fails, before the first marker, and sends no LAST_WQE_REACHED: no wait.
 */
static void srpt_drain_srq_qp(struct srpt_rdma_ch *ch)
{
	ib_drain_sq(ch->qp);
	if (rdma_protocol_iwarp(srpt_ch_dev(ch), ch->sport->port_num))
		return;
	if (!wait_for_completion_timeout(&ch->last_wqe, SRPT_LAST_WQE_WAIT))
		pr_warn_ratelimited("%s: no last-WQE-reached event %u s after the QP failed\n",
				    ch->sess_name, SRPT_LAST_WQE_WAIT / HZ);
	ib_drain_sq(ch->qp);
}

/**
 * srpt_ch_drain() - stop all work on a channel: DISCONNECTING -> DRAINING
 * @ch: channel being released
 *
 * Afterwards nothing is posted, all posted WRs completed, parked IUs are
 * dropped and queued commands failed.
 *
 * Context: process, not from a completion handler of the channel.
 */
void srpt_ch_drain(struct srpt_rdma_ch *ch)
{
	struct srpt_recv_iu *iu, *next;
	unsigned long flags;
	LIST_HEAD(failed);
	LIST_HEAD(parked);
	bool spare;

	spin_lock_bh(&ch->post_lock);
	srpt_ch_change_state(ch, SRPT_CH_DRAINING);
	spin_unlock_bh(&ch->post_lock);
	if (ch->qp && ch->srq)
		srpt_drain_srq_qp(ch);
	else if (ch->qp)
		ib_drain_qp(ch->qp);
	/* Now nothing touches the buffers of ch->post_failed any more. */
	spin_lock_bh(&ch->post_lock);
	list_splice_init(&ch->post_failed, &failed);
	spin_unlock_bh(&ch->post_lock);
	spin_lock_irqsave(&ch->lock, flags);
	list_splice_init(&ch->iu_wait, &parked);
	list_splice(&failed, &ch->rsp_wait);
	spare = ch->cred_spare;
	ch->cred_spare = false;
	spin_unlock_irqrestore(&ch->lock, flags);
	/* A spare posted to the SRQ for an SRP_CRED_RSP that never came. */
	if (spare && ch->srq)
		srpt_srq_put_spare(ch->srq, NULL);
	list_for_each_entry_safe(iu, next, &parked, entry) {
		list_del_init(&iu->entry);
		srpt_drop_iu(iu);
	}
	srpt_sq_kick(ch, NULL, SRPT_CMD_FREE);
}
