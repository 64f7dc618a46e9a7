/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few differences between the kernels this module builds for (Debian
 * 6.1 and 6.12), kept in one place instead of #ifdefs across the code.
 */
#ifndef SRPT_COMPAT_H
#define SRPT_COMPAT_H

/* The SRPT_HAVE_* macros come from the Makefile, which probes the headers. */
#ifdef SRPT_HAVE_LINUX_UNALIGNED
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

#ifdef SRPT_HAVE_DIRECT_SUBMIT
/* Run commands in the completion context that received them, as 6.1 does. */
#define SRPT_FABRIC_SUBMIT_OPS \
	.direct_submit_supp = 1, \
	.default_submit_type = TARGET_DIRECT_SUBMIT,
#else
#define SRPT_FABRIC_SUBMIT_OPS
#endif

#endif /* SRPT_COMPAT_H */
