/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of ib_srpt (tracefs events/ib_srpt/), defined in srpt_stats.c; what each shows:
 * Documentation/admin-guide.rst, Tracepoints. Channels are named by ch->id, the session and
 * connection ID of the ACL's info (`targetcli sessions`).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ib_srpt

#if !defined(SRPT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SRPT_TRACE_H

#include <linux/tracepoint.h>
#include <scsi/srp.h>
#include "srpt_base.h"

TRACE_DEFINE_ENUM(SRPT_CH_NEW);
TRACE_DEFINE_ENUM(SRPT_CH_CONNECTING);
TRACE_DEFINE_ENUM(SRPT_CH_LIVE);
TRACE_DEFINE_ENUM(SRPT_CH_DISCONNECTING);
TRACE_DEFINE_ENUM(SRPT_CH_DRAINING);

#define srpt_show_ch_state(s)						\
	__print_symbolic(s,						\
		{ SRPT_CH_NEW,		"NEW" },			\
		{ SRPT_CH_CONNECTING,	"CONNECTING" },			\
		{ SRPT_CH_LIVE,		"LIVE" },			\
		{ SRPT_CH_DISCONNECTING, "DISCONNECTING" },		\
		{ SRPT_CH_DRAINING,	"DRAINING" })

TRACE_DEFINE_ENUM(SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
TRACE_DEFINE_ENUM(SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
TRACE_DEFINE_ENUM(SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
TRACE_DEFINE_ENUM(SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
TRACE_DEFINE_ENUM(SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
TRACE_DEFINE_ENUM(SRP_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED);
TRACE_DEFINE_ENUM(SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED);

#define srpt_show_rej_reason(r)									\
	__print_symbolic(r,									\
		{ SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL, "UNABLE_ESTABLISH_CHANNEL" },		\
		{ SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES, "INSUFFICIENT_RESOURCES" },		\
		{ SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE, "REQ_IT_IU_LENGTH_TOO_LARGE" },	\
		{ SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL, "UNABLE_ASSOCIATE_CHANNEL" },		\
		{ SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT, "UNSUPPORTED_DESCRIPTOR_FMT" },	\
		{ SRP_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED, "MULTI_CHANNEL_UNSUPPORTED" },	\
		{ SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED, "CHANNEL_LIMIT_REACHED" })

TRACE_EVENT(srpt_login,
	    TP_PROTO(const struct srpt_rdma_ch *ch),
	    TP_ARGS(ch),
	    TP_STRUCT__entry(__field(u32, id)
			     __array(u8, i_port_id, 16)
			     __array(char, acl, 64)
			     __array(char, tport, 40)
			     __array(char, cm, 8)
			     __array(char, peer, INET6_ADDRSTRLEN + 8)
			     __field(u32, credits)
			     __field(u32, max_req)
			     __field(u32, max_rsp)
			     __field(bool, imm)),
	    TP_fast_assign(__entry->id = ch->id;
			   memcpy(__entry->i_port_id, ch->i_port_id, 16);
			   strscpy(__entry->acl, ch->sess_name, sizeof(__entry->acl));
			   strscpy(__entry->tport, ch->stpg->tport->name, sizeof(__entry->tport));
			   strscpy(__entry->cm, ch->cm_ops->name, sizeof(__entry->cm));
			   strscpy(__entry->peer, ch->peer, sizeof(__entry->peer));
			   __entry->credits = ch->rq_size;
			   __entry->max_req = ch->max_req_size;
			   __entry->max_rsp = ch->max_rsp_size;
			   __entry->imm = ch->imm_data_offset != 0;),
	    TP_printk("ch %u initiator 0x%16phN acl %s target %s via %s from %s: credits %u max_it_iu_len %u max_ti_iu_len %u imm %d",
		      __entry->id, __entry->i_port_id, __entry->acl,
		      __entry->tport, __entry->cm, __entry->peer,
		      __entry->credits, __entry->max_req, __entry->max_rsp,
		      __entry->imm)
);

TRACE_EVENT(srpt_login_reject,
	    TP_PROTO(const struct srpt_login_ctx *lc, u32 reason),
	    TP_ARGS(lc, reason),
	    TP_STRUCT__entry(__array(u8, i_port_id, 16)
			     __array(u8, t_port_id, 16)
			     __array(char, tport, 40)
			     __array(char, cm, 8)
			     __array(char, peer, INET6_ADDRSTRLEN + 8)
			     __field(u32, it_iu_len)
			     __field(u32, reason)),
	    TP_fast_assign(memcpy(__entry->i_port_id, lc->lg.i_port_id, 16);
			   memcpy(__entry->t_port_id, lc->lg.t_port_id, 16);
			   strscpy(__entry->tport, lc->stpg ? lc->stpg->tport->name : "-",
				   sizeof(__entry->tport));
			   strscpy(__entry->cm, lc->ops->name, sizeof(__entry->cm));
			   strscpy(__entry->peer, lc->peer, sizeof(__entry->peer));
			   __entry->it_iu_len = lc->lg.req_it_iu_len;
			   __entry->reason = reason;),
	    TP_printk("initiator 0x%16phN target %s (port ID 0x%16phN) via %s from %s it_iu_len %u: %s",
		      __entry->i_port_id, __entry->tport, __entry->t_port_id,
		      __entry->cm, __entry->peer, __entry->it_iu_len,
		      srpt_show_rej_reason(__entry->reason))
);

TRACE_EVENT(srpt_ch_state,
	    TP_PROTO(const struct srpt_rdma_ch *ch, enum srpt_ch_state old, enum srpt_ch_state new),
	    TP_ARGS(ch, old, new),
	    TP_STRUCT__entry(__field(u32, id)
			     __field(unsigned int, old)
			     __field(unsigned int, new)),
	    TP_fast_assign(__entry->id = ch->id;
			   __entry->old = old;
			   __entry->new = new;),
	    TP_printk("ch %u %s -> %s", __entry->id, srpt_show_ch_state(__entry->old),
		      srpt_show_ch_state(__entry->new))
);

TRACE_DEFINE_ENUM(SRPT_CMD_FREE);
TRACE_DEFINE_ENUM(SRPT_CMD_RECEIVED);
TRACE_DEFINE_ENUM(SRPT_CMD_TABLE);
TRACE_DEFINE_ENUM(SRPT_CMD_IN_LIO);
TRACE_DEFINE_ENUM(SRPT_CMD_DATA_OUT);
TRACE_DEFINE_ENUM(SRPT_CMD_RSP);
TRACE_DEFINE_ENUM(SRPT_CMD_SENT);

#define srpt_show_cmd_state(s)						\
	__print_symbolic(s,						\
		{ SRPT_CMD_FREE,	"FREE" },			\
		{ SRPT_CMD_RECEIVED,	"RECEIVED" },			\
		{ SRPT_CMD_TABLE,	"TABLE" },			\
		{ SRPT_CMD_IN_LIO,	"IN_LIO" },			\
		{ SRPT_CMD_DATA_OUT,	"DATA_OUT" },			\
		{ SRPT_CMD_RSP,		"RSP" },			\
		{ SRPT_CMD_SENT,	"SENT" })

TRACE_EVENT(srpt_cmd_state,
	    TP_PROTO(const struct srpt_cmd *cmd, enum srpt_cmd_state old, enum srpt_cmd_state new),
	    TP_ARGS(cmd, old, new),
	    TP_STRUCT__entry(__field(u32, id)
			     __field(u64, tag)
			     __field(unsigned int, old)
			     __field(unsigned int, new)),
	    TP_fast_assign(__entry->id = cmd->ch->id;
			   __entry->tag = cmd->tag;
			   __entry->old = old;
			   __entry->new = new;),
	    TP_printk("ch %u tag %#llx %s -> %s", __entry->id, __entry->tag,
		      srpt_show_cmd_state(__entry->old),
		      srpt_show_cmd_state(__entry->new))
);

TRACE_EVENT(srpt_cmd_recv,
	    TP_PROTO(const struct srpt_rdma_ch *ch, const struct srpt_cmd_info *ci),
	    TP_ARGS(ch, ci),
	    TP_STRUCT__entry(__field(u32, id)
			     __field(u64, tag)
			     __field(u64, lun)
			     __field(u8, opcode)
			     __field(u32, data_len)
			     __field(bool, data_out)
			     __field(u8, fmt)
			     __field(u32, n_desc)),
	    TP_fast_assign(__entry->id = ch->id;
			   __entry->tag = ci->tag;
			   __entry->lun = scsilun_to_int((struct scsi_lun *)&ci->lun);
			   __entry->opcode = ci->cdb_len ? ci->cdb[0] : 0;
			   __entry->data_len = ci->data_len;
			   __entry->data_out = ci->data_out;
			   __entry->fmt = ci->fmt;
			   __entry->n_desc = ci->n_desc;),
	    TP_printk("ch %u tag %#llx lun %llu opcode 0x%02x %s %u bytes, format %u, %u descriptors",
		      __entry->id, __entry->tag, __entry->lun, __entry->opcode,
		      __entry->data_len ? (__entry->data_out ? "out" : "in") :
		      "no data",
		      __entry->data_len, __entry->fmt, __entry->n_desc)
);

TRACE_DEFINE_ENUM(SRP_RSP);
TRACE_DEFINE_ENUM(SRP_T_LOGOUT);
TRACE_DEFINE_ENUM(SRP_CRED_REQ);
TRACE_DEFINE_ENUM(SRP_AER_REQ);

#define srpt_show_iu(iu)						\
	__print_symbolic(iu,						\
		{ SRP_RSP,		"SRP_RSP" },			\
		{ SRP_T_LOGOUT,		"SRP_T_LOGOUT" },		\
		{ SRP_CRED_REQ,		"SRP_CRED_REQ" },		\
		{ SRP_AER_REQ,		"SRP_AER_REQ" })

TRACE_EVENT(srpt_send_rsp,
	    TP_PROTO(const struct srpt_rdma_ch *ch, u64 tag, const void *rsp,
		     u32 len, bool with_data),
	    TP_ARGS(ch, tag, rsp, len, with_data),
	    TP_STRUCT__entry(__field(u32, id)
			     __field(u64, tag)
			     __field(u8, iu)
			     __field(u8, status)
			     __field(u32, len)
			     __field(bool, with_data)),
	    TP_fast_assign(__entry->id = ch->id;
			   __entry->tag = tag;
			   __entry->iu = *(const u8 *)rsp;
			   __entry->status = __entry->iu == SRP_RSP ?
				((const struct srp_rsp *)rsp)->status : 0;
			   __entry->len = len;
			   __entry->with_data = with_data;),
	    TP_printk("ch %u tag %#llx %s status 0x%02x, %u bytes%s", __entry->id, __entry->tag,
		      srpt_show_iu(__entry->iu),
		      __entry->status, __entry->len,
		      __entry->with_data ? ", after data-in" : "")
);

TRACE_EVENT(srpt_wr_error,
	    TP_PROTO(const struct srpt_rdma_ch *ch, const struct ib_wc *wc, const char *what),
	    TP_ARGS(ch, wc, what),
	    TP_STRUCT__entry(__field(u32, id)
			     __field(unsigned int, status)
			     __field(u32, vendor_err)
			     __array(char, what, 40)
			     __array(char, msg, 32)),
	    TP_fast_assign(__entry->id = ch->id;
			   __entry->status = wc->status;
			   __entry->vendor_err = wc->vendor_err;
			   strscpy(__entry->what, what, sizeof(__entry->what));
			   strscpy(__entry->msg, ib_wc_status_msg(wc->status),
				   sizeof(__entry->msg));),
	    TP_printk("ch %u %s failed: %s (status %u, vendor error %#x)",
		      __entry->id, __entry->what, __entry->msg,
		      __entry->status, __entry->vendor_err)
);

#endif /* SRPT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE srpt_trace
#include <trace/define_trace.h>
