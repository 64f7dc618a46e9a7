/* SPDX-License-Identifier: GPL-2.0 */
/* srpt_ch.c: a channel's setup, connection events, release; parameters. */
#ifndef SRPT_CH_H
#define SRPT_CH_H

#include "srpt_base.h"

int srpt_check_params(void);
u32 srpt_max_req_size(void);
void srpt_ch_debugfs_init(void);
struct srpt_rdma_ch *srpt_ch_alloc(struct srpt_login_ctx *lc);
u32 srpt_ch_setup(struct srpt_rdma_ch *ch, struct srpt_login_ctx *lc);
void srpt_ch_login_done(struct srpt_rdma_ch *ch, bool accepted);
void srpt_cm_rtu_recv(struct srpt_rdma_ch *ch);
void srpt_cm_closed(struct srpt_rdma_ch *ch, const char *why);
void srpt_port_active(struct srpt_port *sport);

#endif /* SRPT_CH_H */
