/* SPDX-License-Identifier: GPL-2.0 */
/* The LIO fabric (srpt_fabric.c): registration, configfs. */
#ifndef SRPT_FABRIC_H
#define SRPT_FABRIC_H

#include "srpt_base.h"

int srpt_fabric_register(void);
void srpt_fabric_unregister(void);

#endif /* SRPT_FABRIC_H */
