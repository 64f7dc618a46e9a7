// SPDX-License-Identifier: GPL-2.0
/*
 * A target port's counters: srpt_login_stats/ and srpt_port_stats/ in its
 * fabric_statistics (where iSCSI keeps its login counters), read-only, one
 * value per file, not saved by rtslib. What each counts:
 * Documentation/admin-guide.rst, Counters.
 */
#include <linux/configfs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>
#include "srpt_fabric_stats.h"
#include "srpt_life.h"
#include "srpt_login.h"
#include "srpt_proto.h"

static struct srpt_tport *srpt_login_stats_tport(struct config_item *item)
{
	return container_of(to_config_group(item), struct srpt_tport,
			    login_stats_group);
}

static struct srpt_tport *srpt_port_stats_tport(struct config_item *item)
{
	return container_of(to_config_group(item), struct srpt_tport,
			    port_stats_group);
}

static ssize_t srpt_login_stats_accepted_show(struct config_item *item,
					      char *page)
{
	struct srpt_tport *tport = srpt_login_stats_tport(item);

	return sysfs_emit(page, "%lld\n",
			  atomic64_read(&tport->logins.accepted));
}
CONFIGFS_ATTR_RO(srpt_login_stats_, accepted);

static ssize_t srpt_login_stats_rejected_show(struct config_item *item,
					      char *page)
{
	struct srpt_tport *tport = srpt_login_stats_tport(item);
	s64 sum = 0;
	int i;

	for (i = 0; i < SRPT_REJ_NR; i++)
		sum += atomic64_read(&tport->logins.rejected[i]);
	return sysfs_emit(page, "%lld\n", sum);
}
CONFIGFS_ATTR_RO(srpt_login_stats_, rejected);

/* rejected_<name>: logins refused with SRP_LOGIN_REJ_<CODE>. */
#define SRPT_REJ_ATTR(name, code)					\
static ssize_t srpt_login_stats_rejected_##name##_show(		\
	struct config_item *item, char *page)				\
{									\
	struct srpt_tport *tport = srpt_login_stats_tport(item);	\
									\
	return sysfs_emit(page, "%lld\n", atomic64_read(		\
		&tport->logins.rejected[srpt_rej_index(code)]));	\
}									\
CONFIGFS_ATTR_RO(srpt_login_stats_, rejected_##name)

SRPT_REJ_ATTR(unable_establish_channel,
	      SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
SRPT_REJ_ATTR(insufficient_resources, SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
SRPT_REJ_ATTR(it_iu_length_too_large,
	      SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
SRPT_REJ_ATTR(unable_associate_channel,
	      SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
SRPT_REJ_ATTR(unsupported_descriptor_fmt,
	      SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
SRPT_REJ_ATTR(multi_channel_unsupported,
	      SRP_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED);
SRPT_REJ_ATTR(channel_limit_reached, SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED);

/* The last_rejected_* attributes: a copy of the tport's last refusal. */
static ssize_t srpt_last_refusal_show(struct config_item *item, char *page,
				      int field)
{
	struct srpt_login_stats *ls;
	ssize_t ret;

	ls = kmalloc(sizeof(*ls), GFP_KERNEL);
	if (!ls)
		return -ENOMEM;
	srpt_login_last_refusal(srpt_login_stats_tport(item), ls);
	if (!ls->last_reason)
		ret = sysfs_emit(page, "none\n");
	else if (field == 0)
		ret = sysfs_emit(page, "0x%16phN\n", ls->last_i_port_id);
	else if (field == 1)
		ret = sysfs_emit(page, "%s\n", ls->last_peer);
	else
		ret = sysfs_emit(page, "%#010x %s%s%s\n", ls->last_reason,
				 srpt_rej_words(ls->last_reason),
				 ls->last_why[0] ? ": " : "", ls->last_why);
	kfree(ls);
	return ret;
}

/* last_rejected_<name>: field @field of srpt_last_refusal_show(). */
#define SRPT_LAST_REJ_ATTR(name, field)					\
static ssize_t srpt_login_stats_last_rejected_##name##_show(		\
	struct config_item *item, char *page)				\
{									\
	return srpt_last_refusal_show(item, page, field);		\
}									\
CONFIGFS_ATTR_RO(srpt_login_stats_, last_rejected_##name)

SRPT_LAST_REJ_ATTR(initiator, 0);
SRPT_LAST_REJ_ATTR(address, 1);
SRPT_LAST_REJ_ATTR(reason, 2);

static struct configfs_attribute *srpt_login_stats_attrs[] = {
	&srpt_login_stats_attr_accepted,
	&srpt_login_stats_attr_rejected,
	&srpt_login_stats_attr_rejected_unable_establish_channel,
	&srpt_login_stats_attr_rejected_insufficient_resources,
	&srpt_login_stats_attr_rejected_it_iu_length_too_large,
	&srpt_login_stats_attr_rejected_unable_associate_channel,
	&srpt_login_stats_attr_rejected_unsupported_descriptor_fmt,
	&srpt_login_stats_attr_rejected_multi_channel_unsupported,
	&srpt_login_stats_attr_rejected_channel_limit_reached,
	&srpt_login_stats_attr_last_rejected_initiator,
	&srpt_login_stats_attr_last_rejected_address,
	&srpt_login_stats_attr_last_rejected_reason,
	NULL,
};

static const struct config_item_type srpt_login_stats_cit = {
	.ct_attrs	= srpt_login_stats_attrs,
	.ct_owner	= THIS_MODULE,
};

/* One figure of srpt_tport_counts(), picked by @pick. */
static ssize_t srpt_port_count_show(struct config_item *item, char *page,
				    u64 (*pick)(const struct srpt_port_counts *))
{
	struct srpt_port_counts *pc;
	ssize_t ret;

	pc = kmalloc(sizeof(*pc), GFP_KERNEL);
	if (!pc)
		return -ENOMEM;
	srpt_tport_counts(srpt_port_stats_tport(item), pc);
	ret = sysfs_emit(page, "%llu\n", pick(pc));
	kfree(pc);
	return ret;
}

/* A srpt_port_stats attribute @name showing the figure @expr of pc. */
#define SRPT_PORT_ATTR(name, expr)					\
static u64 srpt_pick_##name(const struct srpt_port_counts *pc)		\
{									\
	return expr;							\
}									\
static ssize_t srpt_port_stats_##name##_show(struct config_item *item,	\
					     char *page)		\
{									\
	return srpt_port_count_show(item, page, srpt_pick_##name);	\
}									\
CONFIGFS_ATTR_RO(srpt_port_stats_, name)

SRPT_PORT_ATTR(channels_new, pc->channels[SRPT_CH_NEW]);
SRPT_PORT_ATTR(channels_connecting, pc->channels[SRPT_CH_CONNECTING]);
SRPT_PORT_ATTR(channels_live, pc->channels[SRPT_CH_LIVE]);
SRPT_PORT_ATTR(channels_disconnecting, pc->channels[SRPT_CH_DISCONNECTING]);
SRPT_PORT_ATTR(channels_draining, pc->channels[SRPT_CH_DRAINING]);
SRPT_PORT_ATTR(credits_outstanding, pc->credits);
SRPT_PORT_ATTR(commands, pc->stats[SRPT_STAT_CMDS]);
SRPT_PORT_ATTR(task_mgmt, pc->stats[SRPT_STAT_TMFS]);
SRPT_PORT_ATTR(bytes_in, pc->stats[SRPT_STAT_BYTES_IN]);
SRPT_PORT_ATTR(bytes_out, pc->stats[SRPT_STAT_BYTES_OUT]);
SRPT_PORT_ATTR(errors, pc->stats[SRPT_STAT_ERRORS]);
SRPT_PORT_ATTR(aborts, pc->stats[SRPT_STAT_ABORTS]);
SRPT_PORT_ATTR(sq_waits, pc->stats[SRPT_STAT_SQ_WAITS]);
SRPT_PORT_ATTR(wr_errors, pc->stats[SRPT_STAT_WR_ERRORS]);

static struct configfs_attribute *srpt_port_stats_attrs[] = {
	&srpt_port_stats_attr_channels_new,
	&srpt_port_stats_attr_channels_connecting,
	&srpt_port_stats_attr_channels_live,
	&srpt_port_stats_attr_channels_disconnecting,
	&srpt_port_stats_attr_channels_draining,
	&srpt_port_stats_attr_credits_outstanding,
	&srpt_port_stats_attr_commands,
	&srpt_port_stats_attr_task_mgmt,
	&srpt_port_stats_attr_bytes_in,
	&srpt_port_stats_attr_bytes_out,
	&srpt_port_stats_attr_errors,
	&srpt_port_stats_attr_aborts,
	&srpt_port_stats_attr_sq_waits,
	&srpt_port_stats_attr_wr_errors,
	NULL,
};

static const struct config_item_type srpt_port_stats_cit = {
	.ct_attrs	= srpt_port_stats_attrs,
	.ct_owner	= THIS_MODULE,
};

/**
 * srpt_add_wwn_groups() - the srpt_* groups in a target port's
 *	fabric_statistics (the fabric op add_wwn_groups)
 * @wwn: the target port's WWN, just made
 *
 * LIO removes them with the WWN.
 */
void srpt_add_wwn_groups(struct se_wwn *wwn)
{
	struct srpt_tport *tport = container_of(wwn, struct srpt_tport, wwn);

	config_group_init_type_name(&tport->login_stats_group,
				    "srpt_login_stats", &srpt_login_stats_cit);
	configfs_add_default_group(&tport->login_stats_group,
				   &wwn->fabric_stat_group);
	config_group_init_type_name(&tport->port_stats_group,
				    "srpt_port_stats", &srpt_port_stats_cit);
	configfs_add_default_group(&tport->port_stats_group,
				   &wwn->fabric_stat_group);
}
