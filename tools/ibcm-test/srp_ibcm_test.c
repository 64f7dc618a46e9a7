// SPDX-License-Identifier: GPL-2.0
/*
 * srp_ibcm_test - a test SRP initiator that logs in over the IB CM.
 *
 * Linux ib_srp needs an SA path query to use the IB CM, and RoCE has no SA.
 * This module builds the RoCE path record by hand (as the RDMA/CM does for
 * RoCE), sends an IB CM REQ carrying an SRP_LOGIN_REQ and then runs simple
 * SCSI commands over the connection, so that the IB CM listener of an SRP
 * target can be tested on soft-RoCE.
 *
 * Control: write one command line to /sys/kernel/debug/srp_ibcm_test/cmd;
 * the write runs it synchronously (bounded by a timeout) and a read of the
 * same file returns the one-line result.  Commands and results are listed
 * in tools/ibcm-test/README.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_sa.h>
#include <rdma/ib_verbs.h>
#include <scsi/scsi_proto.h>
#include <scsi/srp.h>

#define SIT_MAX_CH		8
#define SIT_RX_DEPTH		16	/* receive buffers per channel */
#define SIT_RX_SIZE		8192	/* largest MAX_TI_IU_LEN accepted */
#define SIT_NR_RSP_TX		4	/* CRED_RSP / AER_RSP send buffers */
#define SIT_TX_SIZE		128	/* SRP_CMD: 48 + one direct descriptor */
#define SIT_MAX_DATA		SZ_1M
#define SIT_BLOCK		512
#define SIT_RSP_COPY		256	/* bytes of an SRP_RSP kept for the waiter */
#define SIT_RES_LEN		256
#define SIT_LINE_MAX		512
#define SIT_DEF_TIMEOUT		10	/* seconds */
#define SIT_MAX_TIMEOUT		3600
#define SIT_PKEY_DEFAULT	0xffff
#define SIT_PACKET_LIFE		16	/* as the RDMA/CM for RoCE */
#define SIT_CM_TIMEOUT		20	/* default CM response timeouts */
#define SIT_MAX_CM_TIMEOUT	31	/* 5-bit REQ fields */
#define SIT_MAX_CM_RETRIES	15	/* 4-bit REQ field, also the default */
#define SIT_EARLY_WAIT		(2 * HZ)	/* early_iu: wait for the TUR */
#define SIT_HOP_LIMIT		64
#define SIT_RD_ATOMIC		4
#define SIT_INQ_LEN		96

enum sit_state {
	SIT_IDLE,
	SIT_CONNECTING,
	SIT_LIVE,
	SIT_DISCONNECTED,
};

static const char * const sit_state_names[] = {
	[SIT_IDLE]		= "idle",
	[SIT_CONNECTING]	= "connecting",
	[SIT_LIVE]		= "live",
	[SIT_DISCONNECTED]	= "disconnected",
};

/* What the login does with the REP (options no_rtu=1 and early_iu=1). */
enum sit_rep_mode {
	SIT_REP_RTU,		/* QP to RTR and RTS, RTU at once */
	SIT_REP_NO_RTU,		/* nothing: no RTU, the QP stays in INIT */
	SIT_REP_EARLY_IU,	/* RTR, RTS, a TUR, its response, then the RTU */
};

/**
 * struct sit_iu - a DMA-mapped buffer and the completion entry of its WR
 * @cqe: completion entry; @cqe.done handles the work request's completion.
 * @ch: channel the buffer belongs to.
 * @buf: kernel address of the buffer.
 * @dma: DMA address of @buf.
 * @size: size of @buf in bytes.
 * @dir: DMA direction of the mapping.
 */
struct sit_iu {
	struct ib_cqe cqe;
	struct sit_ch *ch;
	void *buf;
	u64 dma;
	size_t size;
	enum dma_data_direction dir;
};

/**
 * struct sit_ch - one test channel (slot ch=N)
 * @idx: slot number.
 * @mutex: serialises the commands on this channel and its teardown.
 * @lock: protects the fields from @state on (CM callback and CQ softirq).
 * @wq: woken whenever one of the fields under @lock changes.
 * @dev: RDMA device (a reference is held), NULL when idle.
 * @port: port number on @dev.
 * @pd: protection domain, allocated with an unsafe global rkey.
 * @cq: completion queue for sends and receives.
 * @qp: RC queue pair.
 * @cm_id: IB CM id of the connection.
 * @rx: receive buffers.
 * @cmd_tx: send buffer of SRP_CMD.
 * @rsp_tx: send buffers of CRED_RSP/AER_RSP, used round-robin.
 * @data: data buffer, described to the target by a direct descriptor.
 * @state: connection state.
 * @dev_name: name of @dev, for the state command.
 * @rep_mode: what the login does with the REP.
 * @rep_rcvd: a usable REP arrived and was left to the login command
 *	      (@rep_mode is not SIT_REP_RTU).
 * @early: early_iu: an SRP_CMD may run before the RTU (state connecting).
 * @cm_done: the login got its answer, @cm_result says which.
 * @cm_result: result line of the login.
 * @dreq_done: DREP, DREQ or timewait exit seen after our DREQ.
 * @by_target: the target disconnected (DREQ received).
 * @req_lim: request limit (credits).
 * @max_it_iu_len: MAX_IT_IU_LEN of the LOGIN_RSP.
 * @max_ti_iu_len: MAX_TI_IU_LEN of the LOGIN_RSP.
 * @rsp_tx_next: next @rsp_tx buffer to use.
 * @next_tag: tag of the next SRP_CMD.
 * @tag: tag of the outstanding SRP_CMD.
 * @cmd_pending: an SRP_CMD is waiting for its SRP_RSP.
 * @rsp_done: the SRP_RSP of @tag arrived, copied to @rsp.
 * @tx_done: the send of the SRP_CMD completed.
 * @tx_status: work completion status of that send.
 * @rsp_len: bytes in @rsp.
 * @rsp: the first bytes of the SRP_RSP.
 * @t_logout: number of SRP_T_LOGOUT received.
 * @t_logout_reason: reason of the last SRP_T_LOGOUT.
 * @cred_reqs: number of SRP_CRED_REQ received (and answered).
 * @aer_reqs: number of SRP_AER_REQ received (and answered).
 * @stale_rsps: SRP_RSPs for no outstanding command.
 * @unknown_ius: IUs with an unexpected opcode or length.
 * @rep_srq: the SRQ bit of the last REP (the target's QP receives from
 *	a shared receive queue).
 */
struct sit_ch {
	int idx;
	struct mutex mutex;	/* commands and teardown of this channel */
	spinlock_t lock;	/* fields from @state on */
	wait_queue_head_t wq;
	struct ib_device *dev;
	u32 port;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_cm_id *cm_id;
	struct sit_iu rx[SIT_RX_DEPTH];
	struct sit_iu cmd_tx;
	struct sit_iu rsp_tx[SIT_NR_RSP_TX];
	struct sit_iu data;

	enum sit_state state;
	char dev_name[IB_DEVICE_NAME_MAX];
	enum sit_rep_mode rep_mode;
	bool rep_rcvd;
	bool early;
	bool cm_done;
	char cm_result[SIT_RES_LEN];
	bool dreq_done;
	bool by_target;
	s32 req_lim;
	u32 max_it_iu_len;
	u32 max_ti_iu_len;
	unsigned int rsp_tx_next;
	u64 next_tag;
	u64 tag;
	bool cmd_pending;
	bool rsp_done;
	bool tx_done;
	enum ib_wc_status tx_status;
	u32 rsp_len;
	u8 rsp[SIT_RSP_COPY];
	u32 t_logout;
	u32 t_logout_reason;
	u32 cred_reqs;
	u32 aer_reqs;
	u32 stale_rsps;
	u32 unknown_ius;
	bool rep_srq;
};

/* Keys of the command options; each command accepts a subset. */
enum sit_key {
	SIT_K_CH, SIT_K_TIMEOUT, SIT_K_DEV, SIT_K_PORT, SIT_K_GID_INDEX,
	SIT_K_DGID, SIT_K_DMAC, SIT_K_SERVICE_ID, SIT_K_ID_EXT, SIT_K_IOC_GUID,
	SIT_K_INITIATOR_ID, SIT_K_IT_IU_LEN, SIT_K_REQ_FLAGS, SIT_K_BUF_FMT,
	SIT_K_OPCODE, SIT_K_PDATA_LEN, SIT_K_LUN, SIT_K_LBA, SIT_K_BLOCKS,
	SIT_K_PATTERN, SIT_K_CM_TIMEOUT, SIT_K_MAX_CM_RETRIES, SIT_K_NO_RTU,
	SIT_K_EARLY_IU, SIT_K_IMM_OFF, SIT_K_TAG, SIT_NR_KEYS
};

static const char * const sit_key_names[SIT_NR_KEYS] = {
	[SIT_K_CH] = "ch", [SIT_K_TIMEOUT] = "timeout", [SIT_K_DEV] = "dev",
	[SIT_K_PORT] = "port", [SIT_K_GID_INDEX] = "gid_index",
	[SIT_K_DGID] = "dgid", [SIT_K_DMAC] = "dmac",
	[SIT_K_SERVICE_ID] = "service_id", [SIT_K_ID_EXT] = "id_ext",
	[SIT_K_IOC_GUID] = "ioc_guid", [SIT_K_INITIATOR_ID] = "initiator_id",
	[SIT_K_IT_IU_LEN] = "it_iu_len", [SIT_K_REQ_FLAGS] = "req_flags",
	[SIT_K_BUF_FMT] = "buf_fmt", [SIT_K_OPCODE] = "opcode",
	[SIT_K_PDATA_LEN] = "pdata_len", [SIT_K_LUN] = "lun",
	[SIT_K_LBA] = "lba", [SIT_K_BLOCKS] = "blocks",
	[SIT_K_PATTERN] = "pattern", [SIT_K_CM_TIMEOUT] = "cm_timeout",
	[SIT_K_MAX_CM_RETRIES] = "max_cm_retries", [SIT_K_NO_RTU] = "no_rtu",
	[SIT_K_EARLY_IU] = "early_iu", [SIT_K_IMM_OFF] = "imm_off",
	[SIT_K_TAG] = "tag",
};

/**
 * struct sit_args - a parsed command line and its result
 * @seen: bit mask of the keys present.
 * @val: value string of each key present.
 * @timeout: timeout in jiffies.
 * @len: length of @res.
 * @res: result line (without the newline).
 */
struct sit_args {
	unsigned long seen;
	char *val[SIT_NR_KEYS];
	unsigned long timeout;
	size_t len;
	char res[SIT_RES_LEN];
};

/**
 * struct sit_login - parameters of a login command
 * @dev: RDMA device name.
 * @port: port number.
 * @gid_index: index of the source GID.
 * @dgid: destination GID.
 * @has_dmac: @dmac was given (else the source netdev's own MAC: loopback).
 * @dmac: destination MAC address.
 * @service_id: IB CM service ID.
 * @id_ext: first half of the target port ID.
 * @ioc_guid: second half of the target port ID.
 * @initiator_id: initiator port ID.
 * @it_iu_len: REQ_IT_IU_LEN.
 * @buf_fmt: REQ_BUF_FMT.
 * @req_flags: REQ_FLAGS (multichannel action in bits 1:0).
 * @opcode: opcode byte of the login request.
 * @imm_off: IMM_DATA_OFFSET (SRP-2; ask with req_flags bit 0x80).
 * @tag: tag of the login request.
 * @pdata_len: length of the REQ private data.
 * @cm_timeout: remote and local CM response timeout of the REQ.
 * @max_cm_retries: max CM retries of the REQ.
 * @rep_mode: what to do with the REP.
 */
struct sit_login {
	char dev[IB_DEVICE_NAME_MAX];
	u32 port;
	u32 gid_index;
	union ib_gid dgid;
	bool has_dmac;
	u8 dmac[ETH_ALEN];
	u64 service_id;
	u64 id_ext;
	u64 ioc_guid;
	u8 initiator_id[16];
	u32 it_iu_len;
	u16 buf_fmt;
	u8 req_flags;
	u8 opcode;
	u16 imm_off;
	u64 tag;
	u8 pdata_len;
	u8 cm_timeout;
	u8 max_cm_retries;
	enum sit_rep_mode rep_mode;
};

/**
 * struct sit_file - per open file: result of the last command written to it
 * @has_res: a command was written through this file.
 * @res: its result line, with the newline.
 */
struct sit_file {
	bool has_res;
	char res[SIT_RES_LEN + 1];
};

/**
 * struct sit_dev - an RDMA device known to our ib_client
 * @list: entry in sit_devs.
 * @dev: the device (no reference: it is valid until our remove() ran).
 */
struct sit_dev {
	struct list_head list;
	struct ib_device *dev;
};

static struct sit_ch sit_chs[SIT_MAX_CH];
static struct dentry *sit_dir;
static DEFINE_SPINLOCK(sit_last_lock);
static char sit_last[SIT_RES_LEN + 1] = "NONE\n";
static LIST_HEAD(sit_devs);
static DEFINE_MUTEX(sit_devs_mutex);

static __printf(2, 3) void sit_res(struct sit_args *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	a->len += vscnprintf(a->res + a->len, sizeof(a->res) - a->len, fmt, ap);
	va_end(ap);
}

/* Big-endian store of the low @n bytes of @v (no unaligned.h: moved in 6.12). */
static void sit_put_be(u8 *p, u64 v, int n)
{
	while (n--) {
		p[n] = v & 0xff;
		v >>= 8;
	}
}

static void sit_set_state(struct sit_ch *ch, enum sit_state state)
{
	lockdep_assert_held(&ch->lock);
	ch->state = state;
	wake_up_all(&ch->wq);
}

static enum sit_state sit_get_state(struct sit_ch *ch)
{
	return READ_ONCE(ch->state);
}

static bool sit_live(struct sit_ch *ch)
{
	return sit_get_state(ch) == SIT_LIVE;
}

/* ---------------------------------------------------------------------
 * Buffers, queues, teardown
 */

static int sit_iu_init(struct sit_ch *ch, struct sit_iu *iu, size_t size,
		       enum dma_data_direction dir,
		       void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	iu->buf = kzalloc(size, GFP_KERNEL | __GFP_NOWARN);
	if (!iu->buf)
		return -ENOMEM;
	iu->dma = ib_dma_map_single(ch->dev, iu->buf, size, dir);
	if (ib_dma_mapping_error(ch->dev, iu->dma)) {
		kfree(iu->buf);
		iu->buf = NULL;
		return -ENOMEM;
	}
	iu->size = size;
	iu->dir = dir;
	iu->ch = ch;
	iu->cqe.done = done;
	return 0;
}

static void sit_iu_free(struct sit_ch *ch, struct sit_iu *iu)
{
	if (!iu->buf)
		return;
	ib_dma_unmap_single(ch->dev, iu->dma, iu->size, iu->dir);
	kfree(iu->buf);
	iu->buf = NULL;
}

static void sit_free_ius(struct sit_ch *ch)
{
	int i;

	for (i = 0; i < SIT_RX_DEPTH; i++)
		sit_iu_free(ch, &ch->rx[i]);
	for (i = 0; i < SIT_NR_RSP_TX; i++)
		sit_iu_free(ch, &ch->rsp_tx[i]);
	sit_iu_free(ch, &ch->cmd_tx);
	sit_iu_free(ch, &ch->data);
}

/*
 * sit_release() - give up everything of a channel and make it idle.  The
 * cm_id goes first: ib_destroy_cm_id() sends a DREQ if the connection is
 * established and waits for running callbacks, so none runs afterwards.
 * Works on a partly set up channel.  Context: process, ch->mutex held.
 */
static void sit_release(struct sit_ch *ch)
{
	lockdep_assert_held(&ch->mutex);
	if (ch->cm_id) {
		ib_destroy_cm_id(ch->cm_id);
		ch->cm_id = NULL;
	}
	if (ch->qp) {
		ib_drain_qp(ch->qp);
		ib_destroy_qp(ch->qp);
		ch->qp = NULL;
	}
	if (ch->cq) {
		ib_free_cq(ch->cq);
		ch->cq = NULL;
	}
	if (ch->dev)
		sit_free_ius(ch);
	if (ch->pd) {
		ib_dealloc_pd(ch->pd);
		ch->pd = NULL;
	}
	if (ch->dev) {
		ib_device_put(ch->dev);
		ch->dev = NULL;
	}
	spin_lock_bh(&ch->lock);
	ch->dev_name[0] = '\0';
	ch->cmd_pending = false;
	sit_set_state(ch, SIT_IDLE);
	spin_unlock_bh(&ch->lock);
}

static void sit_qp_event(struct ib_event *ev, void *ctx)
{
	struct sit_ch *ch = ctx;

	pr_debug("ch%d: QP event %s (%d)\n", ch->idx,
		 ib_event_msg(ev->event), ev->event);
}

static void sit_recv_done(struct ib_cq *cq, struct ib_wc *wc);
static void sit_cmd_tx_done(struct ib_cq *cq, struct ib_wc *wc);
static void sit_rsp_tx_done(struct ib_cq *cq, struct ib_wc *wc);

static int sit_alloc_ius(struct sit_ch *ch)
{
	int i, ret;

	for (i = 0; i < SIT_RX_DEPTH; i++) {
		ret = sit_iu_init(ch, &ch->rx[i], SIT_RX_SIZE, DMA_FROM_DEVICE,
				  sit_recv_done);
		if (ret)
			return ret;
	}
	for (i = 0; i < SIT_NR_RSP_TX; i++) {
		ret = sit_iu_init(ch, &ch->rsp_tx[i], SIT_TX_SIZE,
				  DMA_TO_DEVICE, sit_rsp_tx_done);
		if (ret)
			return ret;
	}
	ret = sit_iu_init(ch, &ch->cmd_tx, SIT_TX_SIZE, DMA_TO_DEVICE,
			  sit_cmd_tx_done);
	if (ret)
		return ret;
	return sit_iu_init(ch, &ch->data, SIT_MAX_DATA, DMA_BIDIRECTIONAL,
			   NULL);
}

/* Create the RC QP and move it to INIT, as the active side does by hand. */
static int sit_create_qp(struct sit_ch *ch)
{
	struct ib_qp_init_attr init = {
		.event_handler	= sit_qp_event,
		.qp_context	= ch,
		.send_cq	= ch->cq,
		.recv_cq	= ch->cq,
		.cap = {
			/* +1 each for ib_drain_qp() */
			.max_send_wr	= 1 + SIT_NR_RSP_TX + 1,
			.max_recv_wr	= SIT_RX_DEPTH + 1,
			.max_send_sge	= 1,
			.max_recv_sge	= 1,
		},
		.sq_sig_type	= IB_SIGNAL_REQ_WR,
		.qp_type	= IB_QPT_RC,
		.port_num	= ch->port,
	};
	struct ib_qp_attr attr = {
		.qp_state	 = IB_QPS_INIT,
		.port_num	 = ch->port,
		.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE,
	};
	struct ib_qp *qp;
	int ret;

	ret = ib_find_cached_pkey(ch->dev, ch->port, SIT_PKEY_DEFAULT,
				  &attr.pkey_index);
	if (ret)
		return ret;
	qp = ib_create_qp(ch->pd, &init);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	ret = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_ACCESS_FLAGS | IB_QP_PORT);
	if (ret) {
		ib_destroy_qp(qp);
		return ret;
	}
	ch->qp = qp;
	return 0;
}

/* PD, CQ, QP (in INIT) and buffers; on failure sit_release() undoes. */
static int sit_alloc_res(struct sit_ch *ch, struct sit_args *a)
{
	struct ib_pd *pd;
	struct ib_cq *cq;
	int ret;

	pd = ib_alloc_pd(ch->dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(pd)) {
		sit_res(a, "ERROR ib_alloc_pd: %ld", PTR_ERR(pd));
		return PTR_ERR(pd);
	}
	ch->pd = pd;
	cq = ib_alloc_cq(ch->dev, ch, 2 * (SIT_RX_DEPTH + SIT_NR_RSP_TX + 2),
			 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(cq)) {
		sit_res(a, "ERROR ib_alloc_cq: %ld", PTR_ERR(cq));
		return PTR_ERR(cq);
	}
	ch->cq = cq;
	ret = sit_create_qp(ch);
	if (ret) {
		sit_res(a, "ERROR QP creation: %d", ret);
		return ret;
	}
	ret = sit_alloc_ius(ch);
	if (ret)
		sit_res(a, "ERROR buffer allocation: %d", ret);
	return ret;
}

/* ---------------------------------------------------------------------
 * Work requests and completions
 */

static int sit_post_recv(struct sit_ch *ch, struct sit_iu *iu)
{
	struct ib_sge sge = {
		.addr	= iu->dma,
		.length	= iu->size,
		.lkey	= ch->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &iu->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
	};

	return ib_post_recv(ch->qp, &wr, NULL);
}

static int sit_post_send(struct sit_ch *ch, struct sit_iu *iu, u32 len)
{
	struct ib_sge sge = {
		.addr	= iu->dma,
		.length	= len,
		.lkey	= ch->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe		= &iu->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
		.opcode		= IB_WR_SEND,
		.send_flags	= IB_SEND_SIGNALED,
	};

	ib_dma_sync_single_for_device(ch->dev, iu->dma, len, DMA_TO_DEVICE);
	return ib_post_send(ch->qp, &wr, NULL);
}

static void sit_cmd_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sit_iu *iu = container_of(wc->wr_cqe, struct sit_iu, cqe);
	struct sit_ch *ch = iu->ch;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		pr_info_ratelimited("ch%d: SRP_CMD send failed: %s\n", ch->idx,
				    ib_wc_status_msg(wc->status));
	spin_lock(&ch->lock);
	ch->tx_status = wc->status;
	ch->tx_done = true;
	spin_unlock(&ch->lock);
	wake_up_all(&ch->wq);
}

static void sit_rsp_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sit_iu *iu = container_of(wc->wr_cqe, struct sit_iu, cqe);

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		pr_info_ratelimited("ch%d: CRED_RSP/AER_RSP send failed: %s\n",
				    iu->ch->idx, ib_wc_status_msg(wc->status));
}

/* Answer a CRED_REQ or AER_REQ.  Context: CQ softirq. */
static void sit_answer(struct sit_ch *ch, u8 opcode, u64 tag)
{
	struct srp_cred_rsp *rsp;
	struct sit_iu *iu;
	int ret;

	spin_lock(&ch->lock);
	iu = &ch->rsp_tx[ch->rsp_tx_next++ % SIT_NR_RSP_TX];
	spin_unlock(&ch->lock);
	/* CRED_RSP and AER_RSP have the same layout: opcode and tag. */
	rsp = iu->buf;
	memset(rsp, 0, sizeof(*rsp));
	rsp->opcode = opcode;
	rsp->tag = tag;
	ret = sit_post_send(ch, iu, sizeof(*rsp));
	if (ret)
		pr_info_ratelimited("ch%d: cannot send opcode %#x: %d\n",
				    ch->idx, opcode, ret);
}

static void sit_handle_rsp(struct sit_ch *ch, const void *buf, u32 len)
{
	const struct srp_rsp *rsp = buf;

	spin_lock(&ch->lock);
	ch->req_lim += (s32)be32_to_cpu(rsp->req_lim_delta);
	if (ch->cmd_pending && !ch->rsp_done && rsp->tag == ch->tag) {
		ch->rsp_len = min_t(u32, len, SIT_RSP_COPY);
		memcpy(ch->rsp, buf, ch->rsp_len);
		ch->rsp_done = true;
	} else {
		ch->stale_rsps++;
	}
	spin_unlock(&ch->lock);
	wake_up_all(&ch->wq);
}

/* One IU from the target.  Context: CQ softirq. */
static void sit_handle_iu(struct sit_ch *ch, const void *buf, u32 len)
{
	const struct srp_cred_req *req = buf;	/* opcode, delta, tag */
	const struct srp_t_logout *lo = buf;
	u8 opcode = len ? *(const u8 *)buf : 0xff;

	if (opcode == SRP_RSP && len >= sizeof(struct srp_rsp)) {
		sit_handle_rsp(ch, buf, len);
		return;
	}
	spin_lock(&ch->lock);
	if (opcode == SRP_T_LOGOUT && len >= sizeof(*lo)) {
		ch->t_logout++;
		ch->t_logout_reason = be32_to_cpu(lo->reason);
	} else if ((opcode == SRP_CRED_REQ && len >= sizeof(*req)) ||
		   (opcode == SRP_AER_REQ &&
		    len >= sizeof(struct srp_aer_req))) {
		ch->req_lim += (s32)be32_to_cpu(req->req_lim_delta);
		if (opcode == SRP_CRED_REQ)
			ch->cred_reqs++;
		else
			ch->aer_reqs++;
	} else {
		ch->unknown_ius++;
		opcode = 0xff;
	}
	spin_unlock(&ch->lock);
	wake_up_all(&ch->wq);
	if (opcode == SRP_CRED_REQ)
		sit_answer(ch, SRP_CRED_RSP, req->tag);
	else if (opcode == SRP_AER_REQ)
		sit_answer(ch, SRP_AER_RSP, req->tag);
}

static void sit_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct sit_iu *iu = container_of(wc->wr_cqe, struct sit_iu, cqe);
	struct sit_ch *ch = iu->ch;
	int ret;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info_ratelimited("ch%d: receive failed: %s\n",
					    ch->idx,
					    ib_wc_status_msg(wc->status));
		return;
	}
	ib_dma_sync_single_for_cpu(ch->dev, iu->dma, iu->size,
				   DMA_FROM_DEVICE);
	sit_handle_iu(ch, iu->buf, wc->byte_len);
	ib_dma_sync_single_for_device(ch->dev, iu->dma, iu->size,
				      DMA_FROM_DEVICE);
	ret = sit_post_recv(ch, iu);
	if (ret)
		pr_info_ratelimited("ch%d: cannot repost a receive: %d\n",
				    ch->idx, ret);
}

/* ---------------------------------------------------------------------
 * IB CM
 */

static __printf(3, 4) void sit_login_done(struct sit_ch *ch,
					  enum sit_state state,
					  const char *fmt, ...)
{
	va_list ap;

	spin_lock_bh(&ch->lock);
	va_start(ap, fmt);
	vscnprintf(ch->cm_result, sizeof(ch->cm_result), fmt, ap);
	va_end(ap);
	ch->cm_done = true;
	sit_set_state(ch, state);
	spin_unlock_bh(&ch->lock);
}

static int sit_qp_to(struct sit_ch *ch, enum ib_qp_state qps)
{
	struct ib_qp_attr attr = { .qp_state = qps };
	int mask, ret;

	ret = ib_cm_init_qp_attr(ch->cm_id, &attr, &mask);
	if (ret)
		return ret;
	return ib_modify_qp(ch->qp, &attr, mask);
}

/* Receives, RTR (with the REP's PSN, via the CM) and RTS. */
static int sit_ready_qp(struct sit_ch *ch, const char **step)
{
	int i, ret;

	*step = "ib_post_recv";
	for (i = 0; i < SIT_RX_DEPTH; i++) {
		ret = sit_post_recv(ch, &ch->rx[i]);
		if (ret)
			return ret;
	}
	*step = "QP to RTR";
	ret = sit_qp_to(ch, IB_QPS_RTR);
	if (ret)
		return ret;
	*step = "QP to RTS";
	return sit_qp_to(ch, IB_QPS_RTS);
}

/* The QP ready as above, then the RTU. */
static int sit_connect_qp(struct sit_ch *ch, const char **step)
{
	int ret;

	ret = sit_ready_qp(ch, step);
	if (ret)
		return ret;
	*step = "ib_send_cm_rtu";
	return ib_send_cm_rtu(ch->cm_id, NULL, 0);
}

/* The login's answer: @kw and the LOGIN_RSP fields; the state becomes @st. */
static void sit_rsp_done(struct sit_ch *ch, const struct srp_login_rsp *rsp,
			 enum sit_state st, const char *kw)
{
	sit_login_done(ch, st,
		       "%s req_lim=%u max_it_iu_len=%u max_ti_iu_len=%u flags=0x%02x buf_fmt=0x%04x",
		       kw, be32_to_cpu(rsp->req_lim_delta),
		       be32_to_cpu(rsp->max_it_iu_len),
		       be32_to_cpu(rsp->max_ti_iu_len), rsp->rsp_flags,
		       be16_to_cpu(rsp->buf_fmt));
}

static void sit_cm_rep(struct sit_ch *ch, const struct ib_cm_event *ev)
{
	const struct srp_login_rsp *rsp = ev->private_data;
	u32 max_ti = be32_to_cpu(rsp->max_ti_iu_len);
	const char *step;
	int ret;

	if (rsp->opcode != SRP_LOGIN_RSP || max_ti > SIT_RX_SIZE ||
	    max_ti < sizeof(struct srp_rsp)) {
		ib_send_cm_rej(ch->cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       NULL, 0);
		sit_login_done(ch, SIT_IDLE,
			       "ERROR REP is no usable SRP_LOGIN_RSP (opcode=0x%02x max_ti_iu_len=%u)",
			       rsp->opcode, max_ti);
		return;
	}
	spin_lock_bh(&ch->lock);
	ch->req_lim = be32_to_cpu(rsp->req_lim_delta);
	ch->max_it_iu_len = be32_to_cpu(rsp->max_it_iu_len);
	ch->max_ti_iu_len = max_ti;
	ch->rep_srq = ev->param.rep_rcvd.srq;
	ch->rep_rcvd = ch->rep_mode != SIT_REP_RTU;
	spin_unlock_bh(&ch->lock);
	/*
	 * no_rtu and early_iu: the login command goes on (early_iu waits for
	 * an IU, which must not hold up the CM's callbacks: the target's
	 * ESTABLISHED event of ib_cm_notify() is one of them).
	 */
	if (ch->rep_mode != SIT_REP_RTU) {
		sit_rsp_done(ch, rsp, SIT_CONNECTING,
			     ch->rep_mode == SIT_REP_NO_RTU ? "REP_NO_RTU" :
			     "LOGIN_RSP");
		return;
	}
	ret = sit_connect_qp(ch, &step);
	if (ret) {
		ib_send_cm_rej(ch->cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       NULL, 0);
		sit_login_done(ch, SIT_IDLE, "ERROR %s: %d", step, ret);
		return;
	}
	sit_rsp_done(ch, rsp, SIT_LIVE, "LOGIN_RSP");
}

static void sit_cm_rej(struct sit_ch *ch, const struct ib_cm_event *ev)
{
	const struct srp_login_rej *rej = ev->private_data;
	int reason = ev->param.rej_rcvd.reason;

	spin_lock_bh(&ch->lock);
	if (ch->cm_done) {
		/* After the REP (no_rtu, early_iu): the target gave up. */
		pr_info("ch%d: REJ (reason %d) after the REP\n", ch->idx,
			reason);
		ch->by_target = true;
		sit_set_state(ch, SIT_DISCONNECTED);
		spin_unlock_bh(&ch->lock);
		return;
	}
	spin_unlock_bh(&ch->lock);
	if (reason == IB_CM_REJ_CONSUMER_DEFINED && rej &&
	    rej->opcode == SRP_LOGIN_REJ)
		sit_login_done(ch, SIT_IDLE,
			       "LOGIN_REJ reason=0x%08x buf_fmt=0x%04x",
			       be32_to_cpu(rej->reason),
			       be16_to_cpu(rej->buf_fmt));
	else
		sit_login_done(ch, SIT_IDLE, "CM_REJ reason=%d", reason);
}

/* The target disconnects: answer with a DREP. */
static void sit_cm_dreq(struct sit_ch *ch)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int ret;

	ret = ib_send_cm_drep(ch->cm_id, NULL, 0);
	if (ret)
		pr_info("ch%d: ib_send_cm_drep: %d\n", ch->idx, ret);
	ib_modify_qp(ch->qp, &attr, IB_QP_STATE);
	spin_lock_bh(&ch->lock);
	ch->by_target = true;
	ch->dreq_done = true;
	sit_set_state(ch, SIT_DISCONNECTED);
	spin_unlock_bh(&ch->lock);
}

static void sit_cm_closed(struct sit_ch *ch)
{
	spin_lock_bh(&ch->lock);
	ch->dreq_done = true;
	if (ch->state == SIT_LIVE)
		sit_set_state(ch, SIT_DISCONNECTED);
	else
		wake_up_all(&ch->wq);
	spin_unlock_bh(&ch->lock);
}

/*
 * CM callbacks run on the CM's workqueue: they never wait for another CM
 * event, they only record it and wake the command waiting in write().
 * Returns 0 always: the cm_id is destroyed by sit_release().
 */
static int sit_cm_handler(struct ib_cm_id *cm_id,
			  const struct ib_cm_event *ev)
{
	struct sit_ch *ch = cm_id->context;

	pr_debug("ch%d: CM event %d\n", ch->idx, ev->event);
	switch (ev->event) {
	case IB_CM_REP_RECEIVED:
		sit_cm_rep(ch, ev);
		break;
	case IB_CM_REJ_RECEIVED:
		sit_cm_rej(ch, ev);
		break;
	case IB_CM_REQ_ERROR:
		sit_login_done(ch, SIT_IDLE, "ERROR no answer to the CM REQ");
		break;
	case IB_CM_DREQ_RECEIVED:
		sit_cm_dreq(ch);
		break;
	case IB_CM_DREP_RECEIVED:
	case IB_CM_DREQ_ERROR:
	case IB_CM_TIMEWAIT_EXIT:
		sit_cm_closed(ch);
		break;
	default:
		break;
	}
	return 0;
}

/* ---------------------------------------------------------------------
 * Login
 */

/*
 * The RoCE path record that an SA would have returned, built as the
 * RDMA/CM does for RoCE (cma_resolve_iboe_route()): source GID, MTU and
 * (for loopback) destination MAC from the GID's netdev.  On success
 * *attrp holds a GID attribute reference for the REQ.
 */
static int sit_make_path(struct sit_ch *ch, struct sit_login *lp,
			 struct sa_path_rec *path,
			 const struct ib_gid_attr **attrp, struct sit_args *a)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	u8 mac[ETH_ALEN];
	int mtu = 0;

	attr = rdma_get_gid_attr(ch->dev, lp->port, lp->gid_index);
	if (IS_ERR(attr)) {
		sit_res(a, "ERROR no GID %u on %s port %u: %ld", lp->gid_index,
			lp->dev, lp->port, PTR_ERR(attr));
		return PTR_ERR(attr);
	}
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (!IS_ERR(ndev)) {
		mtu = READ_ONCE(ndev->mtu);
		ether_addr_copy(mac, ndev->dev_addr);
	}
	rcu_read_unlock();
	memset(path, 0, sizeof(*path));
	path->rec_type = sa_conv_gid_to_pathrec_type(attr->gid_type);
	if (IS_ERR(ndev) || !sa_path_is_roce(path) || !iboe_get_mtu(mtu)) {
		sit_res(a, "ERROR GID %u of %s is not a RoCE GID with a netdev",
			lp->gid_index, lp->dev);
		rdma_put_gid_attr(attr);
		return -EINVAL;
	}
	path->sgid = attr->gid;
	path->dgid = lp->dgid;
	path->pkey = cpu_to_be16(SIT_PKEY_DEFAULT);
	path->mtu_selector = IB_SA_EQ;
	path->mtu = iboe_get_mtu(mtu);
	path->rate_selector = IB_SA_EQ;
	path->rate = IB_RATE_PORT_CURRENT;
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = SIT_PACKET_LIFE;
	path->hop_limit = SIT_HOP_LIMIT;
	path->reversible = 1;
	path->numb_path = 1;
	path->roce.route_resolved = true;
	sa_path_set_dmac(path, lp->has_dmac ? lp->dmac : mac);
	*attrp = attr;
	return 0;
}

static void sit_fill_login_req(const struct sit_login *lp, void *pdata)
{
	struct srp_login_req *req = pdata;

	req->opcode = lp->opcode;
	req->req_it_iu_len = cpu_to_be32(lp->it_iu_len);
	req->req_buf_fmt = cpu_to_be16(lp->buf_fmt);
	req->req_flags = lp->req_flags;
	req->imm_data_offset = cpu_to_be16(lp->imm_off);
	req->tag = lp->tag;
	memcpy(req->initiator_port_id, lp->initiator_id, 16);
	sit_put_be(req->target_port_id, lp->id_ext, 8);
	sit_put_be(req->target_port_id + 8, lp->ioc_guid, 8);
}

/* Build the path and send the REQ with the SRP_LOGIN_REQ. */
static int sit_send_req(struct sit_ch *ch, struct sit_login *lp,
			struct sit_args *a)
{
	u8 pdata[IB_CM_REQ_PRIVATE_DATA_SIZE] = {};
	struct ib_cm_req_param param = {};
	const struct ib_gid_attr *attr;
	struct ib_device_attr *da = &ch->dev->attrs;
	struct sa_path_rec path;
	int ret;

	ret = sit_make_path(ch, lp, &path, &attr, a);
	if (ret)
		return ret;
	sit_fill_login_req(lp, pdata);
	param.primary_path = &path;
	param.ppath_sgid_attr = attr;
	param.service_id = cpu_to_be64(lp->service_id);
	param.qp_num = ch->qp->qp_num;
	param.qp_type = IB_QPT_RC;
	param.starting_psn = get_random_u32() & 0xffffff;
	param.private_data = pdata;
	param.private_data_len = lp->pdata_len;
	param.responder_resources = min(SIT_RD_ATOMIC, da->max_qp_rd_atom);
	param.initiator_depth = min(SIT_RD_ATOMIC, da->max_qp_init_rd_atom);
	param.remote_cm_response_timeout = lp->cm_timeout;
	param.local_cm_response_timeout = lp->cm_timeout;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	param.flow_control = 1;
	param.max_cm_retries = lp->max_cm_retries;
	ret = ib_send_cm_req(ch->cm_id, &param);
	rdma_put_gid_attr(attr);
	if (ret)
		sit_res(a, "ERROR ib_send_cm_req: %d", ret);
	return ret;
}

/* A reference to the device named @name, if our ib_client knows it. */
static struct ib_device *sit_get_device(const char *name)
{
	struct ib_device *dev = NULL;
	struct sit_dev *d;

	mutex_lock(&sit_devs_mutex);
	list_for_each_entry(d, &sit_devs, list) {
		if (!strcmp(dev_name(&d->dev->dev), name) &&
		    ib_device_try_get(d->dev)) {
			dev = d->dev;
			break;
		}
	}
	mutex_unlock(&sit_devs_mutex);
	return dev;
}

static int sit_start_login(struct sit_ch *ch, struct sit_login *lp,
			   struct sit_args *a)
{
	struct ib_cm_id *cm_id;
	int ret;

	ch->dev = sit_get_device(lp->dev);
	if (!ch->dev) {
		sit_res(a, "ERROR no RDMA device %s", lp->dev);
		return -ENODEV;
	}
	if (!rdma_is_port_valid(ch->dev, lp->port)) {
		sit_res(a, "ERROR %s has no port %u", lp->dev, lp->port);
		return -EINVAL;
	}
	ch->port = lp->port;
	ret = sit_alloc_res(ch, a);
	if (ret)
		return ret;
	cm_id = ib_create_cm_id(ch->dev, sit_cm_handler, ch);
	if (IS_ERR(cm_id)) {
		sit_res(a, "ERROR ib_create_cm_id: %ld", PTR_ERR(cm_id));
		return PTR_ERR(cm_id);
	}
	ch->cm_id = cm_id;
	spin_lock_bh(&ch->lock);
	strscpy(ch->dev_name, lp->dev, sizeof(ch->dev_name));
	ch->rep_mode = lp->rep_mode;
	ch->rep_rcvd = false;
	ch->early = false;
	ch->cm_done = false;
	ch->dreq_done = false;
	ch->by_target = false;
	ch->req_lim = 0;
	ch->max_it_iu_len = 0;
	ch->max_ti_iu_len = 0;
	ch->t_logout = 0;
	ch->t_logout_reason = 0;
	ch->cred_reqs = 0;
	ch->aer_reqs = 0;
	ch->stale_rsps = 0;
	ch->unknown_ius = 0;
	ch->rep_srq = false;
	sit_set_state(ch, SIT_CONNECTING);
	spin_unlock_bh(&ch->lock);
	return sit_send_req(ch, lp, a);
}

static void sit_early_iu(struct sit_ch *ch, struct sit_args *a);

static int sit_login(struct sit_ch *ch, struct sit_login *lp,
		     struct sit_args *a)
{
	long ret;

	if (sit_get_state(ch) == SIT_LIVE) {
		sit_res(a, "ERROR channel %d is live: close it first", ch->idx);
		return 0;
	}
	sit_release(ch);
	if (sit_start_login(ch, lp, a)) {
		sit_release(ch);
		return 0;
	}
	ret = wait_event_interruptible_timeout(ch->wq, READ_ONCE(ch->cm_done),
					       a->timeout);
	if (ret <= 0) {
		sit_res(a, ret ? "ERROR interrupted" : "TIMEOUT");
		sit_release(ch);
		return 0;
	}
	if (READ_ONCE(ch->rep_rcvd) && ch->rep_mode == SIT_REP_EARLY_IU) {
		sit_early_iu(ch, a);
		return 0;
	}
	spin_lock_bh(&ch->lock);
	sit_res(a, "%s", ch->cm_result);
	spin_unlock_bh(&ch->lock);
	/* no_rtu keeps the REP's cm_id (state connecting) for close. */
	if (sit_get_state(ch) != SIT_LIVE && !READ_ONCE(ch->rep_rcvd))
		sit_release(ch);
	return 0;
}

/* ---------------------------------------------------------------------
 * SRP commands
 */

static void sit_put_lun(u64 lun, struct scsi_lun *slun)
{
	int i;

	/* As int_to_scsilun(): two bytes per addressing level. */
	memset(slun, 0, sizeof(*slun));
	for (i = 0; i < sizeof(lun); i += 2) {
		slun->scsi_lun[i] = (lun >> 8) & 0xff;
		slun->scsi_lun[i + 1] = lun & 0xff;
		lun >>= 16;
	}
}

/* Build the SRP_CMD in ch->cmd_tx; returns its length. */
static u32 sit_build_cmd(struct sit_ch *ch, const u8 *cdb, u64 lun,
			 enum dma_data_direction dir, u32 len, u64 tag)
{
	struct srp_cmd *cmd = ch->cmd_tx.buf;
	struct srp_direct_buf *desc = (void *)cmd->add_data;

	memset(cmd, 0, SIT_TX_SIZE);
	cmd->opcode = SRP_CMD;
	cmd->tag = tag;
	sit_put_lun(lun, &cmd->lun);
	memcpy(cmd->cdb, cdb, sizeof(cmd->cdb));
	if (!len)
		return sizeof(*cmd);
	/* ib_srp style: a direct descriptor leaves the counts 0. */
	if (dir == DMA_TO_DEVICE)
		cmd->buf_fmt = SRP_DATA_DESC_DIRECT << 4;
	else
		cmd->buf_fmt = SRP_DATA_DESC_DIRECT;
	desc->va = cpu_to_be64(ch->data.dma);
	desc->key = cpu_to_be32(ch->pd->unsafe_global_rkey);
	desc->len = cpu_to_be32(len);
	return sizeof(*cmd) + sizeof(*desc);
}

/* An SRP_CMD may run: the channel is live, or early_iu before the RTU. */
static bool sit_cmd_ok(struct sit_ch *ch)
{
	enum sit_state st = sit_get_state(ch);

	return st == SIT_LIVE || (st == SIT_CONNECTING && READ_ONCE(ch->early));
}

/* Take a credit and a tag for a new command; false (with a result) if not. */
static bool sit_cmd_start(struct sit_ch *ch, struct sit_args *a, u64 *tag)
{
	bool ok = false;

	spin_lock_bh(&ch->lock);
	if (!sit_cmd_ok(ch))
		sit_res(a, "ERROR channel %d is %s", ch->idx,
			sit_state_names[ch->state]);
	else if (ch->req_lim <= 0)
		sit_res(a, "ERROR no credit (req_lim=%d)", ch->req_lim);
	else
		ok = true;
	if (ok) {
		ch->req_lim--;
		*tag = ++ch->next_tag;
		ch->tag = *tag;
		ch->cmd_pending = true;
		ch->rsp_done = false;
		ch->tx_done = false;
	}
	spin_unlock_bh(&ch->lock);
	return ok;
}

static bool sit_cmd_finished(struct sit_ch *ch)
{
	return (READ_ONCE(ch->rsp_done) && READ_ONCE(ch->tx_done)) ||
		!sit_cmd_ok(ch) ||
		(READ_ONCE(ch->tx_done) &&
		 READ_ONCE(ch->tx_status) != IB_WC_SUCCESS);
}

/*
 * Send one SRP_CMD and wait for its SRP_RSP, which is then in ch->rsp.
 * Returns 0 if the response arrived, else -EIO with the result set.
 */
static int sit_exec_cmd(struct sit_ch *ch, struct sit_args *a, const u8 *cdb,
			u64 lun, enum dma_data_direction dir, u32 len)
{
	u64 tag;
	long ret;

	if (!sit_cmd_start(ch, a, &tag))
		return -EIO;
	if (dir == DMA_TO_DEVICE)
		ib_dma_sync_single_for_device(ch->dev, ch->data.dma, len, dir);
	ret = sit_post_send(ch, &ch->cmd_tx,
			    sit_build_cmd(ch, cdb, lun, dir, len, tag));
	if (ret) {
		sit_res(a, "ERROR ib_post_send: %ld", ret);
	} else {
		ret = wait_event_interruptible_timeout(ch->wq,
						       sit_cmd_finished(ch),
						       a->timeout);
		if (ret < 0)
			sit_res(a, "ERROR interrupted");
		else if (!ret)
			sit_res(a, "TIMEOUT");
	}
	spin_lock_bh(&ch->lock);
	ch->cmd_pending = false;
	if (ret > 0 && !ch->rsp_done) {
		if (ch->tx_done && ch->tx_status != IB_WC_SUCCESS)
			sit_res(a, "ERROR send failed: %s",
				ib_wc_status_msg(ch->tx_status));
		else
			sit_res(a, "ERROR channel %s while waiting",
				sit_state_names[ch->state]);
		ret = 0;
	}
	spin_unlock_bh(&ch->lock);
	if (ret <= 0)
		return -EIO;
	if (dir == DMA_FROM_DEVICE)
		ib_dma_sync_single_for_cpu(ch->dev, ch->data.dma, len, dir);
	return 0;
}

/* "RSP status=0x.. [sense=K/ASC/ASCQ]" from ch->rsp; returns the status. */
static u8 sit_format_status(struct sit_ch *ch, struct sit_args *a)
{
	const struct srp_rsp *rsp = (const void *)ch->rsp;
	u32 off, slen;
	const u8 *s;

	sit_res(a, "RSP status=0x%02x", rsp->status);
	if (!(rsp->flags & SRP_RSP_FLAG_SNSVALID))
		return rsp->status;
	off = sizeof(*rsp);
	if (rsp->flags & SRP_RSP_FLAG_RSPVALID)
		off += be32_to_cpu(rsp->resp_data_len);
	slen = be32_to_cpu(rsp->sense_data_len);
	s = ch->rsp + off;
	if (off + 14 > ch->rsp_len || slen < 4)
		sit_res(a, " sense=?");
	else if ((s[0] & 0x7f) >= 0x72)		/* descriptor format */
		sit_res(a, " sense=%x/%02x/%02x", s[1] & 0xf, s[2], s[3]);
	else
		sit_res(a, " sense=%x/%02x/%02x", s[2] & 0xf, s[12], s[13]);
	return rsp->status;
}

static void sit_format_delta(struct sit_ch *ch, struct sit_args *a)
{
	const struct srp_rsp *rsp = (const void *)ch->rsp;

	sit_res(a, " req_lim_delta=%d", (s32)be32_to_cpu(rsp->req_lim_delta));
	if (rsp->flags & SRP_RSP_FLAG_DIUNDER)
		sit_res(a, " data_in_resid=%u",
			be32_to_cpu(rsp->data_in_res_cnt));
	if (rsp->flags & SRP_RSP_FLAG_DOUNDER)
		sit_res(a, " data_out_resid=%u",
			be32_to_cpu(rsp->data_out_res_cnt));
}

/* Fixed-width INQUIRY field without the padding blanks. */
static void sit_format_field(struct sit_args *a, const u8 *p, int n)
{
	while (n > 0 && (p[n - 1] == ' ' || !p[n - 1]))
		n--;
	sit_res(a, "%.*s", n, p);
}

static int sit_cmd_tur(struct sit_ch *ch, struct sit_args *a, u64 lun)
{
	u8 cdb[16] = { TEST_UNIT_READY };

	if (sit_exec_cmd(ch, a, cdb, lun, DMA_NONE, 0))
		return 0;
	sit_format_status(ch, a);
	sit_format_delta(ch, a);
	return 0;
}

/*
 * early_iu: a TUR to LUN 0 before the RTU; @out gets its status "0x..",
 * "none" (no SRP_RSP within SIT_EARLY_WAIT) or "error (<why>)".
 */
static void sit_early_tur(struct sit_ch *ch, char *out, size_t len)
{
	u8 cdb[16] = { TEST_UNIT_READY };
	const struct srp_rsp *rsp = (const void *)ch->rsp;
	struct sit_args *t;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		strscpy(out, "error (no memory)", len);
		return;
	}
	t->timeout = SIT_EARLY_WAIT;
	if (!sit_exec_cmd(ch, t, cdb, 0, DMA_NONE, 0))
		snprintf(out, len, "0x%02x", rsp->status);
	else if (!strcmp(t->res, "TIMEOUT"))
		strscpy(out, "none", len);
	else
		snprintf(out, len, "error (%.100s)", t->res);
	if (t->len)
		pr_debug("ch%d: early TUR: %s, send %s\n", ch->idx, t->res,
			 !READ_ONCE(ch->tx_done) ? "not completed" :
			 ib_wc_status_msg(READ_ONCE(ch->tx_status)));
	kfree(t);
}

/*
 * early_iu=1 after the REP (see sit_cm_rep()): RTR, RTS, the receives and
 * a TUR before the RTU, then the RTU whatever became of the TUR.
 * Context: the login command, ch->mutex held.
 */
static void sit_early_iu(struct sit_ch *ch, struct sit_args *a)
{
	char early[SIT_RES_LEN / 2];
	const char *step;
	int ret;

	ret = sit_ready_qp(ch, &step);
	if (ret) {
		ib_send_cm_rej(ch->cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       NULL, 0);
		sit_res(a, "ERROR %s: %d", step, ret);
		sit_release(ch);
		return;
	}
	spin_lock_bh(&ch->lock);
	ch->early = true;
	spin_unlock_bh(&ch->lock);
	sit_early_tur(ch, early, sizeof(early));
	spin_lock_bh(&ch->lock);
	ch->early = false;
	spin_unlock_bh(&ch->lock);
	ret = ib_send_cm_rtu(ch->cm_id, NULL, 0);
	spin_lock_bh(&ch->lock);
	if (ret)
		sit_res(a, "ERROR ib_send_cm_rtu: %d (early_tur=%s)", ret,
			early);
	else if (ch->state != SIT_CONNECTING)
		sit_res(a, "ERROR channel %d is %s (early_tur=%s)", ch->idx,
			sit_state_names[ch->state], early);
	else
		sit_res(a, "%s early_tur=%s", ch->cm_result, early);
	if (!ret && ch->state == SIT_CONNECTING)
		sit_set_state(ch, SIT_LIVE);
	spin_unlock_bh(&ch->lock);
	if (!sit_live(ch))
		sit_release(ch);
}

static int sit_cmd_inquiry(struct sit_ch *ch, struct sit_args *a, u64 lun)
{
	u8 cdb[16] = { INQUIRY, 0, 0, 0, SIT_INQ_LEN };
	const u8 *d = ch->data.buf;

	memset(ch->data.buf, 0, SIT_INQ_LEN);
	if (sit_exec_cmd(ch, a, cdb, lun, DMA_FROM_DEVICE, SIT_INQ_LEN))
		return 0;
	if (sit_format_status(ch, a)) {
		sit_format_delta(ch, a);
		return 0;
	}
	sit_format_delta(ch, a);
	sit_res(a, " data=");
	sit_format_field(a, d + 8, 8);		/* T10 vendor */
	sit_res(a, " ");
	sit_format_field(a, d + 16, 16);	/* product */
	return 0;
}

/* The pattern word at absolute byte position @pos (a multiple of 8). */
static u64 sit_pattern_word(u32 pattern, u64 pos)
{
	return ((u64)pattern << 40) ^ pos ^ 0x5352500000000000ULL;
}

static void sit_fill(void *buf, u32 pattern, u64 lba, u32 len)
{
	__be64 *w = buf;
	u32 i;

	for (i = 0; i < len / 8; i++)
		w[i] = cpu_to_be64(sit_pattern_word(pattern,
						    lba * SIT_BLOCK + i * 8));
}

/* Offset of the first byte that differs from the pattern, or -1. */
static long sit_verify(const void *buf, u32 pattern, u64 lba, u32 len)
{
	const u8 *b = buf;
	__be64 want;
	u32 i, j;

	for (i = 0; i < len; i += 8) {
		want = cpu_to_be64(sit_pattern_word(pattern,
						    lba * SIT_BLOCK + i));
		if (!memcmp(b + i, &want, 8))
			continue;
		for (j = 0; j < 8; j++)
			if (b[i + j] != ((u8 *)&want)[j])
				return i + j;
	}
	return -1;
}

static int sit_cmd_rw(struct sit_ch *ch, struct sit_args *a, u64 lun,
		      bool write, u64 lba, u32 blocks, u32 pattern)
{
	u8 cdb[16] = { write ? WRITE_10 : READ_10 };
	u32 len = blocks * SIT_BLOCK;
	long bad;

	sit_put_be(cdb + 2, lba, 4);
	sit_put_be(cdb + 7, blocks, 2);
	if (write)
		sit_fill(ch->data.buf, pattern, lba, len);
	else
		memset(ch->data.buf, 0, len);
	if (sit_exec_cmd(ch, a, cdb, lun,
			 write ? DMA_TO_DEVICE : DMA_FROM_DEVICE, len))
		return 0;
	if (!sit_format_status(ch, a) && !write) {
		bad = sit_verify(ch->data.buf, pattern, lba, len);
		if (bad < 0)
			sit_res(a, " verified");
		else
			sit_res(a, " MISMATCH at byte %ld", bad);
	}
	sit_format_delta(ch, a);
	return 0;
}

/* ---------------------------------------------------------------------
 * Disconnect, state, close
 */

static int sit_dreq(struct sit_ch *ch, struct sit_args *a)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	long ret;

	spin_lock_bh(&ch->lock);
	ch->dreq_done = false;
	spin_unlock_bh(&ch->lock);
	if (sit_get_state(ch) != SIT_LIVE) {
		sit_res(a, "ERROR channel %d is %s", ch->idx,
			sit_state_names[sit_get_state(ch)]);
		return 0;
	}
	ret = ib_send_cm_dreq(ch->cm_id, NULL, 0);
	if (ret && !READ_ONCE(ch->by_target)) {
		sit_res(a, "ERROR ib_send_cm_dreq: %ld", ret);
		return 0;
	}
	ret = wait_event_interruptible_timeout(ch->wq,
					       READ_ONCE(ch->dreq_done),
					       a->timeout);
	ib_modify_qp(ch->qp, &attr, IB_QP_STATE);
	spin_lock_bh(&ch->lock);
	if (ret > 0)
		sit_res(a, "DISCONNECTED%s", ch->by_target ? " by target" : "");
	else
		sit_res(a, ret ? "ERROR interrupted" : "TIMEOUT");
	sit_set_state(ch, SIT_DISCONNECTED);
	spin_unlock_bh(&ch->lock);
	return 0;
}

static int sit_wait_disconnect(struct sit_ch *ch, struct sit_args *a)
{
	enum sit_state st = sit_get_state(ch);
	long ret = 1;

	if (st == SIT_LIVE)
		ret = wait_event_interruptible_timeout(ch->wq, !sit_live(ch),
						       a->timeout);
	st = sit_get_state(ch);
	if (ret < 0)
		sit_res(a, "ERROR interrupted");
	else if (!ret)
		sit_res(a, "TIMEOUT");
	else if (st == SIT_DISCONNECTED && READ_ONCE(ch->by_target))
		sit_res(a, "DISCONNECTED by target");
	else
		sit_res(a, "ERROR channel %d is %s", ch->idx,
			sit_state_names[st]);
	return 0;
}

static void sit_state(struct sit_ch *ch, struct sit_args *a)
{
	spin_lock_bh(&ch->lock);
	sit_res(a, "STATE %s dev=%s req_lim=%d", sit_state_names[ch->state],
		ch->dev_name[0] ? ch->dev_name : "-", ch->req_lim);
	sit_res(a, " max_it_iu_len=%u max_ti_iu_len=%u by_target=%d",
		ch->max_it_iu_len, ch->max_ti_iu_len, ch->by_target);
	sit_res(a, " t_logout=%u t_logout_reason=0x%x cred_req=%u aer_req=%u",
		ch->t_logout, ch->t_logout_reason, ch->cred_reqs,
		ch->aer_reqs);
	sit_res(a, " stale_rsp=%u unknown_iu=%u rep_srq=%d", ch->stale_rsps,
		ch->unknown_ius, ch->rep_srq);
	spin_unlock_bh(&ch->lock);
}

/* ---------------------------------------------------------------------
 * Command line parsing
 */

static int sit_bad(struct sit_args *a, enum sit_key k)
{
	sit_res(a, "ERROR bad value %s=%s", sit_key_names[k], a->val[k]);
	return -EINVAL;
}

/* Decimal, or hex with 0x; @def if absent. */
static int sit_num(struct sit_args *a, enum sit_key k, u64 def, u64 max,
		   u64 *out)
{
	const char *s = a->val[k];
	int ret;

	*out = def;
	if (!(a->seen & BIT(k)))
		return 0;
	if (s[0] == '0' && tolower(s[1]) == 'x')
		ret = kstrtou64(s, 16, out);
	else
		ret = kstrtou64(s, 10, out);
	if (ret || *out > max)
		return sit_bad(a, k);
	return 0;
}

/* Hex with or without 0x. */
static int sit_hex64(struct sit_args *a, enum sit_key k, u64 *out)
{
	if (kstrtou64(a->val[k], 16, out))
		return sit_bad(a, k);
	return 0;
}

/* Exactly 2 * @n hex digits, with or without 0x. */
static int sit_hex_bytes(struct sit_args *a, enum sit_key k, u8 *out,
			 size_t n)
{
	const char *s = a->val[k];

	if (s[0] == '0' && tolower(s[1]) == 'x')
		s += 2;
	if (strlen(s) != 2 * n || hex2bin(out, s, n))
		return sit_bad(a, k);
	return 0;
}

/* 32 hex digits or IPv6 text form (as in sysfs gids/N). */
static int sit_gid(struct sit_args *a, enum sit_key k, union ib_gid *gid)
{
	const char *s = a->val[k], *end;

	if (!strchr(s, ':'))
		return sit_hex_bytes(a, k, gid->raw, sizeof(gid->raw));
	if (in6_pton(s, -1, gid->raw, -1, &end) != 1 || *end)
		return sit_bad(a, k);
	return 0;
}

static int sit_parse_login(struct sit_args *a, struct sit_login *lp)
{
	u64 port, gidx, iu, flags, fmt, op, plen, cmt, retries, no_rtu, early;
	u64 imm;
	int ret;

	if (strscpy(lp->dev, a->val[SIT_K_DEV], sizeof(lp->dev)) < 0)
		return sit_bad(a, SIT_K_DEV);
	ret = sit_num(a, SIT_K_PORT, 1, U8_MAX, &port) ?:
	      sit_num(a, SIT_K_GID_INDEX, 0, S32_MAX, &gidx) ?:
	      sit_num(a, SIT_K_IT_IU_LEN, 8260, U32_MAX, &iu) ?:
	      sit_num(a, SIT_K_REQ_FLAGS, SRP_MULTICHAN_SINGLE, U8_MAX,
		      &flags) ?:
	      sit_num(a, SIT_K_BUF_FMT, SRP_BUF_FORMAT_DIRECT |
		      SRP_BUF_FORMAT_INDIRECT, U16_MAX, &fmt) ?:
	      sit_num(a, SIT_K_OPCODE, SRP_LOGIN_REQ, U8_MAX, &op) ?:
	      sit_num(a, SIT_K_PDATA_LEN, sizeof(struct srp_login_req),
		      IB_CM_REQ_PRIVATE_DATA_SIZE, &plen) ?:
	      sit_num(a, SIT_K_CM_TIMEOUT, SIT_CM_TIMEOUT, SIT_MAX_CM_TIMEOUT,
		      &cmt) ?:
	      sit_num(a, SIT_K_MAX_CM_RETRIES, SIT_MAX_CM_RETRIES,
		      SIT_MAX_CM_RETRIES, &retries) ?:
	      sit_num(a, SIT_K_NO_RTU, 0, 1, &no_rtu) ?:
	      sit_num(a, SIT_K_EARLY_IU, 0, 1, &early) ?:
	      sit_num(a, SIT_K_IMM_OFF, 0, U16_MAX, &imm) ?:
	      sit_num(a, SIT_K_TAG, 0, U64_MAX, &lp->tag) ?:
	      sit_hex64(a, SIT_K_SERVICE_ID, &lp->service_id) ?:
	      sit_hex64(a, SIT_K_ID_EXT, &lp->id_ext) ?:
	      sit_hex64(a, SIT_K_IOC_GUID, &lp->ioc_guid) ?:
	      sit_hex_bytes(a, SIT_K_INITIATOR_ID, lp->initiator_id, 16) ?:
	      sit_gid(a, SIT_K_DGID, &lp->dgid);
	if (ret)
		return ret;
	if (no_rtu && early) {
		sit_res(a, "ERROR no_rtu=1 and early_iu=1 exclude each other");
		return -EINVAL;
	}
	if (a->seen & BIT(SIT_K_DMAC)) {
		if (!mac_pton(a->val[SIT_K_DMAC], lp->dmac))
			return sit_bad(a, SIT_K_DMAC);
		lp->has_dmac = true;
	}
	lp->port = port;
	lp->gid_index = gidx;
	lp->it_iu_len = iu;
	lp->req_flags = flags;
	lp->buf_fmt = fmt;
	lp->opcode = op;
	lp->imm_off = imm;
	lp->pdata_len = plen;
	lp->cm_timeout = cmt;
	lp->max_cm_retries = retries;
	lp->rep_mode = no_rtu ? SIT_REP_NO_RTU :
		       early ? SIT_REP_EARLY_IU : SIT_REP_RTU;
	return 0;
}

static int sit_run_login(struct sit_ch *ch, struct sit_args *a)
{
	struct sit_login lp = {};
	int ret;

	ret = sit_parse_login(a, &lp);
	return ret ?: sit_login(ch, &lp, a);
}

/* SCSI commands need a live channel (and so its buffers). */
static bool sit_need_live(struct sit_ch *ch, struct sit_args *a)
{
	enum sit_state st = sit_get_state(ch);

	if (st == SIT_LIVE)
		return true;
	sit_res(a, "ERROR channel %d is %s", ch->idx, sit_state_names[st]);
	return false;
}

static int sit_run_tur(struct sit_ch *ch, struct sit_args *a)
{
	u64 lun;
	int ret;

	ret = sit_num(a, SIT_K_LUN, 0, U16_MAX, &lun);
	if (ret || !sit_need_live(ch, a))
		return ret;
	return sit_cmd_tur(ch, a, lun);
}

static int sit_run_inquiry(struct sit_ch *ch, struct sit_args *a)
{
	u64 lun;
	int ret;

	ret = sit_num(a, SIT_K_LUN, 0, U16_MAX, &lun);
	if (ret || !sit_need_live(ch, a))
		return ret;
	return sit_cmd_inquiry(ch, a, lun);
}

static int sit_run_rw(struct sit_ch *ch, struct sit_args *a, bool write)
{
	u64 lun, lba, blocks, pattern;
	int ret;

	ret = sit_num(a, SIT_K_LUN, 0, U16_MAX, &lun) ?:
	      sit_num(a, SIT_K_LBA, 0, U32_MAX, &lba) ?:
	      sit_num(a, SIT_K_BLOCKS, 0, SIT_MAX_DATA / SIT_BLOCK, &blocks) ?:
	      sit_num(a, SIT_K_PATTERN, 0, U16_MAX, &pattern);
	if (ret)
		return ret;
	if (!blocks)
		return sit_bad(a, SIT_K_BLOCKS);
	if (!sit_need_live(ch, a))
		return 0;
	return sit_cmd_rw(ch, a, lun, write, lba, blocks, pattern);
}

static int sit_run_write(struct sit_ch *ch, struct sit_args *a)
{
	return sit_run_rw(ch, a, true);
}

static int sit_run_read(struct sit_ch *ch, struct sit_args *a)
{
	return sit_run_rw(ch, a, false);
}

static int sit_run_state(struct sit_ch *ch, struct sit_args *a)
{
	sit_state(ch, a);
	return 0;
}

static int sit_run_close(struct sit_ch *ch, struct sit_args *a)
{
	sit_release(ch);
	sit_res(a, "CLOSED");
	return 0;
}

#define SIT_KEY(k)	BIT(SIT_K_##k)
#define SIT_LOGIN_KEYS	(SIT_KEY(DEV) | SIT_KEY(PORT) | SIT_KEY(GID_INDEX) | \
			 SIT_KEY(DGID) | SIT_KEY(DMAC) | SIT_KEY(SERVICE_ID) | \
			 SIT_KEY(ID_EXT) | SIT_KEY(IOC_GUID) |		\
			 SIT_KEY(INITIATOR_ID) | SIT_KEY(IT_IU_LEN) |	\
			 SIT_KEY(REQ_FLAGS) | SIT_KEY(BUF_FMT) |	\
			 SIT_KEY(OPCODE) | SIT_KEY(PDATA_LEN) |		\
			 SIT_KEY(CM_TIMEOUT) | SIT_KEY(MAX_CM_RETRIES) |	\
			 SIT_KEY(NO_RTU) | SIT_KEY(EARLY_IU) |		\
			 SIT_KEY(IMM_OFF) | SIT_KEY(TAG))
#define SIT_LOGIN_REQD	(SIT_KEY(DEV) | SIT_KEY(DGID) | SIT_KEY(SERVICE_ID) | \
			 SIT_KEY(ID_EXT) | SIT_KEY(IOC_GUID) |		\
			 SIT_KEY(INITIATOR_ID))
#define SIT_RW_KEYS	(SIT_KEY(LUN) | SIT_KEY(LBA) | SIT_KEY(BLOCKS) | \
			 SIT_KEY(PATTERN))

/**
 * struct sit_cmd - a command of the control file
 * @name: first word of the command line.
 * @keys: options accepted besides ch= and timeout=.
 * @required: options that must be present.
 * @locked: runs under the channel mutex (all but state).
 * @run: parses the option values and runs the command; -EINVAL if an
 *	 option value is malformed.
 */
struct sit_cmd {
	const char *name;
	unsigned long keys;
	unsigned long required;
	bool locked;
	int (*run)(struct sit_ch *ch, struct sit_args *a);
};

static const struct sit_cmd sit_cmds[] = {
	{ "login", SIT_LOGIN_KEYS, SIT_LOGIN_REQD, true, sit_run_login },
	{ "tur", SIT_KEY(LUN), 0, true, sit_run_tur },
	{ "inquiry", SIT_KEY(LUN), 0, true, sit_run_inquiry },
	{ "write", SIT_RW_KEYS, SIT_KEY(LBA) | SIT_KEY(BLOCKS), true,
	  sit_run_write },
	{ "read", SIT_RW_KEYS, SIT_KEY(LBA) | SIT_KEY(BLOCKS), true,
	  sit_run_read },
	{ "dreq", 0, 0, true, sit_dreq },
	{ "wait_disconnect", 0, 0, true, sit_wait_disconnect },
	{ "state", 0, 0, false, sit_run_state },
	{ "close", 0, 0, true, sit_run_close },
};

static const struct sit_cmd *sit_find_cmd(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(sit_cmds); i++)
		if (!strcmp(sit_cmds[i].name, name))
			return &sit_cmds[i];
	return NULL;
}

/*
 * Split "name key=value ..." into @a; the values point into @line.  The
 * last of repeated options counts (a test can override a default set).
 */
static int sit_parse(char *line, struct sit_args *a,
		     const struct sit_cmd **cmdp)
{
	const struct sit_cmd *cmd;
	unsigned long ok;
	char *tok, *eq;
	int k;

	tok = strsep(&line, " \t");
	cmd = sit_find_cmd(tok);
	if (!cmd) {
		sit_res(a, "ERROR unknown command '%s'", tok);
		return -EINVAL;
	}
	ok = cmd->keys | SIT_KEY(CH) | SIT_KEY(TIMEOUT);
	while ((tok = strsep(&line, " \t"))) {
		if (!*tok)
			continue;
		eq = strchr(tok, '=');
		if (eq)
			*eq = '\0';
		k = match_string(sit_key_names, SIT_NR_KEYS, tok);
		if (!eq || k < 0 || !(ok & BIT(k))) {
			sit_res(a, "ERROR bad option '%s' for %s", tok,
				cmd->name);
			return -EINVAL;
		}
		a->seen |= BIT(k);
		a->val[k] = eq + 1;
	}
	if ((a->seen & cmd->required) != cmd->required) {
		sit_res(a, "ERROR %s: missing option %s", cmd->name,
			sit_key_names[__ffs(cmd->required & ~a->seen)]);
		return -EINVAL;
	}
	*cmdp = cmd;
	return 0;
}

static int sit_exec(const struct sit_cmd *cmd, struct sit_args *a)
{
	struct sit_ch *ch;
	u64 idx, secs;
	int ret;

	ret = sit_num(a, SIT_K_CH, 0, SIT_MAX_CH - 1, &idx) ?:
	      sit_num(a, SIT_K_TIMEOUT, SIT_DEF_TIMEOUT, SIT_MAX_TIMEOUT,
		      &secs);
	if (ret)
		return ret;
	a->timeout = secs * HZ;
	ch = &sit_chs[idx];
	if (!cmd->locked)
		return cmd->run(ch, a);
	if (mutex_lock_interruptible(&ch->mutex)) {
		sit_res(a, "ERROR interrupted");
		return 0;
	}
	ret = cmd->run(ch, a);
	mutex_unlock(&ch->mutex);
	return ret;
}

/* ---------------------------------------------------------------------
 * debugfs control file
 */

static int sit_open(struct inode *inode, struct file *file)
{
	struct sit_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	file->private_data = f;
	return 0;
}

static int sit_file_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

/* The result goes to this open file and to the global "last result". */
static void sit_store(struct sit_file *f, struct sit_args *a)
{
	if (!a->len)
		sit_res(a, "ERROR malformed command");
	spin_lock(&sit_last_lock);
	snprintf(sit_last, sizeof(sit_last), "%s\n", a->res);
	strscpy(f->res, sit_last, sizeof(f->res));
	f->has_res = true;
	spin_unlock(&sit_last_lock);
}

static ssize_t sit_read(struct file *file, char __user *ubuf, size_t count,
			loff_t *ppos)
{
	struct sit_file *f = file->private_data;
	char buf[SIT_RES_LEN + 1];

	spin_lock(&sit_last_lock);
	strscpy(buf, f->has_res ? f->res : sit_last, sizeof(buf));
	spin_unlock(&sit_last_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, strlen(buf));
}

static ssize_t sit_write(struct file *file, const char __user *ubuf,
			 size_t count, loff_t *ppos)
{
	const struct sit_cmd *cmd;
	struct sit_args *a;
	char *line;
	int ret;

	if (!count || count >= SIT_LINE_MAX)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a) {
		kfree(line);
		return -ENOMEM;
	}
	ret = sit_parse(strim(line), a, &cmd);
	if (!ret)
		ret = sit_exec(cmd, a);
	sit_store(file->private_data, a);
	/* A read through the same file starts at the new result. */
	*ppos = 0;
	kfree(a);
	kfree(line);
	return ret ?: count;
}

static const struct file_operations sit_fops = {
	.owner		= THIS_MODULE,
	.open		= sit_open,
	.release	= sit_file_release,
	.read		= sit_read,
	.write		= sit_write,
	.llseek		= default_llseek,
};

/* ---------------------------------------------------------------------
 * ib_client: which devices exist; a removed device closes its channels
 */

static int sit_add_one(struct ib_device *dev)
{
	struct sit_dev *d = kzalloc(sizeof(*d), GFP_KERNEL);

	if (!d)
		return -ENOMEM;
	d->dev = dev;
	mutex_lock(&sit_devs_mutex);
	list_add_tail(&d->list, &sit_devs);
	mutex_unlock(&sit_devs_mutex);
	return 0;
}

/*
 * End the wait of a command running on a channel of a device that goes
 * away, so that device removal does not wait for its timeout.
 */
static void sit_device_gone(struct sit_ch *ch, struct ib_device *dev)
{
	spin_lock_bh(&ch->lock);
	if (READ_ONCE(ch->dev) == dev && ch->state != SIT_IDLE) {
		if (!ch->cm_done)
			strscpy(ch->cm_result, "ERROR device removed",
				sizeof(ch->cm_result));
		ch->cm_done = true;
		ch->dreq_done = true;
		sit_set_state(ch, SIT_DISCONNECTED);
	}
	spin_unlock_bh(&ch->lock);
}

static void sit_remove_one(struct ib_device *dev, void *client_data)
{
	struct sit_dev *d, *tmp;
	struct sit_ch *ch;

	/* After this no login finds @dev (sit_get_device()). */
	mutex_lock(&sit_devs_mutex);
	list_for_each_entry_safe(d, tmp, &sit_devs, list) {
		if (d->dev == dev) {
			list_del(&d->list);
			kfree(d);
		}
	}
	mutex_unlock(&sit_devs_mutex);
	for (ch = sit_chs; ch < sit_chs + SIT_MAX_CH; ch++)
		sit_device_gone(ch, dev);
	for (ch = sit_chs; ch < sit_chs + SIT_MAX_CH; ch++) {
		mutex_lock(&ch->mutex);
		if (ch->dev == dev) {
			pr_info("ch%d: closed (%s removed or module unloaded)\n",
				ch->idx, dev_name(&dev->dev));
			sit_release(ch);
		}
		mutex_unlock(&ch->mutex);
	}
}

static struct ib_client sit_client = {
	.name	= KBUILD_MODNAME,
	.add	= sit_add_one,
	.remove	= sit_remove_one,
};

static int __init sit_init(void)
{
	struct sit_ch *ch;
	int ret;

	for (ch = sit_chs; ch < sit_chs + SIT_MAX_CH; ch++) {
		ch->idx = ch - sit_chs;
		mutex_init(&ch->mutex);
		spin_lock_init(&ch->lock);
		init_waitqueue_head(&ch->wq);
	}
	ret = ib_register_client(&sit_client);
	if (ret)
		return ret;
	sit_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("cmd", 0600, sit_dir, NULL, &sit_fops);
	return 0;
}

static void __exit sit_exit(void)
{
	struct sit_ch *ch;

	/* No command runs after this: the file is gone (and it pins us). */
	debugfs_remove_recursive(sit_dir);
	/* Calls sit_remove_one() for every device: closes every channel. */
	ib_unregister_client(&sit_client);
	for (ch = sit_chs; ch < sit_chs + SIT_MAX_CH; ch++)
		WARN_ON_ONCE(ch->dev);
}

module_init(sit_init);
module_exit(sit_exit);

MODULE_DESCRIPTION("Test SRP initiator logging in over the IB CM (RoCE path built by hand)");
MODULE_LICENSE("GPL");
