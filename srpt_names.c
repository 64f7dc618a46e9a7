// SPDX-License-Identifier: GPL-2.0
/*
 * Parsers of the names an admin gives in configfs (target ports, node ACLs). Only a name that is
 * wholly one of the forms below is taken: one with anything around a port ID, GUID or address
 * ("192.0.2.1O", "192.0.2.1-old", "192.0.2.1:3260") is refused, not read as that address.
 */
#include <linux/ctype.h>
#include <linux/errno.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "srpt_names.h"

static bool srpt_all_xdigits(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/**
 * srpt_parse_port_name() - parse the name of a port: a GID or a GUID
 * @name: [0x]<32 hex digits> or eight colon-separated groups of four (GID or port ID),
 *	[0x]<16 hex digits> or four groups of four (GUID); either case, nothing around
 * @id: 16 or 8 bytes, filled in
 *
 * Return: the number of bytes (16 or 8), or -EINVAL.
 */
int srpt_parse_port_name(const char *name, u8 *id)
{
	size_t skip = strncasecmp(name, "0x", 2) ? 0 : 2;
	size_t len, i;
	char hex[32];
	int n = 0;

	if (skip || !strchr(name, ':')) {
		name += skip;
		len = strlen(name);
		if ((len != 32 && len != 16) || !srpt_all_xdigits(name, len))
			return -EINVAL;
		memcpy(hex, name, len);
		n = len;
	} else {
		/* 8 or 4 groups of exactly 4 digits, a ':' between groups. */
		len = strlen(name);
		if (len != 39 && len != 19)
			return -EINVAL;
		for (i = 0; i < len; i++) {
			if (i % 5 == 4) {
				if (name[i] != ':')
					return -EINVAL;
			} else if (isxdigit((unsigned char)name[i])) {
				hex[n++] = name[i];
			} else {
				return -EINVAL;
			}
		}
	}
	if (hex2bin(id, hex, n / 2))
		return -EINVAL;
	return n / 2;
}

/*
 * in6_pton() lets a group have more than four digits if they start with zeros ("0:...:00001"): such
 * a name is not an address anyone writes for one, but likely a mistyped port ID; refuse it.
 */
static bool srpt_ipv6_groups_ok(const char *name)
{
	unsigned int digits = 0;

	for (; *name; name++) {
		digits = isxdigit((unsigned char)*name) ? digits + 1 : 0;
		if (digits > 4)
			return false;
	}
	return true;
}

/*
 * The dotted-quad part of an address (all of an IPv4 name, the part after the last ':' of an IPv6
 * one): in4_pton() takes "192.0.2.010" as .10 and "192.0.2.0001" as .1, where other tools read
 * octal or refuse; an octet here is 1..3 decimal digits without a leading zero.
 */
static bool srpt_octets_ok(const char *name)
{
	const char *p = strrchr(name, ':');
	unsigned int digits = 0;
	bool zero = false;

	p = p ? p + 1 : name;
	if (!strchr(p, '.'))
		return true;
	for (; *p; p++) {
		if (*p == '.') {
			digits = 0;
			continue;
		}
		if (digits == 1 && zero)
			return false;
		zero = digits == 0 && *p == '0';
		if (++digits > 3)
			return false;
	}
	return true;
}

/* An IPv4 address that is all of @name, as a v4-mapped IPv6 address. */
static bool srpt_parse_ipv4(const char *name, u8 *ip)
{
	const char *end;
	u8 v4[4];

	if (!srpt_octets_ok(name) || !in4_pton(name, -1, v4, -1, &end) ||
	    *end)
		return false;
	memset(ip, 0, 10);
	ip[10] = 0xff;
	ip[11] = 0xff;
	memcpy(ip + 12, v4, 4);
	return true;
}

/* An IPv6 address (compressed, expanded, dotted tail) that is all of @name. */
static bool srpt_parse_ipv6(const char *name, u8 *ip)
{
	const char *end;

	return srpt_ipv6_groups_ok(name) && srpt_octets_ok(name) &&
	       in6_pton(name, -1, ip, -1, &end) && !*end;
}

/**
 * srpt_parse_acl_name() - what a node ACL name admits
 * @name: an initiator port ID or port GUID (srpt_parse_port_name()), or an
 *	IP address (IPv4; IPv6 compressed or expanded); the whole name,
 *	shorter than %SRPT_ACL_NAME_MAX
 * @id: filled in; a name of eight groups of four is both a port ID and an IPv6 address
 *
 * Return: 0, or -EINVAL if @name is none of these.
 */
int srpt_parse_acl_name(const char *name, struct srpt_acl_id *id)
{
	u8 raw[16];

	memset(id, 0, sizeof(*id));
	if (strnlen(name, SRPT_ACL_NAME_MAX) >= SRPT_ACL_NAME_MAX)
		return -EINVAL;
	switch (srpt_parse_port_name(name, raw)) {
	case 16:
		memcpy(id->port_id, raw, 16);
		id->has_port_id = true;
		break;
	case 8:
		memcpy(id->guid, raw, 8);
		id->has_guid = true;
		break;
	}
	if (srpt_parse_ipv4(name, id->ip) || srpt_parse_ipv6(name, id->ip))
		id->has_ip = true;
	else
		memset(id->ip, 0, sizeof(id->ip));
	return id->has_port_id || id->has_guid || id->has_ip ? 0 : -EINVAL;
}
