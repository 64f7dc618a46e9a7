/* SPDX-License-Identifier: GPL-2.0 */
/* srpt_sq.c: a channel's send queue, pool entries, credits, the drain. */
#ifndef SRPT_SQ_H
#define SRPT_SQ_H

#include "srpt_base.h"

void srpt_cmd_set_state(struct srpt_cmd *cmd, enum srpt_cmd_state new);
void srpt_wc_failed(struct srpt_rdma_ch *ch, struct ib_wc *wc,
		    const char *what);
int srpt_add_cmds(struct srpt_rdma_ch *ch, u32 n);
int srpt_post_recv(struct srpt_rdma_ch *ch, struct srpt_recv_iu *iu);
void srpt_ch_send_logout(struct srpt_rdma_ch *ch);
void srpt_ch_drain(struct srpt_rdma_ch *ch);
void srpt_repost_iu(struct srpt_cmd *cmd, bool credit);
void srpt_put_cmd(struct srpt_cmd *cmd);
bool srpt_cred_rsp_recv(struct srpt_cmd *cmd, u64 tag);
void srpt_send_rsp(struct srpt_cmd *cmd);
void srpt_start_read(struct srpt_cmd *cmd);
int srpt_fetch_table(struct srpt_cmd *cmd, const struct srpt_cmd_desc *where,
		     srpt_table_done_fn done);
void srpt_free_table(struct srpt_cmd *cmd);

#endif /* SRPT_SQ_H */
