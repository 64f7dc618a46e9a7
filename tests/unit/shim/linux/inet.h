/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space stand-in for <linux/inet.h> and hex2bin() of <linux/hex.h>:
 * shim_inet.c has the kernel's own in4_pton() / in6_pton() (net/core/utils.c
 * of Linux 6.12, unchanged), so srpt_names.c is tested against what it
 * calls in the kernel, quirks included.
 */
#ifndef SRPT_SHIM_LINUX_INET_H
#define SRPT_SHIM_LINUX_INET_H

#include <linux/types.h>

int in4_pton(const char *src, int srclen, u8 *dst, int delim, const char **end);
int in6_pton(const char *src, int srclen, u8 *dst, int delim, const char **end);
int hex_to_bin(unsigned char ch);
int hex2bin(u8 *dst, const char *src, size_t count);

#endif
