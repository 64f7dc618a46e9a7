// SPDX-License-Identifier: GPL-2.0
/*
 * The Device Management agent: answers the DM MADs (class 0x06) srp_daemon
 * and ibsrpdm send to find SRP targets. Each RDMA device is an I/O unit
 * with one I/O controller in slot 1, whose one service is the SRP target
 * ("SRP.T10:" + id_ext, service ID = IOC GUID). On every port with MADs
 * (InfiniBand; RoCE, answered over the GSI QP with a GRH); on InfiniBand,
 * PortInfo's IsDeviceManagementSupported tells the SM of the agent.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <rdma/ib_mad.h>
#include "srpt_dm.h"
#include "srpt_ch.h"
#include "srpt_login.h"

#define SRPT_DM_CLASS_VERSION	1
#define SRPT_DM_RESP_TIME	20	/* 4.096 us * 2^20 = 4.3 s */

enum {
	SRPT_DM_ATTR_CLASS_PORT_INFO	= 0x0001,
	SRPT_DM_ATTR_IOU_INFO		= 0x0010,
	SRPT_DM_ATTR_IOC_PROFILE	= 0x0011,
	SRPT_DM_ATTR_SVC_ENTRIES	= 0x0012,
};

/* The one I/O controller slot, and its one service entry. */
#define SRPT_DM_SLOT		1
#define SRPT_DM_N_SERVICES	1

/* A DM MAD: 24-byte MAD header, 40 reserved bytes, 192 bytes of data. */
struct srpt_dm_mad {
	struct ib_mad_hdr	hdr;
	u8			reserved[IB_MGMT_DEVICE_HDR - 24];
	u8			data[IB_MGMT_DEVICE_DATA];
};

/* IOUnitInfo: one slot per nibble, slot 1 in the high nibble of byte 0. */
struct srpt_iou_info {
	__be16	change_id;
	u8	max_controllers;
	u8	flags;
	u8	controller_list[128];
};

struct srpt_ioc_profile {
	__be64	guid;
	__be32	vendor_id;		/* 24 bits, in the top */
	__be32	device_id;
	__be16	device_version;
	__be16	reserved1;
	__be32	subsys_vendor_id;	/* 24 bits, in the top */
	__be32	subsys_device_id;
	__be16	io_class;
	__be16	io_subclass;
	__be16	protocol;
	__be16	protocol_version;
	__be32	reserved2;
	__be16	send_queue_depth;
	u8	reserved3;
	u8	rdma_read_depth;
	__be32	send_size;
	__be32	rdma_size;
	u8	op_cap_mask;
	u8	svc_cap_mask;
	u8	num_svc_entries;
	u8	reserved4[9];
	u8	id_string[64];
};

struct srpt_svc_entry {
	u8	name[40];
	__be64	id;
} __packed;

/* IOControllerProfile values of an SRP target (SRP r16a annex B). */
#define SRPT_IO_CLASS		0x0100
#define SRPT_IO_SUBCLASS	0x609e
#define SRPT_PROTOCOL		0x0108
#define SRPT_PROTOCOL_VERSION	0x0001
/* Send to / from, RDMA read from, RDMA write from the initiator. */
#define SRPT_OP_CAP		0x2b

static u16 srpt_dm_ioc_profile(struct srpt_port *sport, u32 slot,
			       struct srpt_dm_mad *rsp)
{
	const struct ib_device_attr *a = &sport->sdev->ib_dev->attrs;
	struct srpt_ioc_profile *p = (void *)rsp->data;

	if (slot != SRPT_DM_SLOT)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	p->guid = sport->sdev->ioc_guid;
	p->vendor_id = cpu_to_be32(a->vendor_id << 8);
	p->device_id = cpu_to_be32(a->vendor_part_id);
	p->device_version = cpu_to_be16(a->hw_ver);
	p->subsys_vendor_id = cpu_to_be32(a->vendor_id << 8);
	p->subsys_device_id = cpu_to_be32(a->vendor_part_id);
	p->io_class = cpu_to_be16(SRPT_IO_CLASS);
	p->io_subclass = cpu_to_be16(SRPT_IO_SUBCLASS);
	p->protocol = cpu_to_be16(SRPT_PROTOCOL);
	p->protocol_version = cpu_to_be16(SRPT_PROTOCOL_VERSION);
	p->send_queue_depth = cpu_to_be16(SRPT_MAX_CREDITS);
	p->rdma_read_depth = min_t(int, a->max_qp_init_rd_atom, U8_MAX);
	p->send_size = cpu_to_be32(srpt_max_req_size());
	p->rdma_size = cpu_to_be32(srpt_port_max_rdma_size(sport));
	p->op_cap_mask = SRPT_OP_CAP;
	p->num_svc_entries = SRPT_DM_N_SERVICES;
	snprintf(p->id_string, sizeof(p->id_string), "SRP target (LIO ib_srpt) on %s",
		 dev_name(&sport->sdev->ib_dev->dev));
	return 0;
}

/* Modifier: slot in bits 31..16, last entry in 15..8, first in 7..0. */
static u16 srpt_dm_svc_entries(struct srpt_port *sport, u32 mod,
			       struct srpt_dm_mad *rsp)
{
	struct srpt_svc_entry *e = (void *)rsp->data;
	u32 slot = mod >> 16, last = (mod >> 8) & 0xff, first = mod & 0xff;

	if (slot != SRPT_DM_SLOT || first > last ||
	    last >= SRPT_DM_N_SERVICES)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	snprintf(e->name, sizeof(e->name), "SRP.T10:%016llx",
		 be64_to_cpu(sport->sdev->ioc_guid));
	e->id = sport->sdev->ioc_guid;
	return 0;
}

/* Fill the GetResp for request @req into @rsp; return the MAD status. */
static u16 srpt_dm_answer(struct srpt_port *sport,
			  const struct srpt_dm_mad *req,
			  struct srpt_dm_mad *rsp)
{
	struct ib_class_port_info *cpi = (void *)rsp->data;
	struct srpt_iou_info *iou = (void *)rsp->data;
	u32 mod = be32_to_cpu(req->hdr.attr_mod);

	if (req->hdr.method == IB_MGMT_METHOD_SET)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	if (req->hdr.method != IB_MGMT_METHOD_GET)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD;
	switch (be16_to_cpu(req->hdr.attr_id)) {
	case SRPT_DM_ATTR_CLASS_PORT_INFO:
		cpi->base_version = IB_MGMT_BASE_VERSION;
		cpi->class_version = SRPT_DM_CLASS_VERSION;
		ib_set_cpi_resp_time(cpi, SRPT_DM_RESP_TIME);
		return 0;
	case SRPT_DM_ATTR_IOU_INFO:
		iou->max_controllers = SRPT_DM_SLOT;
		iou->controller_list[0] = 0x10;	/* slot 1: controller present */
		return 0;
	case SRPT_DM_ATTR_IOC_PROFILE:
		return srpt_dm_ioc_profile(sport, mod, rsp);
	case SRPT_DM_ATTR_SVC_ENTRIES:
		return srpt_dm_svc_entries(sport, mod, rsp);
	default:
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	}
}

static void srpt_dm_send_done(struct ib_mad_agent *agent,
			      struct ib_mad_send_wc *wc)
{
	rdma_destroy_ah(wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(wc->send_buf);
}

static void srpt_dm_recv(struct ib_mad_agent *agent,
			 struct ib_mad_send_buf *send_buf,
			 struct ib_mad_recv_wc *rwc)
{
	const struct srpt_dm_mad *req = (void *)rwc->recv_buf.mad;
	struct ib_mad_send_buf *sb;
	struct srpt_dm_mad *rsp;
	struct ib_ah *ah;

	ah = ib_create_ah_from_wc(agent->qp->pd, rwc->wc, rwc->recv_buf.grh,
				  agent->port_num);
	if (IS_ERR(ah))
		goto out;
	sb = ib_create_send_mad(agent, rwc->wc->src_qp, rwc->wc->pkey_index,
				0, IB_MGMT_DEVICE_HDR, IB_MGMT_DEVICE_DATA,
				GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(sb)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		goto out;
	}
	sb->ah = ah;
	rsp = sb->mad;
	rsp->hdr = req->hdr;
	rsp->hdr.method = IB_MGMT_METHOD_GET_RESP;
	rsp->hdr.status = cpu_to_be16(srpt_dm_answer(agent->context, req,
						     rsp));
	if (ib_post_send_mad(sb, NULL)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		ib_free_send_mad(sb);
	}
out:
	ib_free_recv_mad(rwc);
}

/* Advertise the agent in PortInfo (InfiniBand ports only). */
static void srpt_dm_set_cap(struct srpt_port *sport, bool set)
{
	struct ib_port_modify pm = {};
	struct ib_device *dev = sport->sdev->ib_dev;

	if (rdma_port_get_link_layer(dev, sport->port_num) !=
	    IB_LINK_LAYER_INFINIBAND)
		return;
	if (set)
		pm.set_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
	else
		pm.clr_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
	if (ib_modify_port(dev, sport->port_num, 0, &pm))
		pr_warn("%s port %u: cannot %s IsDeviceManagementSupported\n",
			dev_name(&dev->dev), sport->port_num,
			set ? "set" : "clear");
	else
		sport->dm_cap = set;
}

/**
 * srpt_dm_port_refresh() - set the port's capability bit again
 * @sport: port
 *
 * An SM that changed, lost state or asks clients to re-register, or a
 * port coming up, may have lost the port's capability mask.
 */
void srpt_dm_port_refresh(struct srpt_port *sport)
{
	if (sport->mad_agent)
		srpt_dm_set_cap(sport, true);
}

/**
 * srpt_dm_register() - start the DM agent on every port of a device
 * @sdev: device
 */
void srpt_dm_register(struct srpt_device *sdev)
{
	struct ib_mad_reg_req req = {
		.mgmt_class = IB_MGMT_CLASS_DEVICE_MGMT,
		.mgmt_class_version = SRPT_DM_CLASS_VERSION,
	};
	struct ib_mad_agent *agent;
	struct srpt_port *sport;
	u32 i;

	set_bit(IB_MGMT_METHOD_GET, req.method_mask);
	set_bit(IB_MGMT_METHOD_SET, req.method_mask);
	for (i = 0; i < sdev->port_cnt; i++) {
		sport = &sdev->port[i];
		if (!rdma_cap_ib_mad(sdev->ib_dev, sport->port_num))
			continue;
		agent = ib_register_mad_agent(sdev->ib_dev, sport->port_num,
					      IB_QPT_GSI, &req, 0,
					      srpt_dm_send_done, srpt_dm_recv,
					      sport, 0);
		if (IS_ERR(agent)) {
			pr_warn("%s port %u: no DM agent: %ld\n",
				dev_name(&sdev->ib_dev->dev), sport->port_num,
				PTR_ERR(agent));
			continue;
		}
		sport->mad_agent = agent;
		srpt_dm_set_cap(sport, true);
	}
}

/**
 * srpt_dm_unregister() - stop the DM agents of a device
 * @sdev: device
 */
void srpt_dm_unregister(struct srpt_device *sdev)
{
	struct srpt_port *sport;
	u32 i;

	for (i = 0; i < sdev->port_cnt; i++) {
		sport = &sdev->port[i];
		if (sport->dm_cap)
			srpt_dm_set_cap(sport, false);
		if (sport->mad_agent)
			ib_unregister_mad_agent(sport->mad_agent);
		sport->mad_agent = NULL;
	}
}
