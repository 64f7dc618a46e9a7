// SPDX-License-Identifier: GPL-2.0
/*
 * An SRP channel's making and ending: set up for a login (srpt_login.c)
 * with its QP, buffers (or a share of the device's SRQ) and LIO session;
 * its connection events (RTU, the CM ending it, QP events); its release,
 * one work item read top to bottom (Documentation/ib_srpt.rst, Life of a
 * channel). Also the module parameters that size a login.
 *
 * Ownership: until srpt_ch_login_done() the login alone tears a channel
 * down (close requests are recorded), afterwards the release work alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include "srpt_ch.h"
#include "srpt_buf.h"
#include "srpt_life.h"
#include "srpt_recv.h"
#include "srpt_sq.h"
#include "srpt_stats.h"
#include "srpt_trace.h"

/* Makes and frees the SRQs of devices (srpt_device.srq); inside a login. */
static DEFINE_MUTEX(srpt_srq_mutex);
/* Woken when a channel's connection settles or a port comes up. */
static DECLARE_WAIT_QUEUE_HEAD(srpt_ch_waitq);

/* int, as in the in-kernel module; out of range, the module does not load. */
static int srp_max_req_size = SRPT_DEF_MAX_REQ_SIZE;
module_param(srp_max_req_size, int, 0444);
MODULE_PARM_DESC(srp_max_req_size,
		 "Largest SRP request (REQ_IT_IU_LEN) accepted at login, in bytes, 996..65536; immediate data needs room for it (default 8260)");

static int srpt_srq_size = SRPT_DEF_SRQ_SIZE;
module_param(srpt_srq_size, int, 0444);
MODULE_PARM_DESC(srpt_srq_size,
		 "Shared receive queue (SRQ) size: receive buffers of a device's SRQ, which channels of TPGs with use_srq=1 share; 4..65535 (default 4095)");

/**
 * srpt_check_params() - refuse out-of-range module parameters
 *
 * Return: 0 or -EINVAL.
 */
int srpt_check_params(void)
{
	int ret = 0;

	if (srp_max_req_size < SRPT_MIN_MAX_REQ_SIZE ||
	    srp_max_req_size > SRPT_MAX_MAX_REQ_SIZE) {
		pr_err("srp_max_req_size=%d out of range %d..%d\n",
		       srp_max_req_size, SRPT_MIN_MAX_REQ_SIZE,
		       SRPT_MAX_MAX_REQ_SIZE);
		ret = -EINVAL;
	}
	if (srpt_srq_size < SRPT_MIN_SRQ_SIZE ||
	    srpt_srq_size > SRPT_MAX_SRQ_SIZE) {
		pr_err("srpt_srq_size=%d out of range %d..%d\n",
		       srpt_srq_size, SRPT_MIN_SRQ_SIZE, SRPT_MAX_SRQ_SIZE);
		ret = -EINVAL;
	}
	return ret;
}

/**
 * srpt_max_req_size() - the largest SRP request a login may ask for
 *
 * Return: srp_max_req_size (checked at load).
 */
u32 srpt_max_req_size(void)
{
	return srp_max_req_size;
}

/*
 * How long an accepted login may take to get established. An initiator CM
 * answering the REP with an MRA (the RDMA/CM does for user-space consumers
 * not yet accepted) makes ours wait ~70 s before each of up to 15 REP
 * retries: a stuck login would hold its channel and buffers for 15 min.
 */
#define SRPT_RTU_TIMEOUT_S	60
/* In seconds; debugfs ib_srpt/rtu_timeout_s (tests wait less), 1 at least. */
static u32 srpt_rtu_timeout_s = SRPT_RTU_TIMEOUT_S;
/* debugfs ib_srpt/rw_size: RDMA context bytes of new channels, rounded. */
static u32 srpt_rw_size_dbg = SRPT_RW_SIZE;

/**
 * srpt_ch_debugfs_init() - create debugfs ib_srpt/rtu_timeout_s and rw_size
 *
 * srpt_stats_exit() removes them with the directory.
 */
void srpt_ch_debugfs_init(void)
{
	debugfs_create_u32("rtu_timeout_s", 0644, srpt_debugfs_dir(),
			   &srpt_rtu_timeout_s);
	debugfs_create_u32("rw_size", 0644, srpt_debugfs_dir(),
			   &srpt_rw_size_dbg);
}

/**
 * srpt_port_active() - a port came up (or its device goes): releases that
 *	wait for it go on
 * @sport: the port, or NULL for any
 *
 * Context: any (the device's event handler).
 */
void srpt_port_active(struct srpt_port *sport)
{
	wake_up_all(&srpt_ch_waitq);
}

/* How long a release waits for the RTU, and for a down port: srpt_cm_end(). */
#define SRPT_RTU_WAIT	(5 * HZ)
#define SRPT_PORT_WAIT	(10 * HZ)

/*
 * The network device under a RoCE port is up. Asked apart from the port
 * state, which follows it late: transmits (and so QPs) fail as soon as
 * the network device stops running, before the port goes down.
 */
static bool srpt_roce_link_up(struct ib_device *dev, u32 port)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	bool up = false;

	attr = rdma_get_gid_attr(dev, port, 0);
	if (IS_ERR(attr))
		return false;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (!IS_ERR(ndev))
		up = netif_running(ndev) && netif_carrier_ok(ndev);
	rcu_read_unlock();
	rdma_put_gid_attr(attr);
	return up;
}

/* @ch's port can carry a CM message (or never will again). */
static bool srpt_ch_port_usable(struct srpt_rdma_ch *ch)
{
	struct srpt_port *sport = ch->sport;
	struct ib_device *dev = sport->sdev->ib_dev;
	enum ib_port_state state;

	if (READ_ONCE(sport->sdev->removing))
		return true;
	if (ib_get_cached_port_state(dev, sport->port_num, &state))
		return true;
	if (state != IB_PORT_ACTIVE)
		return false;
	return !rdma_protocol_roce(dev, sport->port_num) ||
	       srpt_roce_link_up(dev, sport->port_num);
}

/* The connection of @ch got established or failed: see srpt_cm_end(). */
static void srpt_cm_settle(struct srpt_rdma_ch *ch)
{
	WRITE_ONCE(ch->cm_settled, true);
	wake_up_all(&srpt_ch_waitq);
}

/*
 * End the connection of an accepted channel. Before the RTU the CM still
 * waits for it: a disconnect sends nothing, and destroying the id sends a
 * REJ, which an initiator that got the REP and sent its RTU ignores (Linux
 * does), keeping a dead connection until its commands time out. So wait
 * for the RTU (or the CM giving up), then send the DREQ; a silent
 * initiator delays the release by SRPT_RTU_WAIT at most.
 *
 * A CM message sent while the port is down is lost, and on soft-RoCE puts
 * the port's GSI QP in error for good (no login until the device is added
 * again): a channel whose port went down (the usual reason its QP failed)
 * waits for it, at most SRPT_PORT_WAIT, before its DREQ.
 */
static void srpt_cm_end(struct srpt_rdma_ch *ch)
{
	if (!wait_event_timeout(srpt_ch_waitq, READ_ONCE(ch->cm_settled),
				SRPT_RTU_WAIT))
		pr_debug("%s: no RTU; rejecting the connection\n",
			 ch->sess_name);
	if (!wait_event_timeout(srpt_ch_waitq, srpt_ch_port_usable(ch),
				SRPT_PORT_WAIT))
		pr_debug("%s: port %u still down; disconnecting\n",
			 ch->sess_name, ch->sport->port_num);
	ch->cm_ops->disconnect(ch);
}

static void srpt_rtu_timeout_work(struct work_struct *w)
{
	struct srpt_rdma_ch *ch = container_of(to_delayed_work(w),
					       struct srpt_rdma_ch, rtu_timeout);

	if (READ_ONCE(ch->cm_settled))
		return;
	pr_info_ratelimited("%s: connection not established %u s after the login response; closing the channel\n",
			    ch->sess_name, ch->rtu_timeout_s);
	srpt_close_ch(ch);
}

/*
 * Login step, with use_srq=1: receive through the device's SRQ (made at
 * the first such login), immediate data only at its buffers' offset. No
 * SRQ (or no memory for one): receive buffers of its own.
 */
static void srpt_ch_use_srq(struct srpt_rdma_ch *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;
	u32 size = srpt_srq_size;
	struct srpt_srq *srq;

	if (!READ_ONCE(ch->stpg->attrib.use_srq))
		return;
	mutex_lock(&srpt_srq_mutex);
	if (!sdev->srq) {
		if (size > sdev->ib_dev->attrs.max_srq_wr) {
			size = sdev->ib_dev->attrs.max_srq_wr;
			pr_info("%s: srpt_srq_size %u above the device's limit: SRQ of %u\n",
				dev_name(&sdev->ib_dev->dev), srpt_srq_size,
				size);
		}
		srq = srpt_create_srq(sdev, size, srpt_max_req_size());
		if (IS_ERR(srq)) {
			mutex_unlock(&srpt_srq_mutex);
			pr_warn_ratelimited("%s: no shared receive queue (%ld); channels get receive buffers of their own\n",
					    dev_name(&sdev->ib_dev->dev),
					    PTR_ERR(srq));
			return;
		}
		sdev->srq = srq;
	}
	sdev->srq->users++;
	ch->srq = sdev->srq;
	mutex_unlock(&srpt_srq_mutex);
	if (ch->imm_data_offset != ch->srq->layout.imm_data_offset)
		ch->imm_data_offset = 0;
}

/* A released channel, whose QP is gone, leaves its SRQ: the last frees it. */
static void srpt_ch_leave_srq(struct srpt_rdma_ch *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;

	if (!ch->srq)
		return;
	mutex_lock(&srpt_srq_mutex);
	if (!--ch->srq->users) {
		srpt_srq_destroy(ch->srq);
		sdev->srq = NULL;
	}
	mutex_unlock(&srpt_srq_mutex);
	ch->srq = NULL;
}

/*
 * LIO's target_shutdown_sessions() (ACL removed, queue depth changed)
 * takes a session off the ACL's list under nacl_sess_lock, drops the lock,
 * then calls close_session() - even if the session was stopped and
 * released in between. A session so taken off (sess_acl_list empty; after
 * target_stop_session() no later shutdown takes it) has a close_session()
 * coming or running: wait for it before freeing the session and channel.
 */
static void srpt_wait_close_session(struct srpt_rdma_ch *ch)
{
	struct se_node_acl *nacl = ch->sess->se_node_acl;
	unsigned long flags;
	bool closing;

	if (!nacl)
		return;
	spin_lock_irqsave(&nacl->nacl_sess_lock, flags);
	closing = list_empty(&ch->sess->sess_acl_list);
	spin_unlock_irqrestore(&nacl->nacl_sess_lock, flags);
	if (closing)
		wait_for_completion(&ch->sess_closed);
}

static void srpt_release_ch_work(struct work_struct *w)
{
	struct srpt_rdma_ch *ch = container_of(w, struct srpt_rdma_ch,
					       release_work);

	cancel_delayed_work_sync(&ch->rtu_timeout);

	/*
	 * Drain first: on siw a graceful disconnect of a QP whose connection
	 * failed moves it to CLOSING without flushing its send queue, nor
	 * does anything later - ib_drain_qp() would return with responses
	 * never completed, the session waiting for their commands forever;
	 * the error state flushes all. A target logging the channel out (TPG
	 * disabled, ACL, device or module gone, a SINGLE login of its nexus)
	 * says so just before.
	 */
	srpt_ch_send_logout(ch);
	srpt_ch_drain(ch);
	if (ch->accepted)
		srpt_cm_end(ch);
	if (ch->sess) {
		srpt_fault_delay(SRPT_FAULT_RELEASE);
		target_stop_session(ch->sess);
		target_wait_for_sess_cmds(ch->sess);
	}
	/* What still runs holds a reference; LIO refuses it new commands. */
	srpt_ch_put_wait(ch);
	if (ch->sess) {
		srpt_wait_close_session(ch);
		target_remove_session(ch->sess);
		srpt_res_add(SRPT_RES_SESSIONS, -1);
	}
	ch->cm_ops->destroy(ch);
	if (ch->cq) {
		ib_cq_pool_put(ch->cq, ch->cq_size);
		srpt_res_add(SRPT_RES_CQ_ENTRIES, -(long)ch->cq_size);
	}
	srpt_free_ch_bufs(ch);
	srpt_ch_leave_srq(ch);
	if (ch->accepted)
		pr_info("%s: channel released\n", ch->sess_name);

	srpt_ch_unlist(ch);
	kfree(ch);
	srpt_res_add(SRPT_RES_CHANNELS, -1);
}

static void srpt_qp_event(struct ib_event *ev, void *context)
{
	struct srpt_rdma_ch *ch = context;

	switch (ev->event) {
	case IB_EVENT_COMM_EST:
		ch->cm_ops->comm_est(ch);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		/* A QP on an SRQ failed and takes no more receives. */
		complete(&ch->last_wqe);
		break;
	case IB_EVENT_SQ_DRAINED:
		/* siw: its send queue was flushed; what failed reports itself. */
		break;
	default:
		pr_warn_ratelimited("%s: QP event %s\n", ch->sess_name,
				    ib_event_msg(ev->event));
		srpt_close_ch(ch);
		break;
	}
}

/*
 * Receive completions @ch's CQ may have to hold: one per buffer the QP can
 * take - on an SRQ all of them (an initiator ignoring its credits can),
 * and the CQ, maybe shared with other channels, must not overflow.
 */
static u32 srpt_ch_recv_cqes(struct srpt_rdma_ch *ch, u32 max_recv_wr)
{
	return ch->srq ? ch->srq->size : max_recv_wr;
}

/*
 * Send queue work requests that the data of the largest command needs
 * where rdma_rw uses no MRs: a page per SGE, as many SGEs per work request
 * as the QP takes (6 on siw), and a part-filled one per context.
 */
static u32 srpt_big_cmd_wrs(struct ib_device *dev)
{
	u32 sge = max3(dev->attrs.max_sge_rd, dev->attrs.max_send_sge, 1);

	return DIV_ROUND_UP(SRPT_MAX_DATA_LEN / PAGE_SIZE, sge) + SRPT_MAX_RW;
}

/*
 * The QP of a new channel, sharing the CQ ch->cq; @extra_wrs more send
 * queue work requests than a response slot per credit.
 */
static void srpt_qp_init_attr(struct srpt_rdma_ch *ch,
			      struct ib_qp_init_attr *attr, u32 extra_wrs)
{
	struct ib_device *dev = ch->sport->sdev->ib_dev;
	u32 factor;

	factor = rdma_rw_mr_factor(dev, ch->sport->port_num,
				   DIV_ROUND_UP(ch->rw_size, PAGE_SIZE));
	memset(attr, 0, sizeof(*attr));
	attr->event_handler = srpt_qp_event;
	attr->qp_context = ch;
	attr->send_cq = ch->cq;
	attr->recv_cq = ch->cq;
	attr->cap.max_send_wr = min_t(u32, ch->sq_size + extra_wrs,
				      dev->attrs.max_qp_wr);
	attr->cap.max_send_sge = max(dev->attrs.max_sge_rd,
				     dev->attrs.max_send_sge);
	if (ch->srq) {
		attr->srq = ch->srq->srq;
	} else {
		attr->cap.max_recv_wr = ch->rq_size + 1;
		attr->cap.max_recv_sge = 1;
	}
	attr->cap.max_rdma_ctxs = max_t(u32, ch->sq_size, SRPT_MIN_RW_CTXS) *
				  factor;
	attr->sq_sig_type = IB_SIGNAL_REQ_WR;
	attr->qp_type = IB_QPT_RC;
	attr->port_num = ch->sport->port_num;
}

/*
 * Create the CQ and the QP of a new channel.
 *
 * RDMA contexts: one of rw_size (SRPT_RW_SIZE) per response slot, at
 * least SRPT_MIN_RW_CTXS, so that the largest command (SRPT_MAX_DATA_LEN,
 * in descriptors that need a part context each) fits in the send queue
 * and the MR pool at once. A command holds its contexts only while its
 * data moves (on iWARP an RDMA READ needs MRs from this pool); commands
 * that find the pool empty wait for it.
 *
 * The CQ needs an entry per work request of the QP, signaled or not: when
 * the QP fails each may complete (siw flushes every RDMA and MR
 * registration WR into the CQ and, once it is full, leaves the rest
 * without a completion). The send queue's size is known once the QP
 * exists (rdma_rw adds room for its contexts, more with MRs): if the first
 * CQ is too small for it, the QP is made again with a right-sized CQ; so
 * it is if the send queue cannot take the largest command's data beside a
 * response per credit (siw: 64 MiB of 6-page RDMA WRITEs are 2731 WRs,
 * uncounted by rdma_rw), unless srp_sq_size is below its default.
 */
static int srpt_create_qp(struct srpt_rdma_ch *ch, struct srpt_login_ctx *lc)
{
	struct ib_device *dev = ch->sport->sdev->ib_dev;
	struct ib_qp_init_attr attr;
	u32 need, cq_size = 2 * ch->rq_size + 1 +
			   srpt_ch_recv_cqes(ch, ch->rq_size + 1);
	u32 extra = 0, big = 0;
	bool again = false;
	int ret;

	/* An admin who made srp_sq_size smaller asked for less. */
	if (READ_ONCE(ch->stpg->attrib.sq_size) >= SRPT_DEF_SQ_SIZE)
		big = srpt_big_cmd_wrs(dev);
	for (;;) {
		ch->cq = ib_cq_pool_get(dev, cq_size, -1, IB_POLL_WORKQUEUE);
		if (IS_ERR(ch->cq)) {
			ret = PTR_ERR(ch->cq);
			pr_warn("%s: no CQ with %u entries: %d\n",
				ch->sess_name, cq_size, ret);
			ch->cq = NULL;
			return ret;
		}
		ch->cq_size = cq_size;
		srpt_res_add(SRPT_RES_CQ_ENTRIES, cq_size);
		srpt_qp_init_attr(ch, &attr, extra);
		ret = lc->ops->create_qp(ch, &attr);
		if (ret) {
			pr_warn("%s: QP creation failed: %d\n", ch->sess_name,
				ret);
			return ret;
		}
		/* The slots of the drain work requests are in there. */
		need = attr.cap.max_send_wr +
		       srpt_ch_recv_cqes(ch, attr.cap.max_recv_wr);
		if (again || (need <= ch->cq_size &&
			      attr.cap.max_send_wr >= ch->sq_size + big + 1))
			break;
		lc->ops->destroy_qp(ch);
		ib_cq_pool_put(ch->cq, ch->cq_size);
		srpt_res_add(SRPT_RES_CQ_ENTRIES, -(long)ch->cq_size);
		if (attr.cap.max_send_wr < ch->sq_size + big + 1) {
			extra = big + 1;
			need += big + 1;
		}
		cq_size = need;
		again = true;
	}
	/* One send slot stays free for ib_drain_qp(). */
	ch->sq_wr_total = attr.cap.max_send_wr - 1;
	atomic_set(&ch->sq_wr_avail, ch->sq_wr_total);
	return 0;
}

/**
 * srpt_ch_alloc() - a new channel for a login
 * @lc: the login, with its TPG chosen
 *
 * On the channel list from the start (srpt_ch_list_add()).
 *
 * Return: the channel, or NULL (no memory).
 */
struct srpt_rdma_ch *srpt_ch_alloc(struct srpt_login_ctx *lc)
{
	struct srpt_tpg *stpg = lc->stpg;
	struct srpt_rdma_ch *ch;

	ch = kzalloc(sizeof(*ch), GFP_KERNEL);
	if (!ch)
		return NULL;
	srpt_res_add(SRPT_RES_CHANNELS, 1);
	ch->sport = lc->sport;
	ch->stpg = stpg;
	ch->cm_ops = lc->ops;
	ch->rdma_cm = lc->rdma_cm;
	ch->ib_cm = lc->ib_cm;
	refcount_set(&ch->ref, 1);	/* the release's */
	spin_lock_init(&ch->lock);
	spin_lock_init(&ch->post_lock);
	ch->state = SRPT_CH_NEW;
	INIT_LIST_HEAD(&ch->iu_wait);
	INIT_LIST_HEAD(&ch->sq_wait);
	INIT_LIST_HEAD(&ch->post_failed);
	INIT_LIST_HEAD(&ch->rsp_wait);
	INIT_LIST_HEAD(&ch->free_cmds);
	INIT_LIST_HEAD(&ch->cmd_chunks);
	init_completion(&ch->last_wqe);
	init_completion(&ch->sess_closed);
	ch->logout_reason = -1;
	init_completion(&ch->logout_sent);
	INIT_WORK(&ch->release_work, srpt_release_ch_work);
	INIT_DELAYED_WORK(&ch->rtu_timeout, srpt_rtu_timeout_work);
	memcpy(ch->i_port_id, lc->lg.i_port_id, 16);
	memcpy(ch->t_port_id, lc->lg.t_port_id, 16);
	strscpy(ch->peer, lc->peer, sizeof(ch->peer));
	strscpy(ch->sess_name, lc->acl_name, sizeof(ch->sess_name));
	ch->rq_size = min_t(u32, READ_ONCE(stpg->attrib.credits),
			    lc->ib_dev->attrs.max_qp_wr / 4);
	atomic_set(&ch->req_lim, ch->rq_size);
	/* A response slot per credit, unless srp_sq_size says fewer. */
	ch->sq_size = min(max_t(u32, READ_ONCE(stpg->attrib.sq_size),
				SRPT_MIN_SEND_WRS), ch->rq_size + 1);
	ch->max_req_size = lc->lg.req_it_iu_len;
	ch->max_rsp_size = READ_ONCE(stpg->attrib.max_rsp_size);
	/* Whole pages, at most SRPT_RW_SIZE. */
	ch->rw_size = round_down(READ_ONCE(srpt_rw_size_dbg), PAGE_SIZE);
	ch->rw_size = clamp_t(u32, ch->rw_size, PAGE_SIZE, SRPT_RW_SIZE);
	if ((lc->lg.req_flags & SRP_IMMED_REQUESTED) &&
	    lc->lg.imm_data_offset >= SRPT_CMD_FIXED_LEN + 4 &&
	    lc->lg.imm_data_offset < ch->max_req_size)
		ch->imm_data_offset = lc->lg.imm_data_offset;
	srpt_ch_list_add(ch);
	return ch;
}

/**
 * srpt_ch_setup() - QP, buffers and the LIO session of a new channel
 * @ch: channel of srpt_ch_alloc()
 * @lc: its login; lc->why says what failed
 *
 * Return: 0, or the SRP_LOGIN_REJ reason.
 */
u32 srpt_ch_setup(struct srpt_rdma_ch *ch, struct srpt_login_ctx *lc)
{
	srpt_ch_use_srq(ch);
	if (srpt_create_qp(ch, lc) || srpt_alloc_ch_bufs(ch)) {
		strscpy(lc->why, "no QP, CQ or buffers for the channel",
			sizeof(lc->why));
		return SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	}
	ch->sess = target_setup_session(&ch->stpg->se_tpg, 0, 0,
					TARGET_PROT_NORMAL, ch->sess_name, ch,
					NULL);
	if (IS_ERR(ch->sess)) {
		snprintf(lc->why, sizeof(lc->why),
			 "LIO session setup failed: %ld", PTR_ERR(ch->sess));
		ch->sess = NULL;
		/* -EACCES: the ACL went away since srpt_login_pick_tpg(). */
		return SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
	}
	srpt_res_add(SRPT_RES_SESSIONS, 1);
	return 0;
}

/**
 * srpt_cm_rtu_recv() - the connection is established: CONNECTING -> LIVE
 * @ch: channel
 *
 * From the RTU (IB CM) or ESTABLISHED (RDMA/CM) event, also raised when
 * the first IU beats the RTU (COMM_EST). A channel closed meanwhile stays
 * closed; its release may now send its DREQ (srpt_cm_end()).
 */
void srpt_cm_rtu_recv(struct srpt_rdma_ch *ch)
{
	pr_debug("%s: connection established\n", ch->sess_name);
	srpt_ch_go_live(ch);
	srpt_cm_settle(ch);
}

/**
 * srpt_cm_closed() - the CM ended the connection or gave up on it
 * @ch: channel
 * @why: the CM event, for the debug log
 *
 * DREQ, REJ, REP or RTU timeout, device or address gone: close @ch.
 */
void srpt_cm_closed(struct srpt_rdma_ch *ch, const char *why)
{
	pr_debug("%s: %s\n", ch->sess_name, why);
	srpt_cm_settle(ch);
	srpt_close_ch(ch);
}

/**
 * srpt_ch_login_done() - the login is done with its channel
 * @ch: channel in state NEW
 * @accepted: the CM accepted the connection
 *
 * An accepted channel gets its RTU timeout; then srpt_ch_setup_done().
 * The login must not touch @ch afterwards.
 */
void srpt_ch_login_done(struct srpt_rdma_ch *ch, bool accepted)
{
	if (accepted) {
		srpt_fault_delay(SRPT_FAULT_LOGIN);
		ch->rtu_timeout_s = max(READ_ONCE(srpt_rtu_timeout_s), 1U);
		schedule_delayed_work(&ch->rtu_timeout,
				      ch->rtu_timeout_s * HZ);
	}
	srpt_ch_setup_done(ch, accepted);
}
