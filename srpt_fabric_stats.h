/* SPDX-License-Identifier: GPL-2.0 */
/* Target port counters in configfs (srpt_fabric_stats.c). */
#ifndef SRPT_FABRIC_STATS_H
#define SRPT_FABRIC_STATS_H

#include "srpt_base.h"

void srpt_add_wwn_groups(struct se_wwn *wwn);

#endif /* SRPT_FABRIC_STATS_H */
