/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SRP wire format: parsing, validation and construction of information units. Nothing in here knows
 * about verbs, CMs or LIO, so the code can be read, unit-tested and fuzzed on its own.
 */
#ifndef SRPT_PROTO_H
#define SRPT_PROTO_H

#include <linux/string.h>
#include <linux/types.h>
#include <scsi/srp.h>

/* Smallest REQ_IT_IU_LEN a target must accept (SRP r16a). */
#define SRPT_MIN_IU_LEN		64
#define SRPT_CMD_FIXED_LEN	48	/* fixed part of SRP_CMD */
#define SRPT_RSP_FIXED_LEN	36	/* fixed part of SRP_RSP */
#define SRPT_MULTICHAN_MASK	0x03	/* multichannel action of login flags */
#define SRPT_BUF_FMTS		(SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT)
#define SRPT_MAX_TABLE_DESC	1024	/* of a fetched indirect table */

/* Additional sense code and qualifier (ASC << 8 | ASCQ) of refusals. */
#define SRPT_ASC_INVALID_IU_FIELD	0x0e03	/* in COMMAND INFORMATION UNIT */
#define SRPT_ASC_INVALID_CDB_FIELD	0x2400	/* INVALID FIELD IN CDB */

/* Response codes in the 4 bytes of SRP_RSP response data (TM results). */
enum srpt_tm_rsp_code {
	SRPT_TM_COMPLETE	= 0x00,
	SRPT_TM_INVALID_FIELDS	= 0x02,
	SRPT_TM_NOT_SUPPORTED	= 0x04,
	SRPT_TM_FAILED		= 0x05,
};

/* SRP_LOGIN_REJ reasons are 0x00010000 + 0..SRPT_REJ_NR - 1. */
#define SRPT_REJ_NR		7

/* What an IU sent to the initiator says: see srpt_rsp_outcome(). */
enum srpt_rsp_outcome {
	SRPT_RSP_OK,
	SRPT_RSP_ERROR,
	SRPT_RSP_ABORTED,
};

enum srpt_t_logout_reason {
	SRPT_T_LOGOUT_NONE		= 0,
	SRPT_T_LOGOUT_INACTIVE		= 1,
	SRPT_T_LOGOUT_INVALID_IU	= 2,
	SRPT_T_LOGOUT_NO_REQUEST	= 3,
	SRPT_T_LOGOUT_MULTICHANNEL	= 4,
	SRPT_T_LOGOUT_DATA_OUT_FMT	= 6,
	SRPT_T_LOGOUT_DATA_IN_FMT	= 7,
};

/**
 * struct srpt_login - an SRP_LOGIN_REQ in host order, whatever the CM
 * @tag: request tag, opaque (echoed back)
 * @req_it_iu_len: largest IU the initiator will send
 * @req_buf_fmt: SRP_BUF_FORMAT_* the initiator wants to use
 * @req_flags: multichannel action (bits 1:0) and SRP_IMMED_REQUESTED
 * @imm_data_offset: where immediate data starts in an SRP_CMD (SRP-2)
 * @i_port_id: initiator port identifier (extension || GUID)
 * @t_port_id: target port identifier (id_ext || IOC GUID)
 */
struct srpt_login {
	u64	tag;
	u32	req_it_iu_len;
	u16	req_buf_fmt;
	u8	req_flags;
	u16	imm_data_offset;
	u8	i_port_id[16];
	u8	t_port_id[16];
};

/**
 * struct srpt_login_limits - what this target can accept at login
 * @max_it_iu_len: largest IU the target can receive
 * @t_port_id: the target port identifier of the receiving port
 */
struct srpt_login_limits {
	u32	max_it_iu_len;
	u8	t_port_id[16];
};

/**
 * struct srpt_cmd_desc - one remote buffer of an SRP_CMD
 * @va: initiator virtual address
 * @rkey: initiator rkey
 * @len: length in bytes
 */
struct srpt_cmd_desc {
	u64	va;
	u32	rkey;
	u32	len;
};

/* Result of srpt_parse_cmd(). */
enum srpt_cmd_err {
	SRPT_CMD_OK = 0,
	SRPT_CMD_BAD_IU,	/* IU malformed: fields inconsistent */
	SRPT_CMD_BAD_FMT,	/* a buffer format this target cannot do */
	SRPT_CMD_TOO_BIG,	/* data length over the target's limit */
	SRPT_CMD_BAD_CDB,	/* the CDB is longer than the IU carries */
	SRPT_CMD_EXT_TABLE,	/* fine; fetch ci->table, then srpt_parse_table() */
};

/**
 * struct srpt_cmd_info - a validated SRP_CMD
 * @tag: command tag, opaque (echoed back)
 * @lun: 8-byte SAM LUN as it came on the wire
 * @cdb: pointer to the CDB inside the IU
 * @cdb_len: CDB length (16 + additional CDB length), at least what the CDB's opcode says it needs
 * @task_attr: SRP task attribute (low 3 bits of byte 29)
 * @data_out: true if the command carries data to the target
 * @fmt: data buffer format (SRP_DATA_DESC_*) of the direction in use
 * @data_len: total data length
 * @n_desc: number of remote buffers in @desc (direct or indirect)
 * @desc: first descriptor in the IU (4-byte aligned) or fetched table; read with srpt_cmd_desc()
 * @imm_off: offset of immediate data from the start of the IU
 * @ext_table: the indirect table is not fully inside the IU
 * @table: where the whole indirect table is if @ext_table
 */
struct srpt_cmd_info {
	u64		tag;
	struct scsi_lun	lun;
	const u8	*cdb;
	u32		cdb_len;
	u8		task_attr;
	bool		data_out;
	u8		fmt;
	u32		data_len;
	u32		n_desc;
	const u8	*desc;
	u32		imm_off;
	bool		ext_table;
	struct srpt_cmd_desc table;
};

/**
 * struct srpt_tsk_info - a validated SRP_TSK_MGMT
 * @tag: request tag
 * @lun: LUN the function applies to
 * @function: SRP_TSK_* function code
 * @task_tag: tag of the task to abort (ABORT TASK)
 */
struct srpt_tsk_info {
	u64		tag;
	struct scsi_lun	lun;
	u8		function;
	u64		task_tag;
};

int srpt_parse_login_ib(const void *buf, size_t len, struct srpt_login *lg);
int srpt_parse_login_rdma(const void *buf, size_t len, struct srpt_login *lg);
u32 srpt_check_login(const struct srpt_login *lg, const struct srpt_login_limits *lim);
void srpt_build_login_rsp(struct srp_login_rsp *rsp, u64 tag, u32 req_lim,
			  u32 max_it_iu_len, u32 max_ti_iu_len, u8 flags);
void srpt_build_login_rej(struct srp_login_rej *rej, u64 tag, u32 reason);

int srpt_rej_index(u32 reason);
const char *srpt_rej_words(u32 reason);

/* Opcode of a received IU of @len bytes, or 0xff (no SRP opcode) for an empty one. */
static inline u8 srpt_iu_opcode(const void *iu, u32 len)
{
	return len ? *(const u8 *)iu : 0xff;
}

/* Whether a received IU took a credit: all but SRP_CRED_RSP and SRP_AER_RSP (answers). */
static inline bool srpt_iu_uses_credit(u8 opcode)
{
	return opcode != SRP_CRED_RSP && opcode != SRP_AER_RSP;
}

/* Raw tag of a received IU, or 0 if it is too short to have one. */
static inline u64 srpt_iu_tag(const void *iu, u32 len)
{
	u64 tag = 0;

	if (len >= 16)
		memcpy(&tag, (const u8 *)iu + 8, sizeof(tag));
	return tag;
}

enum srpt_cmd_err srpt_parse_cmd(const void *iu, u32 len, u32 imm_data_offset,
				 u32 max_data_len, struct srpt_cmd_info *ci);
enum srpt_cmd_err srpt_parse_table(struct srpt_cmd_info *ci, const u8 *table);
struct srpt_cmd_desc srpt_cmd_desc(const struct srpt_cmd_info *ci, u32 i);
int srpt_parse_tsk_mgmt(const void *iu, u32 len, struct srpt_tsk_info *ti);

u32 srpt_build_rsp(void *buf, u32 buf_len, u64 tag, u32 req_lim_delta,
		   u8 status, const u8 *sense, u32 sense_len, u8 flags,
		   u32 do_resid, u32 di_resid);
bool srpt_iu_set_req_lim_delta(void *iu, u32 delta);
enum srpt_rsp_outcome srpt_rsp_outcome(const void *iu, u32 len);
u32 srpt_build_tm_rsp(void *buf, u32 buf_len, u64 tag, u32 req_lim_delta,
		      enum srpt_tm_rsp_code code);
u32 srpt_build_t_logout(void *buf, u32 buf_len, u64 tag, u32 reason);
u32 srpt_build_cred_req(void *buf, u32 buf_len, u64 tag);
u32 srpt_fixed_sense(u8 *buf, u32 len, u8 key, u8 asc, u8 ascq);

#endif /* SRPT_PROTO_H */
