// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the configfs name parsers (srpt_names.c), compiled unchanged in
 * user space with the kernel's own in4_pton()/in6_pton() (shim_inet.c).
 * A name is taken only when all of it is a port ID, GUID or address: the
 * names that the kernel's parsers would cut short ("192.0.2.1O",
 * "2001:db8::1-hostA") must be refused, not taken for the address they
 * start with.
 */
#include <stdio.h>
#include <string.h>

#include <linux/errno.h>
#include "srpt_names.h"

static int n_pass, n_fail;

static const u8 id_bytes[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x52, 0x54, 0, 0xff, 0xfe, 0x12, 0xab, 0xcd,
};
static const u8 v4_mapped[16] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1,
};
static const u8 v6_db8_1[16] = {
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
};

static void expect(bool ok, const char *what, const char *name)
{
	if (ok) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("FAIL: %s: '%s'\n", what, name);
}

/* @name is taken as what the has_* flags say, with these bytes. */
static void acl_ok(const char *name, const u8 *port_id, const u8 *guid,
		   const u8 *ip)
{
	struct srpt_acl_id id;
	int ret = srpt_parse_acl_name(name, &id);

	expect(ret == 0, "ACL name refused", name);
	if (ret)
		return;
	expect(id.has_port_id == !!port_id &&
	       (!port_id || !memcmp(id.port_id, port_id, 16)), "port ID", name);
	expect(id.has_guid == !!guid && (!guid || !memcmp(id.guid, guid, 8)),
	       "GUID", name);
	expect(id.has_ip == !!ip && (!ip || !memcmp(id.ip, ip, 16)), "IP", name);
}

static void acl_bad(const char *name)
{
	struct srpt_acl_id id;

	memset(&id, 0x5a, sizeof(id));
	expect(srpt_parse_acl_name(name, &id) == -EINVAL, "ACL name taken",
	       name);
	expect(!id.has_port_id && !id.has_guid && !id.has_ip,
	       "refused ACL name left a has_* flag set", name);
}

static void port_ok(const char *name, int len, const u8 *bytes)
{
	u8 id[16];

	expect(srpt_parse_port_name(name, id) == len &&
	       !memcmp(id, bytes, len), "port name", name);
}

static void port_bad(const char *name)
{
	u8 id[16];

	expect(srpt_parse_port_name(name, id) == -EINVAL, "port name taken",
	       name);
}

static void test_port_names(void)
{
	static const char *const bad[] = {
		"", "0x", "fe80000000000000525400fffe12abc",	/* 31 digits */
		"fe80000000000000525400fffe12abcd0",		/* 33 */
		"fe80000000000000525400fffe12abcg",
		"fe80:0000:0000:0000:5254:00ff:fe12:abcd:",	/* trailing : */
		":fe80:0000:0000:0000:5254:00ff:fe12:abcd",
		"fe80:0000:0000:0000:5254:00ff:fe12:abc",	/* last group 3 */
		"fe80:0000:0000:0000:5254:00ff:fe12:abcde",	/* last group 5 */
		"fe80:0000:0000:0000:5254:00ff:fe12abcd",
		"fe80:0000:0000:0000:5254:00ff:fe1:2abcd",
		"fe80:0000:0000:0000:5254:00ff:fe12::abcd",
		"fe80:0000:0000:0000:5254:00ff:fe12:ab:d",
		"0xfe80:0000:0000:0000:5254:00ff:fe12:abcd",	/* 0x + groups */
		"5254:00ff:fe12:abcd:", "5254:00ff:fe12:abc",
		"5254:00ff:fe12:abcd0", "5254:00ff:fe12", "5254:00ff:fe12:",
		"0x525400fffe12abcd ", " 525400fffe12abcd", "0x0x525400fffe12abcd",
		"5254:00ff:fe12:ab-d", "525400fffe12abcd\n",
	};
	size_t i;

	port_ok("0xfe80000000000000525400fffe12abcd", 16, id_bytes);
	port_ok("0XFE80000000000000525400FFFE12ABCD", 16, id_bytes);
	port_ok("fe80000000000000525400fffe12abcd", 16, id_bytes);
	port_ok("fe80:0000:0000:0000:5254:00ff:fe12:abcd", 16, id_bytes);
	port_ok("FE80:0000:0000:0000:5254:00FF:FE12:ABCD", 16, id_bytes);
	port_ok("5254:00ff:fe12:abcd", 8, id_bytes + 8);
	port_ok("0x525400fffe12abcd", 8, id_bytes + 8);
	port_ok("525400FFFE12ABCD", 8, id_bytes + 8);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		port_bad(bad[i]);
}

static void test_acl_names(void)
{
	static const u8 v6_expanded[16] = {
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
	};
	static const u8 v4_in_v6[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1,
	};
	static const char *const bad[] = {
		/* trailing junk after an address the kernel parser takes */
		"192.0.2.1O", "192.0.2.1-old", "192.0.2.1:3260", "192.0.2.1 ",
		"192.0.2.1/32", "192.0.2.1_", "192.0.2.1.", ".192.0.2.1",
		"2001:db8::1-hostA", "2001:db8::1%eth0", "2001:db8::1/64",
		"[2001:db8::1]", "[2001:db8::1]:5555", "2001:db8::1 ",
		"::ffff:192.0.2.1x", "2001:db8::1:", "2001:db8:::1",
		/* not addresses, or spelled ambiguously */
		"foo", "0x123", "1.2.3", "192.0.2.256", "192.0.2.010",
		"192.0.2.0001", "192.00.2.1", "01.0.2.1", "::ffff:192.0.2.01",
		"0:0:0:0:0:0:0:00001", "2001:db8::00001",
		/* port IDs with a group too few, too many or a trailing ':' */
		"fe80:0000:0000:0000:5254:00ff:fe12:abcd:",
		"fe80:0000:0000:0000:5254:00ff:fe12:abcd:0",
		"fe80:0000:0000:0000:5254:00ff:fe12:abcd0",
		"5254:00ff:fe12:abcd:", "0x5254:00ff:fe12:abcd",
		"fe80000000000000525400fffe12abcd0",
		"", "0x",
	};
	char name[128];
	size_t i;

	acl_ok("0xfe80000000000000525400fffe12abcd", id_bytes, NULL, NULL);
	acl_ok("FE80000000000000525400FFFE12ABCD", id_bytes, NULL, NULL);
	/* Eight groups of four: a port ID and an IPv6 address at once. */
	acl_ok("fe80:0000:0000:0000:5254:00ff:fe12:abcd", id_bytes, NULL,
	       id_bytes);
	acl_ok("5254:00ff:fe12:abcd", NULL, id_bytes + 8, NULL);
	acl_ok("0x525400fffe12abcd", NULL, id_bytes + 8, NULL);
	acl_ok("192.0.2.1", NULL, NULL, v4_mapped);
	acl_ok("0.0.0.0", NULL, NULL, (const u8[16]){ [10] = 0xff, [11] = 0xff });
	acl_ok("2001:db8::1", NULL, NULL, v6_db8_1);
	acl_ok("2001:DB8::1", NULL, NULL, v6_db8_1);
	acl_ok("2001:0db8:0000:0000:0000:0000:0000:0001", v6_db8_1, NULL,
	       v6_db8_1);
	acl_ok("2001:db8::10", NULL, NULL, v6_expanded);
	acl_ok("::ffff:192.0.2.1", NULL, NULL, v4_in_v6);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		acl_bad(bad[i]);

	/* 63 characters is the longest name, 64 and more are refused. */
	memset(name, 'x', sizeof(name));
	name[63] = '\0';
	acl_bad(name);
	strcpy(name, "2001:0db8:0000:0000:0000:0000:0000:0001");
	memset(name + strlen(name), ' ', 64 - strlen(name));
	name[64] = '\0';
	acl_bad(name);
	/* a long name whose first 63 characters are an address */
	snprintf(name, sizeof(name), "%-63s%s", "192.0.2.1", "x");
	acl_bad(name);
}

int main(void)
{
	test_port_names();
	test_acl_names();
	printf("names_test: %d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
