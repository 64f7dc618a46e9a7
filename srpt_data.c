// SPDX-License-Identifier: GPL-2.0
/*
 * The data of SRP commands: data buffers (whole pages, as LIO and the
 * block layer need them, whatever the initiator's descriptors; up to 64 KiB
 * in pages the command keeps for the next; immediate data in place in the
 * receive buffer) and the rdma_rw contexts moving them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/scatterlist.h>
#include "srpt_data.h"
#include "srpt_buf.h"
#include "srpt_proto.h"
#include "srpt_stats.h"

/**
 * srpt_rw_destroy() - destroy the RDMA contexts of a command
 * @cmd: command; its data buffer stays, unmapped
 */
void srpt_rw_destroy(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	enum dma_data_direction dir;
	u32 i;

	dir = cmd->data_out ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	for (i = 0; i < cmd->n_active; i++) {
		struct srpt_rw *rw = &cmd->rw[i];

		if (!rw->active)
			continue;
		rdma_rw_ctx_destroy(&rw->rw, ch->qp, ch->sport->port_num,
				    rw->sg, rw->cnt, dir);
		rw->active = false;
		atomic_dec(&ch->rw_active);
	}
	cmd->n_active = 0;
	cmd->n_wrs = 0;
	cmd->rw_ready = false;
}

/**
 * srpt_free_data() - undo srpt_alloc_data(), and any RDMA context left
 * @cmd: command; LIO, the backend and the RDMA hardware are done with its
 *	data buffer (pages the command keeps are reused by its next one)
 */
void srpt_free_data(struct srpt_cmd *cmd)
{
	u32 i;

	srpt_rw_destroy(cmd);
	for (i = 0; i < cmd->n_rw; i++) {
		struct srpt_rw *rw = &cmd->rw[i];

		if (rw->own_sg)
			kfree(rw->sg);
		if (rw->buf && !(cmd->pages && rw->buf == cmd->pages->sg)) {
			target_free_sgl(rw->buf, rw->buf_nents);
			srpt_res_add(SRPT_RES_DATA_BYTES, -(long)rw->buf_len);
		}
		rw->sg = NULL;
		rw->own_sg = false;
		rw->buf = NULL;
	}
	if (cmd->rw && cmd->rw != cmd->rw_inline) {
		kfree(cmd->rw);
		srpt_res_add(SRPT_RES_RW_TABLES, -1);
	}
	cmd->rw = NULL;
	cmd->n_rw = 0;
	cmd->data_sg = NULL;
	cmd->data_nents = 0;
}

/* Bytes of entry @i of a @len-byte buffer in whole pages (the last: what is left). */
static u32 srpt_page_len(u32 len, u32 i)
{
	return min_t(u32, len - i * PAGE_SIZE, PAGE_SIZE);
}

/* Immediate data stays, page-aligned, in the receive buffer (srpt_recv_layout()). */
static void srpt_imm_sg(struct srpt_cmd *cmd, const struct srpt_cmd_info *ci)
{
	struct srpt_recv_iu *iu = cmd->iu;
	void *data = iu->buf + ci->imm_off;
	u32 n = DIV_ROUND_UP(ci->data_len, PAGE_SIZE), i;

	WARN_ON_ONCE(offset_in_page(data) || n > cmd->ch->layout.imm_sg_cnt);
	sg_init_table(iu->imm_sg, n);
	for (i = 0; i < n; i++)
		sg_set_page(&iu->imm_sg[i], virt_to_page(data + i * PAGE_SIZE),
			    srpt_page_len(ci->data_len, i), 0);
	cmd->imm = true;
	cmd->data_sg = iu->imm_sg;
	cmd->data_nents = n;
}

/*
 * A data buffer of one piece of at most SRPT_CACHED_DATA, in the pages the
 * command keeps (its last command was released: nothing uses them). The
 * table is built anew, as target_alloc_sgl() would build it: srpt_rw_trim()
 * changed the lengths of the last command's.
 */
static int srpt_cached_buf(struct srpt_cmd *cmd, u32 len)
{
	u32 n = DIV_ROUND_UP(len, PAGE_SIZE), i;
	struct srpt_rw *rw = &cmd->rw[0];
	struct scatterlist *sg;
	int ret;

	ret = srpt_cmd_pages(cmd, n);
	if (ret)
		return ret;
	sg = cmd->pages->sg;
	sg_init_table(sg, n);
	for (i = 0; i < n; i++)
		sg_set_page(&sg[i], cmd->pages->page[i],
			    srpt_page_len(len, i), 0);
	rw->buf = sg;
	rw->buf_nents = n;
	rw->buf_len = len;
	cmd->data_sg = rw->buf;
	cmd->data_nents = n;
	return 0;
}

/*
 * The data buffer: @len bytes in pieces of rw_size (whole pages but the
 * last), piece j in cmd->rw[j].buf, chained into one list for LIO. There
 * are at least as many contexts as pieces. One piece of at most
 * SRPT_CACHED_DATA takes the pages the command keeps; larger buffers are
 * allocated for the command and freed with its data.
 */
static int srpt_alloc_buf(struct srpt_cmd *cmd, u32 len)
{
	u32 size = cmd->ch->rw_size, off, j = 0;
	struct srpt_rw *prev = NULL;
	int ret;

	if (len && len <= min_t(u32, size, SRPT_CACHED_DATA)) {
		ret = srpt_cached_buf(cmd, len);
		if (ret != -ENOSPC)
			return ret;
	}
	for (off = 0; off < len; off += size, j++) {
		struct srpt_rw *rw = &cmd->rw[j];

		rw->buf_len = min(len - off, size);
		ret = target_alloc_sgl(&rw->buf, &rw->buf_nents, rw->buf_len,
				       false, off + size < len);
		if (ret)
			return ret;
		srpt_res_add(SRPT_RES_DATA_BYTES, rw->buf_len);
		if (prev)
			sg_chain(prev->buf, prev->buf_nents + 1, rw->buf);
		prev = rw;
		cmd->data_nents += rw->buf_nents;
	}
	cmd->data_sg = cmd->rw[0].buf;
	return 0;
}

/* Entry of the data buffer that holds byte @off. */
static struct scatterlist *srpt_buf_sg(struct srpt_cmd *cmd, u32 off)
{
	u32 per = cmd->ch->rw_size / PAGE_SIZE;

	return &cmd->rw[off / cmd->ch->rw_size].buf[off / PAGE_SIZE % per];
}

/*
 * The scatterlist of context @rw, for bytes @start.. of the data buffer:
 * the buffer's own entries if whole pages (a descriptor starting on a
 * page boundary of the buffer), else, as they start or end inside a page
 * shared with another context, a table of its own with offsets into them.
 */
static int srpt_rw_sg(struct srpt_cmd *cmd, struct srpt_rw *rw, u32 start,
		      u32 total)
{
	u32 end = start + rw->len, first = start / PAGE_SIZE, i;

	rw->nents = DIV_ROUND_UP(end, PAGE_SIZE) - first;
	if (!offset_in_page(start) && (!offset_in_page(end) || end == total)) {
		rw->sg = srpt_buf_sg(cmd, start);
		return 0;
	}
	rw->sg = kmalloc_array(rw->nents, sizeof(*rw->sg), GFP_KERNEL);
	if (!rw->sg)
		return -ENOMEM;
	rw->own_sg = true;
	sg_init_table(rw->sg, rw->nents);
	for (i = 0; i < rw->nents; i++) {
		u32 page = (first + i) * PAGE_SIZE;
		u32 from = max(page, start), to = min(page + PAGE_SIZE, end);

		sg_set_page(&rw->sg[i], sg_page(srpt_buf_sg(cmd, page)),
			    to - from, from - page);
	}
	return 0;
}

/**
 * srpt_alloc_data() - allocate the data buffer of a command
 * @cmd: command holding the request @ci was parsed from
 * @ci: the parsed SRP_CMD
 *
 * One RDMA context per remote buffer piece of at most rw_size, over one
 * data buffer (cmd->data_sg, for LIO).
 *
 * Return: 0, -E2BIG (it needs too many RDMA contexts) or -ENOMEM.
 */
int srpt_alloc_data(struct srpt_cmd *cmd, const struct srpt_cmd_info *ci)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 i, n = 0, k = 0, off, chunk, start = 0;
	int ret;

	cmd->data_out = ci->data_out;
	if (ci->fmt == SRP_DATA_DESC_IMM) {
		if (ci->data_len)
			srpt_imm_sg(cmd, ci);
		return 0;
	}
	for (i = 0; i < ci->n_desc; i++)
		n += DIV_ROUND_UP(srpt_cmd_desc(ci, i).len, ch->rw_size);
	if (!n)
		return 0;
	if (n > SRPT_MAX_RW)
		return -E2BIG;
	cmd->rw = cmd->rw_inline;
	if (n > SRPT_INLINE_RW) {
		cmd->rw = kcalloc(n, sizeof(*cmd->rw), GFP_KERNEL);
		if (!cmd->rw)
			return -ENOMEM;
		srpt_res_add(SRPT_RES_RW_TABLES, 1);
	} else {
		memset(cmd->rw_inline, 0, sizeof(cmd->rw_inline));
	}
	cmd->n_rw = n;
	ret = srpt_alloc_buf(cmd, ci->data_len);
	if (ret)
		goto fail;
	for (i = 0; i < ci->n_desc; i++) {
		struct srpt_cmd_desc d = srpt_cmd_desc(ci, i);

		for (off = 0; off < d.len; off += chunk, start += chunk) {
			struct srpt_rw *rw = &cmd->rw[k++];

			chunk = min(d.len - off, ch->rw_size);
			rw->va = d.va + off;
			rw->rkey = d.rkey;
			rw->len = chunk;
			ret = srpt_rw_sg(cmd, rw, start, ci->data_len);
			if (ret)
				goto fail;
		}
	}
	return 0;

fail:
	srpt_free_data(cmd);
	return ret;
}

/*
 * Entries of @rw for its first @xfer bytes, the last one ending there. All
 * of them when @xfer is all of @rw (their lengths add up to it): no walk.
 */
static u32 srpt_rw_trim(struct srpt_rw *rw, u32 xfer)
{
	struct scatterlist *sg = rw->sg;
	u32 cnt = 1;

	if (xfer == rw->len)
		return rw->nents;
	while (xfer > sg->length && cnt < rw->nents) {
		xfer -= sg->length;
		sg = sg_next(sg);
		cnt++;
	}
	sg->length = xfer;
	return cnt;
}

/**
 * srpt_rw_init() - set up the RDMA contexts of a command's transfer
 * @cmd: command with its data buffer (srpt_alloc_data())
 *
 * Only the bytes LIO wants moved: data_length, below the descriptors' on
 * underflow.
 *
 * Return: 0; -EAGAIN when the QP's MR pool is exhausted (iWARP needs an
 * MR per RDMA READ), with no context left behind; another error if the
 * command cannot be transferred at all.
 */
int srpt_rw_init(struct srpt_cmd *cmd)
{
	struct srpt_rdma_ch *ch = cmd->ch;
	u32 left = cmd->se_cmd.data_length;
	enum dma_data_direction dir;
	int ret;

	if (cmd->state == SRPT_CMD_TABLE)
		left = cmd->rw[0].len;	/* no LIO command yet */

	dir = cmd->data_out ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	cmd->n_wrs = 0;
	cmd->xfer_len = 0;
	for (cmd->n_active = 0; cmd->n_active < cmd->n_rw && left;
	     cmd->n_active++) {
		struct srpt_rw *rw = &cmd->rw[cmd->n_active];
		u32 xfer = min(rw->len, left);

		rw->cnt = srpt_rw_trim(rw, xfer);
		ret = rdma_rw_ctx_init(&rw->rw, ch->qp, ch->sport->port_num,
				       rw->sg, rw->cnt, 0, rw->va, rw->rkey,
				       dir);
		if (ret < 0)
			goto fail;
		rw->active = true;
		atomic_inc(&ch->rw_active);
		cmd->n_wrs += ret;
		cmd->xfer_len += xfer;
		left -= xfer;
	}
	ret = -EIO;
	if (cmd->n_wrs + 1 > ch->sq_wr_total)
		goto fail;
	cmd->rw_ready = true;
	return 0;

fail:
	if (ret != -EAGAIN)
		pr_warn_ratelimited("%s: cannot set up the RDMA transfer of task %#llx (%u work requests, send queue %u): %d\n",
				    ch->sess_name, cmd->tag, cmd->n_wrs + 1,
				    ch->sq_wr_total, ret);
	srpt_rw_destroy(cmd);
	return ret;
}
