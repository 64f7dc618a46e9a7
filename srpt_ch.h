/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Login and channel teardown (srpt_ch.c): the login routine the CMs
 * call, their connection events, and the device and target port
 * registries.
 */
#ifndef SRPT_CH_H
#define SRPT_CH_H

#include "srpt_base.h"

u32 srpt_max_req_size(void);
u32 srpt_srq_depth(void);
u32 srpt_port_max_rdma_size(struct srpt_port *sport);
int srpt_check_params(void);
int srpt_login(struct srpt_login_ctx *lc);
void srpt_cm_rtu_recv(struct srpt_rdma_ch *ch);
void srpt_cm_closed(struct srpt_rdma_ch *ch, const char *why);
void srpt_dev_register(struct srpt_device *sdev);
void srpt_dev_unregister(struct srpt_device *sdev);
void srpt_port_active(struct srpt_port *sport);
void srpt_tport_register(struct srpt_tport *tport);
void srpt_tport_unregister(struct srpt_tport *tport);
void srpt_tport_add_tpg(struct srpt_tport *tport, struct srpt_tpg *stpg);
void srpt_tport_del_tpg(struct srpt_tpg *stpg);
void srpt_tpg_enable(struct srpt_tpg *stpg, bool enable);
void srpt_login_last_refusal(struct srpt_tport *tport,
			     struct srpt_login_stats *ls);
void srpt_ch_debugfs_init(void);

#endif /* SRPT_CH_H */
