/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names an admin gives in configfs: target ports (WWNs) and node ACLs. Kept free of kernel-only
 * headers beyond <linux/types.h> so that tests/unit compiles srpt_names.c in user space.
 */
#ifndef SRPT_NAMES_H
#define SRPT_NAMES_H

#include <linux/types.h>

/*
 * An ACL name of this many characters or more is refused: sessions are named after their ACL in a
 * buffer of this size (srpt_rdma_ch.sess_name). No name any parser below takes comes near it.
 */
#define SRPT_ACL_NAME_MAX	64

/**
 * struct srpt_acl_id - who a node ACL admits, parsed from its name
 * @port_id: initiator port ID (extension || GUID), if @has_port_id
 * @guid: initiator port GUID (second half of the port ID), if @has_guid
 * @ip: initiator IP address (IPv4 as v4-mapped IPv6), if @has_ip
 * @has_port_id: the name is a port ID (forms: srpt_parse_port_name())
 * @has_guid: the name is a port GUID (forms: srpt_parse_port_name())
 * @has_ip: the name is an IPv4 or IPv6 address (any spelling)
 */
struct srpt_acl_id {
	u8	port_id[16];
	u8	guid[8];
	u8	ip[16];
	bool	has_port_id;
	bool	has_guid;
	bool	has_ip;
};

int srpt_parse_port_name(const char *name, u8 *id);
int srpt_parse_acl_name(const char *name, struct srpt_acl_id *id);

#endif
