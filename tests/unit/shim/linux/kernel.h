/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/kernel.h>: byte order helpers and
 * min()/max()/min_t(). min() and max() keep the kernel's type check, so
 * mixing types still fails to compile (-Werror) as it does in kbuild.
 */
#ifndef SRPT_SHIM_LINUX_KERNEL_H
#define SRPT_SHIM_LINUX_KERNEL_H

#include <linux/types.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define cpu_to_be16(x)	((__be16)__builtin_bswap16((u16)(x)))
#define cpu_to_be32(x)	((__be32)__builtin_bswap32((u32)(x)))
#define cpu_to_be64(x)	((__be64)__builtin_bswap64((u64)(x)))
#else
#define cpu_to_be16(x)	((__be16)(u16)(x))
#define cpu_to_be32(x)	((__be32)(u32)(x))
#define cpu_to_be64(x)	((__be64)(u64)(x))
#endif
#define be16_to_cpu(x)	((u16)cpu_to_be16(x))
#define be32_to_cpu(x)	((u32)cpu_to_be32(x))
#define be64_to_cpu(x)	((u64)cpu_to_be64(x))

#define __srpt_cmp(op, x, y) ({				\
	__typeof__(x) _x = (x);				\
	__typeof__(y) _y = (y);				\
	(void)(&_x == &_y);	/* same type only */	\
	_x op _y ? _x : _y; })
#define min(x, y)		__srpt_cmp(<, x, y)
#define max(x, y)		__srpt_cmp(>, x, y)
#define min_t(type, x, y)	__srpt_cmp(<, (type)(x), (type)(y))
#define max_t(type, x, y)	__srpt_cmp(>, (type)(x), (type)(y))

#endif
