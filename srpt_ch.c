// SPDX-License-Identifier: GPL-2.0
/*
 * SRP channels: the login routine shared by the connection managers, the
 * RDMA/CM listener and event handling, and channel teardown.
 *
 * Locking: srpt_mutex serialises logins against TPG enable/disable and
 * holds the target port list; srpt_ch_lock protects srpt_ch_list, whose
 * entries live until their release work is done.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include "ib_srpt.h"

/* Serialises logins, TPG state changes and the target port list. */
DEFINE_MUTEX(srpt_mutex);
static LIST_HEAD(srpt_tport_list);
static DEFINE_SPINLOCK(srpt_ch_lock);
static LIST_HEAD(srpt_ch_list);
static DECLARE_WAIT_QUEUE_HEAD(srpt_ch_waitq);

static DEFINE_MUTEX(srpt_listen_mutex);
static struct rdma_cm_id *srpt_listen_id;
static u16 srpt_listen_port;

static unsigned int srp_max_req_size = SRPT_DEF_MAX_REQ_SIZE;
module_param(srp_max_req_size, uint, 0444);
MODULE_PARM_DESC(srp_max_req_size,
		 "Largest SRP request (REQ_IT_IU_LEN) accepted at login, in bytes; immediate data needs room for it (default 8260)");

static unsigned int srpt_srq_size = SRPT_MAX_SQ_SIZE;
module_param(srpt_srq_size, uint, 0444);
MODULE_PARM_DESC(srpt_srq_size,
		 "Upper bound of receive buffers (credits) per channel, whatever the TPG's srp_sq_size (default 4096)");

/**
 * struct srpt_login_ctx - a login request as the CM delivered it
 * @sport: port the request came in on
 * @lg: parsed SRP_LOGIN_REQ
 * @ops: CM operations for the new channel
 * @rdma_cm: RDMA/CM id of the connection (RDMA/CM logins)
 * @ip: initiator IP address as text (RDMA/CM logins), or ""
 * @rdma_param: the initiator's RDMA/CM connection parameters
 */
struct srpt_login_ctx {
	struct srpt_port		*sport;
	struct srpt_login		lg;
	const struct srpt_cm_ops	*ops;
	struct rdma_cm_id		*rdma_cm;
	char				ip[INET6_ADDRSTRLEN + 8];
	const struct rdma_conn_param	*rdma_param;
};

/**
 * srpt_tport_register() - make a target port visible to logins
 * @tport: configfs target port
 */
void srpt_tport_register(struct srpt_tport *tport)
{
	mutex_lock(&srpt_mutex);
	list_add_tail(&tport->entry, &srpt_tport_list);
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

/* The enabled TPG of the target port named by @gid or its GUID half. */
static struct srpt_tpg *srpt_find_tpg(const union ib_gid *gid)
{
	struct srpt_tport *tport;

	lockdep_assert_held(&srpt_mutex);
	list_for_each_entry(tport, &srpt_tport_list, entry) {
		if (!tport->tpg || !tport->tpg->enabled)
			continue;
		if (tport->id_len == 16 && !memcmp(tport->id, gid->raw, 16))
			return tport->tpg;
		if (tport->id_len == 8 && !memcmp(tport->id, gid->raw + 8, 8))
			return tport->tpg;
	}
	return NULL;
}

typedef bool (*srpt_ch_match_fn)(struct srpt_rdma_ch *ch, const void *arg);

/* Start closing every channel that matches; return how many exist. */
static int srpt_close_matching(srpt_ch_match_fn match, const void *arg)
{
	struct srpt_rdma_ch *ch;
	int n = 0;

	spin_lock(&srpt_ch_lock);
	list_for_each_entry(ch, &srpt_ch_list, entry) {
		if (match(ch, arg)) {
			srpt_close_ch(ch);
			n++;
		}
	}
	spin_unlock(&srpt_ch_lock);
	return n;
}

static bool srpt_any_matching(srpt_ch_match_fn match, const void *arg)
{
	struct srpt_rdma_ch *ch;
	bool found = false;

	spin_lock(&srpt_ch_lock);
	list_for_each_entry(ch, &srpt_ch_list, entry) {
		if (match(ch, arg)) {
			found = true;
			break;
		}
	}
	spin_unlock(&srpt_ch_lock);
	return found;
}

/* Close the matching channels and wait until they are released. */
static void srpt_close_and_wait(srpt_ch_match_fn match, const void *arg)
{
	srpt_close_matching(match, arg);
	wait_event(srpt_ch_waitq, !srpt_any_matching(match, arg));
}

static bool srpt_ch_of_tpg(struct srpt_rdma_ch *ch, const void *stpg)
{
	return ch->stpg == stpg;
}

static bool srpt_ch_of_dev(struct srpt_rdma_ch *ch, const void *sdev)
{
	return ch->sport->sdev == sdev;
}

static bool srpt_ch_any(struct srpt_rdma_ch *ch, const void *unused)
{
	return true;
}

static bool srpt_ch_of_nexus(struct srpt_rdma_ch *ch, const void *other)
{
	const struct srpt_rdma_ch *o = other;

	return ch != o && !memcmp(ch->i_port_id, o->i_port_id, 16) &&
	       !memcmp(ch->t_port_id, o->t_port_id, 16);
}

/**
 * srpt_close_tpg_channels() - close all channels of a TPG and wait for them
 * @stpg: TPG, already disabled so that no new login finds it
 *
 * Context: process; not under srpt_mutex.
 */
void srpt_close_tpg_channels(struct srpt_tpg *stpg)
{
	srpt_close_and_wait(srpt_ch_of_tpg, stpg);
}

/**
 * srpt_close_dev_channels() - close all channels of a device and wait
 * @sdev: device going away
 *
 * Context: process.
 */
void srpt_close_dev_channels(struct srpt_device *sdev)
{
	srpt_close_and_wait(srpt_ch_of_dev, sdev);
}

static void srpt_release_ch_work(struct work_struct *w)
{
	struct srpt_rdma_ch *ch = container_of(w, struct srpt_rdma_ch,
					       release_work);

	ch->cm_ops->disconnect(ch);
	srpt_ch_drain(ch);
	if (ch->sess) {
		target_stop_session(ch->sess);
		target_wait_for_sess_cmds(ch->sess);
		target_remove_session(ch->sess);
	}
	srpt_set_ch_state(ch, SRPT_CH_DISCONNECTED);
	ch->cm_ops->destroy(ch);
	ib_cq_pool_put(ch->cq, ch->cq_size);
	srpt_free_ch_bufs(ch);
	pr_info("%s: channel released\n", ch->sess_name);

	spin_lock(&srpt_ch_lock);
	list_del(&ch->entry);
	spin_unlock(&srpt_ch_lock);
	kfree(ch);
	wake_up_all(&srpt_ch_waitq);
}

static void srpt_qp_event(struct ib_event *ev, void *context)
{
	struct srpt_rdma_ch *ch = context;

	switch (ev->event) {
	case IB_EVENT_COMM_EST:
		ch->cm_ops->comm_est(ch);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		break;
	default:
		pr_warn_ratelimited("%s: QP event %s\n", ch->sess_name,
				    ib_event_msg(ev->event));
		srpt_close_ch(ch);
		break;
	}
}

/*
 * Create the CQ and the QP of a new channel. Each command has at most one
 * signaled send work request outstanding, so the CQ needs a slot per
 * receive buffer and per command, plus the two drain requests.
 */
static int srpt_create_qp(struct srpt_rdma_ch *ch, struct srpt_login_ctx *lc)
{
	struct srpt_device *sdev = ch->sport->sdev;
	struct ib_device *dev = sdev->ib_dev;
	struct ib_qp_init_attr attr = {};
	u32 factor;
	int ret;

	ch->cq_size = ch->rq_size + 2 * ch->rq_size + 2;
	ch->cq = ib_cq_pool_get(dev, ch->cq_size, -1, IB_POLL_WORKQUEUE);
	if (IS_ERR(ch->cq)) {
		ret = PTR_ERR(ch->cq);
		pr_warn("%s: no CQ with %u entries: %d\n", ch->sess_name,
			ch->cq_size, ret);
		return ret;
	}
	factor = rdma_rw_mr_factor(dev, ch->sport->port_num,
				   DIV_ROUND_UP(ch->max_rdma_size, PAGE_SIZE));
	attr.event_handler = srpt_qp_event;
	attr.qp_context = ch;
	attr.send_cq = ch->cq;
	attr.recv_cq = ch->cq;
	attr.cap.max_send_wr = ch->rq_size + 1;
	attr.cap.max_recv_wr = ch->rq_size + 1;
	attr.cap.max_send_sge = max(dev->attrs.max_sge_rd,
				    dev->attrs.max_send_sge);
	attr.cap.max_recv_sge = 1;
	attr.cap.max_rdma_ctxs = ch->rq_size * factor;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	attr.port_num = ch->sport->port_num;
	ret = lc->ops->create_qp(ch, &attr);
	if (ret) {
		pr_warn("%s: QP creation failed: %d\n", ch->sess_name, ret);
		ib_cq_pool_put(ch->cq, ch->cq_size);
		return ret;
	}
	/* One send slot stays free for ib_drain_qp(). */
	ch->sq_wr_total = attr.cap.max_send_wr - 1;
	atomic_set(&ch->sq_wr_avail, ch->sq_wr_total);
	return 0;
}

/* Pick the ACL name the initiator is known by: port ID, then IP address. */
static int srpt_pick_acl(struct srpt_rdma_ch *ch, struct srpt_login_ctx *lc)
{
	struct se_portal_group *se_tpg = &ch->stpg->se_tpg;
	char names[3][64];
	int i;

	snprintf(names[0], sizeof(names[0]), "0x%16phN", ch->i_port_id);
	snprintf(names[1], sizeof(names[1]), "%16phN", ch->i_port_id);
	strscpy(names[2], lc->ip, sizeof(names[2]));
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (names[i][0] && target_tpg_has_node_acl(se_tpg, names[i])) {
			strscpy(ch->sess_name, names[i], sizeof(ch->sess_name));
			return 0;
		}
	}
	pr_info_ratelimited("login from %s%s%s refused: no ACL for it in %s\n",
			    names[0], lc->ip[0] ? " at " : "", lc->ip,
			    ch->stpg->tport->name);
	return -EACCES;
}

/*
 * srpt_login() - the login routine of every connection manager
 *
 * Validates the request, creates the channel with its QP and buffers,
 * registers the LIO session, applies the multichannel action and lets the
 * CM accept the connection. On failure @rej holds the SRP_LOGIN_REJ for
 * the CM to send.
 */
static struct srpt_rdma_ch *srpt_login(struct srpt_login_ctx *lc,
				       struct srp_login_rej *rej)
{
	struct srpt_port *sport = lc->sport;
	struct srpt_device *sdev = sport->sdev;
	struct srpt_login_limits lim = {
		.max_it_iu_len = clamp_t(u32, srp_max_req_size,
					 SRPT_MIN_MAX_REQ_SIZE,
					 SRPT_MAX_MAX_REQ_SIZE),
	};
	struct srp_login_rsp rsp;
	struct srpt_rdma_ch *ch;
	struct srpt_tpg *stpg;
	union ib_gid gid;
	u32 reason;
	u8 flags;
	int ret;

	memcpy(lim.t_port_id, &sdev->ioc_guid, 8);
	memcpy(lim.t_port_id + 8, &sdev->ioc_guid, 8);
	reason = srpt_check_login(&lc->lg, &lim);
	if (reason) {
		pr_info_ratelimited("login from 0x%16phN rejected (%#x): it_iu_len %u, buf_fmt %#x, target port 0x%16phN\n",
				    lc->lg.i_port_id, reason,
				    lc->lg.req_it_iu_len, lc->lg.req_buf_fmt,
				    lc->lg.t_port_id);
		goto reject;
	}
	reason = SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	if (rdma_query_gid(sdev->ib_dev, sport->port_num, 0, &gid))
		goto reject;

	mutex_lock(&srpt_mutex);
	reason = SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
	stpg = srpt_find_tpg(&gid);
	if (!stpg) {
		pr_info_ratelimited("login on %s port %u refused: no enabled target port for GID %pI6\n",
				    dev_name(&sdev->ib_dev->dev),
				    sport->port_num, gid.raw);
		goto unlock;
	}
	reason = SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch)
		goto unlock;
	ch->sport = sport;
	ch->stpg = stpg;
	ch->cm_ops = lc->ops;
	ch->rdma_cm = lc->rdma_cm;
	spin_lock_init(&ch->lock);
	spin_lock_init(&ch->post_lock);
	ch->state = SRPT_CH_CONNECTING;
	INIT_LIST_HEAD(&ch->iu_wait);
	INIT_LIST_HEAD(&ch->sq_wait);
	INIT_LIST_HEAD(&ch->entry);
	INIT_WORK(&ch->release_work, srpt_release_ch_work);
	memcpy(ch->i_port_id, lc->lg.i_port_id, 16);
	memcpy(ch->t_port_id, lc->lg.t_port_id, 16);
	snprintf(ch->sess_name, sizeof(ch->sess_name), "0x%16phN",
		 ch->i_port_id);
	ch->rq_size = min3(stpg->attrib.sq_size,
			   max_t(u32, srpt_srq_size, SRPT_MIN_SQ_SIZE),
			   (u32)sdev->ib_dev->attrs.max_qp_wr / 4);
	ch->max_req_size = lc->lg.req_it_iu_len;
	ch->max_rsp_size = stpg->attrib.max_rsp_size;
	ch->max_rdma_size = stpg->attrib.max_rdma_size;
	if ((lc->lg.req_flags & SRP_IMMED_REQUESTED) &&
	    lc->lg.imm_data_offset >= SRPT_CMD_FIXED_LEN + 4 &&
	    lc->lg.imm_data_offset < ch->max_req_size)
		ch->imm_data_offset = lc->lg.imm_data_offset;

	if (srpt_pick_acl(ch, lc)) {
		reason = SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
		goto free_ch;
	}
	if (srpt_create_qp(ch, lc))
		goto free_ch;
	if (srpt_alloc_ch_bufs(ch))
		goto destroy_qp;
	if (srpt_post_all_recvs(ch))
		goto free_bufs;
	ch->sess = target_setup_session(&stpg->se_tpg, 0, 0,
					TARGET_PROT_NORMAL, ch->sess_name, ch,
					NULL);
	if (IS_ERR(ch->sess)) {
		pr_warn("%s: LIO session setup failed: %ld\n", ch->sess_name,
			PTR_ERR(ch->sess));
		ch->sess = NULL;
		goto free_bufs;
	}

	flags = ch->imm_data_offset ? SRP_LOGIN_RSP_IMMED_SUPP : 0;
	if ((lc->lg.req_flags & 3) == SRP_MULTICHAN_SINGLE) {
		if (srpt_close_matching(srpt_ch_of_nexus, ch))
			flags |= SRP_LOGIN_RSP_MULTICHAN_TERMINATED;
	} else if (srpt_any_matching(srpt_ch_of_nexus, ch)) {
		flags |= SRP_LOGIN_RSP_MULTICHAN_MAINTAINED;
	}
	srpt_build_login_rsp(&rsp, lc->lg.tag, ch->rq_size, ch->max_req_size,
			     ch->max_rsp_size, flags);
	ret = lc->ops->accept(ch, lc, &rsp, sizeof(rsp));
	if (ret) {
		pr_warn("%s: accepting the connection failed: %d\n",
			ch->sess_name, ret);
		goto remove_sess;
	}
	spin_lock(&srpt_ch_lock);
	list_add_tail(&ch->entry, &srpt_ch_list);
	spin_unlock(&srpt_ch_lock);
	mutex_unlock(&srpt_mutex);
	pr_info("%s%s%s logged in to %s: req_lim %u, max_it_iu_len %u, max_ti_iu_len %u, immediate data %s\n",
		ch->sess_name, lc->ip[0] ? " at " : "", lc->ip,
		stpg->tport->name, ch->rq_size, ch->max_req_size,
		ch->max_rsp_size, ch->imm_data_offset ? "yes" : "no");
	return ch;

remove_sess:
	target_remove_session(ch->sess);
free_bufs:
	/* Flushes the posted receives before their buffers go. */
	srpt_set_ch_state(ch, SRPT_CH_DISCONNECTING);
	srpt_ch_drain(ch);
	srpt_free_ch_bufs(ch);
destroy_qp:
	lc->ops->destroy_qp(ch);
	ib_cq_pool_put(ch->cq, ch->cq_size);
free_ch:
	kfree(ch);
unlock:
	mutex_unlock(&srpt_mutex);
reject:
	srpt_build_login_rej(rej, lc->lg.tag, reason);
	return NULL;
}

/**
 * srpt_cm_rtu_recv() - the connection is established: CONNECTING -> LIVE
 * @ch: channel
 *
 * Reached from the RDMA/CM ESTABLISHED event (which the CM raises on RTU,
 * or earlier when the first IU arrives and the QP reports COMM_EST).
 */
static void srpt_cm_rtu_recv(struct srpt_rdma_ch *ch)
{
	pr_debug("%s: connection established\n", ch->sess_name);
	srpt_ch_go_live(ch);
}

/* RDMA/CM operations of a channel. */

static int srpt_rdma_create_qp(struct srpt_rdma_ch *ch,
			       struct ib_qp_init_attr *attr)
{
	int ret = rdma_create_qp(ch->rdma_cm, ch->sport->sdev->pd, attr);

	if (!ret)
		ch->qp = ch->rdma_cm->qp;
	return ret;
}

static void srpt_rdma_destroy_qp(struct srpt_rdma_ch *ch)
{
	rdma_destroy_qp(ch->rdma_cm);
	ch->qp = NULL;
}

static int srpt_rdma_accept(struct srpt_rdma_ch *ch, struct srpt_login_ctx *lc,
			    const void *rsp, u8 len)
{
	const struct ib_device_attr *a = &ch->sport->sdev->ib_dev->attrs;
	const struct rdma_conn_param *req = lc->rdma_param;
	struct rdma_conn_param param = {
		.private_data = rsp,
		.private_data_len = len,
		.flow_control = 1,
		.rnr_retry_count = 7,
		/* The CM already swapped these to our point of view. */
		.responder_resources = min_t(int, req->responder_resources,
					     a->max_qp_rd_atom),
		.initiator_depth = min_t(int, req->initiator_depth,
					 a->max_qp_init_rd_atom),
	};

	return rdma_accept(ch->rdma_cm, &param);
}

static void srpt_rdma_disconnect(struct srpt_rdma_ch *ch)
{
	rdma_disconnect(ch->rdma_cm);
}

static void srpt_rdma_destroy(struct srpt_rdma_ch *ch)
{
	srpt_rdma_destroy_qp(ch);
	rdma_destroy_id(ch->rdma_cm);
	ch->rdma_cm = NULL;
}

static void srpt_rdma_comm_est(struct srpt_rdma_ch *ch)
{
	rdma_notify(ch->rdma_cm, IB_EVENT_COMM_EST);
}

static const struct srpt_cm_ops srpt_rdma_cm_ops = {
	.create_qp	= srpt_rdma_create_qp,
	.destroy_qp	= srpt_rdma_destroy_qp,
	.accept		= srpt_rdma_accept,
	.comm_est	= srpt_rdma_comm_est,
	.disconnect	= srpt_rdma_disconnect,
	.destroy	= srpt_rdma_destroy,
};

static void srpt_format_ip(char *buf, size_t len, struct sockaddr *sa)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)sa;

	if (sa->sa_family == AF_INET6 && ipv6_addr_v4mapped(&sin6->sin6_addr))
		snprintf(buf, len, "%pI4", &sin6->sin6_addr.s6_addr32[3]);
	else if (sa->sa_family == AF_INET || sa->sa_family == AF_INET6)
		snprintf(buf, len, "%pISc", sa);
	else
		buf[0] = '\0';
}

static int srpt_rdma_cm_req_recv(struct rdma_cm_id *id,
				 struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *param = &ev->param.conn;
	struct srpt_login_ctx lc = {
		.ops = &srpt_rdma_cm_ops,
		.rdma_cm = id,
		.rdma_param = param,
	};
	struct srp_login_rej rej;
	struct srpt_device *sdev;
	struct srpt_rdma_ch *ch;

	srpt_format_ip(lc.ip, sizeof(lc.ip),
		       (struct sockaddr *)&id->route.addr.dst_addr);
	sdev = ib_get_client_data(id->device, &srpt_client);
	if (!sdev || id->port_num < 1 || id->port_num > sdev->port_cnt) {
		srpt_build_login_rej(&rej, 0,
				     SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
		goto reject;
	}
	lc.sport = &sdev->port[id->port_num - 1];
	if (srpt_parse_login_rdma(param->private_data,
				  param->private_data_len, &lc.lg)) {
		pr_warn_ratelimited("connection request from %s without SRP_LOGIN_REQ (%u bytes of private data)\n",
				    lc.ip, param->private_data_len);
		srpt_build_login_rej(&rej, 0,
				     SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
		goto reject;
	}
	ch = srpt_login(&lc, &rej);
	if (!ch)
		goto reject;
	id->context = ch;
	return 0;

reject:
	rdma_reject(id, &rej, sizeof(rej), IB_CM_REJ_CONSUMER_DEFINED);
	/* Non-zero: the RDMA/CM destroys the id. */
	return -ECONNREFUSED;
}

static int srpt_rdma_cm_handler(struct rdma_cm_id *id,
				struct rdma_cm_event *ev)
{
	struct srpt_rdma_ch *ch = id->context;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return srpt_rdma_cm_req_recv(id, ev);
	if (!ch)		/* an event of the listener */
		return 0;
	switch (ev->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		srpt_cm_rtu_recv(ch);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_ADDR_CHANGE:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		pr_debug("%s: %s\n", ch->sess_name, rdma_event_msg(ev->event));
		srpt_close_ch(ch);
		break;
	default:
		break;
	}
	return 0;
}

static struct rdma_cm_id *srpt_rdma_listen_on(struct sockaddr *sa)
{
	struct rdma_cm_id *id;
	int ret;

	id = rdma_create_id(&init_net, srpt_rdma_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return id;
	if (sa->sa_family == AF_INET6)
		rdma_set_afonly(id, 0);
	ret = rdma_bind_addr(id, sa);
	if (!ret)
		ret = rdma_listen(id, 128);
	if (ret) {
		rdma_destroy_id(id);
		return ERR_PTR(ret);
	}
	return id;
}

/**
 * srpt_rdma_cm_listen() - (re)start the RDMA/CM listener
 * @port: TCP-style port number; 0 stops listening
 *
 * Listens on all IPv6 and IPv4 addresses.
 *
 * Return: 0 or a negative errno (the listener is then stopped).
 */
int srpt_rdma_cm_listen(u16 port)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(port),
	};
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
	};
	struct rdma_cm_id *id = NULL;
	int ret = 0;

	mutex_lock(&srpt_listen_mutex);
	if (srpt_listen_id && port == srpt_listen_port)
		goto out;
	if (srpt_listen_id)
		rdma_destroy_id(srpt_listen_id);
	srpt_listen_id = NULL;
	srpt_listen_port = 0;
	if (!port)
		goto out;
	id = srpt_rdma_listen_on((struct sockaddr *)&sin6);
	if (IS_ERR(id))
		id = srpt_rdma_listen_on((struct sockaddr *)&sin);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		pr_err("RDMA/CM listener on port %u failed: %d\n", port, ret);
		goto out;
	}
	srpt_listen_id = id;
	srpt_listen_port = port;
	pr_info("RDMA/CM listening on port %u\n", port);
out:
	mutex_unlock(&srpt_listen_mutex);
	return ret;
}

/**
 * srpt_rdma_cm_port() - the port the RDMA/CM listener listens on
 *
 * Return: the port, 0 if not listening.
 */
u16 srpt_rdma_cm_port(void)
{
	return READ_ONCE(srpt_listen_port);
}

/**
 * srpt_ch_cleanup() - stop listening and release every channel
 *
 * Context: module unload, after the IB client is gone.
 */
void srpt_ch_cleanup(void)
{
	srpt_rdma_cm_listen(0);
	srpt_close_and_wait(srpt_ch_any, NULL);
}
