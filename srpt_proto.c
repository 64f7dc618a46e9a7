// SPDX-License-Identifier: GPL-2.0
/*
 * SRP wire format for the SRP target: every IU that comes from the wire is
 * checked here, field by field, before any other code looks at it. All
 * lengths are checked against the number of bytes actually received.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include "srpt_compat.h"
#include "srpt_proto.h"

/* Where the fields of an SRP_LOGIN_REQ are in each CM's private data. */
struct srpt_login_layout {
	u8 len, opcode, tag, iu_len, buf_fmt, flags, imm_off, i_id, t_id;
};

#define SRPT_LOGIN_LAYOUT(type) {					\
	.len = sizeof(struct type),					\
	.opcode = offsetof(struct type, opcode),			\
	.tag = offsetof(struct type, tag),				\
	.iu_len = offsetof(struct type, req_it_iu_len),		\
	.buf_fmt = offsetof(struct type, req_buf_fmt),			\
	.flags = offsetof(struct type, req_flags),			\
	.imm_off = offsetof(struct type, imm_data_offset),		\
	.i_id = offsetof(struct type, initiator_port_id),		\
	.t_id = offsetof(struct type, target_port_id),			\
}

static const struct srpt_login_layout srpt_login_ib =
	SRPT_LOGIN_LAYOUT(srp_login_req);
static const struct srpt_login_layout srpt_login_rdma =
	SRPT_LOGIN_LAYOUT(srp_login_req_rdma);

static int srpt_parse_login(const u8 *p, size_t len, const struct srpt_login_layout *l,
			    struct srpt_login *lg)
{
	if (len < l->len || p[l->opcode] != SRP_LOGIN_REQ)
		return -EINVAL;
	memcpy(&lg->tag, p + l->tag, sizeof(lg->tag));
	lg->req_it_iu_len = get_unaligned_be32(p + l->iu_len);
	lg->req_buf_fmt = get_unaligned_be16(p + l->buf_fmt);
	lg->req_flags = p[l->flags];
	lg->imm_data_offset = get_unaligned_be16(p + l->imm_off);
	memcpy(lg->i_port_id, p + l->i_id, 16);
	memcpy(lg->t_port_id, p + l->t_id, 16);
	return 0;
}

/**
 * srpt_parse_login_ib() - parse the 64-byte SRP_LOGIN_REQ of an IB CM REQ
 * @buf: CM REQ private data
 * @len: its length
 * @lg: parsed login
 *
 * Return: 0, or -EINVAL if @buf is too short or not an SRP_LOGIN_REQ.
 */
int srpt_parse_login_ib(const void *buf, size_t len, struct srpt_login *lg)
{
	return srpt_parse_login(buf, len, &srpt_login_ib, lg);
}

/**
 * srpt_parse_login_rdma() - parse the 56-byte login of an RDMA/CM request
 * @buf: RDMA/CM connect private data
 * @len: its length
 * @lg: parsed login
 *
 * RDMA/CM leaves 56 bytes of private data, so ib_srp sends the compact
 * struct srp_login_req_rdma, whose opcode is not at byte 0.
 *
 * Return: 0, or -EINVAL if @buf is too short or not an SRP_LOGIN_REQ.
 */
int srpt_parse_login_rdma(const void *buf, size_t len, struct srpt_login *lg)
{
	return srpt_parse_login(buf, len, &srpt_login_rdma, lg);
}

/**
 * srpt_check_login() - decide whether a login can be accepted
 * @lg: parsed login
 * @lim: what the target can do
 *
 * Return: 0 if acceptable, else the SRP_LOGIN_REJ reason code.
 */
u32 srpt_check_login(const struct srpt_login *lg, const struct srpt_login_limits *lim)
{
	if (lg->req_it_iu_len < SRPT_MIN_IU_LEN)
		return SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	if (lg->req_it_iu_len > lim->max_it_iu_len)
		return SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE;
	if (!lg->req_buf_fmt || (lg->req_buf_fmt & ~SRPT_BUF_FMTS))
		return SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT;
	if ((lg->req_flags & SRPT_MULTICHAN_MASK) > SRP_MULTICHAN_MULTI)
		return SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	if (memcmp(lg->t_port_id, lim->t_port_id, 16))
		return SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
	return 0;
}

/* SCSI status codes (SAM) that srpt_rsp_outcome() tells apart. */
#define SRPT_SAM_GOOD		0x00
#define SRPT_SAM_TASK_ABORTED	0x40

/* The SRP_LOGIN_REJ reasons in words, by their low bits. */
static const char * const srpt_rej_reasons[SRPT_REJ_NR] = {
	"unable to establish the channel",
	"insufficient resources",
	"requested IU length too large",
	"unable to associate the channel with the I_T nexus",
	"requested buffer formats not supported",
	"multiple channels not supported",
	"channel limit reached for this initiator",
};

/**
 * srpt_rej_index() - position of an SRP_LOGIN_REJ reason in 0..SRPT_REJ_NR-1
 * @reason: SRP_LOGIN_REJ_* code
 *
 * Return: the index, or -1 for a code SRP does not define.
 */
int srpt_rej_index(u32 reason)
{
	u32 i = reason - SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;

	return i < SRPT_REJ_NR ? i : -1;
}

/**
 * srpt_rej_words() - an SRP_LOGIN_REJ reason in words
 * @reason: SRP_LOGIN_REJ_* code
 *
 * Return: e.g. "requested IU length too large", or "unknown reason".
 */
const char *srpt_rej_words(u32 reason)
{
	int i = srpt_rej_index(reason);

	return i < 0 ? "unknown reason" : srpt_rej_reasons[i];
}

/**
 * srpt_build_login_rsp() - fill in an SRP_LOGIN_RSP
 * @rsp: 52-byte buffer
 * @tag: tag of the login request
 * @req_lim: initial credit
 * @max_it_iu_len: accepted initiator-to-target IU length
 * @max_ti_iu_len: largest IU the target will send
 * @flags: multichannel result and SRP_LOGIN_RSP_IMMED_SUPP
 */
void srpt_build_login_rsp(struct srp_login_rsp *rsp, u64 tag, u32 req_lim,
			  u32 max_it_iu_len, u32 max_ti_iu_len, u8 flags)
{
	memset(rsp, 0, sizeof(*rsp));
	rsp->opcode = SRP_LOGIN_RSP;
	rsp->req_lim_delta = cpu_to_be32(req_lim);
	memcpy(&rsp->tag, &tag, sizeof(tag));
	rsp->max_it_iu_len = cpu_to_be32(max_it_iu_len);
	rsp->max_ti_iu_len = cpu_to_be32(max_ti_iu_len);
	rsp->buf_fmt = cpu_to_be16(SRPT_BUF_FMTS);
	rsp->rsp_flags = flags;
}

/**
 * srpt_build_login_rej() - fill in an SRP_LOGIN_REJ
 * @rej: 32-byte buffer
 * @tag: tag of the login request
 * @reason: SRP_LOGIN_REJ_* reason
 */
void srpt_build_login_rej(struct srp_login_rej *rej, u64 tag, u32 reason)
{
	memset(rej, 0, sizeof(*rej));
	rej->opcode = SRP_LOGIN_REJ;
	rej->reason = cpu_to_be32(reason);
	memcpy(&rej->tag, &tag, sizeof(tag));
	rej->buf_fmt = cpu_to_be16(SRPT_BUF_FMTS);
}

static enum srpt_cmd_err srpt_parse_indirect(const u8 *p, u32 room, u8 cnt,
					     struct srpt_cmd_info *ci)
{
	const struct srp_indirect_buf *ib = (const void *)p;
	u32 table_len, n, i;
	u64 sum = 0;

	if (room < sizeof(*ib))
		return SRPT_CMD_BAD_IU;
	table_len = get_unaligned_be32(&ib->table_desc.len);
	ci->data_len = get_unaligned_be32(&ib->len);
	if (table_len % sizeof(struct srp_direct_buf))
		return SRPT_CMD_BAD_IU;
	n = table_len / sizeof(struct srp_direct_buf);
	if (n < cnt)
		return SRPT_CMD_BAD_IU;
	if (room - sizeof(*ib) < (u32)cnt * sizeof(struct srp_direct_buf))
		return SRPT_CMD_BAD_IU;
	ci->n_desc = cnt;
	ci->desc = p + sizeof(*ib);
	if (n > cnt) {
		/* Partial list inline: the table must be fetched. */
		ci->ext_table = true;
		ci->table.va = get_unaligned_be64(&ib->table_desc.va);
		ci->table.rkey = get_unaligned_be32(&ib->table_desc.key);
		ci->table.len = table_len;
		return n > SRPT_MAX_TABLE_DESC ? SRPT_CMD_TOO_BIG :
						 SRPT_CMD_EXT_TABLE;
	}
	for (i = 0; i < cnt; i++)
		sum += srpt_cmd_desc(ci, i).len;
	if (sum != ci->data_len)
		return SRPT_CMD_BAD_IU;
	return SRPT_CMD_OK;
}

/* SCSI opcode of variable-length CDBs; their byte 7 + 8 is their length. */
#define SRPT_VARLEN_CDB		0x7f

/*
 * The CDB length an opcode implies, as the SCSI midlayer and LIO compute it (scsi_command_size()):
 * by group code, or from a variable-length CDB's own length byte. LIO copies that many bytes.
 */
static u32 srpt_cdb_len_needed(const u8 *cdb)
{
	static const u8 group_len[8] = { 6, 10, 10, 12, 16, 12, 10, 10 };

	if (cdb[0] == SRPT_VARLEN_CDB)
		return cdb[7] + 8;
	return group_len[cdb[0] >> 5];
}

/**
 * srpt_parse_cmd() - validate an SRP_CMD and describe its data buffers
 * @iu: received bytes
 * @len: how many
 * @imm_data_offset: immediate data offset accepted at login, 0 if none
 * @max_data_len: largest data length the target accepts for one command
 * @ci: the result; ci->tag is valid as soon as @len >= 16
 *
 * Return: SRPT_CMD_OK, or why the command cannot be executed.
 */
enum srpt_cmd_err srpt_parse_cmd(const void *iu, u32 len, u32 imm_data_offset,
				 u32 max_data_len, struct srpt_cmd_info *ci)
{
	const struct srp_cmd *cmd = iu;
	u8 out_fmt, in_fmt, cnt;
	u32 off, room;
	const u8 *p;
	enum srpt_cmd_err err;

	memset(ci, 0, sizeof(*ci));
	ci->tag = srpt_iu_tag(iu, len);
	if (len < SRPT_CMD_FIXED_LEN)
		return SRPT_CMD_BAD_IU;
	memcpy(&ci->lun, &cmd->lun, sizeof(ci->lun));
	ci->task_attr = cmd->task_attr & 7;
	/* ADDITIONAL CDB LENGTH: dword count in bits 7:2. */
	off = SRPT_CMD_FIXED_LEN + (cmd->add_cdb_len & ~3);
	if (off > len)
		return SRPT_CMD_BAD_IU;
	ci->cdb = cmd->cdb;
	ci->cdb_len = 16 + (cmd->add_cdb_len & ~3);
	if (srpt_cdb_len_needed(ci->cdb) > ci->cdb_len)
		return SRPT_CMD_BAD_CDB;

	out_fmt = cmd->buf_fmt >> 4;
	in_fmt = cmd->buf_fmt & 0xf;
	if (out_fmt && in_fmt)
		return SRPT_CMD_BAD_FMT;	/* bidirectional */
	ci->data_out = out_fmt != 0;
	ci->fmt = out_fmt ? out_fmt : in_fmt;
	cnt = out_fmt ? cmd->data_out_desc_cnt : cmd->data_in_desc_cnt;
	p = (const u8 *)iu + off;
	room = len - off;

	switch (ci->fmt) {
	case SRP_NO_DATA_DESC:
		err = SRPT_CMD_OK;
		break;
	case SRP_DATA_DESC_DIRECT:
		if (room < sizeof(struct srp_direct_buf))
			return SRPT_CMD_BAD_IU;
		ci->n_desc = 1;
		ci->desc = p;
		ci->data_len = srpt_cmd_desc(ci, 0).len;
		err = SRPT_CMD_OK;
		break;
	case SRP_DATA_DESC_INDIRECT:
		err = srpt_parse_indirect(p, room, cnt, ci);
		break;
	case SRP_DATA_DESC_IMM:
		if (!ci->data_out || !imm_data_offset)
			return SRPT_CMD_BAD_FMT;
		if (room < sizeof(struct srp_imm_buf) ||
		    imm_data_offset < off + sizeof(struct srp_imm_buf))
			return SRPT_CMD_BAD_IU;
		ci->data_len = get_unaligned_be32(p);
		if (imm_data_offset > len || ci->data_len > len - imm_data_offset)
			return SRPT_CMD_BAD_IU;
		ci->imm_off = imm_data_offset;
		err = SRPT_CMD_OK;
		break;
	default:
		return SRPT_CMD_BAD_FMT;
	}
	if ((err == SRPT_CMD_OK || err == SRPT_CMD_EXT_TABLE) && ci->data_len > max_data_len)
		err = SRPT_CMD_TOO_BIG;
	return err;
}

/**
 * srpt_parse_table() - take the fetched indirect table of an SRP_CMD
 * @ci: command that srpt_parse_cmd() returned SRPT_CMD_EXT_TABLE for
 * @table: the ci->table.len bytes read from the initiator
 *
 * The IU's descriptors must start the table, which must add up to the data length.
 * On success @ci's descriptors are @table's: keep it while srpt_cmd_desc() reads them.
 *
 * Return: SRPT_CMD_OK, or SRPT_CMD_BAD_IU if the table disagrees.
 */
enum srpt_cmd_err srpt_parse_table(struct srpt_cmd_info *ci, const u8 *table)
{
	u32 inline_len = ci->n_desc * sizeof(struct srp_direct_buf), i;
	u64 sum = 0;

	if (!ci->ext_table)
		return SRPT_CMD_BAD_IU;
	if (memcmp(table, ci->desc, inline_len))
		return SRPT_CMD_BAD_IU;
	ci->desc = table;
	ci->n_desc = ci->table.len / sizeof(struct srp_direct_buf);
	for (i = 0; i < ci->n_desc; i++)
		sum += srpt_cmd_desc(ci, i).len;
	if (sum != ci->data_len)
		return SRPT_CMD_BAD_IU;
	return SRPT_CMD_OK;
}

/**
 * srpt_cmd_desc() - read remote buffer descriptor @i of a parsed SRP_CMD
 * @ci: parsed command
 * @i: index, below ci->n_desc
 *
 * Descriptors are only 4-byte aligned in the IU (at 48 + additional CDB length, or
 * 20 + 16 * i into an indirect one): read as bytes, never through a srp_direct_buf *.
 *
 * Return: the descriptor in host order.
 */
struct srpt_cmd_desc srpt_cmd_desc(const struct srpt_cmd_info *ci, u32 i)
{
	const u8 *d = ci->desc + i * sizeof(struct srp_direct_buf);
	struct srpt_cmd_desc r = {
		.va = get_unaligned_be64(d + offsetof(struct srp_direct_buf, va)),
		.rkey = get_unaligned_be32(d + offsetof(struct srp_direct_buf, key)),
		.len = get_unaligned_be32(d + offsetof(struct srp_direct_buf, len)),
	};

	return r;
}

/**
 * srpt_parse_tsk_mgmt() - validate an SRP_TSK_MGMT
 * @iu: received bytes
 * @len: how many
 * @ti: the result
 *
 * Return: 0, or -EINVAL if the IU is too short.
 */
int srpt_parse_tsk_mgmt(const void *iu, u32 len, struct srpt_tsk_info *ti)
{
	const struct srp_tsk_mgmt *tm = iu;

	memset(ti, 0, sizeof(*ti));
	ti->tag = srpt_iu_tag(iu, len);
	if (len < sizeof(*tm))
		return -EINVAL;
	memcpy(&ti->lun, &tm->lun, sizeof(ti->lun));
	ti->function = tm->tsk_mgmt_func;
	memcpy(&ti->task_tag, &tm->task_tag, sizeof(ti->task_tag));
	return 0;
}

/**
 * srpt_build_rsp() - fill in an SRP_RSP with SCSI status
 * @buf: response buffer
 * @buf_len: its size (the negotiated MAX_TI_IU_LEN)
 * @tag: tag of the request
 * @req_lim_delta: credits returned with this response
 * @status: SCSI status
 * @sense: sense data or NULL
 * @sense_len: its length; truncated to what fits in @buf
 * @flags: SRP_RSP_FLAG_DO* / DI* residual flags
 * @do_resid: data-out residual count
 * @di_resid: data-in residual count
 *
 * Return: the IU length.
 */
u32 srpt_build_rsp(void *buf, u32 buf_len, u64 tag, u32 req_lim_delta,
		   u8 status, const u8 *sense, u32 sense_len, u8 flags,
		   u32 do_resid, u32 di_resid)
{
	struct srp_rsp *rsp = buf;

	memset(rsp, 0, SRPT_RSP_FIXED_LEN);
	rsp->opcode = SRP_RSP;
	rsp->req_lim_delta = cpu_to_be32(req_lim_delta);
	memcpy(&rsp->tag, &tag, sizeof(tag));
	rsp->status = status;
	rsp->flags = flags;
	rsp->data_out_res_cnt = cpu_to_be32(do_resid);
	rsp->data_in_res_cnt = cpu_to_be32(di_resid);
	sense_len = min(sense_len, buf_len - SRPT_RSP_FIXED_LEN);
	if (sense && sense_len) {
		rsp->flags |= SRP_RSP_FLAG_SNSVALID;
		rsp->sense_data_len = cpu_to_be32(sense_len);
		memcpy(rsp->data, sense, sense_len);
	} else {
		sense_len = 0;
	}
	return SRPT_RSP_FIXED_LEN + sense_len;
}

/**
 * srpt_iu_set_req_lim_delta() - fill in the credits an IU to send returns
 * @iu: a target-to-initiator IU, at least 8 bytes
 * @delta: REQ_LIM_DELTA
 *
 * SRP_RSP, SRP_CRED_REQ and SRP_AER_REQ carry REQ_LIM_DELTA in bytes 4-7;
 * other IUs (SRP_T_LOGOUT has its reason there) have no such field.
 *
 * Return: true if @iu has the field and it was set.
 */
bool srpt_iu_set_req_lim_delta(void *iu, u32 delta)
{
	u8 *p = iu;

	switch (p[0]) {
	case SRP_RSP:
	case SRP_CRED_REQ:
	case SRP_AER_REQ:
		put_unaligned_be32(delta, p + 4);
		return true;
	default:
		return false;
	}
}

/**
 * srpt_rsp_outcome() - what an IU built here (srpt_build_*()) tells the initiator
 * @iu: the IU
 * @len: its length
 *
 * Return: SRPT_RSP_OK for an SRP_RSP with GOOD status (and FUNCTION COMPLETE if it has
 * response data), an SRP_CRED_REQ, an SRP_T_LOGOUT the target decided on (reasons 0, 1,
 * 4); SRPT_RSP_ABORTED for TASK ABORTED; SRPT_RSP_ERROR for anything else.
 */
enum srpt_rsp_outcome srpt_rsp_outcome(const void *iu, u32 len)
{
	const struct srp_rsp *rsp = iu;
	const u8 *p = iu;
	u32 reason;

	if (len >= 16 && p[0] == SRP_CRED_REQ)
		return SRPT_RSP_OK;
	if (len >= 16 && p[0] == SRP_T_LOGOUT) {
		reason = get_unaligned_be32(p + 4);
		return reason == SRPT_T_LOGOUT_NONE ||
		       reason == SRPT_T_LOGOUT_INACTIVE ||
		       reason == SRPT_T_LOGOUT_MULTICHANNEL ? SRPT_RSP_OK :
							      SRPT_RSP_ERROR;
	}
	if (len < SRPT_RSP_FIXED_LEN || rsp->opcode != SRP_RSP)
		return SRPT_RSP_ERROR;
	if (rsp->status == SRPT_SAM_TASK_ABORTED)
		return SRPT_RSP_ABORTED;
	if (rsp->status != SRPT_SAM_GOOD)
		return SRPT_RSP_ERROR;
	if (!(rsp->flags & SRP_RSP_FLAG_RSPVALID))
		return SRPT_RSP_OK;
	if (len < SRPT_RSP_FIXED_LEN + 4 || rsp->data[3] != SRPT_TM_COMPLETE)
		return SRPT_RSP_ERROR;
	return SRPT_RSP_OK;
}

/**
 * srpt_build_tm_rsp() - fill in the SRP_RSP of a task management function
 * @buf: response buffer
 * @buf_len: its size, at least 40
 * @tag: tag of the SRP_TSK_MGMT
 * @req_lim_delta: credits returned with this response
 * @code: SRP task management response code
 *
 * Return: the IU length.
 */
u32 srpt_build_tm_rsp(void *buf, u32 buf_len, u64 tag, u32 req_lim_delta,
		      enum srpt_tm_rsp_code code)
{
	struct srp_rsp *rsp = buf;

	srpt_build_rsp(buf, buf_len, tag, req_lim_delta, 0, NULL, 0, 0, 0, 0);
	rsp->flags = SRP_RSP_FLAG_RSPVALID;
	rsp->resp_data_len = cpu_to_be32(4);
	memset(rsp->data, 0, 4);
	rsp->data[3] = code;
	return SRPT_RSP_FIXED_LEN + 4;
}

/**
 * srpt_build_t_logout() - fill in an SRP_T_LOGOUT
 * @buf: buffer of at least 16 bytes
 * @buf_len: its size
 * @tag: tag to use
 * @reason: SRPT_T_LOGOUT_* reason
 *
 * Return: the IU length.
 */
u32 srpt_build_t_logout(void *buf, u32 buf_len, u64 tag, u32 reason)
{
	struct srp_t_logout *lo = buf;

	memset(lo, 0, sizeof(*lo));
	lo->opcode = SRP_T_LOGOUT;
	lo->reason = cpu_to_be32(reason);
	memcpy(&lo->tag, &tag, sizeof(tag));
	return sizeof(*lo);
}

/**
 * srpt_build_cred_req() - fill in an SRP_CRED_REQ
 * @buf: buffer of at least 16 bytes
 * @buf_len: its size
 * @tag: tag the initiator's SRP_CRED_RSP echoes
 *
 * REQ_LIM_DELTA is filled in at sending (srpt_iu_set_req_lim_delta()).
 *
 * Return: the IU length.
 */
u32 srpt_build_cred_req(void *buf, u32 buf_len, u64 tag)
{
	struct srp_cred_req *req = buf;

	memset(req, 0, sizeof(*req));
	req->opcode = SRP_CRED_REQ;
	memcpy(&req->tag, &tag, sizeof(tag));
	return sizeof(*req);
}

/**
 * srpt_fixed_sense() - build fixed-format sense data
 * @buf: at least 18 bytes
 * @len: size of @buf
 * @key: sense key
 * @asc: additional sense code
 * @ascq: additional sense code qualifier
 *
 * Return: the sense length (18), or 0 if @buf is too small.
 */
u32 srpt_fixed_sense(u8 *buf, u32 len, u8 key, u8 asc, u8 ascq)
{
	if (len < 18)
		return 0;
	memset(buf, 0, 18);
	buf[0] = 0x70;		/* current error, fixed format */
	buf[2] = key;
	buf[7] = 10;		/* additional sense length */
	buf[12] = asc;
	buf[13] = ascq;
	return 18;
}
