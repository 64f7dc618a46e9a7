/* SPDX-License-Identifier: GPL-2.0 */
/* srpt_buf.c: receive buffers (a channel's, an SRQ's), command pools (and their data pages). */
#ifndef SRPT_BUF_H
#define SRPT_BUF_H

#include "srpt_base.h"

void srpt_recv_layout(struct srpt_recv_layout *l, u32 size, u16 imm_offset);
int srpt_alloc_recv_bufs(struct srpt_rdma_ch *ch);
struct srpt_cmd_chunk *srpt_alloc_cmds(struct srpt_rdma_ch *ch, u32 n,
				       gfp_t gfp);
void srpt_free_ch_bufs(struct srpt_rdma_ch *ch);
int srpt_cmd_pages(struct srpt_cmd *cmd, u32 n);
struct srpt_srq *srpt_srq_create(struct srpt_device *sdev, u32 size,
				 u32 iu_size,
				 void (*done)(struct ib_cq *cq, struct ib_wc *wc));
int srpt_srq_post(struct srpt_recv_iu *iu);
void srpt_drop_iu(struct srpt_recv_iu *iu);
struct srpt_recv_iu *srpt_srq_take_spare(struct srpt_srq *srq, bool *posted);
void srpt_srq_put_spare(struct srpt_srq *srq, struct srpt_recv_iu *iu);
void srpt_srq_destroy(struct srpt_srq *srq);

#endif /* SRPT_BUF_H */
