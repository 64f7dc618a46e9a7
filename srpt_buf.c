// SPDX-License-Identifier: GPL-2.0
/*
 * The memory of an SRP channel: its receive buffers (laid out for
 * immediate data), the command pool and the commands' response buffers,
 * all allocated at login and freed at release. Completion handlers and
 * the use of these buffers are srpt_io.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include "ib_srpt.h"

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
	srpt_res_add(SRPT_RES_SEND_BYTES, size);
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
	srpt_res_add(SRPT_RES_SEND_BYTES, -(long)size);
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
	if (!ib_dma_mapping_error(dev, iu->dma)) {
		srpt_res_add(SRPT_RES_RECV_BYTES, ch->recv_alloc);
		return 0;
	}
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
	srpt_res_add(SRPT_RES_RECV_BYTES, -(long)ch->recv_alloc);
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
	if (ch->cmds)
		srpt_res_add(SRPT_RES_CMD_SLOTS, -(long)ch->n_cmds);
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
		INIT_LIST_HEAD(&iu->entry);
		if (ch->imm_sgs)
			iu->imm_sg = &ch->imm_sgs[i * ch->imm_sg_cnt];
		if (srpt_alloc_recv_buf(ch, iu))
			return -ENOMEM;
	}
	return 0;
}

/**
 * srpt_alloc_bufs() - allocate receive buffers and the command pool
 * @ch: channel with rq_size, max_req_size, max_rsp_size and
 *	imm_data_offset set
 *
 * There are twice as many commands as receive buffers: a command keeps
 * its pool entry until its response SEND completes, and the initiator may
 * already use the credit that response returned. The caller sets up the
 * completion handlers and the commands' state (srpt_io.c).
 *
 * Return: 0 or -ENOMEM (then nothing is left allocated).
 */
int srpt_alloc_bufs(struct srpt_rdma_ch *ch)
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
	srpt_res_add(SRPT_RES_CMD_SLOTS, ch->n_cmds);
	for (i = 0; i < ch->n_cmds; i++) {
		struct srpt_cmd *cmd = &ch->cmds[i];

		cmd->ch = ch;
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
