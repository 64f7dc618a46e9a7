/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few differences between the kernels this module builds for (Debian
 * 6.1 and 6.12), kept in one place instead of #ifdefs across the code.
 */
#ifndef SRPT_COMPAT_H
#define SRPT_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
/* Run commands in the completion context that received them, as on 6.1. */
#define SRPT_FABRIC_SUBMIT_OPS \
	.direct_submit_supp = 1, \
	.default_submit_type = TARGET_DIRECT_SUBMIT,
#else
#include <asm/unaligned.h>
#define SRPT_FABRIC_SUBMIT_OPS
#endif

#endif /* SRPT_COMPAT_H */
