// SPDX-License-Identifier: GPL-2.0
/*
 * The login routine of both CMs (srpt_login()), in steps that each return
 * their SRP_LOGIN_REJ reason, and the registries logins look into: RDMA
 * devices, target ports and their TPGs. The channel is srpt_ch.c's.
 *
 * Locking: srpt_mutex serialises logins against device removal, TPG
 * enable/disable and target port list changes; a login holds it from
 * finding its device until its channel is listed (srpt_life.c), so whoever
 * closes channels after taking srpt_mutex sees it. Order: srpt_mutex,
 * srpt_ch.c's SRQ mutex, the channel list's lock, ch->lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/ib_cache.h>
#include "srpt_login.h"
#include "srpt_ch.h"
#include "srpt_life.h"
#include "srpt_proto.h"
#include "srpt_stats.h"
#include "srpt_trace.h"

static DEFINE_MUTEX(srpt_mutex);
static LIST_HEAD(srpt_dev_list);
static LIST_HEAD(srpt_tport_list);

/* Ranks of the ways a node ACL can name an initiator, best first. */
enum srpt_acl_rank {
	SRPT_ACL_BY_PORT_ID,
	SRPT_ACL_BY_GUID,
	SRPT_ACL_BY_IP,
	SRPT_ACL_NO_MATCH,
};

/**
 * srpt_dev_register() - let logins use an RDMA device
 * @sdev: device state, ready for channels
 */
void srpt_dev_register(struct srpt_device *sdev)
{
	mutex_lock(&srpt_mutex);
	list_add_tail(&sdev->entry, &srpt_dev_list);
	mutex_unlock(&srpt_mutex);
}

/* Whether @tport is named after @gid or its GUID half. */
static bool srpt_tport_names(const struct srpt_tport *tport,
			     const union ib_gid *gid)
{
	return !memcmp(tport->id, tport->id_len == 16 ? gid->raw :
		       gid->raw + 8, tport->id_len);
}

/* Whether an RDMA port now has the GID (index 0) or GUID @tport names. */
static bool srpt_tport_has_port(const struct srpt_tport *tport)
{
	struct srpt_device *sdev;
	union ib_gid gid;
	u32 i;

	lockdep_assert_held(&srpt_mutex);
	list_for_each_entry(sdev, &srpt_dev_list, entry) {
		for (i = 0; i < sdev->port_cnt; i++) {
			if (rdma_query_gid(sdev->ib_dev, sdev->port[i].port_num,
					   0, &gid))
				continue;
			if (srpt_tport_names(tport, &gid))
				return true;
		}
	}
	return false;
}

/**
 * srpt_tport_register() - make a target port visible to logins
 * @tport: configfs target port
 */
void srpt_tport_register(struct srpt_tport *tport)
{
	spin_lock_init(&tport->logins.lock);
	INIT_LIST_HEAD(&tport->tpgs);
	mutex_lock(&srpt_mutex);
	list_add_tail(&tport->entry, &srpt_tport_list);
	if (!srpt_tport_has_port(tport))
		pr_info("%s: no RDMA port has this GID or GUID now; logins are served once one does\n",
			tport->name);
	mutex_unlock(&srpt_mutex);
}

/**
 * srpt_tport_unregister() - hide a target port from logins
 * @tport: configfs target port
 */
void srpt_tport_unregister(struct srpt_tport *tport)
{
	mutex_lock(&srpt_mutex);
	list_del(&tport->entry);
	mutex_unlock(&srpt_mutex);
}

/**
 * srpt_tport_add_tpg() - attach a new TPG (disabled) to its target port
 * @tport: target port
 * @stpg: the TPG; tport->tpgs stays sorted by tag
 */
void srpt_tport_add_tpg(struct srpt_tport *tport, struct srpt_tpg *stpg)
{
	struct srpt_tpg *t;

	mutex_lock(&srpt_mutex);
	list_for_each_entry(t, &tport->tpgs, entry)
		if (t->tag > stpg->tag)
			break;
	list_add_tail(&stpg->entry, &t->entry);
	mutex_unlock(&srpt_mutex);
}

/**
 * srpt_tport_del_tpg() - detach a TPG (disabled) from its target port
 * @stpg: the TPG
 */
void srpt_tport_del_tpg(struct srpt_tpg *stpg)
{
	mutex_lock(&srpt_mutex);
	list_del(&stpg->entry);
	mutex_unlock(&srpt_mutex);
}

static bool srpt_tport_enabled(const struct srpt_tport *tport)
{
	struct srpt_tpg *stpg;

	lockdep_assert_held(&srpt_mutex);
	list_for_each_entry(stpg, &tport->tpgs, entry)
		if (stpg->enabled)
			return true;
	return false;
}

/*
 * The target port named by @gid or its GUID half: one with an enabled TPG
 * if there is one, else the first, else NULL.
 */
static struct srpt_tport *srpt_find_tport(const union ib_gid *gid)
{
	struct srpt_tport *tport, *found = NULL;

	lockdep_assert_held(&srpt_mutex);
	list_for_each_entry(tport, &srpt_tport_list, entry) {
		if (!srpt_tport_names(tport, gid))
			continue;
		if (srpt_tport_enabled(tport))
			return tport;
		if (!found)
			found = tport;
	}
	return found;
}

/**
 * srpt_port_max_rdma_size() - the srp_max_rdma_size an RDMA port advertises
 * @sport: RDMA port
 *
 * Return: the srp_max_rdma_size of the target port srpt_find_tport()
 * picks for @sport: of its first enabled TPG by tag, else of its first
 * TPG, else the default.
 */
u32 srpt_port_max_rdma_size(struct srpt_port *sport)
{
	struct srpt_tpg *stpg, *pick = NULL;
	struct srpt_tport *tport;
	u32 ret = SRPT_DEF_RDMA_SIZE;
	union ib_gid gid;

	if (rdma_query_gid(sport->sdev->ib_dev, sport->port_num, 0, &gid))
		return ret;
	mutex_lock(&srpt_mutex);
	tport = srpt_find_tport(&gid);
	if (tport) {
		list_for_each_entry(stpg, &tport->tpgs, entry) {
			if (!pick || (stpg->enabled && !pick->enabled))
				pick = stpg;
		}
	}
	if (pick)
		ret = READ_ONCE(pick->attrib.max_rdma_size);
	mutex_unlock(&srpt_mutex);
	return ret;
}

/**
 * srpt_tpg_enable() - accept logins on a TPG, or stop and close channels
 * @stpg: TPG
 * @enable: new state
 *
 * Context: process; returns when the channels of a disabled TPG are gone.
 */
void srpt_tpg_enable(struct srpt_tpg *stpg, bool enable)
{
	mutex_lock(&srpt_mutex);
	stpg->enabled = enable;
	mutex_unlock(&srpt_mutex);
	if (!enable)
		srpt_close_tpg_chs(stpg);
}

/**
 * srpt_dev_unregister() - refuse a device's logins, close its channels, wait
 * @sdev: device
 *
 * Once it returns nothing uses @sdev: a login that found it before has its
 * channel listed by the time srpt_mutex is ours (see the file's head).
 *
 * Context: process (the IB client's remove()).
 */
void srpt_dev_unregister(struct srpt_device *sdev)
{
	mutex_lock(&srpt_mutex);
	list_del_init(&sdev->entry);
	mutex_unlock(&srpt_mutex);
	/* Releases waiting for a port of it to come back wait no more. */
	WRITE_ONCE(sdev->removing, true);
	srpt_port_active(NULL);
	srpt_close_dev_chs(sdev);
	WARN_ON_ONCE(sdev->srq);	/* its last channel frees it */
}

/* How well the node ACL @id names the initiator of @lc. */
static enum srpt_acl_rank srpt_acl_match(const struct srpt_acl_id *id,
					 const struct srpt_login_ctx *lc)
{
	if (id->has_port_id && !memcmp(id->port_id, lc->lg.i_port_id, 16))
		return SRPT_ACL_BY_PORT_ID;
	if (id->has_guid && !memcmp(id->guid, lc->lg.i_port_id + 8, 8))
		return SRPT_ACL_BY_GUID;
	if (id->has_ip && lc->has_ip && !memcmp(id->ip, &lc->ip_raw, 16))
		return SRPT_ACL_BY_IP;
	return SRPT_ACL_NO_MATCH;
}

/*
 * The best node ACL of an enabled @stpg for the initiator of @lc, if it
 * is better than *@best: then *@best, lc->stpg and lc->acl_name are set.
 */
static void srpt_tpg_pick_acl(struct srpt_tpg *stpg,
			      struct srpt_login_ctx *lc,
			      enum srpt_acl_rank *best)
{
	struct se_portal_group *se_tpg = &stpg->se_tpg;
	struct se_node_acl *se_nacl;
	struct srpt_node_acl *nacl;
	enum srpt_acl_rank rank;

	if (!stpg->enabled)
		return;
	mutex_lock(&se_tpg->acl_node_mutex);
	list_for_each_entry(se_nacl, &se_tpg->acl_node_list, acl_list) {
		nacl = container_of(se_nacl, struct srpt_node_acl, nacl);
		if (se_nacl->dynamic_node_acl)
			continue;
		/* Pairs with the release in srpt_init_nodeacl(). */
		if (!smp_load_acquire(&nacl->id_valid))
			continue;
		rank = srpt_acl_match(&nacl->id, lc);
		if (rank < *best) {
			*best = rank;
			lc->stpg = stpg;
			strscpy(lc->acl_name, se_nacl->initiatorname,
				sizeof(lc->acl_name));
		}
	}
	mutex_unlock(&se_tpg->acl_node_mutex);
}

/*
 * Login step: the TPG and node ACL that admit the initiator. Candidates:
 * every enabled TPG of every target port named after the receiving port's
 * GID or GUID; the best ACL match wins - by port ID, else port GUID, else
 * (RDMA/CM) IP address, however the ACL spelled it (srpt_names.c). Ties go
 * to a port named by GID over GUID, then the oldest port, then the lowest
 * TPG tag. The session is set up with that ACL's name.
 */
static u32 srpt_login_pick_tpg(struct srpt_login_ctx *lc)
{
	enum srpt_acl_rank best = SRPT_ACL_NO_MATCH;
	struct srpt_tport *tport;
	struct srpt_tpg *stpg;
	int id_len;

	lockdep_assert_held(&srpt_mutex);
	for (id_len = 16; id_len >= 8; id_len -= 8) {
		list_for_each_entry(tport, &srpt_tport_list, entry) {
			if (tport->id_len != id_len ||
			    !srpt_tport_names(tport, &lc->gid))
				continue;
			list_for_each_entry(stpg, &tport->tpgs, entry)
				srpt_tpg_pick_acl(stpg, lc, &best);
		}
	}
	if (best == SRPT_ACL_NO_MATCH) {
		strscpy(lc->why, "no ACL for it", sizeof(lc->why));
		return SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
	}
	/* Counted, and named in the log, for the port that admitted it. */
	lc->tport = lc->stpg->tport;
	return 0;
}

/* Login step: the device and port the request came in on. */
static u32 srpt_login_find_port(struct srpt_login_ctx *lc)
{
	struct srpt_device *sdev;

	lockdep_assert_held(&srpt_mutex);
	list_for_each_entry(sdev, &srpt_dev_list, entry) {
		if (sdev->ib_dev != lc->ib_dev)
			continue;
		if (lc->port_num < 1 || lc->port_num > sdev->port_cnt)
			break;
		lc->sport = &sdev->port[lc->port_num - 1];
		return 0;
	}
	strscpy(lc->why, "device not (or no longer) served", sizeof(lc->why));
	return SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
}

/* Login step: what the request asks for, against what this port does. */
static u32 srpt_login_check(struct srpt_login_ctx *lc)
{
	struct srpt_device *sdev = lc->sport->sdev;
	struct srpt_login_limits lim = {
		.max_it_iu_len = srpt_max_req_size(),
	};
	u32 reason;

	memcpy(lim.t_port_id, &sdev->ioc_guid, 8);
	memcpy(lim.t_port_id + 8, &sdev->ioc_guid, 8);
	reason = srpt_check_login(&lc->lg, &lim);
	switch (reason) {
	case 0:
		break;
	case SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE:
		snprintf(lc->why, sizeof(lc->why),
			 "it_iu_len %u above srp_max_req_size %u",
			 lc->lg.req_it_iu_len, lim.max_it_iu_len);
		break;
	case SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT:
		snprintf(lc->why, sizeof(lc->why), "buf_fmt %#x",
			 lc->lg.req_buf_fmt);
		break;
	case SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL:
		snprintf(lc->why, sizeof(lc->why),
			 "target port ID 0x%16phN is not srpt_service_guid's 0x%16phN",
			 lc->lg.t_port_id, lim.t_port_id);
		break;
	default:
		snprintf(lc->why, sizeof(lc->why),
			 "it_iu_len %u, multichannel action %u",
			 lc->lg.req_it_iu_len,
			 lc->lg.req_flags & SRPT_MULTICHAN_MASK);
		break;
	}
	return reason;
}

/*
 * Login step: the target port named by the receiving port's GID (even if
 * disabled, so its counters see the refusal), if a TPG of it is enabled.
 */
static u32 srpt_login_find_tpg(struct srpt_login_ctx *lc)
{
	if (rdma_query_gid(lc->ib_dev, lc->sport->port_num, 0, &lc->gid)) {
		strscpy(lc->why, "the port has no GID", sizeof(lc->why));
		return SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	}
	lc->tport = srpt_find_tport(&lc->gid);
	if (!lc->tport) {
		snprintf(lc->why, sizeof(lc->why),
			 "no target port is named after GID %pI6", lc->gid.raw);
		return SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
	}
	if (!srpt_tport_enabled(lc->tport)) {
		strscpy(lc->why, "its TPG is not enabled", sizeof(lc->why));
		return SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
	}
	return 0;
}

/* Login step: the TPG's channel limits (what counts: srpt_count_chs()). */
static u32 srpt_ch_check_limits(struct srpt_rdma_ch *ch,
				struct srpt_login_ctx *lc)
{
	u32 max_tpg = READ_ONCE(ch->stpg->attrib.max_channels);
	u32 max_nexus = READ_ONCE(ch->stpg->attrib.max_nexus_channels);
	bool single = (lc->lg.req_flags & SRPT_MULTICHAN_MASK) ==
		      SRP_MULTICHAN_SINGLE;
	u32 n_tpg, n_nexus;

	srpt_count_chs(ch, single, &n_tpg, &n_nexus);
	if (max_nexus && n_nexus >= max_nexus) {
		snprintf(lc->why, sizeof(lc->why),
			 "%u channels of this initiator already, srp_max_channels_per_initiator %u",
			 n_nexus, max_nexus);
		return max_nexus == 1 ? SRP_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED :
					SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED;
	}
	if (max_tpg && n_tpg >= max_tpg) {
		snprintf(lc->why, sizeof(lc->why),
			 "%u channels on the target port already, srp_max_channels %u",
			 n_tpg, max_tpg);
		return SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	}
	return 0;
}

/* Login step: the multichannel action, then the CM accepts the login. */
static u32 srpt_ch_accept(struct srpt_rdma_ch *ch, struct srpt_login_ctx *lc)
{
	struct srp_login_rsp rsp;
	u8 flags;
	int ret;

	flags = ch->imm_data_offset ? SRP_LOGIN_RSP_IMMED_SUPP : 0;
	if ((lc->lg.req_flags & SRPT_MULTICHAN_MASK) == SRP_MULTICHAN_SINGLE) {
		if (srpt_close_nexus(ch))
			flags |= SRP_LOGIN_RSP_MULTICHAN_TERMINATED;
	} else if (srpt_nexus_has_chs(ch)) {
		flags |= SRP_LOGIN_RSP_MULTICHAN_MAINTAINED;
	}
	srpt_build_login_rsp(&rsp, lc->lg.tag, ch->rq_size, ch->max_req_size,
			     ch->max_rsp_size, flags);
	ret = lc->ops->accept(ch, lc, &rsp, sizeof(rsp));
	if (ret) {
		snprintf(lc->why, sizeof(lc->why),
			 "accepting the connection failed: %d", ret);
		return SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	}
	trace_srpt_login(ch);
	pr_info("%s%s%s logged in to %s/tpgt_%u: req_lim %u, send queue %u, max_it_iu_len %u, max_ti_iu_len %u, immediate data %s\n",
		ch->sess_name, lc->ip[0] ? " at " : "", lc->ip,
		ch->stpg->tport->name, ch->stpg->tag, ch->rq_size,
		ch->sq_wr_total,
		ch->max_req_size,
		ch->max_rsp_size, ch->imm_data_offset ? "yes" : "no");
	return 0;
}

/* The steps of a login that need srpt_mutex; @ch is set once it exists. */
static u32 srpt_login_locked(struct srpt_login_ctx *lc,
			     struct srpt_rdma_ch **ch)
{
	u32 reason;

	lockdep_assert_held(&srpt_mutex);
	reason = srpt_login_find_port(lc);
	if (!reason)
		reason = srpt_login_find_tpg(lc);
	if (!reason)
		reason = srpt_login_check(lc);
	if (!reason)
		reason = srpt_login_pick_tpg(lc);
	if (reason)
		return reason;
	*ch = srpt_ch_alloc(lc);
	if (!*ch) {
		strscpy(lc->why, "out of memory", sizeof(lc->why));
		return SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	}
	reason = srpt_ch_check_limits(*ch, lc);
	if (!reason)
		reason = srpt_ch_setup(*ch, lc);
	if (!reason)
		reason = srpt_ch_accept(*ch, lc);
	return reason;
}

/* Count a login in the counters of its target port, if it has one. */
static void srpt_login_count(struct srpt_login_ctx *lc, u32 reason)
{
	struct srpt_login_stats *ls;
	int i = srpt_rej_index(reason);

	lockdep_assert_held(&srpt_mutex);
	srpt_event(reason ? SRPT_EV_LOGINS_REFUSED : SRPT_EV_LOGINS_ACCEPTED);
	if (!lc->tport)
		return;
	ls = &lc->tport->logins;
	if (!reason) {
		atomic64_inc(&ls->accepted);
		return;
	}
	if (i >= 0)
		atomic64_inc(&ls->rejected[i]);
	spin_lock(&ls->lock);
	ls->last_reason = reason;
	memcpy(ls->last_i_port_id, lc->lg.i_port_id, 16);
	strscpy(ls->last_peer, lc->peer, sizeof(ls->last_peer));
	strscpy(ls->last_why, lc->why, sizeof(ls->last_why));
	spin_unlock(&ls->lock);
}

/* The one log line of a refused login: who, to where, why. */
static void srpt_login_refused(struct srpt_login_ctx *lc, u32 reason)
{
	char where[48];

	lockdep_assert_held(&srpt_mutex);
	trace_srpt_login_reject(lc, reason);
	if (lc->tport)
		strscpy(where, lc->tport->name, sizeof(where));
	else
		snprintf(where, sizeof(where), "%s port %u",
			 dev_name(&lc->ib_dev->dev), lc->port_num);
	pr_info_ratelimited("login from 0x%16phN%s%s to %s refused: %s (%#x)%s%s\n",
			    lc->lg.i_port_id, lc->ip[0] ? " at " : "", lc->ip,
			    where, srpt_rej_words(reason), reason,
			    lc->why[0] ? ": " : "", lc->why);
}

/**
 * srpt_login_last_refusal() - the last login a target port refused
 * @tport: target port
 * @ls: where to copy the last_* fields of its login counters
 */
void srpt_login_last_refusal(struct srpt_tport *tport,
			     struct srpt_login_stats *ls)
{
	struct srpt_login_stats *t = &tport->logins;

	spin_lock(&t->lock);
	ls->last_reason = t->last_reason;
	memcpy(ls->last_i_port_id, t->last_i_port_id, 16);
	strscpy(ls->last_peer, t->last_peer, sizeof(ls->last_peer));
	strscpy(ls->last_why, t->last_why, sizeof(ls->last_why));
	spin_unlock(&t->lock);
}

/**
 * srpt_login() - the login routine of every connection manager
 * @lc: the request, as the CM got it
 *
 * Checks the request, sets the channel up (QP, buffers, LIO session),
 * applies the multichannel action and has the CM accept - or reject with
 * the failing step's SRP_LOGIN_REJ.
 *
 * Return: 0 if a channel owns the CM id now (the login was accepted, or
 * refused after the channel existed: its release destroys the id); a
 * negative errno if no channel was created and the CM must destroy the id.
 */
int srpt_login(struct srpt_login_ctx *lc)
{
	struct srpt_rdma_ch *ch = NULL;
	struct srp_login_rej rej;
	u32 reason;

	mutex_lock(&srpt_mutex);
	reason = srpt_login_locked(lc, &ch);
	/* Under srpt_mutex: lc->tport may go once it is dropped. */
	srpt_login_count(lc, reason);
	if (reason)
		srpt_login_refused(lc, reason);
	mutex_unlock(&srpt_mutex);
	if (reason) {
		srpt_build_login_rej(&rej, lc->lg.tag, reason);
		lc->ops->reject(lc, &rej, sizeof(rej));
	}
	if (!ch)
		return -ECONNREFUSED;
	srpt_ch_login_done(ch, !reason);
	return 0;
}
