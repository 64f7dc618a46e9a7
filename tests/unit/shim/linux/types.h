/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/types.h>, just enough to compile
 * srpt_proto.c in tests/unit. Byte-order annotations are plain integers
 * here; sparse checks them in the kernel build.
 */
#ifndef SRPT_SHIM_LINUX_TYPES_H
#define SRPT_SHIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

typedef uint16_t __be16;
typedef uint32_t __be32;
typedef uint64_t __be64;

/* <linux/compiler_attributes.h>, which kbuild includes everywhere */
#define __packed	__attribute__((__packed__))
#define __aligned(x)	__attribute__((__aligned__(x)))

#endif
