// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the SRP wire-format layer (srpt_proto.c).
 *
 * The input is one received IU. It goes through every parser, the way the
 * receive path would see it, with a few login parameters: fixed ones and
 * ones taken from bytes the parsers ignore (reserved fields of SRP_CMD), so
 * the fuzzer can steer them without changing the fields that are parsed.
 * What a parser accepts is checked against the IU length, then fed to the
 * response builders. libFuzzer's input buffer has exactly the input's
 * size, so AddressSanitizer catches any read past it.
 */
#include <stdio.h>
#include <stdlib.h>

#include <linux/errno.h>
#include <linux/unaligned.h>
#include "srpt_proto.h"

#define FUZZ_ASSERT(e)							\
	do {								\
		if (!(e)) {						\
			fprintf(stderr, "%s:%d: %s\n", __FILE__,	\
				__LINE__, #e);				\
			abort();					\
		}							\
	} while (0)

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

static u32 rd32(const u8 *data, size_t size, size_t off)
{
	return off + 4 <= size ? get_unaligned_be32(data + off) : 0;
}

static void fuzz_responses(u64 tag, const u8 *data, size_t size,
			   u32 buf_len)
{
	u8 *buf = malloc(buf_len);
	u8 sense[18];
	u32 n;

	/* srpt_build_rsp() needs room for the fixed part. */
	FUZZ_ASSERT(buf && buf_len >= SRPT_RSP_FIXED_LEN);
	n = srpt_build_rsp(buf, buf_len, tag, rd32(data, size, 4),
			   size > 19 ? data[19] : 0, data, size,
			   size > 18 ? data[18] : 0, rd32(data, size, 20),
			   rd32(data, size, 24));
	FUZZ_ASSERT(n >= SRPT_RSP_FIXED_LEN && n <= buf_len);
	FUZZ_ASSERT(!memcmp(buf + 8, &tag, 8));
	FUZZ_ASSERT(get_unaligned_be32(buf + 28) == n - SRPT_RSP_FIXED_LEN);
	FUZZ_ASSERT(!!(buf[18] & SRP_RSP_FLAG_SNSVALID) ==
		    (n > SRPT_RSP_FIXED_LEN ||
		     (size > 18 && data[18] & SRP_RSP_FLAG_SNSVALID)));
	FUZZ_ASSERT(!memcmp(buf + SRPT_RSP_FIXED_LEN, data,
			    n - SRPT_RSP_FIXED_LEN));
	if (buf_len >= SRPT_RSP_FIXED_LEN + 4) {
		n = srpt_build_tm_rsp(buf, buf_len, tag, 1,
				      size > 30 ? data[30] : 0);
		FUZZ_ASSERT(n == SRPT_RSP_FIXED_LEN + 4);
		FUZZ_ASSERT(buf[18] == SRP_RSP_FLAG_RSPVALID);
	}
	if (buf_len >= sizeof(struct srp_t_logout))
		FUZZ_ASSERT(srpt_build_t_logout(buf, buf_len, tag,
						rd32(data, size, 4)) == 16);
	n = srpt_fixed_sense(sense, size < sizeof(sense) ? size : sizeof(sense),
			     size > 2 ? data[2] : 0, size > 12 ? data[12] : 0,
			     size > 13 ? data[13] : 0);
	FUZZ_ASSERT(n == (size >= sizeof(sense) ? 18 : 0));
	free(buf);
}

/*
 * A command whose indirect table is in initiator memory: the table as
 * fetched starts with the inline descriptors (as a real initiator's does)
 * and goes on with bytes of the input.
 */
static void fuzz_table(struct srpt_cmd_info *ci, const u8 *data, size_t size,
		       u32 max)
{
	u32 len = ci->table.len, inl = ci->n_desc * 16, i;
	enum srpt_cmd_err err;
	u64 sum = 0;
	u8 *t;

	FUZZ_ASSERT(len % 16 == 0 && len / 16 > ci->n_desc &&
		    len / 16 <= SRPT_MAX_TABLE_DESC);
	FUZZ_ASSERT(ci->desc + inl <= data + size && ci->data_len <= max);
	t = malloc(len);
	FUZZ_ASSERT(t);
	memcpy(t, ci->desc, inl);
	for (i = inl; i < len; i++)
		t[i] = data[i % size];
	err = srpt_parse_table(ci, t);
	FUZZ_ASSERT(err == SRPT_CMD_OK || err == SRPT_CMD_BAD_IU);
	if (err == SRPT_CMD_OK) {
		FUZZ_ASSERT(ci->desc == t && ci->n_desc == len / 16);
		for (i = 0; i < ci->n_desc; i++)
			sum += srpt_cmd_desc(ci, i).len;
		FUZZ_ASSERT(sum == ci->data_len);
	}
	free(t);
}

static void fuzz_cmd(const u8 *data, size_t size, u32 imm, u32 max)
{
	struct srpt_cmd_info ci;
	enum srpt_cmd_err err;
	u64 sum = 0;
	u32 i, off;

	err = srpt_parse_cmd(data, size, imm, max, &ci);
	FUZZ_ASSERT(size >= 16 ? !memcmp(&ci.tag, data + 8, 8) : !ci.tag);
	if (ci.ext_table)
		FUZZ_ASSERT(ci.fmt == SRP_DATA_DESC_INDIRECT);
	if (err == SRPT_CMD_EXT_TABLE)
		fuzz_table(&ci, data, size, max);
	if (err == SRPT_CMD_TOO_BIG)
		FUZZ_ASSERT(ci.data_len > max ||
			    (ci.ext_table &&
			     ci.table.len / 16 > SRPT_MAX_TABLE_DESC));
	if (err != SRPT_CMD_OK)
		return;

	FUZZ_ASSERT(size >= SRPT_CMD_FIXED_LEN);
	FUZZ_ASSERT(ci.data_len <= max);
	FUZZ_ASSERT(ci.cdb == data + 32);
	FUZZ_ASSERT(ci.cdb_len >= 16 && ci.cdb + ci.cdb_len <= data + size);
	FUZZ_ASSERT(ci.task_attr < 8 && !ci.ext_table);
	off = 32 + ci.cdb_len;
	switch (ci.fmt) {
	case SRP_NO_DATA_DESC:
		FUZZ_ASSERT(!ci.n_desc && !ci.data_len && !ci.data_out);
		break;
	case SRP_DATA_DESC_DIRECT:
		FUZZ_ASSERT(ci.n_desc == 1 && ci.desc == data + off);
		FUZZ_ASSERT(off + 16 <= size);
		FUZZ_ASSERT(srpt_cmd_desc(&ci, 0).len == ci.data_len);
		break;
	case SRP_DATA_DESC_INDIRECT:
		FUZZ_ASSERT(ci.desc == data + off + 20);
		FUZZ_ASSERT(off + 20 + 16 * ci.n_desc <= size);
		for (i = 0; i < ci.n_desc; i++)
			sum += srpt_cmd_desc(&ci, i).len;
		FUZZ_ASSERT(sum == ci.data_len);
		break;
	case SRP_DATA_DESC_IMM:
		FUZZ_ASSERT(ci.data_out && !ci.n_desc && imm);
		FUZZ_ASSERT(ci.imm_off == imm && imm >= off + 4);
		FUZZ_ASSERT((u64)ci.imm_off + ci.data_len <= size);
		/* The data is what the backend would get: touch all of it. */
		for (i = 0; i < ci.data_len; i++)
			sum += data[ci.imm_off + i];
		(void)sum;
		break;
	default:
		FUZZ_ASSERT(0);
	}
}

static void fuzz_login(const u8 *data, size_t size)
{
	struct srpt_login_limits lim;
	struct srp_login_rsp rsp;
	struct srp_login_rej rej;
	struct srpt_login lg;
	u32 reason;
	int k;

	for (k = 0; k < 2; k++) {
		if (k ? srpt_parse_login_ib(data, size, &lg) :
			srpt_parse_login_rdma(data, size, &lg))
			continue;
		FUZZ_ASSERT(size >= (k ? 64u : 56u));
		/* Limits from the input: once matching the port, once not. */
		lim.max_it_iu_len = rd32(data, size, 4) >> (data[size - 1] & 15);
		memcpy(lim.t_port_id, lg.t_port_id, 16);
		lim.t_port_id[15] ^= data[size - 1] & 0x80;
		reason = srpt_check_login(&lg, &lim);
		if (!reason) {
			FUZZ_ASSERT(lg.req_it_iu_len >= SRPT_MIN_IU_LEN);
			FUZZ_ASSERT(lg.req_it_iu_len <= lim.max_it_iu_len);
			FUZZ_ASSERT(lg.req_buf_fmt &&
				    !(lg.req_buf_fmt & ~SRPT_BUF_FMTS));
			FUZZ_ASSERT((lg.req_flags & 3) <= SRP_MULTICHAN_MULTI);
			FUZZ_ASSERT(!memcmp(lg.t_port_id, lim.t_port_id, 16));
			srpt_build_login_rsp(&rsp, lg.tag, 32,
					     lg.req_it_iu_len, 8260,
					     lg.req_flags & 0x80);
			FUZZ_ASSERT(!memcmp((u8 *)&rsp + 8, &lg.tag, 8));
		} else {
			FUZZ_ASSERT((reason & ~7u) == 0x10000);
			srpt_build_login_rej(&rej, lg.tag, reason);
			FUZZ_ASSERT(!memcmp((u8 *)&rej + 8, &lg.tag, 8));
		}
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	/* Login parameters ib_srp uses, and ones the input chooses. */
	const u32 imms[] = { 0, 68, 52, rd32(data, size, 2) >> 16 };
	const u32 maxes[] = { 1u << 20, ~0u, rd32(data, size, 16) };
	struct srpt_tsk_info ti;
	u32 i, j;

	(void)srpt_iu_opcode(data, size);
	FUZZ_ASSERT(srpt_iu_tag(data, size) == 0 || size >= 16);

	for (i = 0; i < sizeof(imms) / sizeof(imms[0]); i++)
		for (j = 0; j < sizeof(maxes) / sizeof(maxes[0]); j++)
			fuzz_cmd(data, size, imms[i], maxes[j]);

	if (!srpt_parse_tsk_mgmt(data, size, &ti)) {
		FUZZ_ASSERT(size >= 48);
		FUZZ_ASSERT(ti.function == data[30]);
		FUZZ_ASSERT(!memcmp(&ti.task_tag, data + 32, 8));
	} else {
		FUZZ_ASSERT(size < 48);
	}

	fuzz_login(data, size);
	fuzz_responses(srpt_iu_tag(data, size), data, size,
		       SRPT_RSP_FIXED_LEN + (size > 3 ? data[3] : 0));
	return 0;
}
