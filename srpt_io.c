// SPDX-License-Identifier: GPL-2.0
/*
 * The data path of an SRP channel: channel state, receive and response
 * buffers, dispatch of received IUs, SCSI commands and task management
 * through LIO, data transfer with rdma_rw and the SRP_RSP that ends each
 * request.
 *
 * Credits: every receive buffer posted is one credit. A request consumes
 * one; it is given back (req_lim_delta) once the buffer holding the
 * request has been posted again, which happens just before its response is
 * sent. Commands come from a pool per channel; nothing is allocated per
 * command except data buffers and, for commands with more RDMA contexts
 * than fit inline, the context array.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/scatterlist.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_proto.h>
#include "ib_srpt.h"

static void srpt_run_iu_wait(struct srpt_rdma_ch *ch);
static void srpt_sq_kick(struct srpt_rdma_ch *ch);

/* Runs channel release work; destroyed (drained) at module unload. */
static struct workqueue_struct *srpt_wq;

/**
 * srpt_io_init() - create the workqueue channels are released on
 *
 * Return: 0 or -ENOMEM.
 */
int srpt_io_init(void)
{
	srpt_wq = alloc_workqueue("srpt", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return srpt_wq ? 0 : -ENOMEM;
}

/**
 * srpt_io_exit() - wait for release work still running and free the queue
 */
void srpt_io_exit(void)
{
	destroy_workqueue(srpt_wq);
}

/**
 * srpt_set_ch_state() - move a channel to a later state
 * @ch: channel
 * @new: new state
 *
 * States only move forward (enum srpt_ch_state order), so two racing
 * callers agree on who made a transition.
 *
 * Context: any; takes ch->lock.
 * Return: true if the state changed.
 */
bool srpt_set_ch_state(struct srpt_rdma_ch *ch, enum srpt_ch_state new)
{
	unsigned long flags;
	bool changed;

	spin_lock_irqsave(&ch->lock, flags);
	changed = new > ch->state;
	if (changed)
		WRITE_ONCE(ch->state, new);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (changed)
		pr_debug("%s: channel state -> %d\n", ch->sess_name, new);
	return changed;
}

/**
 * srpt_close_ch() - start tearing a channel down
 * @ch: channel
 *
 * Moves the channel to DISCONNECTING and queues its release work, once.
 *
 * Context: any.
 */
void srpt_close_ch(struct srpt_rdma_ch *ch)
{
	if (srpt_set_ch_state(ch, SRPT_CH_DISCONNECTING))
		queue_work(srpt_wq, &ch->release_work);
}

static struct ib_device *srpt_ch_dev(struct srpt_rdma_ch *ch)
{
	return ch->sport->sdev->ib_dev;
}

static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc);
static void srpt_rsp_done(struct ib_cq *cq, struct ib_wc *wc);
static void srpt_read_done(struct ib_cq *cq, struct ib_wc *wc);

/*
 * A work request failed. Any failure, a flush too, means the QP is in the
 * error state: unless we are draining it ourselves, the channel is dead
 * (a failed unsignaled RDMA WRITE, for one, only shows as flushed work
 * requests behind it). srpt_close_ch() does nothing if already closing.
 */
static void srpt_wc_failed(struct srpt_rdma_ch *ch, struct ib_wc *wc,
			   const char *what)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR)
		pr_warn_ratelimited("%s: %s failed: %s\n", ch->sess_name, what,
				    ib_wc_status_msg(wc->status));
	srpt_close_ch(ch);
}

static void srpt_reset_cmd(struct srpt_cmd *cmd)
{
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
	cmd->pending = SRPT_PEND_NONE;
}

static void *srpt_alloc_dma_buf(struct ib_device *dev, u32 size,
				enum dma_data_direction dir, u64 *dma)
{
	void *buf = kzalloc(size, GFP_KERNEL);

	if (!buf)
		return NULL;
	*dma = ib_dma_map_single(dev, buf, size, dir);
	if (ib_dma_mapping_error(dev, *dma)) {
		*dma = 0;
		kfree(buf);
		return NULL;
	}
	return buf;
}

/* Undo srpt_alloc_dma_buf(); @buf may be NULL (allocation never got there). */
static void srpt_free_dma_buf(struct ib_device *dev, void *buf, u64 dma,
			      u32 size, enum dma_data_direction dir)
{
	if (!buf)
		return;
	ib_dma_unmap_single(dev, dma, size, dir);
	kfree(buf);
}

/*
 * Receive buffers. With immediate data granted, the data of an SRP_CMD
 * sits at imm_data_offset in the IU and LIO hands it to the backstore
 * in place. A block device needs it aligned (null_blk, for one, copies
 * whole 512-byte sectors and silently mixes up a buffer that is not), so
 * each buffer is whole pages and the IU is received recv_pad bytes into
 * it: the immediate data then starts on a page boundary.
 */
static void srpt_recv_layout(struct srpt_rdma_ch *ch)
{
	u32 data_max;

	ch->recv_pad = 0;
	ch->imm_sg_cnt = 0;
	ch->recv_alloc = ch->max_req_size;
	if (!ch->imm_data_offset)
		return;
	ch->recv_pad = (PAGE_SIZE - ch->imm_data_offset % PAGE_SIZE) %
		       PAGE_SIZE;
	ch->recv_alloc = PAGE_ALIGN(ch->recv_pad + ch->max_req_size);
	data_max = ch->max_req_size - ch->imm_data_offset;
	ch->imm_sg_cnt = DIV_ROUND_UP(data_max, PAGE_SIZE);
}

static int srpt_alloc_recv_buf(struct srpt_rdma_ch *ch,
			       struct srpt_recv_iu *iu)
{
	struct ib_device *dev = srpt_ch_dev(ch);

	if (ch->imm_data_offset)
		iu->base = alloc_pages_exact(ch->recv_alloc,
					     GFP_KERNEL | __GFP_ZERO);
	else
		iu->base = kzalloc(ch->recv_alloc, GFP_KERNEL);
	if (!iu->base)
		return -ENOMEM;
	iu->buf = iu->base + ch->recv_pad;
	iu->dma = ib_dma_map_single(dev, iu->buf, ch->max_req_size,
				    DMA_FROM_DEVICE);
	if (!ib_dma_mapping_error(dev, iu->dma))
		return 0;
	if (ch->imm_data_offset)
		free_pages_exact(iu->base, ch->recv_alloc);
	else
		kfree(iu->base);
	iu->base = NULL;
	return -ENOMEM;
}

/* Undo srpt_alloc_recv_buf(); nothing to do if it never succeeded. */
static void srpt_free_recv_buf(struct srpt_rdma_ch *ch,
			       struct srpt_recv_iu *iu)
{
	if (!iu->base)
		return;
	ib_dma_unmap_single(srpt_ch_dev(ch), iu->dma, ch->max_req_size,
			    DMA_FROM_DEVICE);
	if (ch->imm_data_offset)
		free_pages_exact(iu->base, ch->recv_alloc);
	else
		kfree(iu->base);
	iu->base = NULL;
}

/**
 * srpt_free_ch_bufs() - free receive buffers and the command pool
 * @ch: channel whose QP is gone or never had work posted
 */
void srpt_free_ch_bufs(struct srpt_rdma_ch *ch)
{
	struct ib_device *dev = srpt_ch_dev(ch);
	u32 i;

	for (i = 0; ch->recv && i < ch->rq_size; i++)
		srpt_free_recv_buf(ch, &ch->recv[i]);
	kfree(ch->recv);
	ch->recv = NULL;
	kfree(ch->imm_sgs);
	ch->imm_sgs = NULL;
	for (i = 0; ch->cmds && i < ch->n_cmds; i++)
		srpt_free_dma_buf(dev, ch->cmds[i].rsp_buf, ch->cmds[i].rsp_dma,
				  ch->max_rsp_size, DMA_TO_DEVICE);
	kvfree(ch->cmds);
	ch->cmds = NULL;
}

static int srpt_alloc_recv_bufs(struct srpt_rdma_ch *ch)
{
	u32 i;

	srpt_recv_layout(ch);
	ch->recv = kcalloc(ch->rq_size, sizeof(*ch->recv), GFP_KERNEL);
	if (!ch->recv)
		return -ENOMEM;
	if (ch->imm_sg_cnt) {
		ch->imm_sgs = kcalloc(ch->rq_size * ch->imm_sg_cnt,
				      sizeof(*ch->imm_sgs), GFP_KERNEL);
		if (!ch->imm_sgs)
			return -ENOMEM;
	}
	for (i = 0; i < ch->rq_size; i++) {
		struct srpt_recv_iu *iu = &ch->recv[i];

		iu->ch = ch;
		iu->cqe.done = srpt_recv_done;
		INIT_LIST_HEAD(&iu->entry);
		if (ch->imm_sgs)
			iu->imm_sg = &ch->imm_sgs[i * ch->imm_sg_cnt];
		if (srpt_alloc_recv_buf(ch, iu))
			return -ENOMEM;
	}
	return 0;
}

/**
 * srpt_alloc_ch_bufs() - allocate receive buffers and the command pool
 * @ch: channel with rq_size, max_req_size, max_rsp_size and
 *	imm_data_offset set
 *
 * There are twice as many commands as receive buffers: a command keeps
 * its pool entry until its response SEND completes, and the initiator may
 * already use the credit that response returned.
 *
 * Return: 0 or -ENOMEM.
 */
int srpt_alloc_ch_bufs(struct srpt_rdma_ch *ch)
{
	struct ib_device *dev = srpt_ch_dev(ch);
	u32 i;

	INIT_LIST_HEAD(&ch->free_cmds);
	if (srpt_alloc_recv_bufs(ch))
		goto nomem;
	ch->n_cmds = 2 * ch->rq_size;
	ch->cmds = kvcalloc(ch->n_cmds, sizeof(*ch->cmds), GFP_KERNEL);
	if (!ch->cmds)
		goto nomem;
	for (i = 0; i < ch->n_cmds; i++) {
		struct srpt_cmd *cmd = &ch->cmds[i];

		cmd->ch = ch;
		cmd->rsp_cqe.done = srpt_rsp_done;
		cmd->read_cqe.done = srpt_read_done;
		srpt_reset_cmd(cmd);
		cmd->rsp_buf = srpt_alloc_dma_buf(dev, ch->max_rsp_size,
						  DMA_TO_DEVICE, &cmd->rsp_dma);
		if (!cmd->rsp_buf)
			goto nomem;
		list_add_tail(&cmd->entry, &ch->free_cmds);
	}
	return 0;

nomem:
	srpt_free_ch_bufs(ch);
	return -ENOMEM;
}

/* Post @wr unless the channel drains; a real posting error is fatal. */
static int srpt_post_send(struct srpt_rdma_ch *ch, const struct ib_send_wr *wr)
{
	int ret = -ESHUTDOWN;

	spin_lock_bh(&ch->post_lock);
	if (READ_ONCE(ch->state) < SRPT_CH_DRAINING)
		ret = ib_post_send(ch->qp, wr, NULL);
	spin_unlock_bh(&ch->post_lock);
	if (ret && ret != -ESHUTDOWN) {
		pr_warn_ratelimited("%s: ib_post_send failed: %d\n",
				    ch->sess_name, ret);
		srpt_close_ch(ch);
	}
	return ret;
}

static int srpt_post_recv(struct srpt_rdma_ch *ch, struct srpt_recv_iu *iu)
{
	struct ib_sge sge = {
		.addr = iu->dma,
		.length = ch->max_req_size,
		.lkey = ch->sport->sdev->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &iu->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	int ret = -ESHUTDOWN;

	ib_dma_sync_single_for_device(srpt_ch_dev(ch), iu->dma,
				      ch->max_req_size, DMA_FROM_DEVICE);
	spin_lock_bh(&ch->post_lock);
	if (READ_ONCE(ch->state) < SRPT_CH_DRAINING)
		ret = ib_post_recv(ch->qp, &wr, NULL);
	spin_unlock_bh(&ch->post_lock);
	if (ret && ret != -ESHUTDOWN) {
		pr_warn_ratelimited("%s: ib_post_recv failed: %d\n",
				    ch->sess_name, ret);
		srpt_close_ch(ch);
	}
	return ret;
}

/**
 * srpt_post_all_recvs() - post every receive buffer of a new channel
 * @ch: channel whose QP can receive
 *
 * Return: 0 or a negative errno.
 */
int srpt_post_all_recvs(struct srpt_rdma_ch *ch)
{
	u32 i;
	int ret;

	for (i = 0; i < ch->rq_size; i++) {
		ret = srpt_post_recv(ch, &ch->recv[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* Give the request buffer of @cmd back to the receive queue. */
static void srpt_repost_iu(struct srpt_cmd *cmd, bool credit)
{
	struct srpt_recv_iu *iu = cmd->iu;

	if (!iu)
		return;
	cmd->iu = NULL;
	if (!srpt_post_recv(cmd->ch, iu) && credit)
		atomic_inc(&cmd->ch->req_lim_delta);
}

static void srpt_put_cmd(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	unsigned long flags;
	bool waiting;

	srpt_reset_cmd(cmd);
	spin_lock_irqsave(&ch->lock, flags);
	list_add(&cmd->entry, &ch->free_cmds);
	waiting = !list_empty(&ch->iu_wait);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (waiting)
		srpt_run_iu_wait(ch);
}

/* Undo srpt_alloc_data() and srpt_rw_init(). */
static void srpt_free_data(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	enum dma_data_direction dir;
	u32 i;

	dir = cmd->data_out ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	for (i = 0; i < cmd->n_rw; i++) {
		struct srpt_rw *rw = &cmd->rw[i];

		if (rw->active)
			rdma_rw_ctx_destroy(&rw->rw, ch->qp, ch->sport->port_num,
					    rw->sg, rw->cnt, dir);
		rw->active = false;
		if (rw->sg)
			target_free_sgl(rw->sg, rw->nents);
		rw->sg = NULL;
	}
	if (cmd->rw != cmd->rw_inline)
		kfree(cmd->rw);
	cmd->rw = NULL;
	cmd->n_rw = 0;
	cmd->n_active = 0;
	cmd->data_sg = NULL;
	cmd->data_nents = 0;
}

/*
 * Immediate data stays in the receive buffer, where it starts on a page
 * boundary (srpt_recv_layout()): describe it page by page, as LIO and the
 * block layer expect a data buffer to be.
 */
static void srpt_imm_sg(struct srpt_cmd *cmd, const struct srpt_cmd_info *ci)
{
	struct srpt_recv_iu *iu = cmd->iu;
	void *data = iu->buf + ci->imm_off;
	u32 n = DIV_ROUND_UP(ci->data_len, PAGE_SIZE), i;

	WARN_ON_ONCE(offset_in_page(data) || n > cmd->ch->imm_sg_cnt);
	sg_init_table(iu->imm_sg, n);
	for (i = 0; i < n; i++)
		sg_set_page(&iu->imm_sg[i], virt_to_page(data + i * PAGE_SIZE),
			    min_t(u32, ci->data_len - i * PAGE_SIZE, PAGE_SIZE),
			    0);
	cmd->imm = true;
	cmd->data_sg = iu->imm_sg;
	cmd->data_nents = n;
}

/*
 * Allocate the data buffer of a command: one scatterlist per RDMA context
 * (a remote buffer, cut into pieces of at most max_rdma_size), chained so
 * that LIO sees a single list. Immediate data stays in the receive buffer.
 */
static int srpt_alloc_data(struct srpt_cmd *cmd,
			   const struct srpt_cmd_info *ci)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	struct srpt_rw *prev = NULL;
	u32 i, n = 0, k = 0, off, chunk;
	int ret;

	cmd->data_out = ci->data_out;
	if (ci->fmt == SRP_DATA_DESC_IMM) {
		if (ci->data_len)
			srpt_imm_sg(cmd, ci);
		return 0;
	}
	for (i = 0; i < ci->n_desc; i++)
		n += DIV_ROUND_UP(srpt_cmd_desc(ci, i).len, ch->max_rdma_size);
	if (!n)
		return 0;
	if (n > SRPT_MAX_RW)
		return -E2BIG;
	cmd->rw = cmd->rw_inline;
	if (n > SRPT_INLINE_RW) {
		cmd->rw = kcalloc(n, sizeof(*cmd->rw), GFP_KERNEL);
		if (!cmd->rw)
			return -ENOMEM;
	} else {
		memset(cmd->rw_inline, 0, sizeof(cmd->rw_inline));
	}
	cmd->n_rw = n;
	for (i = 0; i < ci->n_desc; i++) {
		struct srpt_cmd_desc d = srpt_cmd_desc(ci, i);

		for (off = 0; off < d.len; off += chunk) {
			struct srpt_rw *rw = &cmd->rw[k++];

			chunk = min(d.len - off, ch->max_rdma_size);
			rw->va = d.va + off;
			rw->rkey = d.rkey;
			rw->len = chunk;
			ret = target_alloc_sgl(&rw->sg, &rw->nents, chunk,
					       false, n > 1);
			if (ret)
				goto fail;
			if (prev)
				sg_chain(prev->sg, prev->nents + 1, rw->sg);
			prev = rw;
			cmd->data_nents += rw->nents;
		}
	}
	cmd->data_sg = cmd->rw[0].sg;
	return 0;

fail:
	srpt_free_data(cmd);
	return ret;
}

/*
 * Set up the RDMA contexts for the bytes LIO wants moved: se_cmd
 * data_length may be below what the descriptors offer (underflow), in
 * which case the transfer stops there.
 */
static int srpt_rw_init(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 left = cmd->se_cmd.data_length;
	enum dma_data_direction dir;
	int ret;

	dir = cmd->data_out ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	cmd->n_wrs = 0;
	for (cmd->n_active = 0; cmd->n_active < cmd->n_rw && left;
	     cmd->n_active++) {
		struct srpt_rw *rw = &cmd->rw[cmd->n_active];
		u32 xfer = min(rw->len, left);

		rw->cnt = DIV_ROUND_UP(xfer, PAGE_SIZE);
		/* Trim the last page entry to what is moved. */
		rw->sg[rw->cnt - 1].length = xfer - (rw->cnt - 1) * PAGE_SIZE;
		ret = rdma_rw_ctx_init(&rw->rw, ch->qp, ch->sport->port_num,
				       rw->sg, rw->cnt, 0, rw->va, rw->rkey,
				       dir);
		if (ret < 0) {
			pr_warn_ratelimited("%s: rdma_rw_ctx_init failed: %d\n",
					    ch->sess_name, ret);
			return -EIO;
		}
		rw->active = true;
		cmd->n_wrs += ret;
		left -= xfer;
	}
	if (cmd->n_wrs + 1 > ch->sq_wr_total) {
		pr_warn_ratelimited("%s: command needs %u work requests, send queue has %u\n",
				    ch->sess_name, cmd->n_wrs + 1,
				    ch->sq_wr_total);
		return -EIO;
	}
	return 0;
}

static u32 srpt_pending_wrs(struct srpt_cmd *cmd)
{
	if (cmd->pending == SRPT_PEND_READ)
		return cmd->n_wrs;
	return 1 + (cmd->rsp_with_data ? cmd->n_wrs : 0);
}

/* Post what @cmd waits for; the send queue slots are held. */
static int srpt_post_pending(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 port = ch->sport->port_num;
	struct ib_send_wr send_wr = {}, *first = NULL;
	struct ib_sge sge;
	int i;

	if (cmd->pending == SRPT_PEND_RSP) {
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
			goto post;
	}
	for (i = cmd->n_active - 1; i >= 0; i--)
		first = rdma_rw_ctx_wrs(&cmd->rw[i].rw, ch->qp, port,
					first ? NULL : &cmd->read_cqe, first);
post:
	return srpt_post_send(ch, first);
}

/* Release the send queue slots of @cmd and finish it after a failure. */
static void srpt_pending_failed(struct srpt_cmd *cmd);

/*
 * Start what @cmd waits for, or queue it behind others until the send
 * queue has room.
 */
static int srpt_start(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 n = srpt_pending_wrs(cmd);
	unsigned long flags;
	int ret;

	if (list_empty_careful(&ch->sq_wait)) {
		if (atomic_sub_return(n, &ch->sq_wr_avail) >= 0) {
			cmd->sq_held = n;
			ret = srpt_post_pending(cmd);
			if (ret) {
				atomic_add(n, &ch->sq_wr_avail);
				cmd->sq_held = 0;
			}
			return ret;
		}
		atomic_add(n, &ch->sq_wr_avail);
	}
	spin_lock_irqsave(&ch->lock, flags);
	list_add_tail(&cmd->entry, &ch->sq_wait);
	spin_unlock_irqrestore(&ch->lock, flags);
	srpt_sq_kick(ch);
	return 0;
}

/* Start queued commands while the send queue has room. */
static void srpt_sq_kick(struct srpt_rdma_ch *ch)
{
	struct srpt_cmd *cmd;
	unsigned long flags;
	u32 n;

	for (;;) {
		spin_lock_irqsave(&ch->lock, flags);
		cmd = list_first_entry_or_null(&ch->sq_wait, struct srpt_cmd,
					       entry);
		if (!cmd) {
			spin_unlock_irqrestore(&ch->lock, flags);
			return;
		}
		n = srpt_pending_wrs(cmd);
		if (atomic_sub_return(n, &ch->sq_wr_avail) < 0) {
			atomic_add(n, &ch->sq_wr_avail);
			spin_unlock_irqrestore(&ch->lock, flags);
			return;
		}
		list_del_init(&cmd->entry);
		spin_unlock_irqrestore(&ch->lock, flags);
		cmd->sq_held = n;
		if (srpt_post_pending(cmd))
			srpt_pending_failed(cmd);
	}
}

/* The response of @cmd was sent, or will never be: finish the command. */
static void srpt_cmd_done(struct srpt_cmd *cmd)
{
	if (cmd->lio)
		transport_generic_free_cmd(&cmd->se_cmd, 0);
	else
		srpt_put_cmd(cmd);
}

static void srpt_pending_failed(struct srpt_cmd *cmd)
{
	atomic_add(cmd->sq_held, &cmd->ch->sq_wr_avail);
	cmd->sq_held = 0;
	if (cmd->pending == SRPT_PEND_READ) {
		/* Parked RDMA READ of a channel going away. */
		cmd->pending = SRPT_PEND_NONE;
		transport_generic_request_failure(&cmd->se_cmd,
						  TCM_CHECK_CONDITION_ABORT_CMD);
		return;
	}
	cmd->pending = SRPT_PEND_NONE;
	srpt_cmd_done(cmd);
}

static void srpt_rsp_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_cmd *cmd = container_of(wc->wr_cqe, struct srpt_cmd,
					    rsp_cqe);
	struct srpt_rdma_ch *ch = cmd->ch;

	atomic_add(cmd->sq_held, &ch->sq_wr_avail);
	cmd->sq_held = 0;
	cmd->pending = SRPT_PEND_NONE;
	if (unlikely(wc->status != IB_WC_SUCCESS))
		srpt_wc_failed(ch, wc, "response send");
	srpt_cmd_done(cmd);
	srpt_sq_kick(ch);
}

static void srpt_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_cmd *cmd = container_of(wc->wr_cqe, struct srpt_cmd,
					    read_cqe);
	struct srpt_rdma_ch *ch = cmd->ch;

	atomic_add(cmd->sq_held, &ch->sq_wr_avail);
	cmd->sq_held = 0;
	cmd->pending = SRPT_PEND_NONE;
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		srpt_wc_failed(ch, wc, "RDMA READ");
		transport_generic_request_failure(&cmd->se_cmd,
						  TCM_CHECK_CONDITION_ABORT_CMD);
	} else {
		target_execute_cmd(&cmd->se_cmd);
	}
	srpt_sq_kick(ch);
}

/* Queue the response built in cmd->rsp_buf; the request buffer is reposted. */
static int srpt_send_rsp(struct srpt_cmd *cmd)
{
	cmd->pending = SRPT_PEND_RSP;
	return srpt_start(cmd);
}

static u32 srpt_take_credits(struct srpt_rdma_ch *ch)
{
	return atomic_xchg(&ch->req_lim_delta, 0);
}

/* Answer a request that never reached LIO with a SCSI status. */
static void srpt_send_status(struct srpt_cmd *cmd, u8 status, u8 key, u8 asc,
			     u8 ascq)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 sense_len = 0;

	if (status == SAM_STAT_CHECK_CONDITION)
		sense_len = srpt_fixed_sense(cmd->sense, sizeof(cmd->sense),
					     key, asc, ascq);
	srpt_repost_iu(cmd, true);
	cmd->rsp_len = srpt_build_rsp(cmd->rsp_buf, ch->max_rsp_size, cmd->tag,
				      srpt_take_credits(ch), status, cmd->sense,
				      sense_len, 0, 0, 0);
	if (srpt_send_rsp(cmd))
		srpt_put_cmd(cmd);
}

static void srpt_send_tm_status(struct srpt_cmd *cmd,
				enum srpt_tm_rsp_code code)
{
	struct srpt_rdma_ch *ch = cmd->ch;

	srpt_repost_iu(cmd, true);
	cmd->rsp_len = srpt_build_tm_rsp(cmd->rsp_buf, ch->max_rsp_size,
					 cmd->tag, srpt_take_credits(ch), code);
	if (srpt_send_rsp(cmd))
		srpt_cmd_done(cmd);
}

static int srpt_task_attr(u8 attr)
{
	switch (attr) {
	case 0:
		return TCM_SIMPLE_TAG;
	case 1:
		return TCM_HEAD_TAG;
	case 2:
		return TCM_ORDERED_TAG;
	case 4:
		return TCM_ACA_TAG;
	default:
		return -1;
	}
}

static void srpt_handle_cmd(struct srpt_rdma_ch *ch, struct srpt_cmd *cmd)
{
	struct srpt_recv_iu *iu = cmd->iu;
	struct srpt_cmd_info ci;
	enum srpt_cmd_err err;
	int attr, dir, ret;

	err = srpt_parse_cmd(iu->buf, iu->len, ch->imm_data_offset,
			     SRPT_MAX_DATA_LEN, &ci);
	cmd->tag = ci.tag;
	attr = srpt_task_attr(ci.task_attr);
	if (err || attr < 0) {
		pr_warn_ratelimited("%s: rejecting SRP_CMD (IU length %u): %s\n",
				    ch->sess_name, iu->len,
				    err == SRPT_CMD_BAD_FMT ?
				    "unsupported buffer format" :
				    err == SRPT_CMD_TOO_BIG ?
				    "data length too large" : "malformed");
		srpt_send_status(cmd, SAM_STAT_CHECK_CONDITION,
				 ILLEGAL_REQUEST, 0x0e, 0x03);
		return;
	}
	ret = srpt_alloc_data(cmd, &ci);
	if (ret) {
		pr_warn_ratelimited("%s: no data buffer for %u bytes: %d\n",
				    ch->sess_name, ci.data_len, ret);
		if (ret == -E2BIG)
			srpt_send_status(cmd, SAM_STAT_CHECK_CONDITION,
					 ILLEGAL_REQUEST, 0x0e, 0x03);
		else
			srpt_send_status(cmd, SAM_STAT_BUSY, 0, 0, 0);
		return;
	}
	if (ci.fmt == SRP_NO_DATA_DESC)
		dir = DMA_NONE;
	else
		dir = ci.data_out ? DMA_TO_DEVICE : DMA_FROM_DEVICE;

	memset(&cmd->se_cmd, 0, sizeof(cmd->se_cmd));
	cmd->se_cmd.tag = ci.tag;
	ret = target_init_cmd(&cmd->se_cmd, ch->sess, cmd->sense,
			      scsilun_to_int(&ci.lun), ci.data_len, attr, dir,
			      TARGET_SCF_ACK_KREF);
	if (ret) {
		/* The session is going away: drop the command. */
		srpt_free_data(cmd);
		srpt_repost_iu(cmd, true);
		srpt_put_cmd(cmd);
		return;
	}
	cmd->lio = true;
	if (target_submit_prep(&cmd->se_cmd, (unsigned char *)ci.cdb,
			       cmd->data_sg, cmd->data_nents, NULL, 0, NULL, 0,
			       GFP_KERNEL))
		return;		/* LIO sent CHECK CONDITION */
	target_submit(&cmd->se_cmd);
}

static int srpt_tmf(u8 srp_function)
{
	switch (srp_function) {
	case SRP_TSK_ABORT_TASK:
		return TMR_ABORT_TASK;
	case SRP_TSK_ABORT_TASK_SET:
		return TMR_ABORT_TASK_SET;
	case SRP_TSK_CLEAR_TASK_SET:
		return TMR_CLEAR_TASK_SET;
	case SRP_TSK_LUN_RESET:
		return TMR_LUN_RESET;
	case SRP_TSK_CLEAR_ACA:
		return TMR_CLEAR_ACA;
	default:
		return -1;
	}
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
	tmf = srpt_tmf(ti.function);
	if (tmf < 0) {
		pr_info_ratelimited("%s: task management function %#x not supported\n",
				    ch->sess_name, ti.function);
		srpt_send_tm_status(cmd, SRPT_TM_NOT_SUPPORTED);
		return;
	}
	memset(&cmd->se_cmd, 0, sizeof(cmd->se_cmd));
	cmd->se_cmd.tag = ti.tag;
	cmd->lio = true;
	if (target_submit_tmr(&cmd->se_cmd, ch->sess, NULL,
			      scsilun_to_int(&ti.lun), NULL, tmf, GFP_KERNEL,
			      ti.task_tag, TARGET_SCF_ACK_KREF)) {
		cmd->lio = false;
		srpt_send_tm_status(cmd, SRPT_TM_FAILED);
	}
}

static void srpt_handle_iu(struct srpt_rdma_ch *ch, struct srpt_recv_iu *iu,
			   struct srpt_cmd *cmd)
{
	u8 opcode = srpt_iu_opcode(iu->buf, iu->len);

	cmd->iu = iu;
	switch (opcode) {
	case SRP_CMD:
		srpt_handle_cmd(ch, cmd);
		break;
	case SRP_TSK_MGMT:
		srpt_handle_tsk_mgmt(ch, cmd);
		break;
	case SRP_I_LOGOUT:
		pr_info("%s: initiator logged out\n", ch->sess_name);
		srpt_repost_iu(cmd, true);
		srpt_put_cmd(cmd);
		srpt_close_ch(ch);
		break;
	case SRP_CRED_RSP:
	case SRP_AER_RSP:
		/* Answers to target requests consume no credit. */
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
		if (srpt_send_rsp(cmd))
			srpt_put_cmd(cmd);
		srpt_close_ch(ch);
		break;
	}
}

/*
 * Dispatch received IUs in arrival order, one context at a time, while
 * the channel is live and commands are free.
 */
static void srpt_run_iu_wait(struct srpt_rdma_ch *ch)
{
	struct srpt_recv_iu *iu;
	struct srpt_cmd *cmd;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ch->lock, flags);
		if (ch->state != SRPT_CH_LIVE || ch->iu_running ||
		    list_empty(&ch->iu_wait) || list_empty(&ch->free_cmds)) {
			spin_unlock_irqrestore(&ch->lock, flags);
			return;
		}
		iu = list_first_entry(&ch->iu_wait, struct srpt_recv_iu, entry);
		list_del_init(&iu->entry);
		cmd = list_first_entry(&ch->free_cmds, struct srpt_cmd, entry);
		list_del_init(&cmd->entry);
		ch->iu_running = true;
		spin_unlock_irqrestore(&ch->lock, flags);

		srpt_handle_iu(ch, iu, cmd);

		spin_lock_irqsave(&ch->lock, flags);
		ch->iu_running = false;
		spin_unlock_irqrestore(&ch->lock, flags);
	}
}

static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_recv_iu *iu = container_of(wc->wr_cqe, struct srpt_recv_iu,
					       cqe);
	struct srpt_rdma_ch *ch = iu->ch;
	unsigned long flags;
	bool queued = false;

	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		srpt_wc_failed(ch, wc, "receive");
		return;
	}
	iu->len = wc->byte_len;
	ib_dma_sync_single_for_cpu(srpt_ch_dev(ch), iu->dma, ch->max_req_size,
				   DMA_FROM_DEVICE);
	spin_lock_irqsave(&ch->lock, flags);
	if (ch->state <= SRPT_CH_LIVE) {
		list_add_tail(&iu->entry, &ch->iu_wait);
		queued = true;
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (queued)
		srpt_run_iu_wait(ch);
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
	if (srpt_set_ch_state(ch, SRPT_CH_LIVE))
		srpt_run_iu_wait(ch);
}

/**
 * srpt_ch_drain() - stop all work on a channel: DISCONNECTING -> DRAINING
 * @ch: channel being released
 *
 * After this no work request is posted any more, every posted one has
 * completed, parked IUs are dropped and commands waiting for the send
 * queue have been finished with an error. LIO commands still executing
 * complete without touching the QP.
 *
 * Context: process, not from a completion handler of the channel.
 */
void srpt_ch_drain(struct srpt_rdma_ch *ch)
{
	unsigned long flags;

	spin_lock_bh(&ch->post_lock);
	srpt_set_ch_state(ch, SRPT_CH_DRAINING);
	spin_unlock_bh(&ch->post_lock);
	ib_drain_qp(ch->qp);
	spin_lock_irqsave(&ch->lock, flags);
	INIT_LIST_HEAD(&ch->iu_wait);
	spin_unlock_irqrestore(&ch->lock, flags);
	srpt_sq_kick(ch);
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
	srpt_repost_iu(cmd, true);
	cmd->rsp_len = srpt_build_rsp(cmd->rsp_buf, ch->max_rsp_size, cmd->tag,
				      srpt_take_credits(ch), se->scsi_status,
				      se->sense_buffer, se->scsi_sense_length,
				      flags, do_resid, di_resid);
	cmd->rsp_with_data = with_data;
	if (srpt_send_rsp(cmd))
		srpt_pending_failed(cmd);
}

/**
 * srpt_write_pending() - LIO wants the data-out of a command
 * @se_cmd: command
 *
 * Immediate data is already here; otherwise RDMA READ it, and
 * srpt_read_done() executes the command.
 *
 * Return: 0, or an error for LIO to answer with CHECK CONDITION.
 */
int srpt_write_pending(struct se_cmd *se_cmd)
{
	struct srpt_cmd *cmd = container_of(se_cmd, struct srpt_cmd, se_cmd);
	int ret;

	if (cmd->imm) {
		target_execute_cmd(se_cmd);
		return 0;
	}
	ret = srpt_rw_init(cmd);
	if (ret)
		return ret;
	if (!cmd->n_wrs) {
		target_execute_cmd(se_cmd);
		return 0;
	}
	cmd->pending = SRPT_PEND_READ;
	ret = srpt_start(cmd);
	if (ret) {
		cmd->pending = SRPT_PEND_NONE;
		return -EIO;
	}
	return 0;
}

/**
 * srpt_queue_data_in() - RDMA WRITE the data-in of a command, then SRP_RSP
 * @se_cmd: command
 *
 * Return: 0, or an error for LIO to answer with CHECK CONDITION.
 */
int srpt_queue_data_in(struct se_cmd *se_cmd)
{
	struct srpt_cmd *cmd = container_of(se_cmd, struct srpt_cmd, se_cmd);
	int ret;

	ret = srpt_rw_init(cmd);
	if (ret)
		return ret;
	srpt_send_cmd_rsp(cmd, cmd->n_wrs > 0);
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
 * Nothing is sent (the initiator gave the task up); buffers and the
 * request's credit are released with the command in srpt_release_cmd().
 */
void srpt_aborted_task(struct se_cmd *se_cmd)
{
	struct srpt_cmd *cmd = container_of(se_cmd, struct srpt_cmd, se_cmd);

	pr_debug("%s: task %#llx aborted\n", cmd->ch->sess_name, cmd->tag);
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

	srpt_free_data(cmd);
	srpt_repost_iu(cmd, true);
	srpt_put_cmd(cmd);
}
