// SPDX-License-Identifier: GPL-2.0
/*
 * srp-fuzz-iu - the IU family of srp-fuzz: information units on a live
 * channel (reused from case to case; a new one only after the target
 * closed it, as some cases require).
 *
 * Every case states the reactions it accepts, derived from the SRP rules
 * (T10 SRP r16a, INCITS 365-2002) and what Documentation/ib_srpt.rst
 * promises (the same answers tools/srp-client.c checks one by one):
 *
 * - an SRP_CMD that breaks an SRP rule (IU shorter than 48 bytes or than
 *   its additional CDB / descriptors, descriptor counts and table lengths
 *   that disagree, indirect totals that do not add up, an external
 *   indirect table of more than 1024 descriptors, or one that does not
 *   start with the inline descriptors or add up to the total, immediate
 *   data that is not negotiated or runs past the IU, a bidirectional or
 *   unknown buffer format, a data length over 64 MiB, a reserved task
 *   attribute) gets CHECK CONDITION, ILLEGAL
 *   REQUEST, INVALID FIELD IN COMMAND INFORMATION UNIT (0e/03), and the
 *   channel stays; a CDB longer than the IU carries gets INVALID FIELD IN
 *   CDB (24/00). The order of the checks is not specified: when several
 *   rules are broken, either code will do.
 * - a well-formed command gets an SRP_RSP for its tag; a plain READ or
 *   WRITE inside the LUN with descriptors that match it gets GOOD (or a
 *   UNIT ATTENTION, BUSY or TASK SET FULL, which SAM allows any time).
 * - an external indirect table (longer than the inline list) is read
 *   from our MR, where gen_indirect() keeps a copy of the inline
 *   descriptors followed by what earlier cases left; if the table is not
 *   inside the MR, the target's RDMA READ fails: error status or
 *   disconnect. A table that is fine is the command's descriptors.
 * - a descriptor outside the registered memory (wrong rkey, address or
 *   length past the MR) in the part the transfer goes through (the
 *   descriptors in order, as far as the CDB moves data) makes the target's
 *   RDMA fail: an SRP_RSP that is not GOOD, or the target closes the
 *   channel (Documentation: "error status or disconnect"; srp-client
 *   bad-rkey). Where the target may not need to touch the bad part at all
 *   (a READ of 2 KiB into a 9 KiB descriptor whose end lies past the MR),
 *   any SRP_RSP will also do.
 * - an IU type the target does not take (anything but SRP_CMD,
 *   SRP_TSK_MGMT, SRP_I_LOGOUT, SRP_CRED_RSP, SRP_AER_RSP; also an IU of 0
 *   bytes) gets SRP_T_LOGOUT reason 2 (invalid IU type) and a disconnect;
 *   an IU longer than MAX_IT_IU_LEN fails the target's receive: disconnect.
 * - SRP_TSK_MGMT: a task management response (RSPVALID, 4 bytes); shorter
 *   than 48 bytes: a failure code, an unknown function: 0x04 (not
 *   supported).
 * - unsolicited SRP_CRED_RSP/SRP_AER_RSP (no credit): ignored, or
 *   SRP_T_LOGOUT reason 3 and a disconnect; SRP_I_LOGOUT (followed by more
 *   IUs): a disconnect; IUs beyond the credit limit or with the tag of a
 *   command in flight: every one answered, or a disconnect.
 * "No answer" is never accepted for an IU that consumed a credit: every
 * wait ends after --timeout.
 *
 * SCSI commands only go to the fuzzer's own LUN (--lun) or to LUNs 256 and
 * up (never mapped by the scenarios), so that the data of other initiators
 * (fio verifying its writes) is not touched.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srp-fuzz.h"

#define MAX_IU		16384		/* biggest IU we build */
#define MAX_DATA	(64u << 20)	/* largest data length (Documentation) */

/* Reactions a case accepts. */
enum {
	W_GOOD = 1,	/* GOOD (or UNIT ATTENTION, BUSY, TASK SET FULL) */
	W_ILLEGAL = 2,	/* CHECK CONDITION, ILLEGAL REQUEST, asc as below */
	W_ANY = 4,	/* any SRP_RSP for the tag */
	W_NOTGOOD = 8,	/* an SRP_RSP with another status than GOOD */
	W_DISC = 16,	/* the target closes the channel */
	W_TLOGOUT = 32,	/* SRP_T_LOGOUT reason 2, then a disconnect */
	W_TM = 64,	/* task management response, code in tm_codes */
};

struct want {
	unsigned int allow;
	bool asc_iu, asc_cdb;	/* W_ILLEGAL: 0e/03 and/or 24/00 allowed */
	uint32_t tm_codes;	/* W_TM: bit n = response code n allowed */
	bool any_tag;		/* IU shorter than 16 bytes: no tag to echo */
};

static const char *want_str(const struct want *w, char *b, size_t n)
{
	snprintf(b, n, "%s%s%s%s%s%s%s%s%s",
		 w->allow & W_GOOD ? "GOOD " : "",
		 w->allow & W_ILLEGAL ? "ILLEGAL REQUEST" : "",
		 w->allow & W_ILLEGAL ? (w->asc_iu && w->asc_cdb ? " (0e/03 or 24/00) " :
				      w->asc_cdb ? " (24/00) " : " (0e/03) ") : "",
		 w->allow & W_ANY ? "any SRP_RSP " : "",
		 w->allow & W_NOTGOOD ? "not GOOD " : "",
		 w->allow & W_DISC ? "disconnect " : "",
		 w->allow & W_TLOGOUT ? "T_LOGOUT+disconnect " : "",
		 w->allow & W_TM ? "TM response " : "", "");
	return b;
}

static int judge_tm(const struct want *w, const struct rsp *r)
{
	if (!(r->flags & SRP_RSP_FLAG_RSPVALID) || r->resp_len != 4)
		return failf("TM answer without 4 bytes of response data (flags %#x, %u bytes)",
			     r->flags, r->resp_len);
	if (r->resp[3] > 31 || !(w->tm_codes >> r->resp[3] & 1))
		return failf("TM response code %#x, allowed mask %#x",
			     r->resp[3], w->tm_codes);
	return 0;
}

/* Is SRP_RSP @a (for @tag) one of the answers @w allows? */
static int judge_rsp(const struct want *w, const struct iu *a, uint64_t tag)
{
	char b[160], x[160];
	struct rsp r;
	int key, asc, ascq;

	if (parse_rsp(a, w->any_tag ? get_tag(a->buf) : tag, &r))
		return -1;
	if (w->allow & W_TM)
		return judge_tm(w, &r);
	key = sense_key(&r);
	sense_asc(&r, &asc, &ascq);
	if (w->allow & W_ANY)
		return 0;
	if ((w->allow & W_NOTGOOD) && r.status)
		return 0;
	/* SAM: UNIT ATTENTION, BUSY and TASK SET FULL may come any time. */
	if ((w->allow & W_GOOD) &&
	    (!r.status || r.status == 0x08 || r.status == 0x28 ||
	     (r.status == 0x02 && key == 6)))
		return 0;
	if ((w->allow & W_ILLEGAL) && r.status == 0x02 && key == 5 &&
	    ((w->asc_iu && asc == 0x0e && ascq == 0x03) ||
	     (w->asc_cdb && asc == 0x24 && ascq == 0)))
		return 0;
	return failf("answered %s; expected %s", rsp_str(&r, b, sizeof(b)),
		     want_str(w, x, sizeof(x)));
}

/* The target must close the channel (a CM disconnect) in time. */
static int judge_disc(struct fz *f)
{
	int ret = wait_dead(&f->ch, true);

	if (!ret)
		ret = fz_canary_ok(f);
	conn_close(&f->ch);
	f->open = false;
	return ret;
}

static int judge_t_logout(struct fz *f, const struct iu *a, uint32_t reason)
{
	if (a->len < 16)
		return failf("SRP_T_LOGOUT of %u bytes", a->len);
	if (get_be32(a->buf + 4) != reason)
		return failf("SRP_T_LOGOUT reason %u, want %u",
			     get_be32(a->buf + 4), reason);
	return judge_disc(f) ? failctx("after SRP_T_LOGOUT") : 0;
}

/*
 * Wait for the reaction to the IU with @tag: an SRP_RSP for it, an
 * SRP_T_LOGOUT, or the end of the channel; judge it by @w.
 */
static int await(struct fz *f, uint64_t tag, const struct want *w)
{
	struct conn *c = &f->ch;
	int64_t end = now_ms() + g_timeout_ms;
	struct iu *a;
	char d[160], x[160];
	int ret;

	for (;;) {
		a = take_iu(c, !w->any_tag, tag, SRP_RSP);
		if (a) {
			ret = judge_rsp(w, a, tag);
			free(a);
			return ret;
		}
		a = take_iu(c, false, 0, SRP_T_LOGOUT);
		if (a) {
			ret = w->allow & W_TLOGOUT ? judge_t_logout(f, a, 2) :
			      failf("SRP_T_LOGOUT reason %u; expected %s",
				    a->len >= 8 ? get_be32(a->buf + 4) : 0,
				    want_str(w, x, sizeof(x)));
			free(a);
			return ret;
		}
		if (dead(c) && !drain_cq(c)) {
			if (w->allow & W_DISC)
				return judge_disc(f);
			return failf("channel closed (%s); expected %s",
				     death(c, d, sizeof(d)),
				     want_str(w, x, sizeof(x)));
		}
		if (now_ms() >= end)
			return failf("no answer within %d s; expected %s",
				     g_timeout_ms / 1000,
				     want_str(w, x, sizeof(x)));
		pump(c, (int)(end - now_ms()));
	}
}

/* Send @iu (consuming a credit if @credit) and judge the reaction. */
static int react(struct fz *f, const uint8_t *iu, uint32_t len, bool credit,
		 const struct want *w)
{
	uint64_t tag = len >= 16 ? get_tag(iu) : 0;

	if (send_iu(&f->ch, iu, len, credit))
		return failctx("sending");
	return await(f, tag, w);
}

/* ---- SRP_CMD: building -------------------------------------------------- */

/* What the CDB asks for, as far as the fuzzer knows. */
struct cdbinfo {
	uint8_t cdb[16];
	bool known;		/* a command whose transfer we know */
	bool write;
	bool in_range;		/* LBAs inside the LUN */
	uint32_t xfer;		/* bytes it moves */
	uint32_t need;		/* CDB bytes it needs beyond 16, or 0 */
};

static void rw_cdb(struct fz *f, struct rng *r, struct cdbinfo *ci, bool sixteen)
{
	uint32_t nblk = chance(r, 10) ? 0 : between(r, 1, 32);
	uint64_t lba = below(r, f->blocks > nblk ? f->blocks - nblk : 1);

	ci->write = chance(r, 50);
	ci->in_range = true;
	if (chance(r, 8)) {	/* past the end */
		lba = f->blocks - below(r, nblk ? nblk : 1) +
		      (chance(r, 50) ? below(r, 1u << 20) : 0);
		/* LBA = capacity with 0 blocks is no error in SBC, yet LIO's
		 * ramdisk fails it (08/00): only GOOD-or-not there. */
		ci->in_range = lba + nblk <= f->blocks && lba < f->blocks;
	}
	ci->known = true;
	ci->xfer = nblk * f->bs;
	if (sixteen) {
		ci->cdb[0] = ci->write ? 0x8a : 0x88;
		put_be64(ci->cdb + 2, lba);
		put_be32(ci->cdb + 10, nblk);
	} else {
		ci->cdb[0] = ci->write ? 0x2a : 0x28;
		put_be32(ci->cdb + 2, (uint32_t)lba);
		put_be16(ci->cdb + 7, nblk);
		ci->in_range = ci->in_range && lba <= 0xffffffffu;
	}
}

/* Opcodes random CDBs leave out: EXTENDED COPY and RECEIVE COPY RESULTS
 * address other LUNs; RESERVE(6), RESERVE(10) and PERSISTENT RESERVE OUT
 * would reserve the fuzzer's LUN for this nexus, after which SPC requires
 * RESERVATION CONFLICT for every other one, such as the login family's
 * TEST UNIT READY (seeds 3 and 4 of the debug runs did exactly that);
 * group 3 (0x60-0x7f) is reserved but for 0x7f, which the variable-length
 * generator covers. */
static bool left_out(uint8_t op)
{
	return op == 0x83 || op == 0x84 || op == 0x16 || op == 0x56 ||
	       op == 0x5f || (op >= 0x60 && op <= 0x7f);
}

static uint8_t random_opcode(struct rng *r)
{
	uint8_t op;

	do
		op = rnd(r);
	while (left_out(op));
	return op;
}

static void gen_cdb(struct fz *f, struct rng *r, struct cdbinfo *ci)
{
	uint32_t k = below(r, 100);

	memset(ci, 0, sizeof(*ci));
	if (k < 15) {				/* TEST UNIT READY */
		ci->known = ci->in_range = true;
	} else if (k < 55) {
		rw_cdb(f, r, ci, false);
	} else if (k < 65) {
		rw_cdb(f, r, ci, true);
	} else if (k < 75) {			/* INQUIRY */
		ci->cdb[0] = 0x12;
		ci->cdb[4] = rnd(r);
		ci->xfer = ci->cdb[4];
	} else if (k < 85) {			/* variable length */
		ci->cdb[0] = 0x7f;
		rnd_bytes(r, ci->cdb + 1, 15);
		if (chance(r, 50))
			ci->cdb[7] = below(r, 40);
		ci->need = ci->cdb[7] + 8 > 16 ? ci->cdb[7] + 8 - 16 : 0;
	} else {
		ci->cdb[0] = random_opcode(r);
		rnd_bytes(r, ci->cdb + 1, 15);
	}
}

/* A descriptor of @len bytes, mostly inside the data MR. */
static void gen_desc(struct fz *f, struct rng *r, uint8_t *p, uint32_t len)
{
	struct conn *c = &f->ch;
	uint64_t base = va_of(c, 0), va;
	uint32_t rkey = c->data_mr->rkey, k = below(r, 100), off, cap;

	cap = len > FZ_BUF_LEN ? 0 : FZ_BUF_LEN - len;
	off = below(r, cap + 1);
	if (chance(r, 60))
		off &= ~511u;
	va = base + off;
	if (k >= 94 && len) {
		if (k < 96) {
			rkey ^= 1 | (uint32_t)rnd(r);
		} else if (k < 97) {
			va = base + FZ_DATA_LEN + below(r, 1u << 20);
		} else if (k < 98) {
			va = base - len - below(r, 1u << 20);
		} else if (k < 99) {	/* straddles the end, after the canary */
			va = base + FZ_DATA_LEN - between(r, 1, len < (512u << 10) ?
							 len : 512u << 10);
		} else {
			va = rnd(r);
		}
	}
	put_desc(p, va, rkey, len);
}

/* Cut @total into @n random pieces. */
static void split(struct rng *r, uint32_t total, uint32_t *len, unsigned int n)
{
	unsigned int i;
	uint32_t left = total;

	for (i = 0; i + 1 < n; i++) {
		len[i] = below(r, left + 1);
		left -= len[i];
	}
	if (n)
		len[n - 1] = left;
}

/* Indirect descriptor(s) at @p for @xfer bytes; returns their length. */
static uint32_t gen_indirect(struct fz *f, struct rng *r, uint8_t *iu,
			     uint32_t at, uint32_t room, bool out,
			     uint32_t xfer)
{
	struct conn *c = &f->ch;
	uint32_t maxn = room >= 20 ? (room - 20) / 16 : 0, n, i, sum = 0;
	uint32_t seg[64], tl, total;
	uint8_t *p = iu + at;

	if (maxn > 64)
		maxn = 64;
	n = chance(r, 5) ? 0 : chance(r, 85) ? between(r, 1, 4) : below(r, maxn + 1);
	if (n > maxn)
		n = maxn;
	split(r, xfer, seg, n);
	for (i = 0; i < n; i++) {
		gen_desc(f, r, p + 20 + 16 * i, seg[i]);
		memcpy(c->data + FZ_TABLES + 16 * i, p + 20 + 16 * i, 16);
		sum += seg[i];
	}
	tl = 16 * n;
	if (chance(r, 8))
		tl = chance(r, 50) ? 16 * below(r, 70) : (uint32_t)rnd(r);
	total = sum;
	if (chance(r, 8))
		total = chance(r, 50) ? sum + between(r, 1, 4096) - 2048 : rnd(r);
	put_desc(p, va_of(c, FZ_TABLES), c->data_mr->rkey, tl);
	put_be32(p + 16, total);
	iu[out ? 6 : 7] = chance(r, 8) ? (uint8_t)rnd(r) : n;
	return 20 + 16 * n;
}

/* ---- SRP_CMD: the model ------------------------------------------------- */

/* What the rules say about an SRP_CMD. */
struct verdict {
	bool bad_iu, bad_cdb;	/* broken SRP rules: 0e/03, 24/00 */
	bool out;
	uint32_t data_len;
	const uint8_t *desc;	/* the descriptors in the IU */
	uint32_t n_desc;
	/* The indirect table is not all in the IU: the target fetches its
	 * ext_n descriptors from ext_va/ext_rkey first. */
	bool ext;
	uint64_t ext_va;
	uint32_t ext_rkey, ext_n;
};

static uint32_t cdb_len_needed(const uint8_t *cdb)
{
	/* SPC: group code, or 8 + byte 7 for a variable-length CDB. */
	static const uint8_t group_len[8] = { 6, 10, 10, 12, 16, 12, 10, 10 };

	return cdb[0] == 0x7f ? cdb[7] + 8u : group_len[cdb[0] >> 5];
}

/* Most descriptors of a table the target fetches (Documentation). */
#define MAX_TABLE_DESC	1024

/* Sum of the lengths of @n descriptors at @d. */
static uint64_t desc_sum(const uint8_t *d, uint32_t n)
{
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		sum += get_be32(d + 16 * i + 12);
	return sum;
}

/*
 * An indirect buffer: the table descriptor, the total and @cnt inline
 * descriptors. A table longer than those the target fetches from the
 * initiator (see table_ok()).
 */
static bool indirect_ok(const uint8_t *p, uint32_t room, uint8_t cnt,
			struct verdict *v)
{
	uint32_t tl, n;

	if (room < 20)
		return false;
	tl = get_be32(p + 12);
	v->data_len = get_be32(p + 16);
	n = tl / 16;
	if (tl % 16 || n < cnt || room - 20 < 16u * cnt)
		return false;
	v->desc = p + 20;
	v->n_desc = cnt;
	if (n == cnt)
		return desc_sum(p + 20, cnt) == v->data_len;
	if (n > MAX_TABLE_DESC)
		return false;
	v->ext = true;
	v->ext_va = get_be64(p);
	v->ext_rkey = get_be32(p + 8);
	v->ext_n = n;
	return true;
}

/* The fetched table @table of @v: starts with the inline descriptors and
 * adds up to the total. */
static bool table_ok(const struct verdict *v, const uint8_t *table)
{
	return !memcmp(table, v->desc, 16u * v->n_desc) &&
	       desc_sum(table, v->ext_n) == v->data_len;
}

static void judge_cmd(const uint8_t *iu, uint32_t len, uint32_t imm_off,
		      struct verdict *v)
{
	uint32_t add, off, room;
	uint8_t ofmt, ifmt, fmt, attr;
	const uint8_t *p;

	memset(v, 0, sizeof(*v));
	if (len < SRP_CMD_LEN) {
		v->bad_iu = true;
		return;
	}
	add = iu[31] & 0xfc;		/* bits 1:0 reserved */
	off = SRP_CMD_LEN + add;
	if (off > len) {
		v->bad_iu = true;
		return;
	}
	v->bad_cdb = cdb_len_needed(iu + 32) > 16 + add;
	attr = iu[29] & 7;
	if (attr == 3 || attr > 4)
		v->bad_iu = true;
	ofmt = iu[5] >> 4;
	ifmt = iu[5] & 15;
	v->out = ofmt;
	fmt = ofmt ? ofmt : ifmt;
	p = iu + off;
	room = len - off;
	if (ofmt && ifmt) {
		v->bad_iu = true;	/* bidirectional */
	} else if (fmt == DIRECT) {
		if (room < 16)
			v->bad_iu = true;
		v->data_len = room < 16 ? 0 : get_be32(p + 12);
		v->desc = p;
		v->n_desc = 1;
	} else if (fmt == INDIRECT) {
		if (!indirect_ok(p, room, ofmt ? iu[6] : iu[7], v))
			v->bad_iu = true;
	} else if (fmt == IMMEDIATE) {
		if (!ofmt || !imm_off || room < 4 || imm_off < off + 4 ||
		    imm_off > len || get_be32(p) > len - imm_off)
			v->bad_iu = true;
		else
			v->data_len = get_be32(p);
	} else if (fmt) {
		v->bad_iu = true;
	}
	if (v->data_len > MAX_DATA)
		v->bad_iu = true;
}

/* ---- SRP_CMD cases ------------------------------------------------------ */

/* The LUN field: ours, or one no scenario maps (256 and up). */
static void put_lun(struct rng *r, uint8_t *iu, bool *ours)
{
	uint32_t lun = g_lun;

	*ours = !chance(r, 5);
	if (!*ours)
		lun = between(r, 256, 16383);
	memset(iu + 20, 0, 8);
	if (lun < 256) {
		iu[21] = lun;
	} else {
		iu[20] = 0x40 | lun >> 8;
		iu[21] = lun;
	}
}

/* Data descriptors for @ci with buffer format nibble @fmt; returns the
 * IU length. */
static uint32_t gen_data(struct fz *f, struct rng *r, uint8_t *iu,
			 uint32_t at, uint8_t fmt, bool out,
			 const struct cdbinfo *ci)
{
	struct conn *c = &f->ch;
	uint32_t len = ci->xfer, max = c->max_it;

	if (chance(r, 10))	/* descriptors that disagree with the CDB */
		len = chance(r, 80) ? below(r, 2 * len + 4096) :
		      chance(r, 50) ? MAX_DATA + between(r, 1, 4096) :
		      (uint32_t)rnd(r);
	switch (fmt) {
	case DIRECT:
		gen_desc(f, r, iu + at, len);
		return at + 16;
	case INDIRECT:
		return at + gen_indirect(f, r, iu, at, max > at ? max - at : 0,
					 out, len);
	case IMMEDIATE:
		if (!c->imm_off || c->imm_off < at + 4 || c->imm_off >= max)
			return at + 4;
		if (len > max - c->imm_off)
			len = max - c->imm_off;
		put_be32(iu + at, chance(r, 8) ? (uint32_t)rnd(r) : len);
		rnd_bytes(r, iu + c->imm_off, len);
		return c->imm_off + len;
	default:		/* reserved formats: random bytes */
		rnd_bytes(r, iu + at, 32);
		return at + 16 * below(r, 3);
	}
}

/* The buffer format byte: what the CDB implies, or something else. */
static uint8_t gen_fmt(struct rng *r, const struct cdbinfo *ci, bool *out)
{
	uint8_t lay = chance(r, 45) ? DIRECT : chance(r, 60) ? INDIRECT :
		      IMMEDIATE;

	if (chance(r, 80)) {
		*out = ci->write;
		if (!ci->xfer && !ci->write && chance(r, 70))
			return 0;
		if (!ci->write && lay == IMMEDIATE)
			lay = DIRECT;
		return *out ? lay << 4 : lay;
	}
	lay = rnd(r);
	*out = lay >> 4;
	return lay;
}

/* Our copy of @len bytes at @va/@rkey, if they are inside the data MR. */
static const uint8_t *mr_at(struct fz *f, uint64_t va, uint32_t rkey,
			    uint32_t len)
{
	uint64_t base = va_of(&f->ch, 0);

	if (rkey != f->ch.data_mr->rkey || va < base ||
	    va - base > FZ_DATA_LEN || len > FZ_DATA_LEN - (va - base))
		return NULL;
	return f->ch.data + (va - base);
}

/* Do the first @len bytes of descriptor @d stay inside the data MR? */
static bool desc_inside(struct fz *f, const uint8_t *d, uint32_t len)
{
	return !len || mr_at(f, get_be64(d), get_be32(d + 8), len);
}

/*
 * Of the @n remote descriptors at @p of a well-formed SRP_CMD, those that
 * leave the data MR: *@touched if one does in the part the target moves
 * @xfer bytes through (the descriptors in order, each up to its length: an
 * RDMA there fails), *@any if any does at all (where the target may never
 * go).
 */
static void descs_outside(struct fz *f, const uint8_t *p, uint32_t n,
			  uint32_t xfer, bool *touched, bool *any)
{
	uint32_t left = xfer, len, part, i;
	const uint8_t *d;

	*touched = *any = false;
	for (i = 0; i < n; i++) {
		d = p + 16 * i;
		len = get_be32(d + 12);
		part = len < left ? len : left;
		left -= part;
		*touched |= !desc_inside(f, d, part);
		*any |= !desc_inside(f, d, len);
	}
}

/* Expected reaction to the SRP_CMD @iu built from @ci. */
static void cmd_want(struct fz *f, const uint8_t *iu, uint32_t len,
		     const struct cdbinfo *ci, bool lun_ours, struct want *w)
{
	const uint8_t *table = NULL;
	bool touched, any, moves;
	struct verdict v;

	memset(w, 0, sizeof(*w));
	w->any_tag = len < 16;
	judge_cmd(iu, len, f->ch.imm_off, &v);
	if (v.bad_iu || v.bad_cdb) {
		w->allow = W_ILLEGAL;
		w->asc_iu = v.bad_iu;
		w->asc_cdb = v.bad_cdb;
		return;
	}
	if (v.ext) {
		/* The target reads the table from our MR - or fails to. */
		table = mr_at(f, v.ext_va, v.ext_rkey, 16 * v.ext_n);
		if (!table) {
			w->allow = W_NOTGOOD | W_DISC;
			return;
		}
		if (!table_ok(&v, table)) {
			w->allow = W_ILLEGAL;
			w->asc_iu = true;
			return;
		}
	}
	/* A READ or WRITE inside our LUN whose descriptors go the CDB's way
	 * and hold what it moves; not ACA (which LIO may refuse). */
	moves = ci->known && ci->in_range && lun_ours && !(iu[29] & 4) &&
		(!ci->xfer || v.out == ci->write);
	if (table)
		descs_outside(f, table, v.ext_n, ci->xfer, &touched, &any);
	else
		descs_outside(f, v.desc, v.n_desc, ci->xfer, &touched, &any);
	if (any) {
		w->allow = touched && moves && ci->xfer &&
			   v.data_len >= ci->xfer ?
			   W_NOTGOOD | W_DISC : W_ANY | W_DISC;
		return;
	}
	w->allow = moves && v.data_len == ci->xfer ? W_GOOD : W_ANY;
}

/* Cut or extend the IU. */
static uint32_t mangle_len(struct fz *f, struct rng *r, uint8_t *iu,
			   uint32_t len)
{
	uint32_t max = f->ch.max_it;

	if (chance(r, 8))
		return chance(r, 10) ? below(r, 16) : below(r, len + 1);
	if (chance(r, 4) && len < max) {
		uint32_t n = between(r, len, max);

		rnd_bytes(r, iu + len, n - len);
		return n;
	}
	return len;
}

static int case_cmd(struct fz *f, struct rng *r)
{
	static uint8_t iu[MAX_IU];
	struct cdbinfo ci;
	struct want w;
	bool out = false, ours;
	uint32_t len, add = 0;
	uint8_t fmt;

	memset(iu, 0, sizeof(iu));
	gen_cdb(f, r, &ci);
	cmd_hdr(iu, ci.cdb, 16);
	put_lun(r, iu, &ours);
	if (ci.need && chance(r, 60))
		add = (ci.need + 3) & ~3u;
	else if (chance(r, 10))
		add = 4 * below(r, 64);
	iu[31] = add | (chance(r, 5) ? below(r, 4) : 0);
	rnd_bytes(r, iu + SRP_CMD_LEN, add);
	if (chance(r, 8))
		iu[29] = chance(r, 50) ? below(r, 8) : rnd(r);
	if (chance(r, 5))
		iu[1] = rnd(r);
	fmt = gen_fmt(r, &ci, &out);
	iu[5] = fmt;
	len = SRP_CMD_LEN + add;
	if (fmt)
		len = gen_data(f, r, iu, len, out ? fmt >> 4 : fmt & 15, out,
			       &ci);
	if (len > f->ch.max_it)
		len = f->ch.max_it;
	len = mangle_len(f, r, iu, len);
	desc("SRP_CMD %u bytes, CDB %02x (%u bytes moved), fmt %#04x counts %u/%u, add CDB %#x, attr %#x, LUN %s",
	     len, ci.cdb[0], ci.xfer, iu[5], iu[6], iu[7], iu[31], iu[29],
	     ours ? "ours" : "unmapped");
	if (!len) {
		w = (struct want){ .allow = W_TLOGOUT, .any_tag = true };
		return react(f, iu, len, true, &w);
	}
	cmd_want(f, iu, len, &ci, ours, &w);
	return react(f, iu, len, true, &w);
}

/* ---- other IUs ---------------------------------------------------------- */

/* An IU of @len bytes: opcode @op, a fresh tag, random bytes after it. */
static uint32_t random_iu(struct rng *r, uint8_t *iu, uint8_t op, uint32_t len)
{
	rnd_bytes(r, iu, len);
	if (len)
		iu[0] = op;
	if (len >= 16)
		put_tag(iu, new_tag());
	return len;
}

static uint32_t random_len(struct fz *f, struct rng *r, uint32_t usual)
{
	if (chance(r, 60))
		return usual;
	return chance(r, 50) ? below(r, usual + 1) : between(r, 0, f->ch.max_it);
}

/* An opcode the target does not take: SRP_T_LOGOUT (2), disconnect. */
static int case_opcode(struct fz *f, struct rng *r)
{
	static uint8_t iu[MAX_IU];
	struct want w = { .allow = W_TLOGOUT };
	uint8_t op;
	uint32_t len;

	do
		op = rnd(r);
	while (op == SRP_TSK_MGMT || op == SRP_CMD || op == SRP_I_LOGOUT ||
	       op == SRP_CRED_RSP || op == SRP_AER_RSP);
	len = random_iu(r, iu, op, chance(r, 5) ? 0 : random_len(f, r, 48));
	w.any_tag = len < 16;
	desc("IU type %#04x, %u bytes", op, len);
	return react(f, iu, len, true, &w);
}

/* An IU longer than MAX_IT_IU_LEN: the target's receive fails. */
static int case_overflow(struct fz *f, struct rng *r)
{
	static uint8_t iu[MAX_IU];
	struct want w = { .allow = W_DISC };
	uint32_t len = f->ch.max_it + between(r, 1, 64);

	random_iu(r, iu, chance(r, 50) ? SRP_CMD : (uint8_t)rnd(r), len);
	desc("IU of %u bytes (opcode %#04x), MAX_IT_IU_LEN %u", len, iu[0],
	     f->ch.max_it);
	return react(f, iu, len, true, &w);
}

static int case_tsk_mgmt(struct fz *f, struct rng *r)
{
	static const uint8_t fns[] = {
		SRP_TSK_ABORT_TASK, SRP_TSK_ABORT_TASK_SET,
		SRP_TSK_CLEAR_TASK_SET, SRP_TSK_LUN_RESET, SRP_TSK_CLEAR_ACA,
	};
	static uint8_t iu[MAX_IU];
	struct want w = { .allow = W_TM };
	uint32_t len = random_len(f, r, 48), i;
	bool known = false, ours;

	random_iu(r, iu, SRP_TSK_MGMT, len);
	memset(iu + 16, 0, len > 48 ? 32 : len > 16 ? len - 16 : 0);
	if (len >= 28)
		put_lun(r, iu, &ours);
	if (len > 30)
		iu[30] = chance(r, 70) ? fns[below(r, 5)] : rnd(r);
	if (len >= 40)
		rnd_bytes(r, iu + 32, 8);	/* the task tag: nobody's */
	for (i = 0; i < sizeof(fns); i++)
		known |= len > 30 && iu[30] == fns[i];
	w.any_tag = len < 16;
	if (len < 48)		/* a failure code: fields invalid or failed */
		w.tm_codes = 1u << 0x02 | 1u << 0x04 | 1u << 0x05;
	else if (!known)	/* function not supported */
		w.tm_codes = 1u << 0x04;
	else			/* complete, or what LIO made of it */
		w.tm_codes = 1u << 0x00 | 1u << 0x02 | 1u << 0x04 | 1u << 0x05;
	desc("SRP_TSK_MGMT %u bytes, function %#04x", len,
	     len > 30 ? iu[30] : 0);
	if (!len) {
		w = (struct want){ .allow = W_TLOGOUT, .any_tag = true };
		desc("IU of 0 bytes");
	}
	return react(f, iu, len, true, &w);
}

/*
 * SRP_CRED_RSP / SRP_AER_RSP nobody asked for (no credit): ignored - then
 * a TEST UNIT READY gets GOOD - or SRP_T_LOGOUT reason 3 and a disconnect.
 */
static int case_unsolicited(struct fz *f, struct rng *r)
{
	static uint8_t iu[MAX_IU];
	uint8_t op = chance(r, 50) ? SRP_CRED_RSP : SRP_AER_RSP;
	uint32_t len = random_iu(r, iu, op, between(r, 1, 64));
	struct iu *a;

	desc("unsolicited %s, %u bytes", op == SRP_CRED_RSP ? "SRP_CRED_RSP" :
	     "SRP_AER_RSP", len);
	if (send_iu(&f->ch, iu, len, false))
		return failctx("sending");
	if (!tur_good(&f->ch))
		return 0;
	a = take_iu(&f->ch, false, 0, SRP_T_LOGOUT);
	if (!a)
		return failctx("TEST UNIT READY afterwards");
	len = judge_t_logout(f, a, 3);
	free(a);
	return len;
}

/* SRP_I_LOGOUT, then @n IUs: the target closes the channel. */
static int case_logout(struct fz *f, struct rng *r)
{
	static const uint8_t tur[6];
	static uint8_t iu[MAX_IU];
	unsigned int n = below(r, 4), i;
	uint32_t len = random_iu(r, iu, SRP_I_LOGOUT, between(r, 1, 64));

	desc("SRP_I_LOGOUT of %u bytes, then %u TEST UNIT READY", len, n);
	if (send_iu(&f->ch, iu, len, false))
		return failctx("sending");
	for (i = 0; i < n && !dead(&f->ch); i++) {
		cmd_hdr(iu, tur, 6);
		if (send_iu(&f->ch, iu, SRP_CMD_LEN, true) && !dead(&f->ch))
			return failctx("sending");
	}
	return judge_disc(f) ? failctx("after SRP_I_LOGOUT") : 0;
}

/* Wait until @n SRP_RSPs for @tags arrived (or the channel is gone). */
static int collect(struct fz *f, const uint64_t *tags, unsigned int n,
		   const char *what)
{
	struct conn *c = &f->ch;
	int64_t end = now_ms() + g_timeout_ms;
	unsigned int got = 0, i;
	struct iu *a;

	while (got < n) {
		for (i = 0; i < n; i++) {
			a = take_iu(c, true, tags[i], SRP_RSP);
			if (a) {
				got++;
				free(a);
			}
		}
		if (got >= n)
			break;
		if (dead(c) && !drain_cq(c))
			return judge_disc(f) ? failctx("%s", what) : 0;
		if (now_ms() >= end)
			return failf("%s: %u of %u answered within %d s", what,
				     got, n, g_timeout_ms / 1000);
		pump(c, (int)(end - now_ms()));
	}
	return 0;
}

/* 2-4 READs with the same tag, in flight together: each answered. */
static int case_dup_tag(struct fz *f, struct rng *r)
{
	unsigned int n = between(r, 2, 4), i;
	uint64_t tag = new_tag(), tags[4];
	uint8_t iu[64], cdb[10];
	struct seg s;

	desc("%u READ(10) of 8 blocks with the same tag", n);
	for (i = 0; i < n; i++) {
		rw10_cdb(cdb, false, below(r, f->blocks - 8), 8);
		s = (struct seg){ 65536 * i, 8 * f->bs };
		build_data_cmd(&f->ch, iu, cdb, 10, false, DIRECT, &s, 1);
		put_tag(iu, tag);
		tags[i] = tag;
		if (send_iu(&f->ch, iu, 64, true))
			return failctx("sending");
	}
	return collect(f, tags, n, "commands sharing a tag");
}

/* Credits + 1..4 TEST UNIT READYs back to back: the target must take
 * them as receive buffers free up, or close the channel. */
static int case_over_credit(struct fz *f, struct rng *r)
{
	static const uint8_t tur[6];
	struct conn *c = &f->ch;
	unsigned int n = c->req_lim + between(r, 1, 4), i;
	uint64_t *tags = calloc(n, sizeof(*tags));
	uint8_t iu[SRP_CMD_LEN];
	int ret = 0;

	if (!tags)
		return failf("out of memory");
	desc("%u TEST UNIT READY back to back with %d credits", n, c->req_lim);
	for (i = 0; i < n && !ret; i++) {
		cmd_hdr(iu, tur, 6);
		tags[i] = get_tag(iu);
		ret = send_iu(c, iu, sizeof(iu), false);
		c->req_lim--;
		c->outstanding++;
	}
	if (!ret)
		ret = collect(f, tags, n, "commands beyond the credit limit");
	free(tags);
	return ret;
}

/* ---- the IU family ------------------------------------------------------ */

static const struct {
	unsigned int weight;
	int (*fn)(struct fz *f, struct rng *r);
} iu_cases[] = {
	/* Cases that end the channel are rarer: reconnecting costs more
	 * than ten cases on a live channel. */
	{ 80, case_cmd },
	{ 3, case_opcode },
	{ 8, case_tsk_mgmt },
	{ 2, case_unsolicited },
	{ 2, case_logout },
	{ 1, case_overflow },
	{ 5, case_dup_tag },
	{ 1, case_over_credit },
};

/* Anything left from the case before: an IU nobody asked for. */
static int strays(struct fz *f)
{
	struct iu *a;
	int ret = 0;

	drain_cq(&f->ch);
	while ((a = f->ch.rxq)) {
		f->ch.rxq = a->next;
		if (!ret && a->len && a->buf[0] != SRP_CRED_REQ &&
		    a->buf[0] != SRP_AER_REQ)
			ret = failf("unexpected IU after the case before: opcode %#x, %u bytes, tag %016" PRIx64,
				    a->buf[0], a->len,
				    a->len >= 16 ? get_tag(a->buf) : 0);
		free(a);
	}
	return ret;
}

int iu_case(struct fz *f, struct rng *r)
{
	unsigned int total = 0, k, i;

	if (f->open && dead(&f->ch)) {
		conn_close(&f->ch);
		f->open = false;
	}
	if (!f->open && fz_connect(f))
		return failctx("opening the IU channel");
	if (strays(f))
		return -1;
	for (i = 0; i < sizeof(iu_cases) / sizeof(iu_cases[0]); i++)
		total += iu_cases[i].weight;
	k = below(r, total);
	for (i = 0; k >= iu_cases[i].weight; i++)
		k -= iu_cases[i].weight;
	return iu_cases[i].fn(f, r);
}
