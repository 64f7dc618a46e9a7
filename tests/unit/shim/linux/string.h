/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/string.h>. */
#ifndef SRPT_SHIM_LINUX_STRING_H
#define SRPT_SHIM_LINUX_STRING_H

#include <string.h>

#endif
