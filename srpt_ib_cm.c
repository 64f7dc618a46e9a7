// SPDX-License-Identifier: GPL-2.0
/*
 * The IB CM side: a listener per RDMA device on service ID
 * srpt_service_guid, logins (the 64-byte SRP_LOGIN_REQ of a CM REQ) handed
 * to srpt_login(), and channels' IB CM operations and events. Linux ib_srp
 * and srp_daemon log in so on InfiniBand; on RoCE too, with a GRH path.
 *
 * The QP goes through INIT (at creation, to post receive buffers), RTR and
 * RTS before the REP: the initiator may send its first IU right after its
 * RTU. The CM keeps the REP's starting PSN as the QP's receive PSN, so RTR
 * takes the PSN the REP will carry.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/random.h>
#include <rdma/ib_cm.h>
#include "srpt_ib_cm.h"
#include "srpt_ch.h"
#include "srpt_login.h"
#include "srpt_proto.h"

/* Prepare @qa for moving ch->qp to @state as the CM says; mask in @mask. */
static int srpt_ib_qp_attr(struct srpt_rdma_ch *ch, struct ib_qp_attr *qa,
			   enum ib_qp_state state, int *mask)
{
	memset(qa, 0, sizeof(*qa));
	qa->qp_state = state;
	return ib_cm_init_qp_attr(ch->ib_cm, qa, mask);
}

static void srpt_ib_destroy_qp(struct srpt_rdma_ch *ch)
{
	ib_destroy_qp(ch->qp);
	ch->qp = NULL;
}

static int srpt_ib_create_qp(struct srpt_rdma_ch *ch,
			     struct ib_qp_init_attr *attr)
{
	struct ib_qp_attr qa;
	struct ib_qp *qp;
	int mask, ret;

	qp = ib_create_qp(ch->sport->sdev->pd, attr);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ch->qp = qp;
	ret = srpt_ib_qp_attr(ch, &qa, IB_QPS_INIT, &mask);
	if (!ret)
		ret = ib_modify_qp(qp, &qa, mask);
	if (ret)
		srpt_ib_destroy_qp(ch);
	return ret;
}

/* RTR with the REP's PSN, RDMA READ depth and RNR NAK timer, then RTS. */
static int srpt_ib_ready_qp(struct srpt_rdma_ch *ch,
			    const struct ib_cm_rep_param *rep)
{
	struct ib_qp_attr qa;
	int mask, ret;

	ret = srpt_ib_qp_attr(ch, &qa, IB_QPS_RTR, &mask);
	if (ret)
		return ret;
	qa.rq_psn = rep->starting_psn;
	qa.max_dest_rd_atomic = rep->responder_resources;
	/* The CM asks for 0, 655.36 ms per RNR NAK (an empty SRQ). */
	if (mask & IB_QP_MIN_RNR_TIMER)
		qa.min_rnr_timer = SRPT_MIN_RNR_TIMER;
	ret = ib_modify_qp(ch->qp, &qa, mask);
	if (ret)
		return ret;
	ret = srpt_ib_qp_attr(ch, &qa, IB_QPS_RTS, &mask);
	if (ret)
		return ret;
	qa.max_rd_atomic = rep->initiator_depth;
	return ib_modify_qp(ch->qp, &qa, mask);
}

static int srpt_ib_accept(struct srpt_rdma_ch *ch, struct srpt_login_ctx *lc,
			  const void *rsp, u8 len)
{
	const struct ib_device_attr *a = &ch->sport->sdev->ib_dev->attrs;
	const struct ib_cm_req_event_param *req = lc->ib_req;
	struct ib_cm_rep_param rep = {
		.qp_num = ch->qp->qp_num,
		.starting_psn = get_random_u32() & 0xffffff,
		.private_data = rsp,
		.private_data_len = len,
		/* The CM already swapped these to our point of view. */
		.responder_resources = min_t(int, req->responder_resources,
					     a->max_qp_rd_atom),
		.initiator_depth = min_t(int, req->initiator_depth,
					 a->max_qp_init_rd_atom),
		.flow_control = 1,
		.rnr_retry_count = 7,
		/* The REP's SRQ bit, as the RDMA/CM sets it for its QPs. */
		.srq = !!ch->srq,
	};
	int ret;

	ret = srpt_ib_ready_qp(ch, &rep);
	if (ret)
		return ret;
	/* Later events of the id are the channel's. */
	ch->ib_cm->context = ch;
	return ib_send_cm_rep(ch->ib_cm, &rep);
}

static void srpt_ib_reject(struct srpt_login_ctx *lc, const void *rej, u8 len)
{
	ib_send_cm_rej(lc->ib_cm, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, rej,
		       len);
}

static void srpt_ib_comm_est(struct srpt_rdma_ch *ch)
{
	ib_cm_notify(ch->ib_cm, IB_EVENT_COMM_EST);
}

static void srpt_ib_disconnect(struct srpt_rdma_ch *ch)
{
	ib_send_cm_dreq(ch->ib_cm, NULL, 0);
}

static void srpt_ib_destroy(struct srpt_rdma_ch *ch)
{
	/* The QP first: its events use the CM id. */
	if (ch->qp)
		srpt_ib_destroy_qp(ch);
	/* Waits for a callback of the id still running (the login's). */
	ib_destroy_cm_id(ch->ib_cm);
	ch->ib_cm = NULL;
}

static const struct srpt_cm_ops srpt_ib_cm_ops = {
	.name		= "ib_cm",
	.create_qp	= srpt_ib_create_qp,
	.destroy_qp	= srpt_ib_destroy_qp,
	.accept		= srpt_ib_accept,
	.reject		= srpt_ib_reject,
	.comm_est	= srpt_ib_comm_est,
	.disconnect	= srpt_ib_disconnect,
	.destroy	= srpt_ib_destroy,
};

static int srpt_ib_cm_req_recv(struct ib_cm_id *cm_id,
			       const struct ib_cm_event *ev)
{
	const struct ib_cm_req_event_param *req = &ev->param.req_rcvd;
	struct srpt_login_ctx lc = {
		.ib_dev = cm_id->device,
		.port_num = req->port,
		.ops = &srpt_ib_cm_ops,
		.ib_cm = cm_id,
		.ib_req = req,
	};
	struct srp_login_rej rej;

	if (srpt_parse_login_ib(ev->private_data, IB_CM_REQ_PRIVATE_DATA_SIZE,
				&lc.lg)) {
		pr_warn_ratelimited("IB CM REQ on %s port %u without SRP_LOGIN_REQ\n",
				    dev_name(&cm_id->device->dev), req->port);
		srpt_build_login_rej(&rej, 0,
				     SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
		srpt_ib_reject(&lc, &rej, sizeof(rej));
		return -ECONNREFUSED;
	}
	/* The CM gives the paths as we see them: dgid is the initiator's. */
	snprintf(lc.peer, sizeof(lc.peer), "%pI6", req->primary_path->dgid.raw);
	return srpt_login(&lc);
}

/*
 * The handler of all our ids: listeners (no events) and new REQs' (context
 * NULL until the login accepts), and channels' (context: the channel). A
 * non-zero return makes the CM destroy the id: only for a REQ no channel took.
 */
static int srpt_ib_cm_handler(struct ib_cm_id *cm_id,
			      const struct ib_cm_event *ev)
{
	struct srpt_rdma_ch *ch = cm_id->context;

	if (ev->event == IB_CM_REQ_RECEIVED)
		return srpt_ib_cm_req_recv(cm_id, ev);
	if (!ch)
		return 0;
	switch (ev->event) {
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		srpt_cm_rtu_recv(ch);
		break;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(cm_id, NULL, 0);
		srpt_cm_closed(ch, "DREQ received");
		break;
	case IB_CM_REP_ERROR:
		srpt_cm_closed(ch, "no RTU for the REP");
		break;
	case IB_CM_REJ_RECEIVED:
		srpt_cm_closed(ch, "REJ received");
		break;
	case IB_CM_DREQ_ERROR:
	case IB_CM_DREP_RECEIVED:
	case IB_CM_TIMEWAIT_EXIT:
		srpt_cm_closed(ch, "disconnected");
		break;
	case IB_CM_LAP_RECEIVED:
		/* No API answers it: the initiator's LAP times out. */
		pr_info_ratelimited("%s: path migration (LAP) is not supported; ignored\n",
				    ch->sess_name);
		break;
	default:
		break;
	}
	return 0;
}

/**
 * srpt_ib_cm_listen() - listen for IB CM logins on a device
 * @sdev: device; its IOC GUID is the service ID
 *
 * Context: the IB client's add(). Without a listener (service ID taken,
 * e.g. by the in-kernel ib_srpt) the device serves RDMA/CM logins only.
 */
void srpt_ib_cm_listen(struct srpt_device *sdev)
{
	struct ib_cm_id *id;
	bool ib_cm = false;
	int ret;
	u32 i;

	/* iWARP devices have no IB CM. */
	for (i = 0; i < sdev->port_cnt; i++)
		ib_cm |= rdma_cap_ib_cm(sdev->ib_dev, sdev->port[i].port_num);
	if (!ib_cm)
		return;
	id = ib_create_cm_id(sdev->ib_dev, srpt_ib_cm_handler, NULL);
	if (IS_ERR(id)) {
		ret = PTR_ERR(id);
		goto fail;
	}
	ret = ib_cm_listen(id, sdev->ioc_guid);
	if (ret) {
		ib_destroy_cm_id(id);
		goto fail;
	}
	sdev->cm_id = id;
	return;
fail:
	pr_warn("%s: no IB CM listener on service ID %016llx: %d\n",
		dev_name(&sdev->ib_dev->dev), be64_to_cpu(sdev->ioc_guid),
		ret);
}

/**
 * srpt_ib_cm_unlisten() - stop listening for IB CM logins on a device
 * @sdev: device
 *
 * Logins whose REQ is being handled still go to srpt_login(), which finds
 * the device gone once srpt_dev_unregister() took it off its list.
 */
void srpt_ib_cm_unlisten(struct srpt_device *sdev)
{
	if (sdev->cm_id)
		ib_destroy_cm_id(sdev->cm_id);
	sdev->cm_id = NULL;
}
