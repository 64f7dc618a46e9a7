// SPDX-License-Identifier: GPL-2.0
/*
 * The receive side of a channel: its receive buffers (or share of the
 * device's SRQ) and command pool, the receive completion, and the dispatch
 * of received IUs to srpt_cmd.c in arrival order, one at a time, while
 * live. IUs wait on ch->iu_wait for a command; the dispatch work grows the
 * pool (small at first on an SRQ) and dispatches them, queued here or by
 * srpt_put_cmd() when a command comes back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "srpt_recv.h"
#include "srpt_buf.h"
#include "srpt_cmd.h"
#include "srpt_life.h"
#include "srpt_proto.h"
#include "srpt_sq.h"
#include "srpt_stats.h"

/*
 * Commands a channel on an SRQ starts with; the pool grows on demand
 * (srpt_dispatch_work()): an idle channel holds little, whatever its credits.
 */
#define SRPT_SRQ_FIRST_CMDS	16

/*
 * IUs wait for an empty pool that may grow: ask the dispatch work to grow
 * it (grow_wanted) and, unless it is queued already, mark it queued with
 * a reference to @ch, for the caller to queue. Caller holds ch->lock.
 */
static bool srpt_grow_due(struct srpt_rdma_ch *ch)
{
	lockdep_assert_held(&ch->lock);
	if (ch->state != SRPT_CH_LIVE || ch->n_cmds >= ch->max_cmds ||
	    list_empty(&ch->iu_wait) || !list_empty(&ch->free_cmds))
		return false;
	ch->grow_wanted = true;
	if (ch->dispatch_queued)
		return false;
	ch->dispatch_queued = true;
	srpt_ch_get(ch);
	return true;
}

/*
 * Dispatch received IUs in arrival order, one context at a time, while
 * the channel is live and commands are free. @iu, if any, just arrived:
 * it joins ch->iu_wait in the same critical section that takes the first
 * IU off it, and the one that ends a dispatch looks for the next (two
 * ch->lock round trips per IU).
 */
static void srpt_run_iu_wait(struct srpt_rdma_ch *ch, struct srpt_recv_iu *iu)
{
	struct srpt_cmd *cmd;
	unsigned long flags;
	bool grow;

	spin_lock_irqsave(&ch->lock, flags);
	if (iu && ch->state > SRPT_CH_LIVE) {
		spin_unlock_irqrestore(&ch->lock, flags);
		srpt_drop_iu(iu);
		return;
	}
	if (iu)
		list_add_tail(&iu->entry, &ch->iu_wait);
	/* This context uses @ch until it returns: see srpt_ch_put_wait(). */
	srpt_ch_get(ch);
	for (;;) {
		if (ch->iu_running || list_empty(&ch->iu_wait) ||
		    list_empty(&ch->free_cmds) || !__srpt_ch_get_live(ch))
			break;
		iu = list_first_entry(&ch->iu_wait, struct srpt_recv_iu, entry);
		list_del_init(&iu->entry);
		cmd = list_first_entry(&ch->free_cmds, struct srpt_cmd, entry);
		list_del_init(&cmd->entry);
		cmd->clear_tas = false;		/* see srpt_ch_tasks() */
		ch->cmds_busy++;	/* with the reference just taken */
		ch->iu_running = true;
		spin_unlock_irqrestore(&ch->lock, flags);

		cmd->iu = iu;
		cmd->tag = srpt_iu_tag(iu->buf, iu->len);
		srpt_cmd_set_state(cmd, SRPT_CMD_RECEIVED);
		if (static_branch_unlikely(&srpt_fault_key) &&
		    current_work() != &ch->cq->work)
			__srpt_fault_delay(SRPT_FAULT_DISPATCH);
		srpt_handle_iu(ch, cmd);

		spin_lock_irqsave(&ch->lock, flags);
		ch->iu_running = false;
	}
	grow = srpt_grow_due(ch);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (grow)
		srpt_queue_work(&ch->dispatch_work);
	srpt_ch_put(ch);
}

/*
 * IUs wait on @ch (dispatch_queued set, with a reference): if they found
 * the pool out of commands (grow_wanted), double it (up to ch->max_cmds;
 * failing that, the IUs wait for commands to come back), then dispatch
 * them. Until the growth is done no other is asked for: the dispatch
 * after it looks again.
 */
static void srpt_dispatch_work(struct work_struct *w)
{
	struct srpt_rdma_ch *ch = container_of(w, struct srpt_rdma_ch,
					       dispatch_work);
	u32 n = min(ch->max_cmds - ch->n_cmds, ch->n_cmds);
	unsigned long flags;
	bool grow;

	spin_lock_irqsave(&ch->lock, flags);
	grow = ch->grow_wanted && n && ch->state == SRPT_CH_LIVE;
	spin_unlock_irqrestore(&ch->lock, flags);
	if (grow) {
		srpt_fault_delay(SRPT_FAULT_GROW);
		if (srpt_add_cmds(ch, n))
			pr_warn_ratelimited("%s: no memory for %u more commands; requests wait for those in use\n",
					    ch->sess_name, n);
	}
	spin_lock_irqsave(&ch->lock, flags);
	ch->dispatch_queued = false;
	ch->grow_wanted = false;
	spin_unlock_irqrestore(&ch->lock, flags);
	srpt_run_iu_wait(ch, NULL);
	srpt_ch_put(ch);
}

/*
 * Count the credit a received IU used. On an SRQ also check what a
 * channel's own receive queue enforces by its size: an IU longer than the
 * login allowed (SRQ buffers fit any login's), or more than twice the
 * credits in flight (all the pool takes), holding buffers other channels
 * need. Either closes the channel.
 */
static bool srpt_srq_abuse(struct srpt_rdma_ch *ch, struct srpt_recv_iu *iu)
{
	int req_lim = 0;

	if (srpt_iu_uses_credit(srpt_iu_opcode(iu->buf, iu->len)))
		req_lim = atomic_dec_return(&ch->req_lim);
	if (!iu->srq)
		return false;
	if (iu->len > ch->max_req_size) {
		pr_warn_ratelimited("%s: IU of %u bytes, over the %u of the login; closing the channel\n",
				    ch->sess_name, iu->len, ch->max_req_size);
		return true;
	}
	if (req_lim < -(int)ch->rq_size) {
		/* Once: those behind it find the channel closing. */
		if (req_lim == -(int)ch->rq_size - 1)
			pr_warn_ratelimited("%s: %u requests in flight with %u credits; closing the channel\n",
					    ch->sess_name, ch->rq_size - req_lim,
					    ch->rq_size);
		return true;
	}
	return false;
}

static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_recv_iu *iu = container_of(wc->wr_cqe, struct srpt_recv_iu,
					       cqe);
	struct srpt_rdma_ch *ch = iu->srq ? wc->qp->qp_context : iu->ch;

	iu->ch = ch;
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		srpt_drop_iu(iu);
		srpt_wc_failed(ch, wc, "receive");
		return;
	}
	iu->len = wc->byte_len;
	ib_dma_sync_single_for_cpu(srpt_ch_dev(ch), iu->dma, ch->layout.size,
				   DMA_FROM_DEVICE);
	if (unlikely(srpt_srq_abuse(ch, iu))) {
		srpt_drop_iu(iu);
		srpt_close_ch(ch);
		return;
	}
	srpt_run_iu_wait(ch, iu);
}

/**
 * srpt_alloc_ch_bufs() - allocate and post receive buffers, allocate the
 *	command pool
 * @ch: channel whose QP can receive, with rq_size, max_req_size,
 *	max_rsp_size, imm_data_offset and srq set
 *
 * Commands: twice the credits, as a command keeps its entry until its
 * response SEND completes while the initiator may already use the credit
 * it returned. All at once, but on an SRQ a few at first.
 *
 * Return: 0 or a negative errno (srpt_free_ch_bufs() frees what was
 * allocated).
 */
int srpt_alloc_ch_bufs(struct srpt_rdma_ch *ch)
{
	u32 i;
	int ret;

	INIT_WORK(&ch->dispatch_work, srpt_dispatch_work);
	ch->max_cmds = 2 * ch->rq_size;
	if (ch->srq) {
		ch->layout = ch->srq->layout;
		return srpt_add_cmds(ch, min_t(u32, ch->max_cmds,
					       SRPT_SRQ_FIRST_CMDS));
	}
	srpt_recv_layout(&ch->layout, ch->max_req_size, ch->imm_data_offset);
	if (srpt_alloc_recv_bufs(ch))
		return -ENOMEM;
	for (i = 0; i <= ch->rq_size; i++)	/* and the spare */
		ch->recv[i].cqe.done = srpt_recv_done;
	ret = srpt_add_cmds(ch, ch->max_cmds);
	/* Not the spare (ch->recv[ch->rq_size]): srpt_post_cred_spare(). */
	for (i = 0; !ret && i < ch->rq_size; i++)
		ret = srpt_post_recv(ch, &ch->recv[i]);
	return ret;
}

/**
 * srpt_create_srq() - make the shared receive queue of a device
 * @sdev: the device
 * @size: receive buffers
 * @iu_size: bytes an IU may have
 *
 * Return: the SRQ, or an ERR_PTR (srpt_srq_create()).
 */
struct srpt_srq *srpt_create_srq(struct srpt_device *sdev, u32 size,
				 u32 iu_size)
{
	return srpt_srq_create(sdev, size, iu_size, srpt_recv_done);
}

/**
 * srpt_ch_go_live() - the connection is established: CONNECTING -> LIVE
 * @ch: channel
 *
 * IUs that arrived before this (the initiator may send as soon as it has
 * the login response) are executed now, in arrival order.
 */
void srpt_ch_go_live(struct srpt_rdma_ch *ch)
{
	if (srpt_ch_change_state(ch, SRPT_CH_LIVE))
		srpt_run_iu_wait(ch, NULL);
}
