/* SPDX-License-Identifier: GPL-2.0 */
/* RDMA/CM listeners and channels (srpt_rdma_cm.c). */
#ifndef SRPT_RDMA_CM_H
#define SRPT_RDMA_CM_H

#include "srpt_base.h"

int srpt_rdma_cm_listen(u16 port);
u16 srpt_rdma_cm_port(void);
struct srpt_listener *srpt_rdma_cm_listen_addr(struct sockaddr *sa);
void srpt_rdma_cm_unlisten(struct srpt_listener *l);
void srpt_rdma_cm_relisten(void);
void srpt_rdma_cm_start(void);
void srpt_rdma_cm_stop(void);
void srpt_rdma_cm_flush(void);

#endif /* SRPT_RDMA_CM_H */
