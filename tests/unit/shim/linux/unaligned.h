/* SPDX-License-Identifier: GPL-2.0 */
/* User-space stand-in for <linux/unaligned.h> (6.12; asm/ on 6.1). */
#ifndef SRPT_SHIM_LINUX_UNALIGNED_H
#define SRPT_SHIM_LINUX_UNALIGNED_H

#include <string.h>
#include <linux/kernel.h>

static inline u16 get_unaligned_be16(const void *p)
{
	__be16 v;

	memcpy(&v, p, sizeof(v));
	return be16_to_cpu(v);
}

static inline u32 get_unaligned_be32(const void *p)
{
	__be32 v;

	memcpy(&v, p, sizeof(v));
	return be32_to_cpu(v);
}

static inline u64 get_unaligned_be64(const void *p)
{
	__be64 v;

	memcpy(&v, p, sizeof(v));
	return be64_to_cpu(v);
}

static inline void put_unaligned_be16(u16 val, void *p)
{
	__be16 v = cpu_to_be16(val);

	memcpy(p, &v, sizeof(v));
}

static inline void put_unaligned_be32(u32 val, void *p)
{
	__be32 v = cpu_to_be32(val);

	memcpy(p, &v, sizeof(v));
}

static inline void put_unaligned_be64(u64 val, void *p)
{
	__be64 v = cpu_to_be64(val);

	memcpy(p, &v, sizeof(v));
}

#endif
