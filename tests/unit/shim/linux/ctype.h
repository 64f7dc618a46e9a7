/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/ctype.h>. */
#ifndef SRPT_SHIM_LINUX_CTYPE_H
#define SRPT_SHIM_LINUX_CTYPE_H

#include <ctype.h>

#endif
