/* SPDX-License-Identifier: GPL-2.0 */
/* IB CM listeners and channels (srpt_ib_cm.c). */
#ifndef SRPT_IB_CM_H
#define SRPT_IB_CM_H

#include "srpt_base.h"

void srpt_ib_cm_listen(struct srpt_device *sdev);
void srpt_ib_cm_unlisten(struct srpt_device *sdev);

#endif /* SRPT_IB_CM_H */
