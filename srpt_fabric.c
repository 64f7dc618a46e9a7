// SPDX-License-Identifier: GPL-2.0
/*
 * The LIO fabric "srpt": target ports (named by port GID or GUID), their
 * TPGs, node ACLs, np listeners and configfs attributes; the names:
 * Documentation/admin-guide.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>
#include "srpt_fabric.h"
#include "srpt_cmd.h"
#include "srpt_fabric_stats.h"
#include "srpt_life.h"
#include "srpt_login.h"
#include "srpt_names.h"
#include "srpt_rdma_cm.h"
#include "srpt_stats.h"
#include "srpt_compat.h"

static struct srpt_tpg *srpt_tpg(struct se_portal_group *se_tpg)
{
	return container_of(se_tpg, struct srpt_tpg, se_tpg);
}

static char *srpt_get_fabric_wwn(struct se_portal_group *se_tpg)
{
	return srpt_tpg(se_tpg)->tport->name;
}

static u16 srpt_get_tag(struct se_portal_group *se_tpg)
{
	return srpt_tpg(se_tpg)->tag;
}

static int srpt_check_false(struct se_portal_group *se_tpg)
{
	return 0;
}

static int srpt_check_true(struct se_portal_group *se_tpg)
{
	return 1;
}

static u32 srpt_tpg_get_inst_index(struct se_portal_group *se_tpg)
{
	return srpt_tpg(se_tpg)->tag;
}

static u32 srpt_sess_get_index(struct se_session *se_sess)
{
	return 0;
}

static void srpt_set_default_node_attrs(struct se_node_acl *nacl)
{
}

static int srpt_get_cmd_state(struct se_cmd *se_cmd)
{
	return 0;
}

/*
 * configfs removed a live ACL: log the initiator out. A release already
 * begun waits for sess_closed (srpt_wait_close_session()).
 */
static void srpt_close_session(struct se_session *se_sess)
{
	struct srpt_rdma_ch *ch;

	srpt_fault_delay(SRPT_FAULT_CLOSE_SESSION);
	ch = se_sess->fabric_sess_ptr;
	srpt_logout_ch(ch, SRPT_T_LOGOUT_NONE);
	complete(&ch->sess_closed);
}

static struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
				      struct config_group *group,
				      const char *name)
{
	struct srpt_tport *tport;
	int len;

	if (strlen(name) >= sizeof(tport->name))
		return ERR_PTR(-EINVAL);
	tport = kzalloc(sizeof(*tport), GFP_KERNEL);
	if (!tport)
		return ERR_PTR(-ENOMEM);
	len = srpt_parse_port_name(name, tport->id);
	if (len < 0) {
		pr_err_ratelimited("%.*s is not a port GID ([0x]<32 hex digits> or eight groups xxxx:...:xxxx) or GUID ([0x]<16 hex digits> or xxxx:xxxx:xxxx:xxxx)\n",
				   (int)sizeof(tport->name), name);
		kfree(tport);
		return ERR_PTR(-EINVAL);
	}
	tport->id_len = len;
	strscpy(tport->name, name, sizeof(tport->name));
	srpt_tport_register(tport);
	return &tport->wwn;
}

static void srpt_drop_tport(struct se_wwn *wwn)
{
	struct srpt_tport *tport = container_of(wwn, struct srpt_tport, wwn);

	srpt_tport_unregister(tport);
	kfree(tport);
}

static struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn,
					     const char *name)
{
	struct srpt_tport *tport = container_of(wwn, struct srpt_tport, wwn);
	struct srpt_tpg *stpg;
	u16 tag;
	int ret;

	/* tpgt_<1..65535>: a port may have several (srpt_login_pick_tpg()). */
	if (strncmp(name, "tpgt_", 5) || kstrtou16(name + 5, 10, &tag) ||
	    !tag) {
		pr_err_ratelimited("%s/%.*s: name a TPG tpgt_<1..65535>\n",
				   tport->name, 16, name);
		return ERR_PTR(-EINVAL);
	}
	stpg = kzalloc(sizeof(*stpg), GFP_KERNEL);
	if (!stpg)
		return ERR_PTR(-ENOMEM);
	stpg->tport = tport;
	stpg->tag = tag;
	stpg->attrib.max_rdma_size = SRPT_DEF_RDMA_SIZE;
	stpg->attrib.max_rsp_size = SRPT_DEF_RSP_SIZE;
	stpg->attrib.sq_size = SRPT_DEF_SQ_SIZE;
	stpg->attrib.credits = SRPT_DEF_CREDITS;
	ret = core_tpg_register(wwn, &stpg->se_tpg, SCSI_PROTOCOL_SRP);
	if (ret) {
		kfree(stpg);
		return ERR_PTR(ret);
	}
	/* Not enabled, so no login uses it before it is set up. */
	srpt_tport_add_tpg(tport, stpg);
	return &stpg->se_tpg;
}

static int srpt_enable_tpg(struct se_portal_group *se_tpg, bool enable)
{
	srpt_tpg_enable(srpt_tpg(se_tpg), enable);
	return 0;
}

static void srpt_drop_tpg(struct se_portal_group *se_tpg)
{
	struct srpt_tpg *stpg = srpt_tpg(se_tpg);

	srpt_tpg_enable(stpg, false);
	srpt_tport_del_tpg(stpg);
	core_tpg_deregister(se_tpg);
	kfree(stpg);
}

/*
 * mkdir acls/<name>: refuse a name no login could match. On a refusal LIO
 * frees the ACL but not the name it gave its configfs group (kmalloc'ed
 * from 20 characters on; kmemleak found it): renaming the group, never
 * linked into configfs, to a short name frees it.
 */
static int srpt_init_nodeacl(struct se_node_acl *se_nacl, const char *name)
{
	struct srpt_node_acl *nacl = container_of(se_nacl,
						  struct srpt_node_acl, nacl);

	if (srpt_parse_acl_name(name, &nacl->id)) {
		pr_err_ratelimited("ACL %.*s: not taken; the whole name must be the initiator port ID ([0x]<32 hex digits> or eight groups xxxx:...:xxxx), its port GUID ([0x]<16 hex digits> or xxxx:xxxx:xxxx:xxxx) or, for RDMA/CM logins, its IP address (IPv4 a.b.c.d, IPv6), shorter than %d characters\n",
				   SRPT_ACL_NAME_MAX, name, SRPT_ACL_NAME_MAX);
		config_item_set_name(&se_nacl->acl_group.cg_item, "refused");
		return -EINVAL;
	}
	/* Logins may already see the ACL: publish the parsed name last. */
	smp_store_release(&nacl->id_valid, true);
	return 0;
}

/*
 * mkdir np/<IPv4>:<port> or np/[<IPv6>]:<port>: an RDMA/CM listener there,
 * beside rdma_cm_port's; its logins find their target port as any other.
 */
static struct se_tpg_np *srpt_make_np(struct se_portal_group *se_tpg,
				      struct config_group *group,
				      const char *name)
{
	struct sockaddr_storage ss;
	char host[INET6_ADDRSTRLEN + 8];
	const char *dir = name, *colon = strrchr(name, ':');
	struct srpt_np *np;
	size_t len;
	int ret;

	if (!colon || colon == name)
		goto bad;
	len = colon - name;
	if (name[0] == '[') {
		if (len < 3 || name[len - 1] != ']')
			goto bad;
		name++;
		len -= 2;
	}
	if (len >= sizeof(host))
		goto bad;
	memcpy(host, name, len);
	host[len] = '\0';
	if (inet_pton_with_scope(&init_net, AF_UNSPEC, host, colon + 1, &ss))
		goto bad;
	np = kzalloc(sizeof(*np), GFP_KERNEL);
	if (!np)
		return ERR_PTR(-ENOMEM);
	np->listener = srpt_rdma_cm_listen_addr((struct sockaddr *)&ss);
	if (IS_ERR(np->listener)) {
		ret = PTR_ERR(np->listener);
		pr_err("np %s: cannot listen there: %d\n", dir, ret);
		kfree(np);
		return ERR_PTR(ret);
	}
	return &np->se_np;

bad:
	pr_err("np %s: not <IPv4>:<port> or [<IPv6>]:<port>\n", dir);
	return ERR_PTR(-EINVAL);
}

static void srpt_drop_np(struct se_tpg_np *se_np)
{
	struct srpt_np *np = container_of(se_np, struct srpt_np, se_np);

	srpt_rdma_cm_unlisten(np->listener);
	kfree(np);
}

static ssize_t srpt_da_rdma_cm_port_show(struct config_item *item,
					 char *page)
{
	return sysfs_emit(page, "%u\n", srpt_rdma_cm_port());
}

static ssize_t srpt_da_rdma_cm_port_store(struct config_item *item,
					  const char *page, size_t count)
{
	u16 port;
	int ret;

	ret = kstrtou16(page, 0, &port);
	if (ret)
		return ret;
	ret = srpt_rdma_cm_listen(port);
	return ret ? ret : count;
}

CONFIGFS_ATTR(srpt_da_, rdma_cm_port);

static struct configfs_attribute *srpt_da_attrs[] = {
	&srpt_da_attr_rdma_cm_port,
	NULL,
};

static struct srpt_tpg *srpt_attrib_tpg(struct config_item *item)
{
	return srpt_tpg(attrib_to_tpg(item));
}

static ssize_t srpt_attrib_store(const char *page, size_t count, u32 *field,
				 u32 min, u32 max)
{
	u32 val;
	int ret;

	ret = kstrtou32(page, 0, &val);
	if (ret)
		return ret;
	if (val < min || val > max) {
		pr_err("value %u out of range [%u, %u]\n", val, min, max);
		return -EINVAL;
	}
	/* Read by logins with READ_ONCE(). */
	WRITE_ONCE(*field, val);
	return count;
}

#define SRPT_TPG_ATTRIB(name, field, min, max)				\
static u32 *srpt_tpg_attrib_##name(struct config_item *item)		\
{									\
	return &srpt_attrib_tpg(item)->attrib.field;			\
}									\
static ssize_t srpt_tpg_attrib_##name##_show(struct config_item *item,	\
					     char *page)		\
{									\
	return sysfs_emit(page, "%u\n", *srpt_tpg_attrib_##name(item));	\
}									\
static ssize_t srpt_tpg_attrib_##name##_store(struct config_item *item,\
					      const char *page,		\
					      size_t count)		\
{									\
	return srpt_attrib_store(page, count,				\
				 srpt_tpg_attrib_##name(item), min, max);\
}									\
CONFIGFS_ATTR(srpt_tpg_attrib_, name)

/* Applied to channels that log in afterwards. */
SRPT_TPG_ATTRIB(srp_max_rdma_size, max_rdma_size, SRPT_MIN_RDMA_SIZE,
		SRPT_MAX_RDMA_SIZE);
SRPT_TPG_ATTRIB(srp_max_rsp_size, max_rsp_size, SRPT_MIN_RSP_SIZE,
		SRPT_MAX_RSP_SIZE);
SRPT_TPG_ATTRIB(srp_sq_size, sq_size, SRPT_MIN_SQ_SIZE, SRPT_MAX_SQ_SIZE);
SRPT_TPG_ATTRIB(srp_credits, credits, SRPT_MIN_CREDITS, SRPT_MAX_CREDITS);
/* Checked by logins; channels beyond a lowered limit stay. */
SRPT_TPG_ATTRIB(srp_max_channels, max_channels, 0, SRPT_MAX_CHANNELS);
SRPT_TPG_ATTRIB(srp_max_channels_per_initiator, max_nexus_channels, 0,
		SRPT_MAX_CHANNELS);

static ssize_t srpt_tpg_attrib_use_srq_show(struct config_item *item,
					    char *page)
{
	return sysfs_emit(page, "%u\n", srpt_attrib_tpg(item)->attrib.use_srq);
}

/*
 * use_srq: channels logging in from now on receive through their device's
 * SRQ instead of srp_credits buffers each; those logged in keep theirs.
 */
static ssize_t srpt_tpg_attrib_use_srq_store(struct config_item *item,
					     const char *page, size_t count)
{
	bool val;
	int ret;

	ret = kstrtobool(page, &val);
	if (ret)
		return ret;
	WRITE_ONCE(srpt_attrib_tpg(item)->attrib.use_srq, val);
	return count;
}
CONFIGFS_ATTR(srpt_tpg_attrib_, use_srq);

static struct configfs_attribute *srpt_tpg_attrib_attrs[] = {
	&srpt_tpg_attrib_attr_srp_max_rdma_size,
	&srpt_tpg_attrib_attr_srp_max_rsp_size,
	&srpt_tpg_attrib_attr_srp_sq_size,
	&srpt_tpg_attrib_attr_srp_credits,
	&srpt_tpg_attrib_attr_use_srq,
	&srpt_tpg_attrib_attr_srp_max_channels,
	&srpt_tpg_attrib_attr_srp_max_channels_per_initiator,
	NULL,
};

/* Most channels the info attribute lists (a page holds 20 and more). */
#define SRPT_INFO_MAX_CH	20

/* TARG_*_STATE_ words of the info attribute, as rtslib parses them. */
static const char *srpt_info_state(enum srpt_ch_state state)
{
	switch (state) {
	case SRPT_CH_NEW:
	case SRPT_CH_CONNECTING:
		return "LOGGING_IN";
	case SRPT_CH_LIVE:
		return "LOGGED_IN";
	default:
		return "LOGGING_OUT";
	}
}

/*
 * acls/<name>/info: the ACL's live session and its channels, in the layout
 * rtslib reads for `targetcli sessions` (iSCSI's info). The channels of an
 * ACL make one session here (LIO has an se_session per channel), with the
 * oldest channel's ID; InitiatorAlias is the initiator port ID.
 */
static ssize_t srpt_nacl_info_show(struct config_item *item, char *page)
{
	struct se_node_acl *se_nacl = acl_to_nacl(item);
	struct srpt_ch_info *info;
	const char *sess_state = "LOGGING_OUT";
	unsigned long states = 0;
	int i, n, shown;
	ssize_t len;

	info = kcalloc(SRPT_INFO_MAX_CH, sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	n = srpt_acl_channels(se_nacl, info, SRPT_INFO_MAX_CH);
	if (!n) {
		len = sysfs_emit(page,
				 "No active SRP session for Initiator Endpoint: %s\n",
				 se_nacl->initiatorname);
		goto out;
	}
	shown = min(n, SRPT_INFO_MAX_CH);
	for (i = 0; i < shown; i++)
		states |= BIT(info[i].state);
	if (states & BIT(SRPT_CH_LIVE))
		sess_state = "LOGGED_IN";
	else if (states & BIT(SRPT_CH_CONNECTING))
		sess_state = "LOGGING_IN";
	len = sysfs_emit(page,
			 "InitiatorName: %s\nInitiatorAlias: 0x%16phN\nLIO Session ID: %u  SessionType: Normal\nSession State: TARG_SESS_STATE_%s\n",
			 se_nacl->initiatorname, info[0].i_port_id, info[0].id,
			 sess_state);
	for (i = 0; i < shown; i++)
		len += sysfs_emit_at(page, len,
				     "CID: %u  Connection State: TARG_CONN_STATE_%s  Initiator Port: 0x%16phN  Credits: %u\n   Address %s %s\n",
				     info[i].id, srpt_info_state(info[i].state),
				     info[i].i_port_id, info[i].credits,
				     info[i].peer, info[i].cm);
	if (n > shown)
		len += sysfs_emit_at(page, len, "(%d more channels)\n",
				     n - shown);
out:
	kfree(info);
	return len;
}
CONFIGFS_ATTR_RO(srpt_nacl_, info);

static struct configfs_attribute *srpt_nacl_base_attrs[] = {
	&srpt_nacl_attr_info,
	NULL,
};

/* SRP has no authentication; targetcli's sessions detail asks for this. */
static ssize_t srpt_nacl_auth_authenticate_target_show(struct config_item *item,
						       char *page)
{
	return sysfs_emit(page, "0\n");
}
CONFIGFS_ATTR_RO(srpt_nacl_auth_, authenticate_target);

static struct configfs_attribute *srpt_nacl_auth_attrs[] = {
	&srpt_nacl_auth_attr_authenticate_target,
	NULL,
};

static const struct target_core_fabric_ops srpt_fabric_ops = {
	.module				= THIS_MODULE,
	.fabric_name			= "srpt",
	.node_acl_size			= sizeof(struct srpt_node_acl),
	.max_data_sg_nents		= SRPT_MAX_DATA_LEN / PAGE_SIZE,
	.tpg_get_wwn			= srpt_get_fabric_wwn,
	.tpg_get_tag			= srpt_get_tag,
	.tpg_check_demo_mode		= srpt_check_false,
	.tpg_check_demo_mode_cache	= srpt_check_true,
	.tpg_check_demo_mode_write_protect = srpt_check_true,
	.tpg_check_prod_mode_write_protect = srpt_check_false,
	.tpg_get_inst_index		= srpt_tpg_get_inst_index,
	.check_stop_free		= srpt_check_stop_free,
	.release_cmd			= srpt_release_cmd,
	.close_session			= srpt_close_session,
	.sess_get_index			= srpt_sess_get_index,
	.write_pending			= srpt_write_pending,
	.set_default_node_attributes	= srpt_set_default_node_attrs,
	.get_cmd_state			= srpt_get_cmd_state,
	.queue_data_in			= srpt_queue_data_in,
	.queue_status			= srpt_queue_status,
	.queue_tm_rsp			= srpt_queue_tm_rsp,
	.aborted_task			= srpt_aborted_task,
	.fabric_make_wwn		= srpt_make_tport,
	.fabric_drop_wwn		= srpt_drop_tport,
	.add_wwn_groups			= srpt_add_wwn_groups,
	.fabric_make_tpg		= srpt_make_tpg,
	.fabric_enable_tpg		= srpt_enable_tpg,
	.fabric_drop_tpg		= srpt_drop_tpg,
	.fabric_make_np			= srpt_make_np,
	.fabric_drop_np			= srpt_drop_np,
	.fabric_init_nodeacl		= srpt_init_nodeacl,
	.tfc_discovery_attrs		= srpt_da_attrs,
	.tfc_tpg_attrib_attrs		= srpt_tpg_attrib_attrs,
	.tfc_tpg_nacl_base_attrs	= srpt_nacl_base_attrs,
	.tfc_tpg_nacl_auth_attrs	= srpt_nacl_auth_attrs,
	SRPT_FABRIC_SUBMIT_OPS
};

/**
 * srpt_fabric_register() - register the "srpt" fabric with LIO
 *
 * Return: 0 or a negative errno.
 */
int srpt_fabric_register(void)
{
	return target_register_template(&srpt_fabric_ops);
}

/**
 * srpt_fabric_unregister() - unregister the "srpt" fabric
 */
void srpt_fabric_unregister(void)
{
	target_unregister_template(&srpt_fabric_ops);
}
