// SPDX-License-Identifier: GPL-2.0
/*
 * The memory of SRP channels: receive buffers (laid out for immediate
 * data), a channel's own or its device's SRQ's, and command pools with the
 * data pages their commands keep for small buffers (srpt_data.c uses them).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include "srpt_buf.h"
#include "srpt_stats.h"

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

/* @buf may be NULL (allocation never got there). */
static void srpt_free_dma_buf(struct ib_device *dev, void *buf, u64 dma,
			      u32 size, enum dma_data_direction dir)
{
	if (!buf)
		return;
	ib_dma_unmap_single(dev, dma, size, dir);
	kfree(buf);
	srpt_res_add(SRPT_RES_SEND_BYTES, -(long)size);
}

/**
 * srpt_recv_layout() - lay receive buffers out
 * @l: the layout to fill in
 * @size: bytes an IU may have
 * @imm_offset: where immediate data starts in an IU, 0 if none
 *
 * With immediate data, an SRP_CMD's data sits at @imm_offset in the IU and
 * LIO hands it to the backstore in place. A block device needs it aligned
 * (null_blk, for one, copies whole 512-byte sectors and silently mixes up
 * a buffer that is not), so each buffer is whole pages and the IU is
 * received l->pad bytes in: the immediate data starts on a page boundary.
 */
void srpt_recv_layout(struct srpt_recv_layout *l, u32 size, u16 imm_offset)
{
	l->size = size;
	l->imm_data_offset = imm_offset;
	l->pad = 0;
	l->imm_sg_cnt = 0;
	if (!imm_offset || imm_offset >= size) {
		/* Whole pages beyond a page: 8260 bytes take 12 KiB, not 16. */
		l->pages = size > PAGE_SIZE;
		l->alloc = l->pages ? PAGE_ALIGN(size) :
				      kmalloc_size_roundup(size);
		return;
	}
	l->pages = true;
	l->pad = (PAGE_SIZE - imm_offset % PAGE_SIZE) % PAGE_SIZE;
	l->alloc = PAGE_ALIGN(l->pad + size);
	l->imm_sg_cnt = DIV_ROUND_UP(size - imm_offset, PAGE_SIZE);
}

static void srpt_free_recv_mem(const struct srpt_recv_layout *l,
			       struct srpt_recv_iu *iu)
{
	if (l->pages)
		free_pages_exact(iu->base, l->alloc);
	else
		kfree(iu->base);
	iu->base = NULL;
}

static int srpt_alloc_recv_buf(struct ib_device *dev,
			       const struct srpt_recv_layout *l,
			       struct srpt_recv_iu *iu)
{
	if (l->pages)
		iu->base = alloc_pages_exact(l->alloc, GFP_KERNEL | __GFP_ZERO);
	else
		iu->base = kzalloc(l->alloc, GFP_KERNEL);
	if (!iu->base)
		return -ENOMEM;
	iu->buf = iu->base + l->pad;
	iu->dma = ib_dma_map_single(dev, iu->buf, l->size, DMA_FROM_DEVICE);
	if (!ib_dma_mapping_error(dev, iu->dma)) {
		srpt_res_add(SRPT_RES_RECV_BYTES, l->alloc);
		return 0;
	}
	srpt_free_recv_mem(l, iu);
	return -ENOMEM;
}

static void srpt_free_recv_buf(struct ib_device *dev,
			       const struct srpt_recv_layout *l,
			       struct srpt_recv_iu *iu)
{
	if (!iu->base)
		return;
	ib_dma_unmap_single(dev, iu->dma, l->size, DMA_FROM_DEVICE);
	srpt_free_recv_mem(l, iu);
	srpt_res_add(SRPT_RES_RECV_BYTES, -(long)l->alloc);
}

/* On failure what was allocated stays for srpt_free_recv_array(). */
static int srpt_alloc_recv_array(struct ib_device *dev,
				 const struct srpt_recv_layout *l, u32 n,
				 struct srpt_recv_iu **recv,
				 struct scatterlist **imm_sgs)
{
	u32 i;

	*recv = kvcalloc(n, sizeof(**recv), GFP_KERNEL);
	if (!*recv)
		return -ENOMEM;
	if (l->imm_sg_cnt) {
		*imm_sgs = kvcalloc(n * l->imm_sg_cnt, sizeof(**imm_sgs),
				    GFP_KERNEL);
		if (!*imm_sgs)
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct srpt_recv_iu *iu = &(*recv)[i];

		INIT_LIST_HEAD(&iu->entry);
		if (*imm_sgs)
			iu->imm_sg = &(*imm_sgs)[i * l->imm_sg_cnt];
		if (srpt_alloc_recv_buf(dev, l, iu))
			return -ENOMEM;
	}
	return 0;
}

static void srpt_free_recv_array(struct ib_device *dev,
				 const struct srpt_recv_layout *l, u32 n,
				 struct srpt_recv_iu **recv,
				 struct scatterlist **imm_sgs)
{
	u32 i;

	for (i = 0; *recv && i < n; i++)
		srpt_free_recv_buf(dev, l, &(*recv)[i]);
	kvfree(*recv);
	*recv = NULL;
	kvfree(*imm_sgs);
	*imm_sgs = NULL;
}

/**
 * srpt_alloc_recv_bufs() - allocate the receive buffers of a channel
 * @ch: channel without an SRQ, with rq_size and its layout set
 *
 * Return: 0 or -ENOMEM (srpt_free_ch_bufs() frees what was allocated).
 */
int srpt_alloc_recv_bufs(struct srpt_rdma_ch *ch)
{
	u32 i;

	if (srpt_alloc_recv_array(srpt_ch_dev(ch), &ch->layout,
				  ch->rq_size + 1, &ch->recv, &ch->imm_sgs))
		return -ENOMEM;
	for (i = 0; i <= ch->rq_size; i++)
		ch->recv[i].ch = ch;
	ch->spare = &ch->recv[ch->rq_size];
	return 0;
}

/**
 * srpt_cmd_pages() - have a command keep the data pages of a buffer
 * @cmd: command of a pool; no buffer in its pages is in use (its last
 *	command was released: srpt_free_data())
 * @n: pages the buffer needs, at most SRPT_CACHED_PAGES
 *
 * Allocates cmd->pages at the first call, and those of its first @n pages
 * it lacks. They stay with @cmd, counted in SRPT_RES_DATA_CACHE_BYTES and
 * the channel's data_cache, until its pool is freed; not beyond
 * SRPT_CACHED_CH_BYTES per channel (two commands topping up at once, a
 * dispatch and a fetched indirect table, may pass it by a buffer).
 * Context: may sleep.
 *
 * Return: 0, -ENOSPC (the channel keeps its most) or -ENOMEM (what was
 * allocated stays).
 */
int srpt_cmd_pages(struct srpt_cmd *cmd, u32 n)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	struct srpt_cmd_pages *p = cmd->pages;
	struct page *page;
	size_t more;
	u32 i;

	if (WARN_ON_ONCE(n > SRPT_CACHED_PAGES))
		return -EINVAL;
	more = p ? (n > p->n ? n - p->n : 0) * PAGE_SIZE : n * PAGE_SIZE + sizeof(*p);
	if (more && atomic_long_read(&ch->data_cache) + more > SRPT_CACHED_CH_BYTES)
		return -ENOSPC;
	if (!p) {
		p = kzalloc(sizeof(*p), GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		srpt_res_add(SRPT_RES_DATA_CACHE_BYTES, sizeof(*p));
		atomic_long_add(sizeof(*p), &ch->data_cache);
		cmd->pages = p;
	}
	for (i = 0; i < p->n && i < n; i++) {
		/*
		 * Still referenced elsewhere: siw (zero-copy transmit) completes
		 * an RDMA WRITE once TCP holds the pages, not once they are sent.
		 * Ours go to the page's last holder; the command takes a new one.
		 */
		if (page_ref_count(p->page[i]) == 1)
			continue;
		page = alloc_page(GFP_KERNEL);
		if (!page)
			return -ENOMEM;
		put_page(p->page[i]);
		p->page[i] = page;
	}
	while (p->n < n) {
		page = alloc_page(GFP_KERNEL);
		if (!page)
			return -ENOMEM;
		p->page[p->n++] = page;
		srpt_res_add(SRPT_RES_DATA_CACHE_BYTES, PAGE_SIZE);
		atomic_long_add(PAGE_SIZE, &ch->data_cache);
	}
	return 0;
}

static void srpt_free_cmd_pages(struct srpt_rdma_ch *ch, struct srpt_cmd *cmd)
{
	struct srpt_cmd_pages *p = cmd->pages;
	long bytes;

	if (!p)
		return;
	bytes = p->n * PAGE_SIZE + sizeof(*p);
	srpt_res_add(SRPT_RES_DATA_CACHE_BYTES, -bytes);
	atomic_long_sub(bytes, &ch->data_cache);
	while (p->n)
		put_page(p->page[--p->n]);
	kfree(p);
	cmd->pages = NULL;
}

/* Every command of @chunk is home (none in use) or was never used. */
static void srpt_free_cmds(struct srpt_rdma_ch *ch,
			   struct srpt_cmd_chunk *chunk)
{
	u32 i;

	for (i = 0; i < chunk->n; i++) {
		srpt_free_dma_buf(srpt_ch_dev(ch), chunk->cmds[i].rsp_buf,
				  chunk->cmds[i].rsp_dma, ch->max_rsp_size,
				  DMA_TO_DEVICE);
		srpt_free_cmd_pages(ch, &chunk->cmds[i]);
	}
	srpt_res_add(SRPT_RES_CMD_SLOTS, -(long)chunk->n);
	srpt_res_add(SRPT_RES_CMD_BYTES,
		     -(long)struct_size(chunk, cmds, chunk->n));
	kvfree(chunk);
}

/**
 * srpt_alloc_cmds() - allocate commands for a channel's pool
 * @ch: channel with max_rsp_size set
 * @n: how many
 * @gfp: allocation flags
 *
 * The caller sets up handlers and adds the chunk to ch->cmd_chunks.
 *
 * Return: the chunk, or NULL (then nothing is left allocated).
 */
struct srpt_cmd_chunk *srpt_alloc_cmds(struct srpt_rdma_ch *ch, u32 n,
				       gfp_t gfp)
{
	struct srpt_cmd_chunk *chunk;
	u32 i;

	chunk = kvzalloc(struct_size(chunk, cmds, n), gfp);
	if (!chunk)
		return NULL;
	chunk->n = n;
	srpt_res_add(SRPT_RES_CMD_SLOTS, n);
	srpt_res_add(SRPT_RES_CMD_BYTES, struct_size(chunk, cmds, n));
	for (i = 0; i < n; i++) {
		struct srpt_cmd *cmd = &chunk->cmds[i];

		cmd->ch = ch;
		cmd->rsp_buf = srpt_alloc_dma_buf(srpt_ch_dev(ch),
						  ch->max_rsp_size,
						  DMA_TO_DEVICE, &cmd->rsp_dma);
		if (!cmd->rsp_buf) {
			srpt_free_cmds(ch, chunk);
			return NULL;
		}
	}
	return chunk;
}

/**
 * srpt_free_ch_bufs() - free a channel's receive buffers and command pool
 * @ch: channel whose QP is gone or never had work posted
 */
void srpt_free_ch_bufs(struct srpt_rdma_ch *ch)
{
	struct srpt_cmd_chunk *chunk, *next;

	srpt_free_recv_array(srpt_ch_dev(ch), &ch->layout, ch->rq_size + 1,
			     &ch->recv, &ch->imm_sgs);
	ch->spare = NULL;
	list_for_each_entry_safe(chunk, next, &ch->cmd_chunks, entry) {
		list_del(&chunk->entry);
		srpt_free_cmds(ch, chunk);
	}
	ch->n_cmds = 0;
	INIT_LIST_HEAD(&ch->free_cmds);
}

/**
 * srpt_srq_take_spare() - a spare of an SRQ for an SRP_CRED_RSP
 * @srq: the SRQ
 * @posted: set if a spare left posted (srpt_srq_put_spare()) counts as this one
 *
 * Return: a spare buffer to post, or NULL (none left, or *@posted).
 */
struct srpt_recv_iu *srpt_srq_take_spare(struct srpt_srq *srq, bool *posted)
{
	struct srpt_recv_iu *iu = NULL;
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	if (srq->retire) {
		srq->retire--;
		*posted = true;
	} else {
		iu = list_first_entry_or_null(&srq->spares, struct srpt_recv_iu,
					      entry);
		if (iu)
			list_del_init(&iu->entry);
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return iu;
}

/**
 * srpt_srq_put_spare() - an SRQ spare posted for an SRP_CRED_RSP is done with
 * @srq: the SRQ
 * @iu: the buffer that took the SRP_CRED_RSP, kept as a spare (not posted);
 *	NULL if the channel went first: the spare stays posted, and the next
 *	buffer reposted becomes a spare in its place (srpt_srq_post())
 */
void srpt_srq_put_spare(struct srpt_srq *srq, struct srpt_recv_iu *iu)
{
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	if (iu)
		list_add(&iu->entry, &srq->spares);
	else
		srq->retire++;
	spin_unlock_irqrestore(&srq->lock, flags);
}

/**
 * srpt_srq_post() - post a receive buffer of an SRQ
 * @iu: the buffer; while srq->retire is set, it becomes a spare instead
 *
 * Return: 0 or the error of ib_post_srq_recv().
 */
int srpt_srq_post(struct srpt_recv_iu *iu)
{
	struct srpt_srq *srq = iu->srq;
	unsigned long flags;
	struct ib_sge sge = {
		.addr = iu->dma,
		.length = srq->layout.size,
		.lkey = srq->sdev->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &iu->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	bool retire;
	int ret;

	spin_lock_irqsave(&srq->lock, flags);
	retire = srq->retire;
	if (retire) {
		srq->retire--;
		list_add(&iu->entry, &srq->spares);
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (retire)
		return 0;
	ib_dma_sync_single_for_device(srq->sdev->ib_dev, iu->dma,
				      srq->layout.size, DMA_FROM_DEVICE);
	ret = ib_post_srq_recv(srq->srq, &wr, NULL);
	if (ret)
		pr_warn_ratelimited("%s: ib_post_srq_recv failed: %d\n",
				    dev_name(&srq->sdev->ib_dev->dev), ret);
	return ret;
}

/**
 * srpt_drop_iu() - give up an IU the channel will not execute
 * @iu: receive buffer; one of the channel's own is reposted by the command
 *	that uses it, or freed with the channel
 */
void srpt_drop_iu(struct srpt_recv_iu *iu)
{
	if (iu->srq)
		srpt_srq_post(iu);
}

/**
 * srpt_srq_destroy() - free an SRQ (or what srpt_srq_create() made of one)
 * @srq: the SRQ, its channels gone (so all its buffers are posted again)
 */
void srpt_srq_destroy(struct srpt_srq *srq)
{
	if (!IS_ERR_OR_NULL(srq->srq))
		ib_destroy_srq(srq->srq);
	srpt_free_recv_array(srq->sdev->ib_dev, &srq->layout, srq->n_bufs,
			     &srq->recv, &srq->imm_sgs);
	kfree(srq);
}

/**
 * srpt_srq_create() - make the shared receive queue of a device
 * @sdev: the device
 * @size: receive buffers
 * @iu_size: bytes an IU may have
 * @done: the buffers' completion handler
 *
 * Return: the SRQ, or an ERR_PTR (-EOPNOTSUPP: the device has none).
 */
struct srpt_srq *srpt_srq_create(struct srpt_device *sdev, u32 size,
				 u32 iu_size,
				 void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	u32 max_wr = sdev->ib_dev->attrs.max_srq_wr;
	struct ib_srq_init_attr attr = {
		.attr.max_sge = 1,
		.srq_type = IB_SRQT_BASIC,
	};
	struct srpt_srq *srq;
	int ret = -ENOMEM;
	u32 i;

	srq = kzalloc(sizeof(*srq), GFP_KERNEL);
	if (!srq)
		return ERR_PTR(-ENOMEM);
	srq->sdev = sdev;
	srq->size = size;
	srq->n_bufs = size;
	if (max_wr > size)
		srq->n_bufs += min_t(u32, SRPT_SRQ_SPARES, max_wr - size);
	spin_lock_init(&srq->lock);
	INIT_LIST_HEAD(&srq->spares);
	srpt_recv_layout(&srq->layout, iu_size, SRPT_SRQ_IMM_OFFSET);
	attr.attr.max_wr = srq->n_bufs;
	srq->srq = ib_create_srq(sdev->pd, &attr);
	if (IS_ERR(srq->srq)) {
		ret = PTR_ERR(srq->srq);
		goto fail;
	}
	if (srpt_alloc_recv_array(sdev->ib_dev, &srq->layout, srq->n_bufs,
				  &srq->recv, &srq->imm_sgs))
		goto fail;
	for (i = 0; i < srq->n_bufs; i++) {
		srq->recv[i].srq = srq;
		srq->recv[i].cqe.done = done;
		if (i >= size) {
			list_add_tail(&srq->recv[i].entry, &srq->spares);
			continue;
		}
		ret = srpt_srq_post(&srq->recv[i]);
		if (ret)
			goto fail;
	}
	return srq;

fail:
	srpt_srq_destroy(srq);
	return ERR_PTR(ret);
}
