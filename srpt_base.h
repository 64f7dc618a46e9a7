/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The structures every file shares (devices, ports, target ports, TPGs,
 * channels, commands, buffers), and the tunables' defaults and bounds.
 */
#ifndef SRPT_BASE_H
#define SRPT_BASE_H

#include <linux/completion.h>
#include <linux/inet.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>
#include "srpt_names.h"
#include "srpt_proto.h"

/* Defaults and bounds of the tunables. */
#define SRPT_DEF_MAX_REQ_SIZE	8260	/* ib_srp's default with imm. data */
#define SRPT_MIN_MAX_REQ_SIZE	996	/* the in-kernel module's */
#define SRPT_MAX_MAX_REQ_SIZE	65536
/* srp_sq_size: as the in-kernel module (a cap on the send queue here). */
#define SRPT_DEF_SQ_SIZE	4096
#define SRPT_MIN_SQ_SIZE	4
#define SRPT_MAX_SQ_SIZE	65535
#define SRPT_MIN_SEND_WRS	64	/* SQ slots of a channel, whatever srp_sq_size says */
/* srp_credits: receive buffers, and so credits, per channel. */
#define SRPT_DEF_CREDITS	256
#define SRPT_MIN_CREDITS	16
#define SRPT_MAX_CREDITS	4096
/* srpt_srq_size, as in the in-kernel module. */
#define SRPT_DEF_SRQ_SIZE	4095
#define SRPT_MIN_SRQ_SIZE	4
#define SRPT_MAX_SRQ_SIZE	65535
/* srp_max_channels(_per_initiator): 0 is no limit. */
#define SRPT_MAX_CHANNELS	65535
#define SRPT_DEF_RSP_SIZE	256
#define SRPT_MIN_RSP_SIZE	(SRPT_RSP_FIXED_LEN + 4)	/* an SRP_RSP with response data */
#define SRPT_MAX_RSP_SIZE	1024
/* srp_max_rdma_size, as in-kernel: only advertised (IOControllerProfile) */
#define SRPT_DEF_RDMA_SIZE	SZ_64K
#define SRPT_MIN_RDMA_SIZE	SZ_64K
#define SRPT_MAX_RDMA_SIZE	SZ_16M
/*
 * Bytes of one RDMA context: 256 pages, the most one rdma_rw MR covers (without MRs rdma_rw
 * splits by SGE limit). Tests lower it (debugfs rw_size, >= a page) for more contexts per byte.
 */
#define SRPT_RW_SIZE		SZ_1M
#define SRPT_MIN_RW_CTXS	(2 * SRPT_MAX_DATA_LEN / SRPT_RW_SIZE)	/* of a channel */
#define SRPT_MAX_DATA_LEN	SZ_64M	/* of one SCSI command */
#define SRPT_INLINE_RW		2	/* RDMA contexts in a command; more allocated */
#define SRPT_MAX_RW		1024	/* RDMA contexts of one command */
/*
 * Data buffers of up to this many bytes in one RDMA context piece take the pages their command
 * slot kept from earlier commands, allocating only what it lacks (srpt_alloc_buf()).
 */
#define SRPT_CACHED_DATA	SZ_64K
#define SRPT_CACHED_PAGES	DIV_ROUND_UP(SRPT_CACHED_DATA, PAGE_SIZE)
/* The most the commands of one channel keep so (more: allocated per command, as larger buffers). */
#define SRPT_CACHED_CH_BYTES	SZ_8M

/**
 * struct srpt_cmd_pages - data pages a command keeps (allocated at its first such buffer)
 * @n: entries of @page allocated, the most one buffer needed so far
 * @page: the pages, kept until the command's pool is freed
 * @sg: the scatterlist of a buffer in @page (cmd->rw[0].buf), built for each command
 */
struct srpt_cmd_pages {
	u32			n;
	struct page		*page[SRPT_CACHED_PAGES];
	struct scatterlist	sg[SRPT_CACHED_PAGES];
};

/*
 * Minimum RNR NAK timer of every channel's QP (both CMs; 0 is 655.36 ms): how long an initiator
 * waits to resend a message that found no receive buffer (an SRQ may have fewer than credits).
 */
#define SRPT_MIN_RNR_TIMER	IB_RNR_TIMER_000_16
/*
 * SRQ buffers beyond srpt_srq_size, posted only for channels with an SRP_CRED_REQ outstanding
 * (srpt_post_cred_spare()); more such channels at once rely on RNR retries.
 */
#define SRPT_SRQ_SPARES		8

/**
 * enum srpt_ch_state - life of an RDMA channel, only ever moving forward
 * @SRPT_CH_NEW: the login sets the channel up; a close is only recorded
 * @SRPT_CH_CONNECTING: login accepted, waiting for RTU / ESTABLISHED; IUs that arrive are parked
 * @SRPT_CH_LIVE: commands are executed
 * @SRPT_CH_DISCONNECTING: the release work is queued, no new commands
 * @SRPT_CH_DRAINING: nothing posted any more; QP drained, commands finish, resources freed
 *
 * Transitions, made in srpt_life.c only: NEW -> CONNECTING (accepted) or DISCONNECTING (failed,
 * or close requested); CONNECTING -> LIVE (RTU); CONNECTING, LIVE -> DISCONNECTING
 * (srpt_close_ch()); DISCONNECTING -> DRAINING (release work).
 */
enum srpt_ch_state {
	SRPT_CH_NEW,
	SRPT_CH_CONNECTING,
	SRPT_CH_LIVE,
	SRPT_CH_DISCONNECTING,
	SRPT_CH_DRAINING,
};

/**
 * struct srpt_port - one port of an RDMA device
 * @sdev: device the port belongs to
 * @port_num: 1-based port number
 * @mad_agent: Device Management agent, or NULL
 * @dm_cap: we set IsDeviceManagementSupported in PortInfo
 */
struct srpt_port {
	struct srpt_device	*sdev;
	u32			port_num;
	struct ib_mad_agent	*mad_agent;
	bool			dm_cap;
};

/**
 * struct srpt_device - per RDMA device state
 * @ib_dev: the device
 * @pd: protection domain of all channels on this device
 * @ioc_guid: IOC GUID and id_ext this device answers to (big endian), also its IB CM service ID
 * @cm_id: IB CM listener, or NULL
 * @event_handler: port events
 * @entry: in the device list of logins (srpt_login.c); off it once removal has started
 * @removing: removal has started: releases no longer wait for a port of it to come back (srpt_ch.c)
 * @srq: SRQ of use_srq=1 channels, from the first such login to the last release, or NULL
 * @port_cnt: number of entries in @port
 * @port: per port state
 */
struct srpt_device {
	struct ib_device	*ib_dev;
	struct ib_pd		*pd;
	__be64			ioc_guid;
	struct ib_cm_id		*cm_id;
	struct ib_event_handler	event_handler;
	struct list_head	entry;
	bool			removing;
	struct srpt_srq		*srq;
	u32			port_cnt;
	struct srpt_port	port[] __counted_by(port_cnt);
};

/**
 * struct srpt_tpg_attrib - TPG tunables (configfs attrib/)
 * @max_rdma_size: srp_max_rdma_size (SRPT_DEF_RDMA_SIZE)
 * @max_rsp_size: largest IU sent to the initiator (MAX_TI_IU_LEN)
 * @sq_size: most send queue WRs per channel, >= SRPT_MIN_SEND_WRS; fewer if credits need fewer
 * @credits: receive buffers, and so credits, per channel
 * @use_srq: new channels receive through the device's SRQ, not @credits buffers each
 * @max_channels: most channels of the target port, 0 for no limit
 * @max_nexus_channels: most channels of one I_T nexus, 0 for no limit
 */
struct srpt_tpg_attrib {
	u32	max_rdma_size;
	u32	max_rsp_size;
	u32	sq_size;
	u32	credits;
	u32	use_srq;
	u32	max_channels;
	u32	max_nexus_channels;
};

/**
 * enum srpt_stat - channel counters (debugfs ib_srpt/channels), added to the tport's at release
 * @SRPT_STAT_CMDS: SRP_CMDs received
 * @SRPT_STAT_TMFS: SRP_TSK_MGMTs received
 * @SRPT_STAT_BYTES_IN: data-out bytes received (RDMA READ, immediate data)
 * @SRPT_STAT_BYTES_OUT: data-in bytes sent (RDMA WRITE, then the response)
 * @SRPT_STAT_ERRORS: responses other than GOOD or a completed TMF (refusals, SRP_T_LOGOUT too)
 * @SRPT_STAT_ABORTS: commands LIO gave up without a response or answered TASK ABORTED
 * @SRPT_STAT_SQ_WAITS: RDMA transfers and responses that waited for SQ slots or RDMA contexts
 * @SRPT_STAT_WR_ERRORS: work requests that failed (flushes not counted)
 * @SRPT_STAT_NR: number of counters
 */
enum srpt_stat {
	SRPT_STAT_CMDS,
	SRPT_STAT_TMFS,
	SRPT_STAT_BYTES_IN,
	SRPT_STAT_BYTES_OUT,
	SRPT_STAT_ERRORS,
	SRPT_STAT_ABORTS,
	SRPT_STAT_SQ_WAITS,
	SRPT_STAT_WR_ERRORS,
	SRPT_STAT_NR
};

/**
 * struct srpt_login_stats - logins to a target port (srpt_login_stats)
 * @accepted: logins accepted
 * @rejected: logins refused, by SRP_LOGIN_REJ reason (srpt_rej_index())
 * @lock: protects the @last_* fields
 * @last_reason: SRP_LOGIN_REJ reason of the last refusal, 0 if none
 * @last_i_port_id: its initiator port ID
 * @last_peer: its initiator address (IP or port GID)
 * @last_why: what the target found wrong with it
 */
struct srpt_login_stats {
	atomic64_t	accepted;
	atomic64_t	rejected[SRPT_REJ_NR];
	spinlock_t	lock;	/* the last_* fields */
	u32		last_reason;
	u8		last_i_port_id[16];
	char		last_peer[INET6_ADDRSTRLEN + 8];
	char		last_why[96];
};

/**
 * struct srpt_tport - a target port (configfs WWN), named by port GID or GUID
 * @wwn: LIO WWN
 * @name: the name as configfs shows it
 * @id: GID (16 bytes) or GUID (8 bytes) the name stands for
 * @id_len: 16 or 8
 * @entry: in srpt_tport_list
 * @tpgs: its TPGs (struct srpt_tpg.entry), by tag; under srpt_mutex
 * @logins: login counters
 * @released: SRPT_STAT_* of released channels (under srpt_life.c's lock)
 * @login_stats_group: configfs fabric_statistics/srpt_login_stats
 * @port_stats_group: configfs fabric_statistics/srpt_port_stats
 */
struct srpt_tport {
	struct se_wwn		wwn;
	char			name[40];
	u8			id[16];
	u8			id_len;
	struct list_head	entry;
	struct list_head	tpgs;
	struct srpt_login_stats	logins;
	u64			released[SRPT_STAT_NR];
	struct config_group	login_stats_group;
	struct config_group	port_stats_group;
};

/**
 * struct srpt_node_acl - a node ACL of the srpt fabric
 * @nacl: LIO node ACL (first: LIO allocates node_acl_size for it)
 * @id: what its name stands for
 * @id_valid: @id is filled in (set with release semantics after @id)
 */
struct srpt_node_acl {
	struct se_node_acl	nacl;
	struct srpt_acl_id	id;
	bool			id_valid;
};

struct srpt_listener;

/**
 * struct srpt_np - a network portal: tpgt_1/np/<address>:<port>
 * @se_np: LIO network portal
 * @listener: RDMA/CM listener bound to that address and port
 */
struct srpt_np {
	struct se_tpg_np	se_np;
	struct srpt_listener	*listener;
};

/**
 * struct srpt_tpg - a TPG of a target port (tpgt_<tag>)
 * @se_tpg: LIO TPG
 * @tport: the port
 * @entry: in tport->tpgs
 * @tag: N of tpgt_N, 1..65535
 * @enabled: logins are accepted
 * @attrib: tunables
 */
struct srpt_tpg {
	struct se_portal_group	se_tpg;
	struct srpt_tport	*tport;
	struct list_head	entry;
	u16			tag;
	bool			enabled;
	struct srpt_tpg_attrib	attrib;
};

struct srpt_rdma_ch;
struct srpt_cm_ops;

/**
 * struct srpt_login_ctx - a login request as the CM delivered it
 * @ib_dev: RDMA device the request came in on
 * @port_num: its port
 * @sport: our port state, once the device was found
 * @tport: target port named by the receiving port's GID; once @stpg is chosen, its port
 * @stpg: the TPG that admits the initiator, once chosen
 * @gid: GID 0 of the receiving port
 * @acl_name: the name of the node ACL that admits the initiator
 * @lg: parsed SRP_LOGIN_REQ
 * @ops: CM operations for the new channel
 * @rdma_cm: RDMA/CM id of the connection (RDMA/CM logins)
 * @ib_cm: IB CM id of the connection (IB CM logins)
 * @ib_req: the REQ's parameters (IB CM logins)
 * @ip: initiator IP address as text (RDMA/CM logins), or ""
 * @ip_raw: the same as IPv6 (IPv4 v4-mapped), if @has_ip
 * @has_ip: the login came with an IP address
 * @rdma_param: the initiator's RDMA/CM connection parameters
 * @peer: initiator IP (RDMA/CM) or port GID (IB CM), for session listings
 * @why: what the refusing step found wrong (log line, port counters)
 */
struct srpt_login_ctx {
	struct ib_device		*ib_dev;
	u32				port_num;
	struct srpt_port		*sport;
	struct srpt_tport		*tport;
	struct srpt_tpg			*stpg;
	union ib_gid			gid;
	char				acl_name[SRPT_ACL_NAME_MAX];
	struct srpt_login		lg;
	const struct srpt_cm_ops	*ops;
	struct rdma_cm_id		*rdma_cm;
	struct ib_cm_id			*ib_cm;
	const struct ib_cm_req_event_param *ib_req;
	char				ip[INET6_ADDRSTRLEN + 8];
	struct in6_addr			ip_raw;
	bool				has_ip;
	const struct rdma_conn_param	*rdma_param;
	char				peer[INET6_ADDRSTRLEN + 8];
	char				why[96];
};

/**
 * struct srpt_cm_ops - what differs between IB CM and RDMA/CM channels
 * @name: the CM as session listings name it ("ib_cm", "rdma_cm")
 * @create_qp: create ch->qp with @attr
 * @destroy_qp: destroy ch->qp (of a channel not yet accepted)
 * @accept: send the login response @rsp of @len bytes
 * @reject: send the login rejection @rej of @len bytes
 * @comm_est: the QP saw traffic before the CM saw the RTU; atomic context
 * @disconnect: send a DREQ; may sleep
 * @destroy: destroy the QP (if any) and the CM id; never called from a CM callback of the id
 */
struct srpt_cm_ops {
	const char *name;
	int (*create_qp)(struct srpt_rdma_ch *ch, struct ib_qp_init_attr *attr);
	void (*destroy_qp)(struct srpt_rdma_ch *ch);
	int (*accept)(struct srpt_rdma_ch *ch, struct srpt_login_ctx *lc, const void *rsp, u8 len);
	void (*reject)(struct srpt_login_ctx *lc, const void *rej, u8 len);
	void (*comm_est)(struct srpt_rdma_ch *ch);
	void (*disconnect)(struct srpt_rdma_ch *ch);
	void (*destroy)(struct srpt_rdma_ch *ch);
};

/**
 * struct srpt_recv_layout - how receive buffers are laid out
 * @size: bytes an IU may have (MAX_IT_IU_LEN), received at @pad
 * @imm_data_offset: where immediate data starts in an IU, 0 if none
 * @pad: bytes before the IU, so immediate data starts on a page boundary
 * @alloc: bytes allocated per buffer
 * @pages: whole pages (immediate data, or IUs over a page), else kmalloc()
 * @imm_sg_cnt: scatterlist entries per buffer for immediate data
 */
struct srpt_recv_layout {
	u32	size;
	u16	imm_data_offset;
	u32	pad;
	u32	alloc;
	bool	pages;
	u32	imm_sg_cnt;
};

/*
 * Immediate data offset of SRQ buffers: ib_srp's (SRP_CMD, 16 bytes of additional CDB, 4-byte data
 * descriptor). A channel on the SRQ asking for another gets no immediate data.
 */
#define SRPT_SRQ_IMM_OFFSET	68

struct srpt_recv_iu;

/**
 * struct srpt_srq - a device's shared receive queue (use_srq=1 channels)
 * @srq: the verbs SRQ
 * @sdev: its device
 * @users: channels that use it (srpt_ch.c, under its SRQ mutex)
 * @size: receive buffers, all posted unless a channel holds them
 * @n_bufs: @size plus up to SRPT_SRQ_SPARES spares (as the device allows)
 * @lock: protects @spares and @retire (srpt_buf.c takes it, nothing else)
 * @spares: unposted buffers for SRP_CRED_RSPs of outstanding SRP_CRED_REQs
 * @retire: spares left posted by channels gone before their SRP_CRED_RSP: reposts owed to @spares
 * @layout: the buffers' layout (srp_max_req_size, SRPT_SRQ_IMM_OFFSET)
 * @recv: the buffers
 * @imm_sgs: their scatterlists for immediate data
 */
struct srpt_srq {
	struct ib_srq		*srq;
	struct srpt_device	*sdev;
	u32			users;
	u32			size;
	u32			n_bufs;
	spinlock_t		lock;	/* spares, retire */
	struct list_head	spares;
	u32			retire;
	struct srpt_recv_layout	layout;
	struct srpt_recv_iu	*recv;
	struct scatterlist	*imm_sgs;
};

/**
 * struct srpt_recv_iu - a receive buffer
 * @cqe: completion handler
 * @srq: the SRQ the buffer belongs to, or NULL: to @ch
 * @ch: channel (of an SRQ buffer: the one that received into it last)
 * @base: the allocation, layout.pad bytes before @buf
 * @buf: where the IU is received, layout.size bytes
 * @dma: DMA address of @buf
 * @len: bytes received
 * @imm_sg: layout.imm_sg_cnt entries for the immediate data of an SRP_CMD
 * @entry: in ch->iu_wait while not yet dispatched
 */
struct srpt_recv_iu {
	struct ib_cqe		cqe;
	struct srpt_srq		*srq;
	struct srpt_rdma_ch	*ch;
	void			*base;
	void			*buf;
	u64			dma;
	u32			len;
	struct scatterlist	*imm_sg;
	struct list_head	entry;
};

/**
 * struct srpt_rw - one RDMA context of a command, and a piece of its buffer
 * @rw: rdma_rw context
 * @sg: what @rw moves: data buffer entries, or its own table (@own_sg) if mid-page
 * @nents: entries in @sg
 * @va: remote address
 * @rkey: remote key
 * @len: bytes
 * @cnt: entries of @sg mapped by @rw
 * @active: @rw is initialised
 * @own_sg: @sg is allocated for this context
 * @buf: rw_size bytes of LIO's data buffer in whole pages, chained; only the first of
 *	cmd->rw carry one, not in context order (srpt_alloc_buf()); cmd->pages->sg if the
 *	buffer is in the pages the command keeps (then they are not freed with it)
 * @buf_nents: entries in @buf
 * @buf_len: bytes in @buf
 */
struct srpt_rw {
	struct rdma_rw_ctx	rw;
	struct scatterlist	*sg;
	unsigned int		nents;
	u64			va;
	u32			rkey;
	u32			len;
	u32			cnt;
	bool			active;
	bool			own_sg;
	struct scatterlist	*buf;
	unsigned int		buf_nents;
	u32			buf_len;
};

/**
 * enum srpt_cmd_state - life of a command of a channel's pool
 * @SRPT_CMD_FREE: in the pool (ch->free_cmds)
 * @SRPT_CMD_RECEIVED: holds a received IU being handled here (parsed, refused, TMF), not by LIO
 * @SRPT_CMD_TABLE: RDMA READ of its indirect table queued or posted
 * @SRPT_CMD_IN_LIO: LIO executes it (a SCSI command or a TMF)
 * @SRPT_CMD_DATA_OUT: RDMA READ of its data-out queued or posted; LIO waits
 * @SRPT_CMD_RSP: its response (after RDMA WRITEs of data-in) queued or posted
 * @SRPT_CMD_SENT: response sent or never will be; LIO (if it has it) has yet to release it
 * @SRPT_CMD_NR: number of states
 *
 * Changed only by srpt_cmd_set_state() (srpt_sq.c), which checks it;
 * queued means in ch->sq_wait or ch->rsp_wait (TABLE, DATA_OUT, RSP only).
 */
enum srpt_cmd_state {
	SRPT_CMD_FREE,
	SRPT_CMD_RECEIVED,
	SRPT_CMD_TABLE,
	SRPT_CMD_IN_LIO,
	SRPT_CMD_DATA_OUT,
	SRPT_CMD_RSP,
	SRPT_CMD_SENT,
	SRPT_CMD_NR
};

struct srpt_cmd;
struct srpt_task_set;
/* Called once an indirect table was fetched (0) or could not be (< 0). */
typedef void (*srpt_table_done_fn)(struct srpt_cmd *cmd, int err);

/**
 * struct srpt_cmd - a request being handled, from a pool per channel
 * @se_cmd: LIO command (valid if @lio)
 * @ch: channel
 * @iu: receive buffer holding the request, NULL once given back (or to the response's post)
 * @rsp_cqe: completion of the response SEND
 * @read_cqe: completion of the RDMA READs
 * @table_cqe: completion of the RDMA READ of an indirect table
 * @rsp_buf: response buffer of ch->max_rsp_size bytes
 * @rsp_dma: its DMA address
 * @rsp_len: length of the response to send
 * @tag: SRP tag of the request
 * @sense: sense buffer for LIO
 * @rw_inline: RDMA contexts for small commands
 * @rw: RDMA contexts in use (@rw_inline or allocated)
 * @n_rw: entries in @rw
 * @n_active: entries of @rw initialised for the transfer
 * @n_wrs: send queue slots the RDMA contexts use
 * @xfer_len: bytes the initialised RDMA contexts move
 * @sq_held: send queue slots held by what is posted
 * @data_sg: data buffer handed to LIO (chained @rw bufs, or @iu->imm_sg)
 * @data_nents: entries in @data_sg
 * @pages: data pages the command keeps from its first buffer of up to SRPT_CACHED_DATA until
 *	its pool is freed, for the next such buffers (srpt_cmd_pages()); NULL before
 * @imm: data came as immediate data
 * @data_out: RDMA READ direction
 * @rw_ready: the RDMA contexts for what @state needs are initialised
 * @rsp_with_data: the response follows RDMA WRITEs of data-in
 * @lio: @se_cmd was initialised with LIO
 * @close_after: close the channel once the response went (SRP_T_LOGOUT)
 * @sub_tmr: ABORT TASK of an ABORT/CLEAR TASK SET, not pooled: its release counts down @sub_set
 * @sub_set: see @sub_tmr
 * @clear_tas: another nexus's CLEAR TASK SET on a TAS LU aborts it: TASK ABORTED (ch->lock)
 * @tas_rsp: LIO aborted it with @clear_tas set (srpt_aborted_task())
 * @logout: the IU is the target's SRP_T_LOGOUT (srpt_ch_send_logout())
 * @in_order: response waits in ch->sq_wait behind earlier ones (TMF: srpt_ch_wait_answered())
 * @state: see enum srpt_cmd_state
 * @sq_waited: this wait was counted in SRPT_STAT_SQ_WAITS (under ch->lock)
 * @table: indirect descriptor table fetched from the initiator, or NULL
 * @table_sg: @table as the RDMA READ's buffer
 * @table_done: what to call once @table is in (srpt_fetch_table())
 * @entry: in ch->free_cmds, ch->sq_wait, ch->rsp_wait or ch->post_failed
 */
struct srpt_cmd {
	struct se_cmd		se_cmd;
	struct srpt_rdma_ch	*ch;
	struct srpt_recv_iu	*iu;
	struct ib_cqe		rsp_cqe;
	struct ib_cqe		read_cqe;
	struct ib_cqe		table_cqe;
	void			*rsp_buf;
	u64			rsp_dma;
	u32			rsp_len;
	u64			tag;
	u8			sense[TRANSPORT_SENSE_BUFFER];
	struct srpt_rw		rw_inline[SRPT_INLINE_RW];
	struct srpt_rw		*rw;
	u32			n_rw;
	u32			n_active;
	u32			n_wrs;
	u32			xfer_len;
	u32			sq_held;
	struct scatterlist	*data_sg;
	unsigned int		data_nents;
	struct srpt_cmd_pages	*pages;
	bool			imm;
	bool			data_out;
	bool			rw_ready;
	bool			rsp_with_data;
	bool			lio;
	bool			close_after;
	bool			sub_tmr;
	struct srpt_task_set	*sub_set;
	bool			clear_tas;
	bool			tas_rsp;
	bool			logout;
	bool			in_order;
	enum srpt_cmd_state	state;
	bool			sq_waited;
	u8			*table;
	struct scatterlist	table_sg;
	srpt_table_done_fn	table_done;
	struct list_head	entry;
};

/**
 * struct srpt_cmd_chunk - commands added to a channel's pool at once
 * @entry: in ch->cmd_chunks
 * @n: entries in @cmds
 * @cmds: the commands
 */
struct srpt_cmd_chunk {
	struct list_head	entry;
	u32			n;
	struct srpt_cmd		cmds[] __counted_by(n);
};

/**
 * struct srpt_task - a SCSI command a task set function aborts
 * @ch: its channel (pinned: srpt_ch_pin())
 * @tag: its tag
 * @lun: its LUN, as the channel's ACL maps the LU
 */
struct srpt_task {
	struct srpt_rdma_ch	*ch;
	u64			tag;
	u64			lun;
};

/**
 * struct srpt_rdma_ch - an SRP RDMA channel (one CM connection)
 * @sport: port the login came in on
 * @stpg: TPG the channel belongs to
 * @cm_ops: IB CM or RDMA/CM operations
 * @rdma_cm: RDMA/CM id (RDMA/CM channels)
 * @ib_cm: IB CM id (IB CM channels)
 * @qp: queue pair
 * @cq: completion queue (from the CQ pool)
 * @cq_size: its size, for ib_cq_pool_put()
 * @lock: protects @state, @close_requested and the lists
 * @post_lock: held while posting to @qp; the DRAINING transition takes it
 * @state: see enum srpt_ch_state; changed in srpt_life.c only
 * @close_requested: srpt_close_ch() was called while the state was NEW
 * @logout_reason: SRP_T_LOGOUT reason the release sends, or -1 (under @lock)
 * @logout_sent: the SRP_T_LOGOUT went out, or will not
 * @accepted: the CM accepted the connection (a DREQ is due at teardown)
 * @cm_settled: established or failed after the accept (srpt_cm_end())
 * @iu_running: a context dispatches @iu_wait (one at a time; under @lock)
 * @rq_size: receive buffers, credits granted at login
 * @sq_size: send queue WRs asked for (rdma_rw adds its contexts' own)
 * @max_req_size: MAX_IT_IU_LEN, size of a receive buffer
 * @max_rsp_size: MAX_TI_IU_LEN, size of a response buffer
 * @rw_size: most bytes per RDMA context (SRPT_RW_SIZE, or debugfs rw_size)
 * @imm_data_offset: immediate data offset, 0 if not granted
 * @srq: the device's SRQ it receives from, or NULL (buffers of its own)
 * @last_wqe: the QP (on @srq) took its last receive (IB_EVENT_QP_LAST_WQE_REACHED)
 * @sess_closed: close_session() is done (srpt_wait_close_session())
 * @layout: layout of the receive buffers (the SRQ's, with @srq)
 * @recv: receive buffers (@rq_size + 1 of them: see @spare), NULL with @srq
 * @spare: unposted receive buffer (no @srq); NULL while posted for an SRP_CRED_RSP (@lock)
 * @cred_spare: a spare buffer is posted (SRQ: left posted) for the SRP_CRED_REQ (@lock)
 * @imm_sgs: the scatterlists of all receive buffers
 * @cmd_chunks: command pool (srpt_cmd_chunk); grows under @lock to @max_cmds, never shrinks
 * @n_cmds: commands in @cmd_chunks
 * @max_cmds: most commands the pool grows to
 * @dispatch_work: grows an exhausted pool, dispatches waiting IUs (srpt_recv.c)
 * @dispatch_queued: @dispatch_work is queued or running, with a reference (under @lock)
 * @grow_wanted: IUs found the pool empty: @dispatch_work grows it (under @lock)
 * @free_cmds: unused commands of the pool
 * @cmds_busy: commands not in @free_cmds (under @lock)
 * @cred_req_out: an SRP_CRED_REQ is unanswered (under @lock)
 * @cred_req_tag: the tag of the current or next SRP_CRED_REQ (under @lock)
 * @ref: references (srpt_ch_get()): the release's, each command out of the pool, each
 *	context on the channel (dispatch, dispatch work, SQ kick), each task set pin; the
 *	release removes @sess and frees the channel when all are gone (srpt_ch_put_wait())
 * @iu_wait: received IUs not yet dispatched, in arrival order
 * @sq_wait: commands waiting for SQ slots or RDMA contexts (READs, data-in), in start order
 * @rsp_wait: responses without data waiting for an SQ slot, in order, started before
 *	@sq_wait (each returns a credit; a small SQ would hold them behind every RDMA READ)
 * @post_failed: commands whose chain was posted in part, failed once drained (@post_lock)
 * @sq_kicking: one context is starting the commands of @sq_wait
 * @sq_kick_again: resources came back while @sq_kicking; look again
 * @sq_wr_avail: free send queue slots
 * @sq_wr_total: send queue slots in all
 * @rw_active: RDMA contexts initialised (holding MRs, on iWARP)
 * @data_cache: bytes of the data pages its commands keep (srpt_cmd_pages())
 * @req_lim_delta: credits to return with the next response
 * @req_lim: credits the initiator holds: granted and returned, less requests received
 * @stats: SRPT_STAT_* counters (srpt_ch_count())
 * @i_port_id: initiator port identifier
 * @t_port_id: target port identifier
 * @sess_name: the ACL name the session was set up with
 * @id: unique since module load (session and connection ID of the ACL's info attribute)
 * @peer: the initiator's address (struct srpt_login_ctx)
 * @sess: LIO session
 * @entry: in srpt_ch_list
 * @release_work: tears the channel down
 * @rtu_timeout: closes an accepted channel not established in time
 * @rtu_timeout_s: that time in seconds, taken at login
 */
struct srpt_rdma_ch {
	struct srpt_port		*sport;
	struct srpt_tpg			*stpg;
	const struct srpt_cm_ops	*cm_ops;
	struct rdma_cm_id		*rdma_cm;
	struct ib_cm_id			*ib_cm;
	struct ib_qp			*qp;
	struct ib_cq			*cq;
	u32				cq_size;
	spinlock_t			lock;		/* state, lists */
	spinlock_t			post_lock;	/* posting WRs */
	enum srpt_ch_state		state;
	bool				close_requested;
	int				logout_reason;
	struct completion		logout_sent;
	bool				accepted;
	bool				cm_settled;
	bool				iu_running;
	u32				rq_size;
	u32				sq_size;
	u32				max_req_size;
	u32				max_rsp_size;
	u32				rw_size;
	u16				imm_data_offset;
	struct srpt_srq			*srq;
	struct completion		last_wqe;
	struct completion		sess_closed;
	struct srpt_recv_layout		layout;
	struct srpt_recv_iu		*recv;
	struct srpt_recv_iu		*spare;
	bool				cred_spare;
	struct scatterlist		*imm_sgs;
	struct list_head		cmd_chunks;
	u32				n_cmds;
	u32				max_cmds;
	struct work_struct		dispatch_work;
	bool				dispatch_queued;
	bool				grow_wanted;
	struct list_head		free_cmds;
	u32				cmds_busy;
	bool				cred_req_out;
	u64				cred_req_tag;
	refcount_t			ref;
	struct list_head		iu_wait;
	struct list_head		sq_wait;
	struct list_head		rsp_wait;
	struct list_head		post_failed;
	bool				sq_kicking;
	bool				sq_kick_again;
	atomic_t			sq_wr_avail;
	u32				sq_wr_total;
	atomic_t			rw_active;
	atomic_long_t			data_cache;
	atomic_t			req_lim_delta;
	atomic_t			req_lim;
	atomic64_t			stats[SRPT_STAT_NR];
	u8				i_port_id[16];
	u8				t_port_id[16];
	char				sess_name[SRPT_ACL_NAME_MAX];
	u32				id;
	char				peer[INET6_ADDRSTRLEN + 8];
	struct se_session		*sess;
	struct list_head		entry;
	struct work_struct		release_work;
	struct delayed_work		rtu_timeout;
	u32				rtu_timeout_s;
};

/**
 * struct srpt_ch_info - a snapshot of a channel, for configfs
 * @id: ch->id
 * @state: its state then
 * @i_port_id: initiator port ID
 * @peer: initiator address
 * @cm: name of its CM
 * @credits: credits granted at login
 */
struct srpt_ch_info {
	u32			id;
	enum srpt_ch_state	state;
	u8			i_port_id[16];
	char			peer[INET6_ADDRSTRLEN + 8];
	const char		*cm;
	u32			credits;
};

/**
 * struct srpt_port_counts - a target port's channels, for configfs
 * @stats: SRPT_STAT_* of its channels, live and released
 * @channels: its channels by state
 * @credits: credits its live initiators hold
 */
struct srpt_port_counts {
	u64	stats[SRPT_STAT_NR];
	u32	channels[SRPT_CH_DRAINING + 1];
	u64	credits;
};

static inline void srpt_ch_count(struct srpt_rdma_ch *ch, enum srpt_stat stat, u64 n)
{
	atomic64_add(n, &ch->stats[stat]);
}

/* Whether two channels belong to one I_T nexus (same port identifiers). */
static inline bool srpt_same_nexus(const struct srpt_rdma_ch *a, const struct srpt_rdma_ch *b)
{
	return !memcmp(a->i_port_id, b->i_port_id, sizeof(a->i_port_id)) &&
	       !memcmp(a->t_port_id, b->t_port_id, sizeof(a->t_port_id));
}

static inline struct ib_device *srpt_ch_dev(struct srpt_rdma_ch *ch)
{
	return ch->sport->sdev->ib_dev;
}

#endif /* SRPT_BASE_H */
