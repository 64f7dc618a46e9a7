/* SPDX-License-Identifier: GPL-2.0 */
/* srpt_recv.c: a channel's receive side, the dispatch of IUs, go-live. */
#ifndef SRPT_RECV_H
#define SRPT_RECV_H

#include "srpt_base.h"

int srpt_alloc_ch_bufs(struct srpt_rdma_ch *ch);
struct srpt_srq *srpt_create_srq(struct srpt_device *sdev, u32 size,
				 u32 iu_size);
void srpt_ch_go_live(struct srpt_rdma_ch *ch);

#endif /* SRPT_RECV_H */
