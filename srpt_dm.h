/* SPDX-License-Identifier: GPL-2.0 */
/* The Device Management agent (srpt_dm.c). */
#ifndef SRPT_DM_H
#define SRPT_DM_H

#include "srpt_base.h"

void srpt_dm_register(struct srpt_device *sdev);
void srpt_dm_unregister(struct srpt_device *sdev);
void srpt_dm_port_refresh(struct srpt_port *sport);

#endif /* SRPT_DM_H */
