/* SPDX-License-Identifier: GPL-2.0 */
/* srpt_login.c: the login of both CMs; devices, target ports, TPGs. */
#ifndef SRPT_LOGIN_H
#define SRPT_LOGIN_H

#include "srpt_base.h"

int srpt_login(struct srpt_login_ctx *lc);
void srpt_dev_register(struct srpt_device *sdev);
void srpt_dev_unregister(struct srpt_device *sdev);
void srpt_tport_register(struct srpt_tport *tport);
void srpt_tport_unregister(struct srpt_tport *tport);
void srpt_tport_add_tpg(struct srpt_tport *tport, struct srpt_tpg *stpg);
void srpt_tport_del_tpg(struct srpt_tpg *stpg);
void srpt_tpg_enable(struct srpt_tpg *stpg, bool enable);
u32 srpt_port_max_rdma_size(struct srpt_port *sport);
void srpt_login_last_refusal(struct srpt_tport *tport,
			     struct srpt_login_stats *ls);

#endif /* SRPT_LOGIN_H */
