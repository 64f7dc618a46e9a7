/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/errno.h>. Not <errno.h>: glibc's errno.h
 * itself includes <linux/errno.h>, which would find this file again.
 */
#ifndef SRPT_SHIM_LINUX_ERRNO_H
#define SRPT_SHIM_LINUX_ERRNO_H

#ifndef EINVAL
#define EINVAL	22
#endif

#endif
