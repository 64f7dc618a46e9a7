// SPDX-License-Identifier: GPL-2.0
/*
 * srp-client - a raw, deliberately hostile SRP initiator for tests.
 *
 *   srp-client --dest IP:PORT --id-ext HEX16 --ioc-guid HEX16
 *              --initiator-id HEX32 [--lun N] [--timeout SECS] [-v]
 *              CASE...
 *   srp-client --list
 *
 * Logs in to an SRP target over the RDMA/CM (port space RDMA_PS_TCP) with
 * the 56-byte struct srp_login_req_rdma as private data, exactly like the
 * Linux ib_srp initiator, and then runs the named test cases. Every case
 * opens its own channel, sends well-formed or malformed information units
 * and checks the target's answer against the SRP rules (see
 * T10 SRP r16a, INCITS 365-2002, and Documentation/ib_srpt.rst). It prints one
 * "PASS case" or "FAIL case: why" line per case and exits with 1 if any case
 * failed (2 for usage errors).
 *
 * Credits are respected: a request that consumes a credit (SRP_CMD,
 * SRP_TSK_MGMT, and the invalid IUs) is only sent while the request limit
 * (LOGIN_RSP REQ_LIM_DELTA plus the deltas of SRP_RSP, SRP_CRED_REQ and
 * SRP_AER_REQ) is positive; CRED_REQ/AER_REQ are answered.
 *
 * The connection layer (tools/srp/srp-conn.c) and the SCSI helpers
 * (tools/srp/srp-scsi.c) are shared with tools/srp-fuzz.c; the load cases
 * login-storm and flood are in srp-client-load.c.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "srp-client.h"

/* ---- malformed SRP_CMDs ------------------------------------------------ */

/*
 * Send a malformed request; it must get an SRP_RSP with CHECK CONDITION,
 * SNSVALID, sense key ILLEGAL REQUEST, echoing the tag, and the additional
 * sense code @want_asc/@want_ascq (-1: any); then the channel must still
 * execute a TEST UNIT READY.
 */
static int expect_illegal_asc(struct conn *c, const uint8_t *iu, uint32_t len,
			      const char *what, int want_asc, int want_ascq)
{
	struct rsp r;
	int asc, ascq;
	char b[160];

	if (exec_iu(c, iu, len, &r))
		return failctx("%s", what);
	if (r.status != 0x02 || !(r.flags & SRP_RSP_FLAG_SNSVALID) || sense_key(&r) != 5)
		return failf("%s: %s, want CHECK CONDITION with ILLEGAL REQUEST sense",
			     what, rsp_str(&r, b, sizeof(b)));
	if (r.flags & SRP_RSP_RESID_FLAGS)
		note("%s: residual flags %#x (residuals %u/%u)", what, r.flags,
		     r.di_resid, r.do_resid);
	sense_asc(&r, &asc, &ascq);
	if ((want_asc >= 0 && asc != want_asc) ||
	    (want_ascq >= 0 && ascq != want_ascq))
		return failf("%s: %s, want asc/ascq %#x/%#x", what,
			     rsp_str(&r, b, sizeof(b)), want_asc, want_ascq);
	note("%s -> CHECK CONDITION, ILLEGAL REQUEST, asc/ascq %#x/%#x",
	     what, asc, ascq);
	if (tur_good(c))
		return failctx("after %s", what);
	return 0;
}

static int expect_illegal(struct conn *c, const uint8_t *iu, uint32_t len,
			  const char *what)
{
	return expect_illegal_asc(c, iu, len, what, -1, -1);
}

/* A READ(10) of 8 blocks (4 KiB at 512 bytes) to build malformed IUs on. */
static uint32_t read_hdr(uint8_t *iu)
{
	uint8_t cdb[10];

	rw10_cdb(cdb, false, 0, 8);
	return cmd_hdr(iu, cdb, 10);
}

static int m_truncated(struct conn *c)
{
	uint8_t iu[64];

	read_hdr(iu);
	iu[5] = DIRECT;
	put_desc(iu + 48, va_of(c, R_OFF), c->data_mr->rkey, 4096);
	return expect_illegal(c, iu, 40, "SRP_CMD truncated to 40 bytes");
}

static int m_direct_cut(struct conn *c)
{
	uint8_t iu[64];

	read_hdr(iu);
	iu[5] = DIRECT;
	put_desc(iu + 48, va_of(c, R_OFF), c->data_mr->rkey, 4096);
	return expect_illegal(c, iu, 56, "direct descriptor cut after 8 bytes");
}

/* Indirect data-in header with @n inline descriptors of @each bytes. */
static uint32_t indirect_iu(struct conn *c, uint8_t *iu, uint8_t cnt,
			    uint32_t table_len, uint32_t total, int n,
			    uint32_t each)
{
	uint32_t len = read_hdr(iu);
	int i;

	iu[5] = INDIRECT;
	iu[7] = cnt;
	len += put_desc(iu + len, va_of(c, T_OFF), c->data_mr->rkey, table_len);
	put_be32(iu + len, total);
	len += 4;
	for (i = 0; i < n; i++) {
		put_desc(c->data + T_OFF + 16 * i, va_of(c, R_OFF + i * each),
			 c->data_mr->rkey, each);
		len += put_desc(iu + len, va_of(c, R_OFF + i * each),
				c->data_mr->rkey, each);
	}
	return len;
}

static int m_indirect_count(struct conn *c)
{
	uint8_t iu[256];
	uint32_t len;
	int ret;

	/* count 3, table of 2 descriptors, 2 in the IU */
	len = indirect_iu(c, iu, 3, 32, 4096, 2, 2048);
	ret = expect_illegal(c, iu, len, "indirect: count 3, table of 2");
	if (ret)
		return ret;
	/* count 4 and a table of 4, but only 2 descriptors in the IU */
	len = indirect_iu(c, iu, 4, 64, 4096, 2, 1024);
	return expect_illegal(c, iu, len,
			      "indirect: count 4, table of 4, IU holds 2");
}

/*
 * READ(10) of 8 blocks through a table of @n entries of 4096 / @n bytes in
 * the MR with 1 descriptor in the IU: the target must fetch the table.
 */
static uint32_t ext_iu(struct conn *c, uint8_t *iu, int n)
{
	uint32_t each = 4096 / n;
	uint32_t len = indirect_iu(c, iu, 1, 16 * n, 4096, 1, each);
	int i;

	for (i = 1; i < n; i++)
		put_desc(c->data + T_OFF + 16 * i,
			 va_of(c, R_OFF + i * each), c->data_mr->rkey, each);
	return len;
}

/*
 * A table in initiator memory is fetched and executed; one that does not
 * add up to the total, does not start with the inline descriptor or has
 * more than 1024 entries gets 0e/03, and the channel stays.
 */
static int m_indirect_ext(struct conn *c)
{
	uint8_t iu[256], *t = c->data + T_OFF;
	uint32_t len;
	struct rsp r;
	char b[160];
	int ret, n;

	/* 2 entries: the data fits the command's inline RDMA contexts */
	for (n = 2; n <= 4; n += 2) {
		len = ext_iu(c, iu, n);
		if (exec_iu(c, iu, len, &r))
			return failctx("indirect: 1 inline of a %d-entry table", n);
		if (r.status)
			return failf("indirect: 1 inline of a %d-entry table in the MR: %s",
				     n, rsp_str(&r, b, sizeof(b)));
	}
	note("1 inline of a 2-entry and of a 4-entry table: fetched, GOOD");
	put_be32(t + 16 * 3 + 12, 2048);
	ret = expect_illegal_asc(c, iu, len, "external table of 5 KiB, total 4 KiB",
				 0x0e, 0x03);
	if (ret)
		return ret;
	len = ext_iu(c, iu, 4);
	put_be32(t + 8, c->data_mr->rkey ^ 1);
	ret = expect_illegal_asc(c, iu, len,
				 "external table whose first entry is not the inline one",
				 0x0e, 0x03);
	if (ret)
		return ret;
	len = ext_iu(c, iu, 4);
	put_be32(iu + SRP_CMD_LEN + 12, 16 * 1025);
	return expect_illegal_asc(c, iu, len, "external table of 1025 entries",
				  0x0e, 0x03);
}

static int m_indirect_sum(struct conn *c)
{
	uint8_t iu[256];
	uint32_t len;
	int ret;

	len = indirect_iu(c, iu, 3, 48, 4096, 3, 1024);	/* 3072 != 4096 */
	ret = expect_illegal(c, iu, len, "indirect: 3 x 1024 bytes, total 4096");
	if (ret)
		return ret;
	len = indirect_iu(c, iu, 2, 32, 4096, 2, 4096);	/* 8192 != 4096 */
	return expect_illegal(c, iu, len, "indirect: 2 x 4096 bytes, total 4096");
}

static int m_bidi(struct conn *c)
{
	uint8_t iu[96];
	uint32_t len = read_hdr(iu);

	iu[5] = 0x11;
	len += put_desc(iu + len, va_of(c, W_OFF), c->data_mr->rkey, 4096);
	len += put_desc(iu + len, va_of(c, R_OFF), c->data_mr->rkey, 4096);
	return expect_illegal(c, iu, len, "bidirectional buffer format 0x11");
}

static uint32_t imm_write_iu(uint8_t *iu, uint32_t imm_len, uint32_t payload)
{
	uint8_t cdb[10];
	uint32_t len;

	rw10_cdb(cdb, true, 0, (imm_len + 511) / 512);
	len = cmd_hdr(iu, cdb, 10);
	iu[5] = IMMEDIATE << 4;
	put_be32(iu + len, imm_len);
	memset(iu + SRP_IMM_OFFSET, 0xa5, payload);
	return SRP_IMM_OFFSET + payload;
}

/* Immediate data on a channel that did not negotiate it. */
static int m_imm_unnegotiated(struct conn *c)
{
	uint8_t iu[SRP_IMM_OFFSET + 512];
	uint32_t len = imm_write_iu(iu, 512, 512);

	return expect_illegal(c, iu, len,
			      "immediate data without negotiation");
}

/* Immediate data longer than the IU. */
static int m_imm_past_end(struct conn *c)
{
	uint8_t iu[SRP_IMM_OFFSET + 512];
	uint32_t len = imm_write_iu(iu, 4096, 512);

	return expect_illegal(c, iu, len,
			      "4096 bytes of immediate data in a 580-byte IU");
}

static int m_addcdb(struct conn *c)
{
	uint8_t iu[64];
	uint32_t len = read_hdr(iu);

	iu[5] = DIRECT;
	iu[31] = 0xfc;		/* 252 more CDB bytes */
	len += put_desc(iu + len, va_of(c, R_OFF), c->data_mr->rkey, 4096);
	return expect_illegal(c, iu, len,
			      "additional CDB length 252 in a 64-byte IU");
}

static int m_task_attr(struct conn *c)
{
	static const uint8_t tur[6];
	uint8_t iu[SRP_CMD_LEN];

	cmd_hdr(iu, tur, 6);
	iu[29] = 7;
	return expect_illegal(c, iu, sizeof(iu), "task attribute 7");
}

/*
 * Task attributes go to LIO: SIMPLE, HEAD OF QUEUE and ORDERED TEST UNIT
 * READYs complete; ACA is LIO's to refuse (it has no ACA: INVALID FIELD
 * IN CDB, 24h), not the target's (INVALID FIELD IN IU, 0Eh).
 */
static int m_task_attrs(struct conn *c)
{
	static const char * const names[] = { "SIMPLE", "HEAD OF QUEUE",
					      "ORDERED" };
	static const uint8_t tur[6];
	uint8_t iu[SRP_CMD_LEN];
	struct rsp r;
	char b[160];
	int attr;

	for (attr = 0; attr < 3; attr++) {
		cmd_hdr(iu, tur, 6);
		iu[29] = attr;
		if (exec_iu(c, iu, sizeof(iu), &r))
			return failctx("%s TEST UNIT READY", names[attr]);
		if (r.status)
			return failf("%s TEST UNIT READY: %s", names[attr],
				     rsp_str(&r, b, sizeof(b)));
	}
	note("SIMPLE, HEAD OF QUEUE and ORDERED TEST UNIT READY: GOOD");
	cmd_hdr(iu, tur, 6);
	iu[29] = 4;
	return expect_illegal_asc(c, iu, sizeof(iu), "ACA TEST UNIT READY",
				  0x24, 0x00);
}

static int m_too_big(struct conn *c)
{
	uint32_t len, bytes = (64u << 20) + 4096;
	uint8_t cdb[16] = { 0x88 };
	uint8_t iu[64];

	put_be32(cdb + 10, bytes / 512);
	len = cmd_hdr(iu, cdb, 16);
	iu[5] = DIRECT;
	len += put_desc(iu + len, va_of(c, R_OFF), c->data_mr->rkey, bytes);
	return expect_illegal(c, iu, len, "READ(16) of 64 MiB + 4 KiB");
}

/*
 * CDBs longer than the IU carries. The CDB field of an SRP_CMD has 16
 * bytes, plus ADDITIONAL CDB LENGTH (byte 31, bits 7:2, in dwords) bytes
 * after the 48 fixed ones. The length a CDB needs follows from its
 * opcode: a variable-length CDB (opcode 0x7f, SPC-4 4.2.3) has 8 header
 * bytes plus its ADDITIONAL CDB LENGTH in byte 7. A target that takes
 * the CDB's word for it reads past the IU (here: past a 64-byte receive
 * buffer); it must refuse the command with INVALID FIELD IN CDB.
 */
#define VARLEN_CDB		0x7f
#define SMALL_IT_IU_LEN		64	/* smallest REQ_IT_IU_LEN targets take */
#define ASC_INVALID_CDB_FIELD	0x24

/*
 * An SRP_CMD without data carrying a variable-length CDB (service action
 * 0) that claims @add_len bytes after its 8-byte header; the IU carries
 * the 16-byte CDB field plus @extra (a multiple of 4) additional CDB
 * bytes. Returns the IU length (48 + @extra).
 */
static uint32_t varlen_iu(uint8_t *iu, uint8_t add_len, uint8_t extra)
{
	uint8_t cdb[16] = { VARLEN_CDB };

	cdb[7] = add_len;
	cmd_hdr(iu, cdb, sizeof(cdb));
	iu[31] = extra;
	memset(iu + SRP_CMD_LEN, 0, extra);
	return SRP_CMD_LEN + extra;
}

/* A variable-length CDB of 8 + @add_len bytes with only 16 carried. */
static int varlen_too_long(struct conn *c, uint8_t add_len)
{
	uint8_t iu[SRP_CMD_LEN];
	uint32_t len = varlen_iu(iu, add_len, 0);
	char what[80];

	snprintf(what, sizeof(what),
		 "variable-length CDB of %u bytes in a 48-byte SRP_CMD",
		 8 + add_len);
	return expect_illegal_asc(c, iu, len, what, ASC_INVALID_CDB_FIELD, 0);
}

/* 263 bytes claimed. More than the 260 bytes SPC allows, so the SCSI
 * layer behind the target may refuse it by itself as well. */
static int m_varlen_263(struct conn *c)
{
	return varlen_too_long(c, 255);
}

/* 252 bytes claimed: a length SPC allows, so only the SRP target's own
 * check keeps the CDB inside the receive buffer. */
static int m_varlen_252(struct conn *c)
{
	return varlen_too_long(c, 244);
}

/* 32 bytes claimed and carried (16 additional CDB bytes): not refused
 * for its length. LIO decides what it means (service action 0 is no
 * command it knows); any SRP_RSP will do, the channel must stay. */
static int m_varlen_fits(struct conn *c)
{
	uint8_t iu[SRP_CMD_LEN + 16];
	uint32_t len = varlen_iu(iu, 24, 16);
	struct rsp r;
	char b[160];

	if (exec_iu(c, iu, len, &r))
		return failctx("variable-length CDB of 32 bytes, all in the IU");
	note("variable-length CDB of 32 bytes in a 64-byte SRP_CMD -> %s",
	     rsp_str(&r, b, sizeof(b)));
	return tur_good(c);
}

/* ---- test cases --------------------------------------------------------- */

static int case_login_ok(void)
{
	struct login_req l;
	struct conn c;
	int ret;

	default_login(&l);
	ret = login_ok(&c, &l);
	if (!ret) {
		note("req_lim %d, MAX_IT_IU_LEN %u, MAX_TI_IU_LEN %u, BUF_FMT %#x, flags %#x",
		     c.req_lim_init, c.max_it, c.max_ti, c.buf_fmt, c.rsp_flags);
		if (c.req_lim_init < 2)
			ret = failf("only %d credits: ib_srp needs at least 2",
				    c.req_lim_init);
		else if (c.max_it != DEF_IT_IU_LEN)
			note("MAX_IT_IU_LEN %u, more than the %u requested",
			     c.max_it, DEF_IT_IU_LEN);
		else if ((c.buf_fmt & 6) != 6)
			ret = failf("BUF_FMT %#x lacks direct|indirect",
				    c.buf_fmt);
	}
	if (!ret)
		ret = tur_good(&c);
	if (!ret)
		ret = check_quiet(&c);
	conn_close(&c);
	return ret;
}

/* A channel with the default login and multichannel action @flags
 * (0 SINGLE, 1 MULTI), checked with a TEST UNIT READY. */
/* After a refused login the target must still accept a valid one. */
static int relogin(void)
{
	struct conn c;
	int ret = login_tur(&c);

	conn_close(&c);
	return ret ? failctx("valid login afterwards") : 0;
}

/*
 * The login @l must be refused with an SRP_LOGIN_REJ of reason @want in a
 * consumer-defined CM REJ (a REJ without one fails); @echo: its tag must be
 * that of the request. A valid login must work afterwards.
 */
static int expect_rej(const struct login_req *l, uint32_t want, bool echo)
{
	struct conn c;
	uint32_t reason;
	int ret = conn_open(&c, l);

	if (ret > 0) {
		conn_close(&c);
		return failf("login accepted");
	}
	if (ret < 0) {
		conn_close(&c);
		return failctx("no REJ");
	}
	if (c.rej_status != IB_CM_REJ_CONSUMER_DEFINED)
		note("CM reject reason %d (not %d, consumer defined)",
		     c.rej_status, IB_CM_REJ_CONSUMER_DEFINED);
	if (c.pdata_len < 32 || c.pdata[0] != SRP_LOGIN_REJ) {
		ret = failf("REJ (CM reason %d) without SRP_LOGIN_REJ (%u bytes, opcode %#x)",
			    c.rej_status, c.pdata_len,
			    c.pdata_len ? c.pdata[0] : 0);
		conn_close(&c);
		return ret;
	}
	reason = get_be32(c.pdata + 4);
	note("SRP_LOGIN_REJ reason %#x, BUF_FMT %#x, tag %016" PRIx64,
	     reason, get_be16(c.pdata + 24), get_tag(c.pdata));
	if (reason != want)
		ret = failf("reject reason %#x, want %#x", reason, want);
	else if (echo && get_tag(c.pdata) != l->tag)
		ret = failf("SRP_LOGIN_REJ tag %016" PRIx64 " does not echo %016" PRIx64,
			    get_tag(c.pdata), l->tag);
	conn_close(&c);
	return ret ? ret : relogin();
}

static int case_login_bad_target_id(void)
{
	struct login_req l;

	default_login(&l);
	l.tgt[15] ^= 0x5a;
	return expect_rej(&l, SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL, true);
}

static int case_login_iu_too_big(void)
{
	struct login_req l;

	default_login(&l);
	l.it_iu_len = 1u << 20;
	return expect_rej(&l, SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE, true);
}

static int case_login_iu_too_small(void)
{
	struct login_req l;

	default_login(&l);
	l.it_iu_len = 32;
	/* Below the 64 bytes SRP requires: no reason of its own, the
	 * generic one. */
	return expect_rej(&l, SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL, true);
}

static int case_login_bad_fmt(void)
{
	struct login_req l;

	default_login(&l);
	l.buf_fmt = 0x0008;
	return expect_rej(&l, SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT, true);
}

static int case_login_short_pdata(void)
{
	struct login_req l;

	default_login(&l);
	l.pdata_len = 8;	/* only the tag */
	/*
	 * The IB CM of InfiniBand and RoCE carries a fixed-size private data
	 * field: the target gets the tag and 48 zeroes, an SRP_LOGIN_REQ
	 * (opcode 0) with REQ_IT_IU_LEN 0, below the minimum of 64. iWARP
	 * delivers the 8 bytes: no SRP_LOGIN_REQ, and no tag to echo. Either
	 * way nothing more specific than the generic reason applies.
	 */
	return expect_rej(&l, SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL, false);
}

static int case_login_wrong_opcode(void)
{
	struct login_req l;

	default_login(&l);
	l.opcode = SRP_CMD;
	/* Not a login at all: the generic reason; the target need not
	 * trust a tag in a request it could not parse. */
	return expect_rej(&l, SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL, false);
}

static int case_login_bad_multichannel(void)
{
	struct login_req l;

	default_login(&l);
	l.flags = 3;		/* reserved multichannel action */
	/* 0x00010005 is for MULTI on a target without multichannel: an
	 * action SRP does not define gets the generic reason. */
	return expect_rej(&l, SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL, true);
}

static int case_inquiry(void)
{
	uint8_t cdb[6] = { 0x12, 0, 0, 0, 255, 0 };
	struct seg s = { S_OFF, 255 };
	struct login_req l;
	struct conn c;
	struct rsp r;
	uint32_t got;
	char b[160];
	int ret;

	default_login(&l);
	ret = login_ok(&c, &l);
	if (ret)
		goto out;
	memset(c.data + S_OFF, 0xee, 255);
	ret = data_cmd(&c, cdb, 6, false, DIRECT, &s, 1, &r);
	if (ret)
		goto out;
	if (r.status) {
		ret = failf("INQUIRY: %s", rsp_str(&r, b, sizeof(b)));
		goto out;
	}
	got = c.data[S_OFF + 4] + 5;
	note("INQUIRY: %u bytes, type %#x, version %#x, \"%.8s\" \"%.16s\"; %s",
	     got, c.data[S_OFF], c.data[S_OFF + 2], c.data + S_OFF + 8,
	     c.data + S_OFF + 16, rsp_str(&r, b, sizeof(b)));
	if ((c.data[S_OFF + 3] & 0xf) != 2 || got < 36 ||
	    (c.data[S_OFF] & 0x1f) != 0) {
		ret = failf("not a standard INQUIRY header of a disk: %02x %02x %02x %02x %02x",
			    c.data[S_OFF], c.data[S_OFF + 1], c.data[S_OFF + 2],
			    c.data[S_OFF + 3], c.data[S_OFF + 4]);
	} else if (got < 255 && !(r.flags & SRP_RSP_FLAG_DIUNDER)) {
		ret = failf("INQUIRY returned %u of 255 bytes without DIUNDER (flags %#x)",
			    got, r.flags);
	} else if (got < 255 && r.di_resid != 255 - got) {
		ret = failf("DIUNDER residual %u, want %u", r.di_resid,
			    255 - got);
	} else {
		ret = tur_good(&c);
	}
	if (!ret)
		ret = check_quiet(&c);
out:
	conn_close(&c);
	return ret;
}

static int login_geometry(struct conn *c, const struct login_req *l,
			  uint32_t *bs)
{
	uint64_t blocks;

	if (login_ok(c, l))
		return -1;
	return read_capacity(c, &blocks, bs);
}

static int case_write_read_direct(void)
{
	struct login_req l;
	struct conn c;
	uint32_t bs, len;
	struct seg w, rd;
	int ret;

	default_login(&l);
	ret = login_geometry(&c, &l, &bs);
	if (ret)
		goto out;
	len = 8 * bs;
	w = (struct seg){ W_OFF, len };
	rd = (struct seg){ R_OFF, len };
	fill_random(c.data + W_OFF, len);
	memset(c.data + R_OFF, 0, len);
	ret = rw(&c, true, 16, 8, DIRECT, &w, 1);
	if (!ret)
		ret = rw(&c, false, 16, 8, DIRECT, &rd, 1);
	if (!ret)
		ret = compare_segs(&c, &rd, 1, len);
	if (!ret)
		ret = check_quiet(&c);
out:
	conn_close(&c);
	return ret;
}

static int case_write_read_indirect(void)
{
	struct login_req l;
	struct conn c;
	uint32_t bs, len;
	struct seg w[4], rd[5], whole;
	int ret;

	default_login(&l);
	ret = login_geometry(&c, &l, &bs);
	if (ret)
		goto out;
	len = 16 * bs;
	/* Scattered, unaligned segments of odd lengths. */
	w[0] = (struct seg){ W_OFF, bs };
	w[1] = (struct seg){ W_OFF + bs, 3 * bs + 100 };
	w[2] = (struct seg){ W_OFF + 4 * bs + 100, 5 * bs - 100 };
	w[3] = (struct seg){ W_OFF + 9 * bs, 7 * bs };
	rd[0] = (struct seg){ R_OFF + 4, 1000 };
	rd[1] = (struct seg){ R_OFF + 65536 + 8, 3000 };
	rd[2] = (struct seg){ R_OFF + 131072 + 12, 4 * bs };
	rd[3] = (struct seg){ R_OFF + 262144, 24 };
	rd[4] = (struct seg){ R_OFF + 393216 + 1,
			      len - 1000 - 3000 - 4 * bs - 24 };
	fill_random(c.data + W_OFF, len);
	memset(c.data + R_OFF, 0, 1u << 20);
	ret = rw(&c, true, 32, 16, INDIRECT, w, 4);
	if (!ret)
		ret = rw(&c, false, 32, 16, INDIRECT, rd, 5);
	if (!ret)
		ret = compare_segs(&c, rd, 5, len);
	if (ret)
		goto out;
	/* The same blocks through one direct descriptor. */
	whole = (struct seg){ R_OFF + 524288, len };
	ret = rw(&c, false, 32, 16, DIRECT, &whole, 1);
	if (!ret)
		ret = compare_segs(&c, &whole, 1, len);
	if (!ret)
		ret = check_quiet(&c);
out:
	conn_close(&c);
	return ret;
}

/*
 * READ/WRITE(10) through an indirect table of @n descriptors that lives in
 * the data MR (at T_OFF) with only @ninline of them in the IU, as ib_srp
 * sends it with allow_ext_sg=1: the target has to RDMA READ the table.
 */
static int ext_rw(struct conn *c, bool write, uint32_t lba, uint16_t nblk,
		  const struct seg *s, int n, int ninline)
{
	uint8_t cdb[10], *iu = calloc(1, c->send_slot);
	struct rsp r;
	char b[160];
	int ret = -1, tries;

	if (!iu)
		return failf("out of memory");
	rw10_cdb(cdb, write, lba, nblk);
	for (tries = 0; tries < 3; tries++) {
		/* The whole table in the MR and in the IU, then the IU cut
		 * after its first @ninline descriptors. */
		uint32_t len = build_data_cmd(c, iu, cdb, 10, write, INDIRECT,
					      s, n);

		iu[write ? 6 : 7] = ninline;
		len -= 16 * (n - ninline);
		ret = exec_iu(c, iu, len, &r);
		if (ret || r.status != 2 || sense_key(&r) != 6)
			break;
	}
	free(iu);
	if (ret)
		return failctx("%s(10), table of %d with %d inline",
			       write ? "WRITE" : "READ", n, ninline);
	if (r.status || r.flags & SRP_RSP_RESID_FLAGS)
		return failf("%s(10) of %u blocks, table of %d with %d inline: %s",
			     write ? "WRITE" : "READ", nblk, n, ninline,
			     rsp_str(&r, b, sizeof(b)));
	return 0;
}

/*
 * Indirect tables held by the initiator (SRP: the target fetches the
 * table when the IU carries fewer descriptors than it has): a 64 KiB
 * write through 16 scattered 4 KiB pieces with none inline, read back
 * through 16 others with 2 inline, and once more through a direct
 * descriptor.
 */
static int case_ext_table(void)
{
	struct login_req l;
	struct conn c;
	struct seg w[16], rd[16], whole;
	uint32_t bs, len = 16 * 4096, stage = W_OFF + (512u << 10);
	int i, ret;

	default_login(&l);
	ret = login_geometry(&c, &l, &bs);
	if (ret)
		goto out;
	for (i = 0; i < 16; i++) {
		/* Scattered, in another order than the data's. */
		w[i] = (struct seg){ W_OFF + ((i * 5) % 16) * 8192 + 4 * i, 4096 };
		rd[i] = (struct seg){ R_OFF + ((i * 7) % 16) * 8192 + 8 * i, 4096 };
	}
	for (i = 0; i < 16; i++)
		fill_random(c.data + w[i].off, 4096);
	memset(c.data + R_OFF, 0, 1u << 20);
	ret = ext_rw(&c, true, 64, len / bs, w, 16, 0);
	if (!ret)
		ret = ext_rw(&c, false, 64, len / bs, rd, 16, 2);
	if (!ret) {
		/* compare_segs() wants the written bytes in one piece. */
		for (i = 0; i < 16; i++)
			memcpy(c.data + stage + 4096 * i, c.data + w[i].off, 4096);
		memmove(c.data + W_OFF, c.data + stage, len);
		ret = compare_segs(&c, rd, 16, len);
	}
	if (ret)
		goto out;
	whole = (struct seg){ R_OFF + 524288, len };
	ret = rw(&c, false, 64, len / bs, DIRECT, &whole, 1);
	if (!ret)
		ret = compare_segs(&c, &whole, 1, len);
	if (!ret)
		ret = check_quiet(&c);
out:
	conn_close(&c);
	return ret;
}

static int case_write_immediate(void)
{
	struct login_req l;
	struct conn c;
	uint32_t bs, len;
	struct seg w, rd;
	int ret;

	imm_login(&l);
	ret = login_geometry(&c, &l, &bs);
	if (ret)
		goto out;
	if (!c.imm_off) {
		ret = failf("immediate data requested (offset %u) but not granted (LOGIN_RSP flags %#x)",
			    SRP_IMM_OFFSET, c.rsp_flags);
		goto out;
	}
	len = 4 * bs;
	if (SRP_IMM_OFFSET + len > c.max_it)
		len = bs;
	w = (struct seg){ W_OFF, len };
	rd = (struct seg){ R_OFF, len };
	fill_random(c.data + W_OFF, len);
	memset(c.data + R_OFF, 0, len);
	ret = rw(&c, true, 48, len / bs, IMMEDIATE, &w, 1);
	if (!ret)
		ret = rw(&c, false, 48, len / bs, DIRECT, &rd, 1);
	if (!ret)
		ret = compare_segs(&c, &rd, 1, len);
	if (!ret)
		note("%u bytes written as immediate data at offset %u, read back",
		     len, c.imm_off);
	if (!ret)
		ret = check_quiet(&c);
out:
	conn_close(&c);
	return ret;
}

/* Open a channel (with immediate data if @imm), run @fn, check quiet. */
/*
 * Log in with @l, run @fn on the channel (if @imm, only once immediate
 * data was granted), then the target must have sent nothing unasked.
 */
static int run_on_login(struct login_req *l, bool imm,
			int (*fn)(struct conn *c))
{
	struct conn c;
	int ret;

	ret = login_ok(&c, l);
	if (!ret && imm && !c.imm_off)
		ret = failf("immediate data not granted (LOGIN_RSP flags %#x)",
			    c.rsp_flags);
	if (!ret)
		ret = fn(&c);
	if (!ret)
		ret = check_quiet(&c);
	conn_close(&c);
	return ret;
}

static int with_channel(bool imm, int (*fn)(struct conn *c))
{
	struct login_req l;

	if (imm)
		imm_login(&l);
	else
		default_login(&l);
	return run_on_login(&l, imm, fn);
}

static int case_bad_truncated(void) { return with_channel(false, m_truncated); }
static int case_bad_direct_cut(void) { return with_channel(false, m_direct_cut); }
static int case_bad_indirect_count(void) { return with_channel(false, m_indirect_count); }
static int case_bad_indirect_sum(void) { return with_channel(false, m_indirect_sum); }
static int case_bad_indirect_ext(void) { return with_channel(false, m_indirect_ext); }
static int case_bad_bidi(void) { return with_channel(false, m_bidi); }
static int case_bad_imm_unneg(void) { return with_channel(false, m_imm_unnegotiated); }
static int case_bad_imm_past_end(void) { return with_channel(true, m_imm_past_end); }
static int case_bad_addcdb(void) { return with_channel(false, m_addcdb); }
static int case_bad_task_attr(void) { return with_channel(false, m_task_attr); }
static int case_task_attrs(void) { return with_channel(false, m_task_attrs); }
static int case_bad_too_big(void) { return with_channel(false, m_too_big); }

/* Log in with REQ_IT_IU_LEN @it_iu_len (no immediate data), run @fn. */
static int with_small_channel(uint32_t it_iu_len, int (*fn)(struct conn *c))
{
	struct login_req l;

	default_login(&l);
	l.it_iu_len = it_iu_len;
	return run_on_login(&l, false, fn);
}
static int case_bad_cdb_varlen(void)
{
	return with_small_channel(SMALL_IT_IU_LEN, m_varlen_263);
}
static int case_bad_cdb_varlen_oob(void)
{
	return with_small_channel(SMALL_IT_IU_LEN, m_varlen_252);
}
static int case_cdb_varlen_fits(void)
{
	return with_small_channel(SMALL_IT_IU_LEN, m_varlen_fits);
}

/* All malformed commands one after another on a single channel. */
static int m_all(struct conn *c)
{
	int (*const fns[])(struct conn *) = {
		m_truncated, m_direct_cut, m_indirect_count, m_indirect_ext,
		m_indirect_sum,
		m_bidi, m_imm_past_end, m_addcdb, m_task_attr, m_too_big,
	};
	size_t i;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (fns[i](c))
			return -1;
	if (c->req_lim != c->req_lim_init)
		return failf("req_lim %d after all answers, started with %d",
			     c->req_lim, c->req_lim_init);
	return 0;
}
static int case_bad_all(void) { return with_channel(true, m_all); }

static int m_bad_lun(struct conn *c)
{
	unsigned int save = g_lun;
	struct rsp r;
	uint8_t cdb[6] = { 0 };
	char b[160];
	int ret;

	g_lun = 200;
	ret = nodata_cmd(c, cdb, 6, &r);
	g_lun = save;
	if (ret)
		return failctx("TEST UNIT READY to LUN 200");
	if (r.status != 2 || sense_key(&r) != 5)
		return failf("TEST UNIT READY to LUN 200: %s, want ILLEGAL REQUEST",
			     rsp_str(&r, b, sizeof(b)));
	note("LUN 200: %s", rsp_str(&r, b, sizeof(b)));
	return tur_good(c);
}
static int case_bad_lun(void) { return with_channel(false, m_bad_lun); }

/*
 * Send @iu, which the target cannot carry out over RDMA (@what): it must
 * answer with an error status (then the channel must still work) or close
 * the channel.
 */
static int expect_err_or_death(struct conn *c, const uint8_t *iu,
			       uint32_t len, const char *what)
{
	struct iu *a;
	struct rsp r;
	char b[160];
	int ret;

	ret = send_iu(c, iu, len, true);
	if (ret)
		return ret;
	a = wait_iu(c, true, get_tag(iu), -1);
	if (a) {
		ret = parse_rsp(a, get_tag(iu), &r);
		free(a);
		if (ret)
			return ret;
		if (r.status == 0)
			return failf("%s answered GOOD", what);
		note("%s: answered %s", what, rsp_str(&r, b, sizeof(b)));
		ret = tur_good(c);
		return ret ? ret : check_quiet(c);
	}
	if (!dead(c))
		return failf("%s: no answer and no disconnect: %s", what, g_why);
	note("%s: channel died: %s", what, death(c, b, sizeof(b)));
	ret = wait_dead(c, true);
	if (!ret)
		note("target disconnected");
	return ret;
}

/*
 * 4 KiB of data behind a wrong rkey: an error status or a closed channel.
 * A READ makes the target RDMA WRITE there, a WRITE (@out) RDMA READ from
 * there (a single work request, signaled: the target sees it fail).
 */
static int bad_rkey(bool out)
{
	struct seg sg = { out ? W_OFF : R_OFF, 4096 };
	struct login_req l;
	struct conn c;
	uint8_t iu[64], cdb[10];
	uint32_t len;
	int ret;

	default_login(&l);
	ret = login_ok(&c, &l);
	if (ret)
		goto out;
	rw10_cdb(cdb, out, 0, 8);
	len = build_data_cmd(&c, iu, cdb, 10, out, DIRECT, &sg, 1);
	put_be32(iu + SRP_CMD_LEN + 8, c.data_mr->rkey ^ 0x00ffff00);
	ret = expect_err_or_death(&c, iu, len, out ?
				  "WRITE from a wrong rkey" :
				  "READ into a wrong rkey");
out:
	conn_close(&c);
	return ret ? ret : relogin();
}
static int case_bad_rkey(void) { return bad_rkey(false); }
static int case_bad_rkey_write(void) { return bad_rkey(true); }

/* An external indirect table behind a wrong rkey: the target's RDMA READ
 * of it fails - an error status or a closed channel. */
static int case_ext_table_rkey(void)
{
	struct login_req l;
	struct conn c;
	uint8_t iu[256];
	uint32_t len;
	int ret;

	default_login(&l);
	ret = login_ok(&c, &l);
	if (ret)
		goto out;
	len = ext_iu(&c, iu, 4);
	put_be32(iu + SRP_CMD_LEN + 8, c.data_mr->rkey ^ 0x00ffff00);
	ret = expect_err_or_death(&c, iu, len,
				  "READ through a table behind a wrong rkey");
out:
	conn_close(&c);
	return ret ? ret : relogin();
}

static int tm(struct conn *c, uint8_t fn, uint64_t task_tag, uint8_t want,
	      const char *what)
{
	uint8_t iu[48] = { SRP_TSK_MGMT };
	struct rsp r;

	put_tag(iu, new_tag());
	iu[21] = g_lun;
	iu[30] = fn;
	memcpy(iu + 32, &task_tag, 8);
	if (exec_iu(c, iu, sizeof(iu), &r))
		return failctx("%s", what);
	if (!(r.flags & SRP_RSP_FLAG_RSPVALID) || r.resp_len != 4)
		return failf("%s: flags %#x, resp_data_len %u; want RSPVALID and 4",
			     what, r.flags, r.resp_len);
	if (r.resp[3] != want)
		return failf("%s: response code %#x, want %#x", what, r.resp[3],
			     want);
	note("%s -> response code %#x, status %#x", what, r.resp[3], r.status);
	return 0;
}

static int m_tsk_mgmt(struct conn *c)
{
	if (tm(c, 0x01, TAG_ABSENT, 0x00, "ABORT TASK of an unknown tag") ||
	    tm(c, 0x20, 0, 0x04, "function 0x20") ||
	    tm(c, 0x02, 0, 0x00, "ABORT TASK SET, no task") ||
	    tm(c, 0x40, 0, 0x00, "CLEAR ACA (there is no ACA)") ||
	    tm(c, 0x04, 0, 0x00, "CLEAR TASK SET, no task") ||
	    tm(c, 0x08, ~0ULL, 0x00, "LOGICAL UNIT RESET"))
		return -1;
	/* The LU reset leaves a unit attention; tur_good consumes it. */
	return tur_good(c);
}
static int case_tsk_mgmt(void) { return with_channel(false, m_tsk_mgmt); }

/* Send @n (at most 4) READs of 4 KiB on --lun, their tags in @tags. */
static int send_reads(struct conn *c, uint64_t *tags, unsigned int n)
{
	uint8_t cdb[10], iu[64];
	struct seg sg;
	unsigned int i;

	for (i = 0; i < n; i++) {
		rw10_cdb(cdb, false, 8 * i, 8);
		sg = (struct seg){ R_OFF + i * 4096, 4096 };
		if (send_iu(c, iu, build_data_cmd(c, iu, cdb, 10, false, DIRECT,
						  &sg, 1), true))
			return -1;
		tags[i] = get_tag(iu);
	}
	return 0;
}

/*
 * Wait until the target has taken every IU sent on @c so far: it dispatches
 * a channel's IUs in arrival order, so once a TEST UNIT READY sent after
 * them is answered, they have reached LIO (READs are in the backend). A
 * fixed pause is not enough: two channels are not ordered, and a loaded
 * guest once took longer than 500 ms for a channel's READs.
 */
static int taken(struct conn *c, const char *name)
{
	if (tur_good(c))
		return failctx("channel %s: TEST UNIT READY after the READs",
			       name);
	return 0;
}

/* How many of the IUs with @tags (@n) are in the receive queue (dropped). */
static unsigned int answered(struct conn *c, const uint64_t *tags,
			     unsigned int n)
{
	unsigned int i, k = 0;

	for (i = 0; i < n; i++) {
		struct iu *r = take_iu(c, true, tags[i], SRP_RSP);

		k += !!r;
		free(r);
	}
	return k;
}

/*
 * ABORT TASK of one READ (@n 1), or ABORT TASK SET of 4 (@n 4; LIO lacks
 * it, the target builds it from ABORT TASK), in flight on a slow --lun (5 s
 * an I/O): aborted - no SRP_RSP for them - and the TMF's own response,
 * FUNCTION COMPLETE, brings back their credits.
 */
static int abort_reads(unsigned int n)
{
	uint64_t tags[4];
	struct conn c;
	unsigned int late;
	int ret = login_tur(&c);
	char what[64];

	snprintf(what, sizeof(what), "%s over %u READ%s",
		 n == 1 ? "ABORT TASK" : "ABORT TASK SET", n, n == 1 ? "" : "s");
	if (!ret)
		ret = send_reads(&c, tags, n);
	if (!ret)
		ret = taken(&c, "c");
	if (!ret)
		ret = n == 1 ? tm(&c, 0x01, tags[0], 0x00, what) :
			       tm(&c, 0x02, 0, 0x00, what);
	if (!ret) {
		pump(&c, 300);
		late = answered(&c, tags, n);
		if (late)
			ret = failf("%u of %u READs answered after %s", late, n,
				    what);
		else if (c.req_lim != c.req_lim_init)
			ret = failf("req_lim %d after %s, %d at login",
				    c.req_lim, what, c.req_lim_init);
	}
	if (!ret) {
		note("%u READ%s aborted, no response, req_lim back to %d", n,
		     n == 1 ? "" : "s", c.req_lim);
		ret = tur_good(&c);
	}
	conn_close(&c);
	return ret;
}
static int case_abort_task(void) { return abort_reads(1); }
static int case_abort_task_set(void) { return abort_reads(4); }

/*
 * ABORT TASK races: a READ of 64 KiB, then at once an ABORT TASK for it,
 * --rounds times. Either the READ is answered before the TMF (it had
 * completed) or never (aborted); its response must never come after the
 * TMF's, when the initiator may have reused the tag.
 */
static int case_abort_race(void)
{
	unsigned int rounds = g_rounds ? g_rounds : 100, i, before = 0;
	uint8_t cdb[10], iu[64], tmf[48] = { SRP_TSK_MGMT };
	struct seg sg = { R_OFF, 65536 };
	struct conn c;
	struct iu *a;
	uint64_t tag;
	int ret = login_tur(&c);

	for (i = 0; i < rounds && !ret; i++) {
		rw10_cdb(cdb, false, (i % 64) * 128, 128);
		ret = send_iu(&c, iu, build_data_cmd(&c, iu, cdb, 10, false,
						     DIRECT, &sg, 1), true);
		tag = get_tag(iu);
		put_tag(tmf, new_tag());
		tmf[21] = g_lun;
		tmf[30] = 0x01;
		memcpy(tmf + 32, &tag, 8);
		if (!ret)
			ret = send_iu(&c, tmf, sizeof(tmf), true);
		a = ret ? NULL : wait_iu(&c, true, get_tag(tmf), SRP_RSP);
		if (!a) {
			ret = failctx("ABORT TASK %u", i);
			break;
		}
		free(a);
		/* Anything for the READ is here now, or must never come. */
		if (answered(&c, &tag, 1)) {
			before++;
			continue;
		}
		pump(&c, 20);
		if (answered(&c, &tag, 1))
			ret = failf("round %u: the READ's response came after the ABORT TASK's",
				    i);
	}
	if (!ret) {
		note("%u rounds: the READ was answered first %u times, aborted %u times; never answered after the TMF",
		     rounds, before, rounds - before);
		ret = check_quiet(&c);
	}
	conn_close(&c);
	return ret;
}

/*
 * Two channels of one nexus (b a MULTI login beside a), both ready, 4
 * READs taken on b, then a LOGICAL UNIT RESET from a: b's READs end
 * without a response and the target owes b their credits (SRP_CRED_REQ).
 * With @hold, b keeps the SRP_CRED_RSP of that request to itself.
 */
static int reset_under_other_channel(struct conn *a, struct conn *b,
				     uint64_t *tags, bool hold)
{
	struct login_req l;
	int ret;

	memset(b, 0, sizeof(*b));
	default_login(&l);
	ret = login_ok(a, &l);
	if (!ret) {
		l.flags = 1;		/* MULTI: a stays */
		ret = login_ok(b, &l) ? failctx("second channel") : 0;
	}
	b->hold_cred_rsp = hold;
	if (ret)
		return ret;
	/* b's READs reach LIO before a resets the LU. */
	return tur_good(a) || tur_good(b) || send_reads(b, tags, 4) ||
	       taken(b, "b") ||
	       tm(a, 0x08, ~0ULL, 0x00, "LOGICAL UNIT RESET on the other channel");
}

/*
 * Credits of commands that end without a response come back all the same,
 * in an SRP_CRED_REQ. Channel b (its own LIO session) has 4 READs in flight
 * on --lun, which the scenario makes slow (each I/O takes 5 s) and
 * without TAS, when channel a resets the LU half a second later: LIO then
 * aborts b's READs silently. b must get no SRP_RSP for them but an SRP_CRED_REQ (which
 * srp-conn answers) that brings its req_lim back to the login's.
 */
static int case_cred_req(void)
{
	uint64_t tags[4];
	struct conn a, b;
	int64_t end;
	unsigned int late;
	int ret;

	ret = reset_under_other_channel(&a, &b, tags, false);
	end = now_ms() + g_timeout_ms;
	while (!ret && (b.req_lim != b.req_lim_init || !b.n_cred_req)) {
		if (dead(&b))
			ret = failf("channel b died");
		else if (now_ms() >= end)
			ret = -1;
		else
			pump(&b, 100);
	}
	late = answered(&b, tags, 4);
	if (ret && !dead(&b))
		ret = failf("req_lim %d of %d, %u SRP_CRED_REQs, %u of 4 READs answered %d s after the reset",
			    b.req_lim, b.req_lim_init, b.n_cred_req, late,
			    g_timeout_ms / 1000);
	else if (!ret && late)
		ret = failf("%u of 4 READs were answered: the reset did not abort them all (is --lun slow?)",
			    late);
	if (!ret)
		note("4 READs aborted without a response; %u SRP_CRED_REQ brought req_lim back to %d",
		     b.n_cred_req, b.req_lim);
	if (!ret)
		ret = tur_good(&b);
	conn_close(&b);
	conn_close(&a);
	return ret;
}

/* RNR NAKs the device of @c has sent as a responder (rxe's hw counter);
 * -1 if it has no such counter (siw). */
static long long rnr_naks_sent(struct conn *c)
{
	char path[160];
	long long n = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/%u/hw_counters/send_rnr_err",
		 ibv_get_device_name(c->id->verbs->device), c->id->port_num);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

/*
 * An SRP_CRED_RSP needs a receive buffer although it uses no credit. As in
 * cred-req, a LU reset on a aborts b's READs on the slow --lun and their
 * credits come back in an SRP_CRED_REQ, which b holds unanswered: now the
 * target has every receive buffer posted and b holds every credit. b sends
 * a full-credit burst of READs (slow: they hold their buffers) and then
 * the SRP_CRED_RSP. Every READ must be answered and the channel stay up,
 * and the device must send no RNR NAK meanwhile (where it counts them):
 * without a buffer for the SRP_CRED_RSP, RoCE stalls it in RNR retries
 * and iWARP terminates the connection.
 */
static int case_cred_rsp_burst(void)
{
	uint64_t tags[4], *burst = NULL;
	uint8_t cdb[10], iu[64], ans[16] = { SRP_CRED_RSP };
	long long rnr0, rnr1;
	int64_t end, t0 = 0;
	struct conn a, b;
	unsigned int i, n = 0, got = 0;
	struct seg sg;
	int ret;

	ret = reset_under_other_channel(&a, &b, tags, true);
	end = now_ms() + g_timeout_ms;
	while (!ret && (b.req_lim != b.req_lim_init || !b.n_held)) {
		if (dead(&b))
			ret = failf("channel b died");
		else if (now_ms() >= end)
			ret = failf("no SRP_CRED_REQ with every credit: req_lim %d of %d, %u held",
				    b.req_lim, b.req_lim_init, b.n_held);
		else
			pump(&b, 100);
	}
	/* The unit attention of the reset, so that the burst's READs wait. */
	if (!ret)
		ret = answered(&b, tags, 4) ? failf("READs answered: is --lun slow?") :
		      tur_good(&b);
	if (!ret) {
		n = b.req_lim;
		burst = calloc(n, sizeof(*burst));
		ret = burst ? 0 : failf("no memory");
	}
	rnr0 = ret ? -1 : rnr_naks_sent(&b);
	for (i = 0; !ret && i < n; i++) {
		rw10_cdb(cdb, false, 0, 8);
		sg = (struct seg){ R_OFF, 4096 };
		ret = send_iu(&b, iu, build_data_cmd(&b, iu, cdb, 10, false,
						     DIRECT, &sg, 1), true);
		burst[i] = get_tag(iu);
	}
	if (!ret) {
		put_tag(ans, b.held_tag);
		t0 = now_ms();
		ret = send_iu(&b, ans, sizeof(ans), false);
	}
	end = now_ms() + g_timeout_ms;
	while (!ret && got < n) {
		got += answered(&b, burst + got, 1);
		if (got == n)
			break;
		if (dead(&b))
			ret = failf("channel b died after the burst (%u of %u READs answered)",
				    got, n);
		else if (now_ms() >= end)
			ret = failf("%u of %u READs answered %d s after the burst and the SRP_CRED_RSP",
				    got, n, g_timeout_ms / 1000);
		else
			pump(&b, 100);
	}
	rnr1 = ret ? -1 : rnr_naks_sent(&b);
	if (!ret && rnr0 >= 0 && rnr1 != rnr0)
		ret = failf("%lld RNR NAKs sent during the burst of %u READs and the SRP_CRED_RSP",
			    rnr1 - rnr0, n);
	if (!ret)
		note("SRP_CRED_REQ held, then %u READs (every credit) and the SRP_CRED_RSP: all answered in %lld ms, RNR NAKs %s%lld",
		     n, (long long)(now_ms() - t0), rnr0 < 0 ? "(no counter) " : "",
		     rnr0 < 0 ? 0 : rnr1 - rnr0);
	if (!ret)
		ret = tur_good(&b);
	free(burst);
	conn_close(&b);
	conn_close(&a);
	return ret;
}

/* --other-initiator: a second initiator port with an ACL (clear-task-set). */
static uint8_t g_other_ini[16];
static bool g_have_other_ini;
/* --foreign-export: another fabric exports --lun too (clear-task-set). */
static bool g_foreign_export;

/* The TAS bit of --lun's control mode page, as the target reports it. */
static int lu_tas(struct conn *c, bool *tas)
{
	uint8_t cdb[6] = { 0x1a, 0x08, 0x0a, 0, 64, 0 };	/* DBD, page 0Ah */
	struct seg sg = { R_OFF, 64 };
	const uint8_t *p = c->data + R_OFF + 4;
	struct rsp r;

	memset(c->data + R_OFF, 0, 64);
	if (data_cmd(c, cdb, sizeof(cdb), false, DIRECT, &sg, 1, &r) ||
	    r.status)
		return failf("MODE SENSE of the control mode page: status %#x",
			     r.status);
	if ((p[0] & 0x3f) != 0x0a || p[1] < 10)
		return failf("MODE SENSE: page %#x of %u bytes, want 0Ah", p[0],
			     p[1]);
	*tas = p[5] & 0x40;
	return 0;
}

/* Of the READs with @tags, how many are answered with TASK ABORTED, how
 * many otherwise (*@other); their responses are dropped. */
static unsigned int task_aborted(struct conn *c, const uint64_t *tags,
				 unsigned int *other)
{
	unsigned int i, k = 0;
	struct rsp r;

	*other = 0;
	for (i = 0; i < 4; i++) {
		struct iu *a = take_iu(c, true, tags[i], SRP_RSP);

		if (a && !parse_rsp(a, tags[i], &r) && r.status == 0x40)
			k++;
		else if (a)
			(*other)++;
		free(a);
	}
	return k;
}

/* Wait until @c holds the credits it got at login (responses and
 * SRP_CRED_REQs give them back). */
static int credits_back(struct conn *c, const char *name)
{
	int64_t end = now_ms() + g_timeout_ms;

	while (c->req_lim != c->req_lim_init) {
		if (dead(c))
			return failf("channel %s died", name);
		if (now_ms() >= end)
			return failf("channel %s: req_lim %d of %d, %u SRP_CRED_REQs after %d s",
				     name, c->req_lim, c->req_lim_init,
				     c->n_cred_req, g_timeout_ms / 1000);
		pump(c, 100);
	}
	return 0;
}

/* Log in a, a2 (a's I_T nexus: MULTI) and b (--other-initiator). */
static int three_channels(struct conn *a, struct conn *a2, struct conn *b)
{
	struct login_req l;

	default_login(&l);
	if (login_ok(a, &l))
		return failctx("channel a");
	l.flags = 1;		/* MULTI: a stays */
	if (login_ok(a2, &l))
		return failctx("channel a2");
	memcpy(l.ini, g_other_ini, 16);
	if (login_ok(b, &l))
		return failctx("channel b (--other-initiator)");
	return tur_good(a) || tur_good(a2) || tur_good(b);
}

/* After a CLEAR TASK SET of a: check what b, of another I_T nexus, got. */
static int check_other_nexus(struct conn *b, const uint64_t *tb, bool tas)
{
	unsigned int ab, other;
	int ret = credits_back(b, "b");

	ab = task_aborted(b, tb, &other);
	if (!ret && (other || ab != (tas ? 4 : 0)))
		ret = failf("channel b (other I_T nexus, TAS %d): %u READs TASK ABORTED, %u answered otherwise; want %u and 0",
			    tas, ab, other, tas ? 4 : 0);
	if (!ret)
		note("TAS %d: b's 4 READs %s, req_lim back to %d", tas,
		     tas ? "answered TASK ABORTED" :
			   "ended without a response", b->req_lim);
	return ret;
}

/*
 * CLEAR TASK SET, which LIO lacks. LIO reports one task set for all I_T
 * nexuses (control mode page TST 000), so the target clears the tasks of
 * every channel on the LU. 4 READs are in flight on a slow --lun (5 s an
 * I/O) on each of a, a2 (a MULTI login of a's I_T nexus) and b (another
 * initiator port, --other-initiator); a clears the task set: FUNCTION
 * COMPLETE, no response for the READs of a and a2, TASK ABORTED for b's
 * if the LU's TAS bit is set and none otherwise; every channel's credits
 * come back (responses, SRP_CRED_REQs). With --foreign-export (another
 * fabric exports the LU, whose tasks cannot be aborted here): FUNCTION
 * NOT SUPPORTED, and every READ completes.
 */
static int case_clear_task_set(void)
{
	uint64_t ta[4], ta2[4], tb[4];
	struct conn a, a2, b;
	unsigned int late;
	bool tas = false;
	int ret;

	memset(&a2, 0, sizeof(a2));
	memset(&b, 0, sizeof(b));
	if (!g_have_other_ini)
		return failf("clear-task-set needs --other-initiator");
	ret = three_channels(&a, &a2, &b);
	if (!ret)
		ret = lu_tas(&b, &tas);
	if (!ret)
		ret = send_reads(&a, ta, 4) || send_reads(&a2, ta2, 4) ||
		      send_reads(&b, tb, 4);
	if (!ret)
		ret = taken(&b, "b") || taken(&a2, "a2") || taken(&a, "a");
	if (!ret) {
		ret = tm(&a, 0x04, 0, g_foreign_export ? 0x04 : 0x00,
			 "CLEAR TASK SET over 12 READs on 3 channels");
	}
	if (!ret && g_foreign_export) {
		ret = credits_back(&a, "a") || credits_back(&a2, "a2") ||
		      credits_back(&b, "b");
		late = answered(&a, ta, 4) + answered(&a2, ta2, 4) +
		       answered(&b, tb, 4);
		if (!ret && late != 12)
			ret = failf("%u of 12 READs answered after a refused CLEAR TASK SET",
				    late);
		if (!ret)
			note("another fabric exports the LU: not supported, all 12 READs completed");
		goto out;
	}
	if (!ret)
		ret = credits_back(&a, "a") || credits_back(&a2, "a2");
	if (!ret) {
		late = answered(&a, ta, 4) + answered(&a2, ta2, 4);
		if (late)
			ret = failf("%u of the 8 READs of a's I_T nexus answered after CLEAR TASK SET",
				    late);
	}
	if (!ret) {
		note("8 READs of a's I_T nexus (2 channels) aborted without a response, credits back");
		ret = check_other_nexus(&b, tb, tas);
	}
	if (!ret)
		ret = tur_good(&a) || tur_good(&a2) || tur_good(&b);
out:
	conn_close(&b);
	conn_close(&a2);
	conn_close(&a);
	return ret;
}

static int m_tsk_mgmt_short(struct conn *c)
{
	uint8_t iu[48] = { SRP_TSK_MGMT };
	struct rsp r;

	put_tag(iu, new_tag());
	iu[30] = 0x01;
	if (exec_iu(c, iu, 20, &r))
		return failctx("SRP_TSK_MGMT of 20 bytes");
	if (!(r.flags & SRP_RSP_FLAG_RSPVALID) || r.resp_len != 4 || r.resp[3] == 0)
		return failf("SRP_TSK_MGMT of 20 bytes: flags %#x, resp_data_len %u, code %#x; want a failure code",
			     r.flags, r.resp_len, r.resp[3]);
	note("SRP_TSK_MGMT of 20 bytes -> response code %#x", r.resp[3]);
	return tur_good(c);
}
static int case_tsk_mgmt_short(void) { return with_channel(false, m_tsk_mgmt_short); }

/* An IU the target must answer with SRP_T_LOGOUT and a disconnect. */
static int expect_t_logout(struct conn *c, const uint8_t *iu, uint32_t len,
			   const char *what)
{
	struct iu *a;
	char d[128];
	int ret;

	if (send_iu(c, iu, len, true))
		return failctx("%s", what);
	a = wait_iu(c, false, 0, SRP_T_LOGOUT);
	if (!a)
		return failctx("%s: no SRP_T_LOGOUT", what);
	if (a->len < 16) {
		uint32_t n = a->len;

		free(a);
		return failf("%s: SRP_T_LOGOUT of %u bytes", what, n);
	}
	note("%s -> SRP_T_LOGOUT reason %u, tag %016" PRIx64, what,
	     get_be32(a->buf + 4), get_tag(a->buf));
	free(a);
	ret = wait_dead(c, true);
	if (!ret)
		note("target disconnected%s%s", c->qp_error ? ": " : "",
		     c->qp_error ? death(c, d, sizeof(d)) : "");
	return ret;
}

static int m_unknown_iu(struct conn *c)
{
	uint8_t iu[48] = { 0x7f };

	put_tag(iu, new_tag());
	return expect_t_logout(c, iu, sizeof(iu), "IU opcode 0x7f");
}
static int case_unknown_iu(void)
{
	int ret = with_channel(false, m_unknown_iu);

	return ret ? ret : relogin();
}

static int m_empty_iu(struct conn *c)
{
	return expect_t_logout(c, NULL, 0, "IU of 0 bytes");
}
static int case_empty_iu(void)
{
	int ret = with_channel(false, m_empty_iu);

	return ret ? ret : relogin();
}

static int m_i_logout(struct conn *c)
{
	uint8_t iu[16] = { SRP_I_LOGOUT };

	put_tag(iu, new_tag());
	if (send_iu(c, iu, sizeof(iu), false) || wait_dead(c, true))
		return failctx("SRP_I_LOGOUT");
	note("target disconnected");
	return 0;
}
static int case_i_logout(void)
{
	int ret = with_channel(false, m_i_logout);

	return ret ? ret : relogin();
}

/* An SRP_CRED_RSP nobody asked for: ignored, or T_LOGOUT reason 3. */
static int m_unsolicited_cred_rsp(struct conn *c)
{
	uint8_t iu[16] = { SRP_CRED_RSP };
	struct iu *a;
	char d[128];

	put_tag(iu, new_tag());
	if (send_iu(c, iu, sizeof(iu), false))
		return -1;
	if (!tur_good(c))
		return 0;
	a = take_iu(c, false, 0, SRP_T_LOGOUT);
	if (!a)
		return failctx("after an unsolicited SRP_CRED_RSP (%s)",
			       dead(c) ? death(c, d, sizeof(d)) : "alive");
	note("SRP_T_LOGOUT reason %u", a->len >= 8 ? get_be32(a->buf + 4) : 0);
	free(a);
	return wait_dead(c, true);
}
static int case_unsolicited_cred_rsp(void)
{
	int ret = with_channel(false, m_unsolicited_cred_rsp);

	return ret ? ret : relogin();
}

/* An IU longer than MAX_IT_IU_LEN: the target's receive fails. */
static int m_iu_overflow(struct conn *c)
{
	uint32_t len = c->max_it + 64;
	uint8_t *iu = calloc(1, len);
	char d[128];
	int ret;

	if (!iu)
		return failf("out of memory");
	cmd_hdr(iu, (const uint8_t[6]){ 0 }, 6);
	ret = send_iu(c, iu, len, true);
	free(iu);
	if (ret)
		return ret;
	ret = wait_dead(c, true);
	if (!ret)
		note("target disconnected (%s)", death(c, d, sizeof(d)));
	return ret;
}
static int case_iu_overflow(void)
{
	int ret = with_channel(false, m_iu_overflow);

	return ret ? ret : relogin();
}

/* req_lim commands back to back; every one answered, all credit back. */
static int m_credits(struct conn *c)
{
	int n = c->req_lim_init, i, answered = 0;
	uint8_t cdb[10], iu[64];
	uint64_t *tags = calloc(n, sizeof(*tags));
	struct seg s;
	struct rsp r;
	char b[160];

	if (!tags)
		return failf("out of memory");
	if (n > (int)c->nrecv - RESERVED_SLOTS - 1)
		n = c->nrecv - RESERVED_SLOTS - 1;
	/* Consume a pending unit attention first. */
	if (tur_good(c))
		goto fail;
	for (i = 0; i < n; i++) {
		uint32_t len;

		if (i % 2) {
			static const uint8_t tur[6];

			len = cmd_hdr(iu, tur, 6);
		} else {
			rw10_cdb(cdb, false, i % 64, 1);
			s = (struct seg){ R_OFF + (i % 128) * 512, 512 };
			len = build_data_cmd(c, iu, cdb, 10, false, DIRECT, &s, 1);
		}
		tags[i] = get_tag(iu);
		if (c->req_lim <= 0) {
			failf("req_lim %d after %d commands of %d", c->req_lim,
			      i, c->req_lim_init);
			goto fail;
		}
		if (send_iu(c, iu, len, true))
			goto fail;
	}
	note("%d commands sent back to back, req_lim now %d", n, c->req_lim);
	for (i = 0; i < n; i++) {
		struct iu *a = wait_iu(c, true, tags[i], -1);

		if (!a) {
			failctx("command %d of %d (%d answered)", i, n,
				answered);
			goto fail;
		}
		if (parse_rsp(a, tags[i], &r)) {
			free(a);
			goto fail;
		}
		free(a);
		if (r.status) {
			failf("command %d: %s", i, rsp_str(&r, b, sizeof(b)));
			goto fail;
		}
		answered++;
	}
	free(tags);
	note("all %d answered; req_lim %d (min %d, max %d), start %d",
	     answered, c->req_lim, c->req_lim_min, c->req_lim_max,
	     c->req_lim_init);
	if (c->req_lim_min < 0)
		return failf("req_lim went down to %d", c->req_lim_min);
	if (c->req_lim_max > c->req_lim_init)
		return failf("target granted more credits (%d) than at login (%d)",
			     c->req_lim_max, c->req_lim_init);
	if (c->req_lim != c->req_lim_init)
		return failf("req_lim %d after all answers, started with %d",
			     c->req_lim, c->req_lim_init);
	return tur_good(c);
fail:
	free(tags);
	return -1;
}
static int case_credits(void) { return with_channel(false, m_credits); }

/* Zero-length data: READ/WRITE(10) of 0 blocks with a 0-byte direct
 * descriptor, INQUIRY with allocation length 0. All must be GOOD. */
static int m_zero_length(struct conn *c)
{
	uint8_t cdb[10], inq[6] = { 0x12 };
	struct seg s = { R_OFF, 0 };
	struct rsp r;
	char b[160];
	int i;

	for (i = 0; i < 3; i++) {
		const char *what = i == 0 ? "READ(10) of 0 blocks" :
				   i == 1 ? "WRITE(10) of 0 blocks" :
				   "INQUIRY allocation length 0";

		rw10_cdb(cdb, i == 1, 0, 0);
		if (data_cmd(c, i == 2 ? inq : cdb, i == 2 ? 6 : 10, i == 1,
			     DIRECT, &s, 1, &r))
			return failctx("%s", what);
		if (r.status)
			return failf("%s with a 0-byte descriptor: %s", what,
				     rsp_str(&r, b, sizeof(b)));
		note("%s, 0-byte descriptor -> %s", what,
		     rsp_str(&r, b, sizeof(b)));
	}
	return tur_good(c);
}
static int case_zero_length(void) { return with_channel(false, m_zero_length); }

/* Descriptor lengths that disagree with the CDB: the target must report
 * the residual and never touch initiator memory past a descriptor. */
static int m_residuals(struct conn *c)
{
	uint8_t cdb[10];
	struct seg s;
	struct rsp r;
	char b[160];
	uint32_t k;

	/* READ 4096 bytes into an 8192-byte buffer: underrun of 4096. */
	memset(c->data + R_OFF, 0xee, 16384);
	rw10_cdb(cdb, false, 0, 8);
	s = (struct seg){ R_OFF, 8192 };
	if (data_cmd(c, cdb, 10, false, DIRECT, &s, 1, &r))
		return failctx("READ(10) 4 KiB into 8 KiB");
	note("READ(10) 4 KiB into 8 KiB -> %s", rsp_str(&r, b, sizeof(b)));
	if (r.status || !(r.flags & SRP_RSP_FLAG_DIUNDER) || r.di_resid != 4096)
		return failf("READ(10) 4 KiB into 8 KiB: %s; want GOOD, DIUNDER, residual 4096",
			     rsp_str(&r, b, sizeof(b)));
	for (k = 8192; k < 16384; k++)
		if (c->data[R_OFF + k] != 0xee)
			return failf("READ(10) 4 KiB into an 8 KiB descriptor wrote byte %u of the MR",
				     k);
	for (k = 4096; k < 8192; k++)
		if (c->data[R_OFF + k] != 0xee)
			break;
	if (k < 8192)
		note("READ(10) 4 KiB into 8 KiB also wrote the last 4 KiB of the buffer (from byte %u)",
		     k);

	/* READ 4096 bytes into a 1024-byte buffer: overrun of 3072. */
	memset(c->data + R_OFF, 0xee, 16384);
	s = (struct seg){ R_OFF, 1024 };
	if (data_cmd(c, cdb, 10, false, DIRECT, &s, 1, &r))
		return failctx("READ(10) 4 KiB into 1 KiB");
	note("READ(10) 4 KiB into 1 KiB -> %s", rsp_str(&r, b, sizeof(b)));
	for (k = 1024; k < 16384; k++)
		if (c->data[R_OFF + k] != 0xee)
			return failf("READ(10) 4 KiB into a 1 KiB descriptor wrote byte %u of the MR",
				     k);
	if (r.status == 0 && (!(r.flags & SRP_RSP_FLAG_DIOVER) || r.di_resid != 3072))
		return failf("READ(10) 4 KiB into 1 KiB: %s; want DIOVER, residual 3072",
			     rsp_str(&r, b, sizeof(b)));
	if (r.status && (r.status != 2 || sense_key(&r) != 5))
		return failf("READ(10) 4 KiB into 1 KiB: %s", rsp_str(&r, b, sizeof(b)));

	/* WRITE 4096 bytes from a 1024-byte buffer. */
	rw10_cdb(cdb, true, 0, 8);
	if (data_cmd(c, cdb, 10, true, DIRECT, &s, 1, &r))
		return failctx("WRITE(10) 4 KiB from 1 KiB");
	note("WRITE(10) 4 KiB from 1 KiB -> %s", rsp_str(&r, b, sizeof(b)));
	if (r.status == 0 && (!(r.flags & SRP_RSP_FLAG_DOOVER) || r.do_resid != 3072))
		return failf("WRITE(10) 4 KiB from 1 KiB: %s; want DOOVER, residual 3072, or CHECK CONDITION",
			     rsp_str(&r, b, sizeof(b)));
	if (r.status && (r.status != 2 || sense_key(&r) != 5))
		return failf("WRITE(10) 4 KiB from 1 KiB: %s", rsp_str(&r, b, sizeof(b)));
	return tur_good(c);
}
static int case_residuals(void) { return with_channel(false, m_residuals); }

/* SINGLE, then MULTI (kept: result 2), then SINGLE (result 1, the other
 * two channels of the I_T nexus are disconnected). */
/* SRP_T_LOGOUT reasons (SRP r16a, 6.8). */
#define T_LOGOUT_NONE		0
#define T_LOGOUT_MULTICHANNEL	4

/* The reason case await-logout wants (--logout-reason). */
static unsigned int g_logout_reason = T_LOGOUT_NONE;

/*
 * The target logs channel @c out: an SRP_T_LOGOUT with @reason, then the
 * disconnect.
 */
static int got_logout(struct conn *c, uint32_t reason)
{
	struct iu *iu;
	int ret;

	ret = wait_dead(c, true);
	if (ret)
		return ret;
	drain_cq(c);
	iu = take_iu(c, false, 0, SRP_T_LOGOUT);
	if (!iu)
		return failf("disconnected without an SRP_T_LOGOUT first");
	if (iu->len < 16)
		ret = failf("SRP_T_LOGOUT of %u bytes", iu->len);
	else if (get_be32(iu->buf + 4) != reason)
		ret = failf("SRP_T_LOGOUT reason %u, want %u",
			    get_be32(iu->buf + 4), reason);
	free(iu);
	return ret;
}

/*
 * Log in and wait (--timeout) until the target logs the channel out
 * (--logout-reason, default 0): what an admin's ACL removal, TPG disable,
 * device removal or module unload must cause. The login is MULTI: it
 * joins the nexus' live channels (ib_srp's, beside it in tests/28)
 * instead of ending them, so that those see the same logout.
 */
static int case_await_logout(void)
{
	struct conn c;
	int ret = login_tur_flags(&c, 1);	/* MULTI */

	if (!ret) {
		note("logged in; waiting for the target to log out");
		ret = got_logout(&c, g_logout_reason);
	}
	if (!ret)
		note("SRP_T_LOGOUT reason %u, then a disconnect",
		     g_logout_reason);
	conn_close(&c);
	return ret;
}

static int case_multichannel(void)
{
	struct conn a, b, c;
	struct login_req l;
	int ret;

	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	default_login(&l);
	ret = login_ok(&a, &l);
	if (ret)
		goto out;
	default_login(&l);
	l.flags = 1;		/* MULTI */
	ret = login_ok(&b, &l);
	if (ret) {
		failctx("MULTI login");
		goto out;
	}
	if ((b.rsp_flags & 3) != 2) {
		ret = failf("MULTI login next to a live channel: result %u, want 2",
			    b.rsp_flags & 3);
		goto out;
	}
	ret = tur_good(&a);
	if (!ret)
		ret = tur_good(&b);
	if (ret)
		goto out;
	default_login(&l);
	ret = login_ok(&c, &l);
	if (ret) {
		failctx("second SINGLE login");
		goto out;
	}
	if ((c.rsp_flags & 3) != 1) {
		ret = failf("SINGLE login over 2 channels: result %u, want 1",
			    c.rsp_flags & 3);
		goto out;
	}
	ret = got_logout(&a, T_LOGOUT_MULTICHANNEL);
	if (!ret)
		ret = got_logout(&b, T_LOGOUT_MULTICHANNEL);
	if (ret) {
		failctx("the channels of the SINGLE login's nexus");
		goto out;
	}
	note("MULTI -> result 2, SINGLE -> result 1, old channels got SRP_T_LOGOUT reason 4, then a disconnect");
	ret = tur_good(&c);
out:
	conn_close(&c);
	conn_close(&b);
	conn_close(&a);
	return ret;
}

struct tcase {
	const char *name;
	int (*fn)(void);
	const char *what;
};

static const struct tcase cases[] = {
	{ "login-ok", case_login_ok, "valid login, sane LOGIN_RSP, TUR" },
	{ "login-bad-target-id", case_login_bad_target_id, "wrong target port ID -> REJ 0x00010003" },
	{ "login-iu-too-big", case_login_iu_too_big, "REQ_IT_IU_LEN 1 MiB -> REJ 0x00010002" },
	{ "login-iu-too-small", case_login_iu_too_small, "REQ_IT_IU_LEN 32 -> REJ 0x00010000" },
	{ "login-bad-fmt", case_login_bad_fmt, "REQ_BUF_FMT 0x0008 -> REJ 0x00010004" },
	{ "login-short-private-data", case_login_short_pdata, "8 bytes of private data -> REJ 0x00010000" },
	{ "login-wrong-opcode", case_login_wrong_opcode, "opcode 0x02 in the login -> REJ 0x00010000" },
	{ "login-bad-multichannel", case_login_bad_multichannel, "multichannel action 3 -> REJ 0x00010000" },
	{ "inquiry", case_inquiry, "INQUIRY 255 bytes, header, DIUNDER residual" },
	{ "write-read-direct", case_write_read_direct, "WRITE/READ(10) via direct descriptors" },
	{ "write-read-indirect", case_write_read_indirect, "WRITE/READ(10) via scattered inline indirect tables" },
	{ "write-immediate", case_write_immediate, "WRITE(10) with immediate data (SRP-2)" },
	{ "zero-length", case_zero_length, "0-byte transfers with 0-byte descriptors" },
	{ "residuals", case_residuals, "descriptor lengths != CDB: residuals, no overrun" },
	{ "bad-truncated", case_bad_truncated, "SRP_CMD of 40 bytes" },
	{ "bad-direct-cut", case_bad_direct_cut, "direct descriptor cut off" },
	{ "bad-indirect-count", case_bad_indirect_count, "indirect: count vs table length vs IU" },
	{ "bad-indirect-ext", case_bad_indirect_ext, "indirect: 1 of 4 inline: fetched; tables that disagree or are too long -> 0e/03" },
	{ "ext-table", case_ext_table, "64 KiB through indirect tables held by the initiator (0 and 2 of 16 inline): fetched, data right" },
	{ "bad-indirect-sum", case_bad_indirect_sum, "indirect: lengths do not sum to the total" },
	{ "bad-bidi", case_bad_bidi, "bidirectional buffer format 0x11" },
	{ "bad-imm-unnegotiated", case_bad_imm_unneg, "immediate data without negotiation" },
	{ "bad-imm-past-end", case_bad_imm_past_end, "immediate data past the IU end" },
	{ "bad-addcdb", case_bad_addcdb, "additional CDB length past the IU" },
	{ "bad-task-attr", case_bad_task_attr, "task attribute 7" },
	{ "bad-too-big", case_bad_too_big, "data length over 64 MiB" },
	{ "bad-cdb-varlen", case_bad_cdb_varlen, "64-byte IUs: CDB 0x7f claiming 263 bytes -> INVALID FIELD IN CDB" },
	{ "bad-cdb-varlen-oob", case_bad_cdb_varlen_oob, "64-byte IUs: CDB 0x7f claiming 252 bytes -> INVALID FIELD IN CDB" },
	{ "cdb-varlen-fits", case_cdb_varlen_fits, "64-byte IUs: 32-byte CDB 0x7f with 16 additional bytes: answered" },
	{ "bad-all", case_bad_all, "every malformed SRP_CMD on one channel" },
	{ "bad-lun", case_bad_lun, "TUR to an unmapped LUN -> ILLEGAL REQUEST" },
	{ "bad-rkey", case_bad_rkey, "READ into a wrong rkey: error status or disconnect" },
	{ "bad-rkey-write", case_bad_rkey_write, "WRITE from a wrong rkey: error status or disconnect" },
	{ "ext-table-rkey", case_ext_table_rkey, "external indirect table behind a wrong rkey: error status or disconnect" },
	{ "task-attrs", case_task_attrs, "SIMPLE/HEAD OF QUEUE/ORDERED TUR GOOD, ACA refused by LIO (24h/00h)" },
	{ "tsk-mgmt", case_tsk_mgmt, "ABORT TASK unknown tag, function 0x20, ABORT TASK SET, CLEAR ACA, CLEAR TASK SET, LUN RESET" },
	{ "abort-task", case_abort_task, "(not in all) ABORT TASK of a READ in flight on a slow --lun: aborted, credit back" },
	{ "abort-task-set", case_abort_task_set, "(not in all) ABORT TASK SET over 4 READs in flight on a slow --lun: aborted, credits back" },
	{ "clear-task-set", case_clear_task_set, "(not in all) CLEAR TASK SET over 4 READs in flight on a slow --lun on each of 3 channels, 2 I_T nexuses (--other-initiator; --foreign-export: refused)" },
	{ "abort-race", case_abort_race, "ABORT TASK right after a 64 KiB READ, --rounds times (100): the READ's response never after the TMF's" },
	{ "cred-req", case_cred_req, "(not in all) credits of READs a reset on another channel aborts come back in an SRP_CRED_REQ (slow --lun, TAS off)" },
	{ "cred-rsp-burst", case_cred_rsp_burst, "(not in all) an SRP_CRED_REQ held, then every credit's READ on a slow --lun and the SRP_CRED_RSP: all answered, no RNR NAK" },
	{ "tsk-mgmt-short", case_tsk_mgmt_short, "SRP_TSK_MGMT of 20 bytes -> failure code" },
	{ "unknown-iu", case_unknown_iu, "IU opcode 0x7f -> SRP_T_LOGOUT + disconnect" },
	{ "empty-iu", case_empty_iu, "IU of 0 bytes -> SRP_T_LOGOUT + disconnect" },
	{ "unsolicited-cred-rsp", case_unsolicited_cred_rsp, "SRP_CRED_RSP without CRED_REQ" },
	{ "iu-overflow", case_iu_overflow, "IU longer than MAX_IT_IU_LEN -> disconnect" },
	{ "multichannel", case_multichannel, "SINGLE, MULTI (kept), SINGLE (logs both out: SRP_T_LOGOUT reason 4)" },
	{ "credits", case_credits, "req_lim commands back to back" },
	{ "i-logout", case_i_logout, "SRP_I_LOGOUT -> disconnect" },
	{ "await-logout", case_await_logout, "(not in all) log in, wait for SRP_T_LOGOUT (--logout-reason) and the disconnect" },
	{ "login-storm", case_login_storm, "(not in all) --rounds x --channels logins, refusals and drops tolerated, no hang" },
	{ "flood", case_flood, "(not in all) every credit busy with 1 MiB writes for --rounds seconds, then log out" },
	{ "burst", case_burst, "(not in all) --rounds WRITEs of --length bytes back to back, all GOOD; held until --stop-file" },
	{ "read-fails", case_read_fails, "(not in all) READ of --length bytes the target cannot move: CHECK CONDITION, ABORTED COMMAND" },
	{ "big", case_big, "(not in all) WRITE(16) and READ(16) of 64 MiB, one SRP_CMD each, 16 indirect descriptors: GOOD, data right (--lun of 64 MiB)" },
	{ "over-credit", case_over_credit, "(not in all) 2 x credits + 8 READs on --lun ignoring req_lim: all answered, or the channel closed" },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* "all" is every case but those marked "(not in all)": tools for other
 * scenarios, or cases that need a slow --lun. */
static bool in_all(const struct tcase *t)
{
	return strncmp(t->what, "(not in all)", 12) != 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: srp-client --dest IP:PORT --id-ext HEX16 --ioc-guid HEX16\n"
		"                  --initiator-id HEX32 [--lun N] [--timeout SECS] [-v]\n"
		"                  [--xfail CASE]... CASE... | all\n"
		"                  [--rounds N] [--channels N] [--stop-file PATH] [--hold]\n"
		"                  [--logout-reason N] [--other-initiator HEX32]\n"
		"                  [--foreign-export] [--length BYTES]\n"
		"       srp-client --list\n"
		"--xfail CASE: a known failure; prints XFAIL (not counted) or XPASS\n"
		"(counted as a failure: the marker is stale).\n"
		"--rounds/--channels/--stop-file: for login-storm (default 20 x 4);\n"
		"--rounds: seconds for flood; --rounds x --length: writes of burst.\n"
		"--logout-reason: the SRP_T_LOGOUT reason await-logout wants (0).\n"
		"--other-initiator: a second initiator port ID with an ACL, and\n"
		"--foreign-export: another fabric exports --lun (clear-task-set).\n");
}

static const char *g_xfail[NCASES];
static unsigned int g_nxfail;

static bool xfail(const char *name)
{
	unsigned int i;

	for (i = 0; i < g_nxfail; i++)
		if (!strcmp(g_xfail[i], name))
			return true;
	return false;
}

enum {
	OPT_LIST = CONN_OPT_LAST,
	OPT_HOLD,
	OPT_XFAIL,
	OPT_ROUNDS,
	OPT_CHANNELS,
	OPT_STOP_FILE,
	OPT_LOGOUT_REASON,
	OPT_OTHER_INITIATOR,
	OPT_FOREIGN_EXPORT,
	OPT_LENGTH,
};

static const struct option options[] = {
	CONN_OPTIONS,
	{ "list", no_argument, NULL, OPT_LIST },
	{ "hold", no_argument, NULL, OPT_HOLD },
	{ "xfail", required_argument, NULL, OPT_XFAIL },
	{ "rounds", required_argument, NULL, OPT_ROUNDS },
	{ "channels", required_argument, NULL, OPT_CHANNELS },
	{ "stop-file", required_argument, NULL, OPT_STOP_FILE },
	{ "logout-reason", required_argument, NULL, OPT_LOGOUT_REASON },
	{ "other-initiator", required_argument, NULL, OPT_OTHER_INITIATOR },
	{ "foreign-export", no_argument, NULL, OPT_FOREIGN_EXPORT },
	{ "length", required_argument, NULL, OPT_LENGTH },
	{ "help", no_argument, NULL, 'h' },
	{}
};

/* Our own options; 0, 1 (--list, --help: done) or -1 (usage error). */
static int client_opt(int opt, const char *arg)
{
	size_t k;

	switch (opt) {
	case OPT_LIST:
		for (k = 0; k < NCASES; k++)
			printf("%-26s %s\n", cases[k].name, cases[k].what);
		return 1;
	case 'h':
		usage(stdout);
		return 1;
	case OPT_HOLD:
		g_hold = true;
		break;
	case OPT_XFAIL:
		if (g_nxfail < NCASES)
			g_xfail[g_nxfail++] = arg;
		break;
	case OPT_ROUNDS:
		g_rounds = strtoul(arg, NULL, 0);
		break;
	case OPT_CHANNELS:
		g_channels = strtoul(arg, NULL, 0);
		break;
	case OPT_STOP_FILE:
		g_stop_file = arg;
		break;
	case OPT_LOGOUT_REASON:
		g_logout_reason = strtoul(arg, NULL, 0);
		break;
	case OPT_OTHER_INITIATOR:
		g_have_other_ini = !parse_hex(arg, g_other_ini, 16);
		if (!g_have_other_ini) {
			usage(stderr);
			return -1;
		}
		break;
	case OPT_FOREIGN_EXPORT:
		g_foreign_export = true;
		break;
	case OPT_LENGTH:
		g_length = strtoul(arg, NULL, 0);
		break;
	default:
		usage(stderr);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *sel[NCASES * 2];
	int nsel = 0, failed = 0, i, n, opt;
	size_t k;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt_long(argc, argv, "vh", options, NULL)) != -1) {
		n = conn_opt("srp-client", opt, optarg);
		if (n < 0)
			return 2;
		if (!n && (n = client_opt(opt, optarg)))
			return n < 0 ? 2 : 0;
	}
	for (i = optind; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "all")) {
			for (k = 0; k < NCASES && nsel < (int)(NCASES * 2); k++)
				if (in_all(&cases[k]))
					sel[nsel++] = cases[k].name;
			continue;
		}
		for (k = 0; k < NCASES; k++)
			if (!strcmp(a, cases[k].name))
				break;
		if (k == NCASES) {
			fprintf(stderr, "srp-client: unknown case %s (see --list)\n", a);
			return 2;
		}
		if (nsel < (int)(NCASES * 2))
			sel[nsel++] = a;
	}
	if (!conn_opts_ok("srp-client") || !nsel) {
		usage(stderr);
		return 2;
	}
	g_rand ^= (uint64_t)getpid() << 20 ^ (uint64_t)time(NULL);
	g_tag_seq ^= (uint64_t)(getpid() & 0xffff) << 24;

	for (i = 0; i < nsel; i++) {
		for (k = 0; strcmp(cases[k].name, sel[i]); k++)
			;
		g_case = cases[k].name;
		g_why[0] = 0;
		if (cases[k].fn()) {
			printf("%s %s: %s\n", xfail(g_case) ? "XFAIL" : "FAIL",
			       g_case, g_why[0] ? g_why : "?");
			failed += !xfail(g_case);
		} else if (xfail(g_case)) {
			printf("XPASS %s: passes now, drop its --xfail\n", g_case);
			failed++;
		} else {
			printf("PASS %s\n", g_case);
		}
	}
	return failed ? 1 : 0;
}
