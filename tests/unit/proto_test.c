// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario tests for the SRP wire-format layer (srpt_proto.c), compiled
 * unchanged in user space against tests/unit/shim. Requests are written
 * byte by byte at the offsets of the SRP specification (see
 * T10 SRP r16a, INCITS 365-2002), not through struct srp_*, so a wrong
 * structure layout is caught too. Every parser input is a heap copy of
 * exactly the bytes "received", so AddressSanitizer reports any read past
 * the length the parser was given.
 *
 * Usage: proto_test            run all cases
 *        proto_test -c DIR     also write the valid IUs as a fuzz corpus
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/errno.h>
#include <linux/unaligned.h>
#include "srpt_proto.h"

/* The layouts below are the wire format; the shim must agree. */
_Static_assert(sizeof(struct srp_login_req) == 64, "login_req");
_Static_assert(sizeof(struct srp_login_req_rdma) == 56, "login_req_rdma");
_Static_assert(sizeof(struct srp_login_rsp) == 52, "login_rsp");
_Static_assert(sizeof(struct srp_login_rej) == 32, "login_rej");
_Static_assert(sizeof(struct srp_cmd) == SRPT_CMD_FIXED_LEN, "cmd");
_Static_assert(sizeof(struct srp_rsp) == SRPT_RSP_FIXED_LEN, "rsp");
_Static_assert(sizeof(struct srp_tsk_mgmt) == 48, "tsk_mgmt");
_Static_assert(sizeof(struct srp_t_logout) == 16, "t_logout");
_Static_assert(sizeof(struct srp_indirect_buf) == 20, "indirect_buf");

#define IU_LEN		8260	/* ib_srp's default: 8 KiB immediate data + 68 */
#define IMM_OFF		68	/* ib_srp: 48 + room for 16 bytes of add. CDB + 4 */
#define MAX_DATA	(1u << 20)

static const u8 tag_bytes[8] = { 0xde, 0xad, 0x00, 0xbe, 0xef, 0x01, 0x80, 0x7f };
static const u8 our_port[16] = {
	0x00, 0x02, 0xc9, 0x03, 0x00, 0x11, 0x22, 0x33,
	0x00, 0x02, 0xc9, 0x03, 0x00, 0x11, 0x22, 0x33,
};
static const u8 init_port[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x52, 0x54, 0, 0xff, 0xfe, 0x12, 0x34, 0x56,
};

static int n_pass, n_fail;
static int case_failed;
static const char *corpus_dir;
/* The last IU handed to a parser: lives until the next one, like an RX buffer. */
static u8 *rx;

static void check(bool ok, const char *expr, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void check(bool ok, const char *expr, int line, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	case_failed = 1;
	printf("    line %d: %s", line, expr);
	if (fmt) {
		printf(" (");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf(")");
	}
	printf("\n");
}

#define CHECK(e)		check(!!(e), #e, __LINE__, NULL)
#define CHECK_EQ(a, b)							\
	do {								\
		unsigned long long _a = (a), _b = (b);			\
		check(_a == _b, #a " == " #b, __LINE__,			\
		      "got %#llx, want %#llx", _a, _b);			\
	} while (0)
/* Inside a loop: name the iteration that failed. */
#define CHECK_EQ_AT(a, b, i)						\
	do {								\
		unsigned long long _a = (a), _b = (b);			\
		check(_a == _b, #a " == " #b, __LINE__,			\
		      "at %s=%u: got %#llx, want %#llx", #i,		\
		      (unsigned int)(i), _a, _b);			\
	} while (0)

static void run(const char *name, void (*fn)(void))
{
	case_failed = 0;
	fn();
	if (case_failed)
		n_fail++;
	else
		n_pass++;
	printf("%s %s\n", case_failed ? "FAIL" : "PASS", name);
}

/*
 * "Receive" @len bytes of @iu: a heap copy of exactly that size, so ASan
 * flags any access past @len. Replaces the previous one.
 */
static u8 *receive(const u8 *iu, u32 len)
{
	free(rx);
	rx = malloc(len ? len : 1);
	if (!rx) {
		perror("malloc");
		exit(2);
	}
	memcpy(rx, iu, len);
	return rx;
}

static void save_corpus(const char *name, const u8 *iu, u32 len)
{
	char path[4096];
	FILE *f;

	if (!corpus_dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", corpus_dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(iu, 1, len, f) != len || fclose(f)) {
		perror(path);
		exit(2);
	}
}

/* ---- request builders, at the spec's byte offsets ---- */

/* ib_srp over RDMA/CM: struct srp_login_req_rdma, opcode at byte 11. */
static void mk_login_rdma(u8 *b, u32 iu_len, u16 buf_fmt, u8 flags,
			  u16 imm_off, const u8 *tport)
{
	memset(b, 0, 56);
	memcpy(b + 0, tag_bytes, 8);
	put_unaligned_be16(buf_fmt, b + 8);
	b[10] = flags;
	b[11] = SRP_LOGIN_REQ;
	put_unaligned_be32(iu_len, b + 12);
	memcpy(b + 16, init_port, 16);
	memcpy(b + 32, tport, 16);
	put_unaligned_be16(imm_off, b + 48);
}

/* IB CM private data: the 64-byte SRP_LOGIN_REQ of the standard. */
static void mk_login_ib(u8 *b, u32 iu_len, u16 buf_fmt, u8 flags,
			u16 imm_off, const u8 *tport)
{
	memset(b, 0, 64);
	b[0] = SRP_LOGIN_REQ;
	memcpy(b + 8, tag_bytes, 8);
	put_unaligned_be32(iu_len, b + 16);
	put_unaligned_be16(buf_fmt, b + 24);
	b[26] = flags;
	put_unaligned_be16(imm_off, b + 28);
	memcpy(b + 32, init_port, 16);
	memcpy(b + 48, tport, 16);
}

/* SRP_CMD fixed part; returns the offset where descriptors start. */
static u32 mk_cmd(u8 *b, u8 buf_fmt, u8 out_cnt, u8 in_cnt, u8 add_cdb_len)
{
	static const u8 lun[8] = { 0x40, 0x05, 0, 0, 0, 0, 0, 0 };
	u32 i;

	memset(b, 0, SRPT_CMD_FIXED_LEN + add_cdb_len);
	b[0] = SRP_CMD;
	b[5] = buf_fmt;
	b[6] = out_cnt;
	b[7] = in_cnt;
	memcpy(b + 8, tag_bytes, 8);
	memcpy(b + 20, lun, 8);
	b[29] = 2;			/* ORDERED */
	b[31] = add_cdb_len;
	for (i = 0; i < 16u + add_cdb_len; i++)
		b[32 + i] = 0xa0 + i;
	return SRPT_CMD_FIXED_LEN + (add_cdb_len & ~3u);
}

static void mk_desc(u8 *d, u64 va, u32 rkey, u32 len)
{
	put_unaligned_be64(va, d);
	put_unaligned_be32(rkey, d + 8);
	put_unaligned_be32(len, d + 12);
}

/*
 * SRP_CMD with an indirect descriptor: @n inline descriptors of 4096 +
 * i bytes each, table length @table_n * 16, total @total (or the sum if
 * @total is ~0). Returns the IU length.
 */
static u32 mk_indirect(u8 *b, bool out, u8 n, u32 table_n, u32 total)
{
	u32 off = mk_cmd(b, out ? 0x20 : 0x02, out ? n : 0, out ? 0 : n, 0);
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		mk_desc(b + off + 20 + 16 * i, 0x1000000000ull * (i + 1),
			0x100 + i, 4096 + i);
		sum += 4096 + i;
	}
	mk_desc(b + off, 0x7f0000001000ull, 0xabcd, 16 * table_n);
	put_unaligned_be32(total == ~0u ? (u32)sum : total, b + off + 16);
	return off + 20 + 16 * n;
}

/* ci->cdb and ci->desc point into rx until the next parse. */
static enum srpt_cmd_err parse_cmd(const u8 *iu, u32 len, u32 imm,
				   u32 max, struct srpt_cmd_info *ci)
{
	return srpt_parse_cmd(receive(iu, len), len, imm, max, ci);
}

static int parse_login(bool rdma, const u8 *b, size_t len, struct srpt_login *lg)
{
	u8 *p = receive(b, len);

	return rdma ? srpt_parse_login_rdma(p, len, lg) :
		      srpt_parse_login_ib(p, len, lg);
}

static u32 check_login(const struct srpt_login *lg, u32 max_it_iu_len)
{
	struct srpt_login_limits lim = { .max_it_iu_len = max_it_iu_len };

	memcpy(lim.t_port_id, our_port, 16);
	return srpt_check_login(lg, &lim);
}

static bool tag_is(u64 tag)
{
	return !memcmp(&tag, tag_bytes, 8);
}

/* ---- login ---- */

static void login_rdma_ib_srp(void)
{
	static const u8 flags[] = {
		SRP_MULTICHAN_MULTI | SRP_IMMED_REQUESTED,
		SRP_MULTICHAN_SINGLE | SRP_IMMED_REQUESTED,
		SRP_MULTICHAN_SINGLE,
	};
	struct srpt_login lg;
	u8 b[56];
	u32 i;

	for (i = 0; i < 3; i++) {
		mk_login_rdma(b, IU_LEN, SRP_BUF_FORMAT_DIRECT |
			      SRP_BUF_FORMAT_INDIRECT, flags[i], IMM_OFF,
			      our_port);
		if (i == 0)
			save_corpus("login-rdma", b, sizeof(b));
		memset(&lg, 0x55, sizeof(lg));
		CHECK_EQ(parse_login(true, b, sizeof(b), &lg), 0);
		CHECK(tag_is(lg.tag));
		CHECK_EQ(lg.req_it_iu_len, IU_LEN);
		CHECK_EQ(lg.req_buf_fmt, 0x0006);
		CHECK_EQ(lg.req_flags, flags[i]);
		CHECK_EQ(lg.imm_data_offset, IMM_OFF);
		CHECK(!memcmp(lg.i_port_id, init_port, 16));
		CHECK(!memcmp(lg.t_port_id, our_port, 16));
		CHECK_EQ(check_login(&lg, IU_LEN), 0);
	}
}

static void login_rdma_longer_private_data(void)
{
	struct srpt_login lg;
	u8 b[92] = { 0 };

	/* Some transports hand over more than 56 bytes: take the prefix. */
	mk_login_rdma(b, IU_LEN, 0x0006, 0, 0, our_port);
	CHECK_EQ(parse_login(true, b, sizeof(b), &lg), 0);
	CHECK_EQ(lg.req_it_iu_len, IU_LEN);
}

static void login_rdma_truncated(void)
{
	struct srpt_login lg;
	u8 b[56];
	u32 len;

	mk_login_rdma(b, IU_LEN, 0x0006, 0, IMM_OFF, our_port);
	for (len = 0; len < sizeof(b); len++)
		CHECK_EQ_AT(parse_login(true, b, len, &lg), -EINVAL, len);
}

static void login_rdma_wrong_opcode(void)
{
	struct srpt_login lg;
	u8 b[56];
	u32 op;

	/* The opcode is byte 11; byte 0 is part of the tag. */
	mk_login_rdma(b, IU_LEN, 0x0006, 0, 0, our_port);
	b[0] = SRP_CMD;
	CHECK_EQ(parse_login(true, b, sizeof(b), &lg), 0);
	for (op = 1; op < 256; op++) {
		b[11] = op;
		CHECK_EQ_AT(parse_login(true, b, sizeof(b), &lg), -EINVAL, op);
	}
}

static void login_ib_64(void)
{
	struct srpt_login lg;
	u8 b[64];
	u32 len;

	mk_login_ib(b, IU_LEN, 0x0002, SRP_MULTICHAN_MULTI | 0x10, IMM_OFF,
		    our_port);
	save_corpus("login-ib", b, sizeof(b));
	CHECK_EQ(parse_login(false, b, sizeof(b), &lg), 0);
	CHECK(tag_is(lg.tag));
	CHECK_EQ(lg.req_it_iu_len, IU_LEN);
	CHECK_EQ(lg.req_buf_fmt, 0x0002);
	CHECK_EQ(lg.req_flags, SRP_MULTICHAN_MULTI | 0x10);
	CHECK_EQ(lg.imm_data_offset, IMM_OFF);
	CHECK(!memcmp(lg.i_port_id, init_port, 16));
	CHECK(!memcmp(lg.t_port_id, our_port, 16));
	CHECK_EQ(check_login(&lg, IU_LEN), 0);
	for (len = 0; len < sizeof(b); len++)
		CHECK_EQ_AT(parse_login(false, b, len, &lg), -EINVAL, len);
	b[0] = SRP_LOGIN_RSP;
	CHECK_EQ(parse_login(false, b, sizeof(b), &lg), -EINVAL);
}

static void login_target_port_mismatch(void)
{
	struct srpt_login lg;
	u8 tport[16], b[56];
	u32 i;

	/* Any byte of the 16 differing, ID extension or IOC GUID. */
	for (i = 0; i < 16; i++) {
		memcpy(tport, our_port, 16);
		tport[i] ^= 0x01;
		mk_login_rdma(b, IU_LEN, 0x0006, 0, 0, tport);
		CHECK_EQ(parse_login(true, b, sizeof(b), &lg), 0);
		CHECK_EQ_AT(check_login(&lg, IU_LEN),
			    SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL, i);
	}
	CHECK_EQ(SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL, 0x10003);
}

static void login_iu_length(void)
{
	struct srpt_login lg;
	u8 b[56];

	mk_login_rdma(b, IU_LEN + 1, 0x0006, 0, 0, our_port);
	CHECK_EQ(parse_login(true, b, sizeof(b), &lg), 0);
	CHECK_EQ(check_login(&lg, IU_LEN), 0x10002);
	lg.req_it_iu_len = 0xffffffff;
	CHECK_EQ(check_login(&lg, IU_LEN), 0x10002);
	lg.req_it_iu_len = IU_LEN;
	CHECK_EQ(check_login(&lg, IU_LEN), 0);
	lg.req_it_iu_len = SRPT_MIN_IU_LEN;
	CHECK_EQ(check_login(&lg, IU_LEN), 0);
	lg.req_it_iu_len = SRPT_MIN_IU_LEN - 1;
	CHECK_EQ(check_login(&lg, IU_LEN), 0x10000);
	lg.req_it_iu_len = 0;
	CHECK_EQ(check_login(&lg, IU_LEN), 0x10000);
}

static void login_buffer_format(void)
{
	struct srpt_login lg;
	u8 b[56];
	u32 fmt;

	mk_login_rdma(b, IU_LEN, 0, 0, 0, our_port);
	parse_login(true, b, sizeof(b), &lg);
	for (fmt = 0; fmt <= 0xffff; fmt++) {
		bool ok = fmt && !(fmt & ~0x0006u);

		lg.req_buf_fmt = fmt;
		CHECK_EQ_AT(check_login(&lg, IU_LEN), ok ? 0 : 0x10004, fmt);
	}
}

static void login_multichannel_action(void)
{
	struct srpt_login lg;
	u8 b[56];
	u32 f;

	mk_login_rdma(b, IU_LEN, 0x0006, 0, 0, our_port);
	parse_login(true, b, sizeof(b), &lg);
	/* Bits 1:0 = 2 and 3 are reserved; the other bits do not matter. */
	for (f = 0; f < 256; f++) {
		lg.req_flags = f;
		CHECK_EQ_AT(check_login(&lg, IU_LEN), (f & 3) > 1 ? 0x10000 : 0, f);
	}
}

/* ---- SRP_CMD ---- */

static void cmd_no_data(void)
{
	struct srpt_cmd_info ci;
	u8 b[48];

	mk_cmd(b, 0, 0, 0, 0);
	b[29] = 0xf9;			/* reserved bits above the attribute */
	CHECK_EQ(parse_cmd(b, sizeof(b), 0, MAX_DATA, &ci), SRPT_CMD_OK);
	CHECK(tag_is(ci.tag));
	CHECK(!memcmp(&ci.lun, b + 20, 8));
	CHECK(ci.cdb == rx + 32);
	CHECK_EQ(ci.cdb_len, 16);
	CHECK_EQ(ci.task_attr, 1);
	CHECK_EQ(ci.fmt, SRP_NO_DATA_DESC);
	CHECK(!ci.data_out);
	CHECK_EQ(ci.data_len, 0);
	CHECK_EQ(ci.n_desc, 0);
	CHECK(!ci.ext_table);
	/* A receive buffer longer than the IU is fine. */
	CHECK_EQ(parse_cmd(b, sizeof(b), 0, 0, &ci), SRPT_CMD_OK);
}

static void cmd_direct(void)
{
	struct srpt_cmd_info ci;
	struct srpt_cmd_desc d;
	u8 b[64];
	u32 off;

	/* ib_srp: one direct descriptor, both counts 0. */
	off = mk_cmd(b, 0x01, 0, 0, 0);
	mk_desc(b + off, 0xffff888012345678ull, 0x1234abcd, 65536);
	CHECK_EQ(off, 48);
	CHECK_EQ(parse_cmd(b, sizeof(b), IMM_OFF, MAX_DATA, &ci), SRPT_CMD_OK);
	CHECK(!ci.data_out);
	CHECK_EQ(ci.fmt, SRP_DATA_DESC_DIRECT);
	CHECK_EQ(ci.n_desc, 1);
	CHECK_EQ(ci.data_len, 65536);
	d = srpt_cmd_desc(&ci, 0);
	CHECK_EQ(d.va, 0xffff888012345678ull);
	CHECK_EQ(d.rkey, 0x1234abcd);
	CHECK_EQ(d.len, 65536);

	b[5] = 0x10;
	CHECK_EQ(parse_cmd(b, sizeof(b), IMM_OFF, MAX_DATA, &ci), SRPT_CMD_OK);
	CHECK(ci.data_out);
	CHECK_EQ(ci.fmt, SRP_DATA_DESC_DIRECT);
	CHECK_EQ(ci.data_len, 65536);
	CHECK_EQ(parse_cmd(b, 63, IMM_OFF, MAX_DATA, &ci), SRPT_CMD_BAD_IU);
}

static void cmd_indirect_inline(void)
{
	static const u8 counts[] = { 1, 2, 3, 16, 255 };
	static u8 b[48 + 20 + 255 * 16];
	struct srpt_cmd_info ci;
	struct srpt_cmd_desc d;
	u32 i, k, len;

	for (k = 0; k < sizeof(counts); k++) {
		u8 n = counts[k];

		len = mk_indirect(b, k & 1, n, n, ~0u);
		CHECK_EQ_AT(parse_cmd(b, len, IMM_OFF, ~0u, &ci), SRPT_CMD_OK, n);
		CHECK_EQ(ci.data_out, k & 1);
		CHECK_EQ(ci.fmt, SRP_DATA_DESC_INDIRECT);
		CHECK_EQ_AT(ci.n_desc, n, n);
		CHECK(!ci.ext_table);
		CHECK_EQ_AT(ci.data_len, 4096u * n + n * (n - 1) / 2, n);
		for (i = 0; i < ci.n_desc; i++) {
			d = srpt_cmd_desc(&ci, i);
			CHECK_EQ_AT(d.va, 0x1000000000ull * (i + 1), i);
			CHECK_EQ_AT(d.rkey, 0x100 + i, i);
			CHECK_EQ_AT(d.len, 4096 + i, i);
		}
	}
}

static void cmd_indirect_sum_mismatch(void)
{
	u8 b[48 + 20 + 3 * 16];
	struct srpt_cmd_info ci;
	u32 len, sum = 3 * 4096 + 3;

	len = mk_indirect(b, false, 3, 3, sum + 1);
	CHECK_EQ(parse_cmd(b, len, 0, MAX_DATA, &ci), SRPT_CMD_BAD_IU);
	len = mk_indirect(b, false, 3, 3, sum - 1);
	CHECK_EQ(parse_cmd(b, len, 0, MAX_DATA, &ci), SRPT_CMD_BAD_IU);
	len = mk_indirect(b, false, 3, 3, sum);
	CHECK_EQ(parse_cmd(b, len, 0, MAX_DATA, &ci), SRPT_CMD_OK);
	/* The sum must not wrap around in 32 bits. */
	len = mk_indirect(b, false, 2, 2, 0);
	put_unaligned_be32(0x80000000, b + 68 + 12);
	put_unaligned_be32(0x80000000, b + 68 + 16 + 12);
	CHECK_EQ(parse_cmd(b, len, 0, ~0u, &ci), SRPT_CMD_BAD_IU);
}

static void cmd_indirect_table_len(void)
{
	u8 b[48 + 20 + 4 * 16];
	struct srpt_cmd_info ci;
	u32 len, tl;

	/* table_len must be exactly 16 * count when the list is inline. */
	len = mk_indirect(b, true, 4, 4, ~0u);
	for (tl = 0; tl <= 16 * 4; tl++) {
		put_unaligned_be32(tl, b + 48 + 12);
		CHECK_EQ_AT(parse_cmd(b, len, 0, MAX_DATA, &ci),
			    tl == 64 ? SRPT_CMD_OK : SRPT_CMD_BAD_IU, tl);
		CHECK(!ci.ext_table);
	}
	/* Not a multiple of 16, even beyond the inline list. */
	put_unaligned_be32(16 * 5 + 8, b + 48 + 12);
	CHECK_EQ(parse_cmd(b, len, 0, MAX_DATA, &ci), SRPT_CMD_BAD_IU);
}

/* Table entry @i as mk_indirect() writes the inline ones. */
static void mk_table(u8 *t, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		mk_desc(t + 16 * i, 0x1000000000ull * (i + 1), 0x100 + i,
			4096 + i);
}

static void cmd_indirect_partial_table(void)
{
	u8 b[48 + 20 + 2 * 16], t[5 * 16];
	u32 total = 5 * 4096 + 10, len, i;
	struct srpt_cmd_info ci;
	struct srpt_cmd_desc d;

	/* 2 of 5 descriptors inline: the table has to be fetched. */
	len = mk_indirect(b, false, 2, 5, total);
	CHECK_EQ(parse_cmd(b, len, 0, MAX_DATA, &ci), SRPT_CMD_EXT_TABLE);
	CHECK(ci.ext_table);
	CHECK_EQ(ci.data_len, total);
	CHECK_EQ(ci.n_desc, 2);
	CHECK_EQ(ci.table.va, 0x7f0000001000ull);
	CHECK_EQ(ci.table.rkey, 0xabcd);
	CHECK_EQ(ci.table.len, 5 * 16);
	CHECK(tag_is(ci.tag));
	/* The fetched table: its first entries are the inline ones. */
	mk_table(t, 5);
	CHECK_EQ(srpt_parse_table(&ci, t), SRPT_CMD_OK);
	CHECK_EQ(ci.n_desc, 5);
	for (i = 0; i < 5; i++) {
		d = srpt_cmd_desc(&ci, i);
		CHECK_EQ_AT(d.va, 0x1000000000ull * (i + 1), i);
		CHECK_EQ_AT(d.rkey, 0x100 + i, i);
		CHECK_EQ_AT(d.len, 4096 + i, i);
	}
	/* A table that does not add up to the data length. */
	CHECK_EQ(parse_cmd(b, len, 0, MAX_DATA, &ci), SRPT_CMD_EXT_TABLE);
	put_unaligned_be32(4097, t + 4 * 16 + 12);
	CHECK_EQ(srpt_parse_table(&ci, t), SRPT_CMD_BAD_IU);
	/* One whose start differs from the inline descriptors. */
	mk_table(t, 5);
	t[16 + 11] ^= 1;	/* rkey of entry 1 */
	CHECK_EQ(parse_cmd(b, len, 0, MAX_DATA, &ci), SRPT_CMD_EXT_TABLE);
	CHECK_EQ(srpt_parse_table(&ci, t), SRPT_CMD_BAD_IU);
	/* No inline descriptor at all. */
	len = mk_indirect(b, true, 0, 1, 4096);
	CHECK_EQ(parse_cmd(b, len, 0, MAX_DATA, &ci), SRPT_CMD_EXT_TABLE);
	CHECK(ci.ext_table && ci.data_out);
	mk_table(t, 1);
	put_unaligned_be32(4096, t + 12);
	CHECK_EQ(srpt_parse_table(&ci, t), SRPT_CMD_OK);
	CHECK_EQ(ci.n_desc, 1);
	/* Too long a table, or too much data, whatever the table says. */
	len = mk_indirect(b, true, 0, SRPT_MAX_TABLE_DESC + 1, 4096);
	CHECK_EQ(parse_cmd(b, len, 0, MAX_DATA, &ci), SRPT_CMD_TOO_BIG);
	len = mk_indirect(b, true, 0, SRPT_MAX_TABLE_DESC, 4096);
	CHECK_EQ(parse_cmd(b, len, 0, MAX_DATA, &ci), SRPT_CMD_EXT_TABLE);
	len = mk_indirect(b, true, 0, 2, MAX_DATA + 1);
	CHECK_EQ(parse_cmd(b, len, 0, MAX_DATA, &ci), SRPT_CMD_TOO_BIG);
	/* The inline part must be inside the IU even so. */
	len = mk_indirect(b, false, 2, 5, total);
	CHECK_EQ(parse_cmd(b, len - 16, 0, MAX_DATA, &ci), SRPT_CMD_BAD_IU);
}

static void cmd_indirect_count_beyond_iu(void)
{
	u8 b[48 + 20 + 4 * 16];
	struct srpt_cmd_info ci;
	u32 len;

	/* Count and table say 4, but only 2 descriptors were received. */
	len = mk_indirect(b, false, 4, 4, ~0u);
	CHECK_EQ(parse_cmd(b, len - 32, 0, MAX_DATA, &ci), SRPT_CMD_BAD_IU);
	/* Count 255 with one descriptor received. */
	len = mk_indirect(b, false, 1, 1, ~0u);
	b[7] = 255;
	put_unaligned_be32(255 * 16, b + 48 + 12);
	CHECK_EQ(parse_cmd(b, len, 0, MAX_DATA, &ci), SRPT_CMD_BAD_IU);
	/* Header cut off. */
	CHECK_EQ(parse_cmd(b, 48 + 19, 0, MAX_DATA, &ci), SRPT_CMD_BAD_IU);
}

static void cmd_immediate(void)
{
	static u8 b[IMM_OFF + 512];
	struct srpt_cmd_info ci;
	u32 off;

	off = mk_cmd(b, 0x30, 0, 0, 0);
	put_unaligned_be32(512, b + off);
	memset(b + IMM_OFF, 0x5a, 512);
	CHECK_EQ(parse_cmd(b, sizeof(b), IMM_OFF, MAX_DATA, &ci), SRPT_CMD_OK);
	CHECK(ci.data_out);
	CHECK_EQ(ci.fmt, SRP_DATA_DESC_IMM);
	CHECK_EQ(ci.imm_off, IMM_OFF);
	CHECK_EQ(ci.data_len, 512);
	CHECK_EQ(ci.n_desc, 0);
	/* The data must be inside the received IU. */
	CHECK_EQ(parse_cmd(b, sizeof(b) - 1, IMM_OFF, MAX_DATA, &ci),
		 SRPT_CMD_BAD_IU);
	put_unaligned_be32(513, b + off);
	CHECK_EQ(parse_cmd(b, sizeof(b), IMM_OFF, MAX_DATA, &ci),
		 SRPT_CMD_BAD_IU);
	put_unaligned_be32(0xffffffff, b + off);
	CHECK_EQ(parse_cmd(b, sizeof(b), IMM_OFF, ~0u, &ci), SRPT_CMD_BAD_IU);
	put_unaligned_be32(0, b + off);
	CHECK_EQ(parse_cmd(b, IMM_OFF, IMM_OFF, MAX_DATA, &ci), SRPT_CMD_OK);
	CHECK_EQ(ci.data_len, 0);
	/* A larger offset negotiated at login. */
	put_unaligned_be32(256, b + off);
	CHECK_EQ(parse_cmd(b, sizeof(b), 256, MAX_DATA, &ci), SRPT_CMD_OK);
	CHECK_EQ(ci.imm_off, 256);
	CHECK_EQ(parse_cmd(b, 511, 256, MAX_DATA, &ci), SRPT_CMD_BAD_IU);
}

static void cmd_immediate_refused(void)
{
	static u8 b[IMM_OFF + 16];
	struct srpt_cmd_info ci;
	u32 off;

	off = mk_cmd(b, 0x30, 0, 0, 0);
	put_unaligned_be32(16, b + off);
	/* Not negotiated at login. */
	CHECK_EQ(parse_cmd(b, sizeof(b), 0, MAX_DATA, &ci), SRPT_CMD_BAD_FMT);
	/* Immediate data-in does not exist. */
	b[5] = 0x03;
	CHECK_EQ(parse_cmd(b, sizeof(b), IMM_OFF, MAX_DATA, &ci),
		 SRPT_CMD_BAD_FMT);
	/* Offset inside the immediate descriptor or the CDB. */
	b[5] = 0x30;
	CHECK_EQ(parse_cmd(b, sizeof(b), 51, MAX_DATA, &ci), SRPT_CMD_BAD_IU);
	CHECK_EQ(parse_cmd(b, sizeof(b), 40, MAX_DATA, &ci), SRPT_CMD_BAD_IU);
	CHECK_EQ(parse_cmd(b, sizeof(b), 52, MAX_DATA, &ci), SRPT_CMD_OK);
	/* Offset past the IU. */
	CHECK_EQ(parse_cmd(b, sizeof(b), sizeof(b) + 1, MAX_DATA, &ci),
		 SRPT_CMD_BAD_IU);
	/*
	 * ib_srp's offset 68 leaves room for 16 bytes of additional CDB;
	 * with more the descriptor itself would overlap the data.
	 */
	off = mk_cmd(b, 0x30, 0, 0, 16);
	put_unaligned_be32(8, b + off);
	CHECK_EQ(parse_cmd(b, sizeof(b), IMM_OFF, MAX_DATA, &ci), SRPT_CMD_OK);
	off = mk_cmd(b, 0x30, 0, 0, 20);
	put_unaligned_be32(8, b + off);
	CHECK_EQ(off, 68);
	CHECK_EQ(parse_cmd(b, sizeof(b), IMM_OFF, MAX_DATA, &ci),
		 SRPT_CMD_BAD_IU);
	CHECK_EQ(parse_cmd(b, sizeof(b), IMM_OFF + 4, MAX_DATA, &ci),
		 SRPT_CMD_OK);
}

static void cmd_bidirectional_and_unknown(void)
{
	u8 b[48 + 20 + 2 * 16];
	struct srpt_cmd_info ci;
	u32 out, in;

	mk_indirect(b, false, 2, 2, ~0u);
	b[6] = 2;			/* same descriptors either way */
	for (out = 0; out < 16; out++) {
		for (in = 0; in < 16; in++) {
			enum srpt_cmd_err want;

			b[5] = out << 4 | in;
			if (out && in)
				want = SRPT_CMD_BAD_FMT;	/* bidi */
			else if ((out | in) > 3)
				want = SRPT_CMD_BAD_FMT;	/* reserved */
			else if ((out | in) == 2)
				want = SRPT_CMD_OK;
			else
				continue;
			CHECK_EQ_AT(parse_cmd(b, sizeof(b), IMM_OFF, MAX_DATA,
					      &ci), want, b[5]);
			CHECK(tag_is(ci.tag));
		}
	}
}

static void cmd_additional_cdb(void)
{
	u8 b[48 + 252 + 16];
	struct srpt_cmd_info ci;
	struct srpt_cmd_desc d;
	u32 add, off;

	for (add = 0; add <= 252; add += 4) {
		off = mk_cmd(b, 0x10, 0, 0, add);
		mk_desc(b + off, 0x1000, 7, 512);
		CHECK_EQ_AT(parse_cmd(b, off + 16, 0, MAX_DATA, &ci),
			    SRPT_CMD_OK, add);
		CHECK_EQ_AT(ci.cdb_len, 16 + add, add);
		CHECK(ci.cdb == rx + 32);
		CHECK_EQ_AT(ci.cdb[ci.cdb_len - 1], (u8)(0xa0 + 15 + add), add);
		d = srpt_cmd_desc(&ci, 0);
		CHECK_EQ_AT(d.len, 512, add);
		CHECK_EQ_AT(d.va, 0x1000, add);
		/* Descriptor cut off by the additional CDB. */
		CHECK_EQ_AT(parse_cmd(b, off + 15, 0, MAX_DATA, &ci),
			    SRPT_CMD_BAD_IU, add);
	}
	/* Bits 1:0 of the byte are reserved. */
	off = mk_cmd(b, 0x10, 0, 0, 16);
	mk_desc(b + off, 0x1000, 7, 512);
	b[31] = 16 | 3;
	CHECK_EQ(parse_cmd(b, off + 16, 0, MAX_DATA, &ci), SRPT_CMD_OK);
	CHECK_EQ(ci.cdb_len, 32);
	/* Additional CDB longer than the IU. */
	mk_cmd(b, 0, 0, 0, 0);
	b[31] = 4;
	CHECK_EQ(parse_cmd(b, 51, 0, MAX_DATA, &ci), SRPT_CMD_BAD_IU);
	CHECK_EQ(parse_cmd(b, 52, 0, MAX_DATA, &ci), SRPT_CMD_OK);
}

/*
 * LIO copies as many CDB bytes as the opcode implies (scsi_command_size():
 * by group code, or byte 7 + 8 of a variable-length CDB, opcode 0x7f):
 * a CDB that needs more than 16 + additional CDB length is refused.
 */
static void cmd_cdb_length_by_opcode(void)
{
	u8 b[48 + 252 + 16];
	struct srpt_cmd_info ci;
	u32 op, off, add;

	for (op = 0; op < 256; op++) {
		off = mk_cmd(b, 0, 0, 0, 0);
		b[32] = op;
		b[32 + 7] = 0xa7;	/* varlen: 175 + 8 bytes */
		CHECK_EQ_AT(parse_cmd(b, off, 0, MAX_DATA, &ci),
			    op == 0x7f ? SRPT_CMD_BAD_CDB : SRPT_CMD_OK, op);
	}
	/* Variable-length CDBs of 8..263 bytes, with just enough room. */
	for (add = 0; add <= 252; add += 4) {
		u32 cdb_len = 16 + add, need;

		for (need = 8; need <= 263; need += 1) {
			off = mk_cmd(b, 0, 0, 0, add);
			b[32] = 0x7f;
			b[32 + 7] = need - 8;
			CHECK_EQ_AT(parse_cmd(b, off, 0, MAX_DATA, &ci),
				    need <= cdb_len ? SRPT_CMD_OK :
						      SRPT_CMD_BAD_CDB,
				    add << 16 | need);
		}
	}
	/* The 64-byte IU of a small login: a 0x7f CDB claims 263 bytes. */
	off = mk_cmd(b, 0, 0, 0, 0);
	b[32] = 0x7f;
	b[32 + 7] = 255;
	CHECK_EQ(parse_cmd(b, 64, 0, MAX_DATA, &ci), SRPT_CMD_BAD_CDB);
	/* A truncated IU is malformed before its CDB is looked at. */
	CHECK_EQ(parse_cmd(b, 47, 0, MAX_DATA, &ci), SRPT_CMD_BAD_IU);
}

static void cmd_data_too_big(void)
{
	static u8 b[IMM_OFF + 4096];
	struct srpt_cmd_info ci;
	u32 len, off;

	off = mk_cmd(b, 0x01, 0, 0, 0);
	mk_desc(b + off, 0x1000, 7, MAX_DATA + 1);
	CHECK_EQ(parse_cmd(b, 64, 0, MAX_DATA, &ci), SRPT_CMD_TOO_BIG);
	CHECK_EQ(ci.data_len, MAX_DATA + 1);
	CHECK(tag_is(ci.tag));
	mk_desc(b + off, 0x1000, 7, MAX_DATA);
	CHECK_EQ(parse_cmd(b, 64, 0, MAX_DATA, &ci), SRPT_CMD_OK);

	len = mk_indirect(b, true, 3, 3, ~0u);
	CHECK_EQ(parse_cmd(b, len, 0, 3 * 4096 + 2, &ci), SRPT_CMD_TOO_BIG);
	CHECK_EQ(parse_cmd(b, len, 0, 3 * 4096 + 3, &ci), SRPT_CMD_OK);

	off = mk_cmd(b, 0x30, 0, 0, 0);
	put_unaligned_be32(4096, b + off);
	CHECK_EQ(parse_cmd(b, sizeof(b), IMM_OFF, 4095, &ci), SRPT_CMD_TOO_BIG);
	CHECK_EQ(parse_cmd(b, sizeof(b), IMM_OFF, 4096, &ci), SRPT_CMD_OK);
}

/* Every prefix of a valid IU is rejected, and never read past its end. */
static void cmd_every_truncation(void)
{
	static const char * const names[] = {
		"cmd-nodata", "cmd-direct", "cmd-indirect", "cmd-imm",
		"cmd-direct-addcdb",
	};
	static u8 b[IMM_OFF + 64 + 48 + 20 + 8 * 16];
	struct srpt_cmd_info ci;
	u32 t, full = 0, len, off;

	for (t = 0; t < 5; t++) {
		switch (t) {
		case 0:
			full = mk_cmd(b, 0, 0, 0, 0);
			break;
		case 1:
			off = mk_cmd(b, 0x01, 0, 0, 0);
			mk_desc(b + off, 0x1000, 7, 4096);
			full = off + 16;
			break;
		case 2:
			full = mk_indirect(b, true, 8, 8, ~0u);
			break;
		case 3:
			off = mk_cmd(b, 0x30, 0, 0, 0);
			put_unaligned_be32(64, b + off);
			memset(b + IMM_OFF, 0x5a, 64);
			full = IMM_OFF + 64;
			break;
		case 4:
			off = mk_cmd(b, 0x10, 0, 0, 8);
			mk_desc(b + off, 0x1000, 7, 4096);
			full = off + 16;
			break;
		}
		save_corpus(names[t], b, full);
		CHECK_EQ_AT(parse_cmd(b, full, IMM_OFF, MAX_DATA, &ci),
			    SRPT_CMD_OK, t);
		for (len = 0; len < full; len++) {
			CHECK_EQ_AT(parse_cmd(b, len, IMM_OFF, MAX_DATA, &ci),
				    SRPT_CMD_BAD_IU, len);
			if (len >= 16)
				CHECK(tag_is(ci.tag));
			else
				CHECK_EQ_AT(ci.tag, 0, len);
		}
	}
}

/* ---- SRP_TSK_MGMT and others ---- */

static void tsk_mgmt(void)
{
	struct srpt_tsk_info ti;
	u8 b[48];
	u32 len;

	memset(b, 0, sizeof(b));
	b[0] = SRP_TSK_MGMT;
	memcpy(b + 8, tag_bytes, 8);
	b[20] = 0x01;
	b[21] = 0x07;
	b[30] = SRP_TSK_ABORT_TASK;
	put_unaligned_be64(0x0102030405060708ull, b + 32);
	save_corpus("tsk-abort", b, sizeof(b));

	CHECK_EQ(srpt_parse_tsk_mgmt(receive(b, sizeof(b)), sizeof(b), &ti), 0);
	CHECK(tag_is(ti.tag));
	CHECK(!memcmp(&ti.lun, b + 20, 8));
	CHECK_EQ(ti.function, SRP_TSK_ABORT_TASK);
	CHECK(!memcmp(&ti.task_tag, b + 32, 8));
	for (len = 0; len < sizeof(b); len++) {
		CHECK_EQ_AT(srpt_parse_tsk_mgmt(receive(b, len), len, &ti),
			    -EINVAL, len);
		if (len >= 16)
			CHECK(tag_is(ti.tag));
		else
			CHECK_EQ_AT(ti.tag, 0, len);
	}
}

static void iu_opcode_and_tag(void)
{
	u8 b[16], *p;
	u32 len;

	memset(b, 0, sizeof(b));
	b[0] = SRP_I_LOGOUT;
	memcpy(b + 8, tag_bytes, 8);
	save_corpus("i-logout", b, sizeof(b));
	for (len = 0; len <= sizeof(b); len++) {
		p = receive(b, len);
		CHECK_EQ_AT(srpt_iu_opcode(p, len), len ? SRP_I_LOGOUT : 0xff,
			    len);
		if (len < 16)
			CHECK_EQ_AT(srpt_iu_tag(p, len), 0, len);
		else
			CHECK(tag_is(srpt_iu_tag(p, len)));
	}
}

/* ---- responses ---- */

static u64 wire_tag(void)
{
	u64 tag;

	memcpy(&tag, tag_bytes, 8);
	return tag;
}

static void rsp_with_sense(void)
{
	u8 sense[18], *b = malloc(256);
	u32 n;

	memset(b, 0xee, 256);
	CHECK_EQ(srpt_fixed_sense(sense, sizeof(sense), 0x05, 0x24, 0x01), 18);
	n = srpt_build_rsp(b, 256, wire_tag(), 3, 0x02, sense, sizeof(sense),
			   SRP_RSP_FLAG_DIUNDER, 0, 512);
	CHECK_EQ(n, 36 + 18);
	CHECK_EQ(b[0], SRP_RSP);
	CHECK_EQ(b[1] | b[2] | b[3], 0);
	CHECK_EQ(get_unaligned_be32(b + 4), 3);
	CHECK(!memcmp(b + 8, tag_bytes, 8));
	CHECK_EQ(b[16] | b[17], 0);
	CHECK_EQ(b[18], SRP_RSP_FLAG_SNSVALID | SRP_RSP_FLAG_DIUNDER);
	CHECK_EQ(b[19], 0x02);
	CHECK_EQ(get_unaligned_be32(b + 20), 0);
	CHECK_EQ(get_unaligned_be32(b + 24), 512);
	CHECK_EQ(get_unaligned_be32(b + 28), 18);
	CHECK_EQ(get_unaligned_be32(b + 32), 0);
	CHECK(!memcmp(b + 36, sense, 18));
	CHECK_EQ(b[36 + 18], 0xee);
	free(b);
}

static void rsp_no_sense_and_residuals(void)
{
	static const u8 fl[] = {
		0, SRP_RSP_FLAG_DOOVER, SRP_RSP_FLAG_DOUNDER,
		SRP_RSP_FLAG_DIOVER, SRP_RSP_FLAG_DIUNDER,
		SRP_RSP_FLAG_DOUNDER | SRP_RSP_FLAG_DIOVER,
	};
	u8 sense[18] = { 0x70 }, *b = malloc(64);
	u32 i;

	for (i = 0; i < sizeof(fl); i++) {
		memset(b, 0xee, 64);
		CHECK_EQ_AT(srpt_build_rsp(b, 64, wire_tag(), 1, 0, NULL, 18,
					   fl[i], 0x1000 + i, 0x2000 + i), 36, i);
		CHECK_EQ_AT(b[18], fl[i], i);
		CHECK_EQ_AT(get_unaligned_be32(b + 20), 0x1000 + i, i);
		CHECK_EQ_AT(get_unaligned_be32(b + 24), 0x2000 + i, i);
		CHECK_EQ_AT(get_unaligned_be32(b + 28), 0, i);
		CHECK_EQ(b[36], 0xee);
	}
	/* Sense buffer given but empty. */
	CHECK_EQ(srpt_build_rsp(b, 64, wire_tag(), 1, 0x02, sense, 0, 0, 0, 0),
		 36);
	CHECK_EQ(b[18], 0);
	CHECK_EQ(get_unaligned_be32(b + 28), 0);
	free(b);
}

static void rsp_sense_truncated(void)
{
	u8 sense[96], *b;
	u32 blen, n;

	for (n = 0; n < sizeof(sense); n++)
		sense[n] = n + 1;
	/* Exactly-sized buffers: ASan catches a write past the end. */
	for (blen = 36; blen <= 36 + sizeof(sense) + 4; blen++) {
		u32 want = blen - 36 < sizeof(sense) ? blen - 36 : sizeof(sense);

		b = malloc(blen);
		n = srpt_build_rsp(b, blen, wire_tag(), 0, 0x02, sense,
				   sizeof(sense), 0, 0, 0);
		CHECK_EQ_AT(n, 36 + want, blen);
		CHECK_EQ_AT(get_unaligned_be32(b + 28), want, blen);
		CHECK_EQ_AT(b[18], want ? SRP_RSP_FLAG_SNSVALID : 0, blen);
		CHECK(!memcmp(b + 36, sense, want));
		free(b);
	}
}

static void tm_rsp(void)
{
	static const enum srpt_tm_rsp_code codes[] = {
		SRPT_TM_COMPLETE, SRPT_TM_INVALID_FIELDS,
		SRPT_TM_NOT_SUPPORTED, SRPT_TM_FAILED,
	};
	u8 *b = malloc(40);
	u32 i;

	for (i = 0; i < 4; i++) {
		memset(b, 0xee, 40);
		CHECK_EQ(srpt_build_tm_rsp(b, 40, wire_tag(), 1, codes[i]), 40);
		CHECK_EQ(b[0], SRP_RSP);
		CHECK_EQ(get_unaligned_be32(b + 4), 1);
		CHECK(!memcmp(b + 8, tag_bytes, 8));
		CHECK_EQ(b[18], SRP_RSP_FLAG_RSPVALID);
		CHECK_EQ(b[19], 0);
		CHECK_EQ(get_unaligned_be32(b + 28), 0);
		CHECK_EQ(get_unaligned_be32(b + 32), 4);
		CHECK_EQ(b[36] | b[37] | b[38], 0);
		CHECK_EQ_AT(b[39], codes[i], i);
	}
	CHECK_EQ(SRPT_TM_NOT_SUPPORTED, 0x04);
	free(b);
}

/* Credits are filled in when an IU is sent, in the IUs that carry them. */
static void req_lim_delta_on_send(void)
{
	u8 b[64];
	u32 len;

	len = srpt_build_rsp(b, sizeof(b), wire_tag(), 0, 0, NULL, 0, 0, 0, 0);
	CHECK_EQ(len, 36);
	CHECK(srpt_iu_set_req_lim_delta(b, 0x01020304));
	CHECK_EQ(get_unaligned_be32(b + 4), 0x01020304);
	CHECK(!memcmp(b + 8, tag_bytes, 8));
	memset(b, 0, sizeof(b));
	b[0] = SRP_CRED_REQ;
	CHECK(srpt_iu_set_req_lim_delta(b, 7));
	CHECK_EQ(get_unaligned_be32(b + 4), 7);
	b[0] = SRP_AER_REQ;
	CHECK(srpt_iu_set_req_lim_delta(b, 9));
	CHECK_EQ(get_unaligned_be32(b + 4), 9);
	/* SRP_T_LOGOUT has its reason where SRP_RSP has the delta. */
	len = srpt_build_t_logout(b, sizeof(b), wire_tag(),
				  SRPT_T_LOGOUT_INVALID_IU);
	CHECK(!srpt_iu_set_req_lim_delta(b, 5));
	CHECK_EQ(get_unaligned_be32(b + 4), SRPT_T_LOGOUT_INVALID_IU);
	CHECK_EQ(len, 16);
}

static void login_rsp_layout(void)
{
	struct srp_login_rsp rsp;
	u8 b[52];
	u32 i;

	memset(&rsp, 0xee, sizeof(rsp));
	srpt_build_login_rsp(&rsp, wire_tag(), 128, IU_LEN, 8260,
			     SRP_LOGIN_RSP_MULTICHAN_MAINTAINED |
			     SRP_LOGIN_RSP_IMMED_SUPP);
	CHECK_EQ(sizeof(rsp), 52);
	memcpy(b, &rsp, 52);
	CHECK_EQ(b[0], SRP_LOGIN_RSP);
	CHECK_EQ(b[1] | b[2] | b[3], 0);
	CHECK_EQ(get_unaligned_be32(b + 4), 128);
	CHECK(!memcmp(b + 8, tag_bytes, 8));
	CHECK_EQ(get_unaligned_be32(b + 16), IU_LEN);
	CHECK_EQ(get_unaligned_be32(b + 20), 8260);
	CHECK_EQ(get_unaligned_be16(b + 24), 0x0006);
	CHECK_EQ(b[26], 0x82);
	for (i = 27; i < 52; i++)
		CHECK_EQ_AT(b[i], 0, i);
}

static void login_rej_layout(void)
{
	struct srp_login_rej rej;
	u8 b[32];
	u32 i;

	memset(&rej, 0xee, sizeof(rej));
	srpt_build_login_rej(&rej, wire_tag(),
			     SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
	CHECK_EQ(sizeof(rej), 32);
	memcpy(b, &rej, 32);
	CHECK_EQ(b[0], SRP_LOGIN_REJ);
	CHECK_EQ(get_unaligned_be32(b + 4), 0x10004);
	CHECK(!memcmp(b + 8, tag_bytes, 8));
	CHECK_EQ(get_unaligned_be16(b + 24), 0x0006);
	for (i = 1; i < 32; i++)
		if (i < 4 || (i >= 16 && i < 24) || i >= 26)
			CHECK_EQ_AT(b[i], 0, i);
}

static void t_logout_layout(void)
{
	u8 *b = malloc(16);

	memset(b, 0xee, 16);
	CHECK_EQ(srpt_build_t_logout(b, 16, wire_tag(),
				     SRPT_T_LOGOUT_INVALID_IU), 16);
	CHECK_EQ(b[0], SRP_T_LOGOUT);
	CHECK_EQ(b[1] | b[2] | b[3], 0);
	CHECK_EQ(get_unaligned_be32(b + 4), 2);
	CHECK(!memcmp(b + 8, tag_bytes, 8));
	free(b);
}

static void fixed_sense(void)
{
	u8 b[20];

	memset(b, 0xee, sizeof(b));
	CHECK_EQ(srpt_fixed_sense(b, 17, 5, 0x24, 0), 0);
	CHECK_EQ(b[0], 0xee);
	CHECK_EQ(srpt_fixed_sense(b, sizeof(b), 0x05, 0x0e, 0x03), 18);
	CHECK_EQ(b[0], 0x70);
	CHECK_EQ(b[2], 0x05);
	CHECK_EQ(b[7], 10);
	CHECK_EQ(b[12], 0x0e);
	CHECK_EQ(b[13], 0x03);
	CHECK_EQ(b[18], 0xee);
}

/* What the statistics count a response as: GOOD, error or aborted. */
static void rsp_outcome(void)
{
	u8 *b = malloc(64), sense[18] = { 0x70 };

	srpt_build_rsp(b, 64, 0, 0, 0x00, NULL, 0, 0, 0, 0);
	CHECK_EQ(srpt_rsp_outcome(b, 36), SRPT_RSP_OK);
	CHECK_EQ(srpt_rsp_outcome(b, 35), SRPT_RSP_ERROR);
	srpt_build_rsp(b, 64, 0, 0, 0x02, sense, sizeof(sense), 0, 0, 0);
	CHECK_EQ(srpt_rsp_outcome(b, 54), SRPT_RSP_ERROR);
	b[19] = 0x08;		/* BUSY */
	CHECK_EQ(srpt_rsp_outcome(b, 36), SRPT_RSP_ERROR);
	b[19] = 0x40;		/* TASK ABORTED */
	CHECK_EQ(srpt_rsp_outcome(b, 36), SRPT_RSP_ABORTED);
	srpt_build_tm_rsp(b, 64, 0, 0, SRPT_TM_COMPLETE);
	CHECK_EQ(srpt_rsp_outcome(b, 40), SRPT_RSP_OK);
	CHECK_EQ(srpt_rsp_outcome(b, 39), SRPT_RSP_ERROR);
	srpt_build_tm_rsp(b, 64, 0, 0, SRPT_TM_NOT_SUPPORTED);
	CHECK_EQ(srpt_rsp_outcome(b, 40), SRPT_RSP_ERROR);
	srpt_build_t_logout(b, 64, 0, SRPT_T_LOGOUT_INVALID_IU);
	CHECK_EQ(srpt_rsp_outcome(b, 16), SRPT_RSP_ERROR);
	srpt_build_t_logout(b, 64, 0, SRPT_T_LOGOUT_NO_REQUEST);
	CHECK_EQ(srpt_rsp_outcome(b, 16), SRPT_RSP_ERROR);
	srpt_build_t_logout(b, 64, 0, SRPT_T_LOGOUT_NONE);
	CHECK_EQ(srpt_rsp_outcome(b, 16), SRPT_RSP_OK);
	srpt_build_t_logout(b, 64, 0, SRPT_T_LOGOUT_MULTICHANNEL);
	CHECK_EQ(srpt_rsp_outcome(b, 16), SRPT_RSP_OK);
	CHECK_EQ(srpt_build_cred_req(b, 64, wire_tag()), 16);
	CHECK_EQ(srpt_rsp_outcome(b, 16), SRPT_RSP_OK);
	free(b);
}

static void cred_req_layout(void)
{
	u8 *b = malloc(16);

	memset(b, 0xee, 16);
	CHECK_EQ(srpt_build_cred_req(b, 16, wire_tag()), 16);
	CHECK_EQ(b[0], SRP_CRED_REQ);
	CHECK_EQ(b[1] | b[2] | b[3], 0);
	CHECK_EQ(get_unaligned_be32(b + 4), 0);
	CHECK(!memcmp(b + 8, tag_bytes, 8));
	CHECK(srpt_iu_set_req_lim_delta(b, 7));
	CHECK_EQ(get_unaligned_be32(b + 4), 7);
	free(b);
}

/* SRP_LOGIN_REJ reasons: counted by index, logged in words. */
static void rej_reasons(void)
{
	CHECK_EQ(srpt_rej_index(0x00010000), 0);
	CHECK_EQ(srpt_rej_index(0x00010006), 6);
	CHECK_EQ(srpt_rej_index(0x00010007), -1);
	CHECK_EQ(srpt_rej_index(0x0000ffff), -1);
	CHECK_EQ(srpt_rej_index(0), -1);
	CHECK(!strcmp(srpt_rej_words(0x00010002),
		      "requested IU length too large"));
	CHECK(!strcmp(srpt_rej_words(0x00010003),
		      "unable to associate the channel with the I_T nexus"));
	CHECK(!strcmp(srpt_rej_words(0x00020000), "unknown reason"));
}

/* Every request takes a credit; the answers to the target's do not. */
static void iu_credit(void)
{
	CHECK(srpt_iu_uses_credit(0x02));	/* SRP_CMD */
	CHECK(srpt_iu_uses_credit(0x01));	/* SRP_TSK_MGMT */
	CHECK(srpt_iu_uses_credit(0x03));	/* SRP_I_LOGOUT */
	CHECK(srpt_iu_uses_credit(0xff));	/* unknown: still a request */
	CHECK(!srpt_iu_uses_credit(0x41));	/* SRP_CRED_RSP */
	CHECK(!srpt_iu_uses_credit(0x42));	/* SRP_AER_RSP */
}

/* Tags are opaque: whatever bytes come in go out unchanged. */
static void tags_echoed(void)
{
	struct srp_login_rsp lrsp;
	struct srp_login_rej lrej;
	struct srpt_cmd_info ci;
	struct srpt_login lg;
	u8 b[64], r[64];

	mk_cmd(b, 0, 0, 0, 0);
	parse_cmd(b, 48, 0, 0, &ci);
	srpt_build_rsp(r, sizeof(r), ci.tag, 0, 0, NULL, 0, 0, 0, 0);
	CHECK(!memcmp(r + 8, tag_bytes, 8));
	srpt_build_t_logout(r, sizeof(r), ci.tag, 0);
	CHECK(!memcmp(r + 8, tag_bytes, 8));
	srpt_build_tm_rsp(r, sizeof(r), srpt_iu_tag(b, 48), 0, SRPT_TM_FAILED);
	CHECK(!memcmp(r + 8, tag_bytes, 8));

	mk_login_rdma(b, IU_LEN, 0x0006, 0, 0, our_port);
	parse_login(true, b, 56, &lg);
	srpt_build_login_rsp(&lrsp, lg.tag, 1, 2, 3, 0);
	CHECK(!memcmp((u8 *)&lrsp + 8, tag_bytes, 8));
	srpt_build_login_rej(&lrej, lg.tag, 0x10000);
	CHECK(!memcmp((u8 *)&lrej + 8, tag_bytes, 8));
	mk_login_ib(b, IU_LEN, 0x0006, 0, 0, our_port);
	parse_login(false, b, 64, &lg);
	CHECK(tag_is(lg.tag));
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-c")) {
		corpus_dir = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "usage: %s [-c corpus-dir]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	run("login_rdma_ib_srp", login_rdma_ib_srp);
	run("login_rdma_longer_private_data", login_rdma_longer_private_data);
	run("login_rdma_truncated", login_rdma_truncated);
	run("login_rdma_wrong_opcode", login_rdma_wrong_opcode);
	run("login_ib_64", login_ib_64);
	run("login_target_port_mismatch", login_target_port_mismatch);
	run("login_iu_length", login_iu_length);
	run("login_buffer_format", login_buffer_format);
	run("login_multichannel_action", login_multichannel_action);
	run("cmd_no_data", cmd_no_data);
	run("cmd_direct", cmd_direct);
	run("cmd_indirect_inline", cmd_indirect_inline);
	run("cmd_indirect_sum_mismatch", cmd_indirect_sum_mismatch);
	run("cmd_indirect_table_len", cmd_indirect_table_len);
	run("cmd_indirect_partial_table", cmd_indirect_partial_table);
	run("cmd_indirect_count_beyond_iu", cmd_indirect_count_beyond_iu);
	run("cmd_immediate", cmd_immediate);
	run("cmd_immediate_refused", cmd_immediate_refused);
	run("cmd_bidirectional_and_unknown", cmd_bidirectional_and_unknown);
	run("cmd_additional_cdb", cmd_additional_cdb);
	run("cmd_cdb_length_by_opcode", cmd_cdb_length_by_opcode);
	run("cmd_data_too_big", cmd_data_too_big);
	run("cmd_every_truncation", cmd_every_truncation);
	run("tsk_mgmt", tsk_mgmt);
	run("iu_opcode_and_tag", iu_opcode_and_tag);
	run("rsp_with_sense", rsp_with_sense);
	run("rsp_no_sense_and_residuals", rsp_no_sense_and_residuals);
	run("rsp_sense_truncated", rsp_sense_truncated);
	run("tm_rsp", tm_rsp);
	run("req_lim_delta_on_send", req_lim_delta_on_send);
	run("login_rsp_layout", login_rsp_layout);
	run("login_rej_layout", login_rej_layout);
	run("t_logout_layout", t_logout_layout);
	run("fixed_sense", fixed_sense);
	run("tags_echoed", tags_echoed);
	run("rsp_outcome", rsp_outcome);
	run("cred_req_layout", cred_req_layout);
	run("rej_reasons", rej_reasons);
	run("iu_credit", iu_credit);

	free(rx);
	printf("%d passed, %d failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
