// SPDX-License-Identifier: GPL-2.0
/*
 * srp-scsi - SRP_RSP parsing and SCSI command helpers (see srp-scsi.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srp-scsi.h"

/* ---- SRP_RSP and SCSI helpers ----------------------------------------- */


int parse_rsp(const struct iu *iu, uint64_t tag, struct rsp *r)
{
	const uint8_t *b = iu->buf;

	memset(r, 0, sizeof(*r));
	if (iu->len < 36 || b[0] != SRP_RSP)
		return failf("answer is not an SRP_RSP (opcode %#x, %u bytes)",
			     iu->len ? b[0] : 0, iu->len);
	if (get_tag(b) != tag)
		return failf("SRP_RSP tag %016" PRIx64 ", want %016" PRIx64,
			     get_tag(b), tag);
	r->len = iu->len;
	r->delta = (int32_t)get_be32(b + 4);
	r->flags = b[18];
	r->status = b[19];
	r->do_resid = get_be32(b + 20);
	r->di_resid = get_be32(b + 24);
	r->sense_len = get_be32(b + 28);
	r->resp_len = get_be32(b + 32);
	if (!(r->flags & SRP_RSP_FLAG_RSPVALID) && r->resp_len)
		return failf("SRP_RSP resp_data_len %u without RSPVALID",
			     r->resp_len);
	if (!(r->flags & SRP_RSP_FLAG_SNSVALID) && r->sense_len)
		return failf("SRP_RSP sense_data_len %u without SNSVALID",
			     r->sense_len);
	if ((uint64_t)36 + r->resp_len + r->sense_len > iu->len)
		return failf("SRP_RSP of %u bytes claims %u + %u bytes of response/sense data",
			     iu->len, r->resp_len, r->sense_len);
	memcpy(r->resp, b + 36, r->resp_len < sizeof(r->resp) ?
	       r->resp_len : sizeof(r->resp));
	memcpy(r->sense, b + 36 + r->resp_len,
	       r->sense_len < sizeof(r->sense) ? r->sense_len : sizeof(r->sense));
	return 0;
}

int sense_key(const struct rsp *r)
{
	uint8_t code = r->sense[0] & 0x7f;

	if (!(r->flags & SRP_RSP_FLAG_SNSVALID) || r->sense_len < 3)
		return -1;
	if (code == 0x70 || code == 0x71)
		return r->sense[2] & 0xf;
	if (code == 0x72 || code == 0x73)
		return r->sense[1] & 0xf;
	return -1;
}

void sense_asc(const struct rsp *r, int *asc, int *ascq)
{
	uint8_t code = r->sense[0] & 0x7f;

	*asc = *ascq = -1;
	if ((code == 0x70 || code == 0x71) && r->sense_len >= 14) {
		*asc = r->sense[12];
		*ascq = r->sense[13];
	} else if ((code == 0x72 || code == 0x73) && r->sense_len >= 4) {
		*asc = r->sense[2];
		*ascq = r->sense[3];
	}
}

const char *rsp_str(const struct rsp *r, char *buf, size_t len)
{
	int asc, ascq;

	sense_asc(r, &asc, &ascq);
	snprintf(buf, len, "status %#x flags %#x di_resid %u do_resid %u sense key %d asc/ascq %#x/%#x",
		 r->status, r->flags, r->di_resid, r->do_resid, sense_key(r),
		 asc, ascq);
	return buf;
}

/* Send a request IU (credit) and wait for its SRP_RSP. */
int exec_iu(struct conn *c, const uint8_t *iu, uint32_t len,
	    struct rsp *r)
{
	uint64_t tag = len >= 16 ? get_tag(iu) : 0;
	struct iu *a;
	int ret;

	if (send_iu(c, iu, len, true))
		return -1;
	a = wait_iu(c, true, tag, -1);
	if (!a)
		return -1;
	ret = parse_rsp(a, tag, r);
	free(a);
	return ret;
}

/* The 48 fixed bytes of an SRP_CMD for LUN g_lun. */
uint32_t cmd_hdr(uint8_t *iu, const uint8_t *cdb, unsigned int cdb_len)
{
	memset(iu, 0, SRP_CMD_LEN);
	iu[0] = SRP_CMD;
	put_tag(iu, new_tag());
	if (g_lun < 256) {
		iu[21] = g_lun;
	} else {
		iu[20] = 0x40 | ((g_lun >> 8) & 0x3f);
		iu[21] = g_lun;
	}
	memcpy(iu + 32, cdb, cdb_len);
	return SRP_CMD_LEN;
}

uint32_t put_desc(uint8_t *p, uint64_t va, uint32_t rkey, uint32_t len)
{
	put_be64(p, va);
	put_be32(p + 8, rkey);
	put_be32(p + 12, len);
	return 16;
}

uint64_t va_of(struct conn *c, uint32_t off)
{
	return (uintptr_t)(c->data + off);
}



/*
 * Build an SRP_CMD with data buffers in the data MR: one direct descriptor,
 * an indirect table with every segment inline (and a copy of the table in
 * the MR for the table descriptor), or immediate data (the bytes of the
 * segments copied to the negotiated offset).
 */
uint32_t build_data_cmd(struct conn *c, uint8_t *iu, const uint8_t *cdb,
			unsigned int cdb_len, bool out, enum layout lay,
			const struct seg *s, int n)
{
	uint32_t len = cmd_hdr(iu, cdb, cdb_len), total = 0, rkey;
	uint8_t *p = iu + len;
	int i;

	rkey = c->data_mr->rkey;
	for (i = 0; i < n; i++)
		total += s[i].len;
	iu[5] = out ? lay << 4 : lay;
	switch (lay) {
	case DIRECT:
		len += put_desc(p, va_of(c, s[0].off), rkey, s[0].len);
		break;
	case INDIRECT:
		iu[out ? 6 : 7] = n;
		len += put_desc(p, va_of(c, T_OFF), rkey, 16 * n);
		put_be32(p + 16, total);
		len += 4;
		for (i = 0; i < n; i++) {
			put_desc(c->data + T_OFF + 16 * i, va_of(c, s[i].off),
				 rkey, s[i].len);
			len += put_desc(iu + len, va_of(c, s[i].off), rkey,
					s[i].len);
		}
		break;
	case IMMEDIATE:
		put_be32(p, total);
		len = c->imm_off;
		for (i = 0; i < n; i++) {
			memcpy(iu + len, c->data + s[i].off, s[i].len);
			len += s[i].len;
		}
		break;
	}
	return len;
}

/* Run a data command, retrying (with a new tag) after a unit attention. */
int data_cmd(struct conn *c, const uint8_t *cdb, unsigned int cdb_len,
	     bool out, enum layout lay, const struct seg *s, int n,
	     struct rsp *r)
{
	uint8_t *iu = calloc(1, c->send_slot);
	int tries, ret = -1;

	if (!iu)
		return failf("out of memory");
	for (tries = 0; tries < 3; tries++) {
		uint32_t len = build_data_cmd(c, iu, cdb, cdb_len, out, lay, s, n);

		ret = exec_iu(c, iu, len, r);
		if (ret || r->status != 2 || sense_key(r) != 6)
			break;
		note("unit attention (asc %#x), retrying", r->sense[12]);
	}
	free(iu);
	return ret;
}

/* A command without data; unit attentions are retried. */
int nodata_cmd(struct conn *c, const uint8_t *cdb, unsigned int cdb_len,
	       struct rsp *r)
{
	uint8_t iu[SRP_CMD_LEN];
	int tries, ret = -1;

	for (tries = 0; tries < 3; tries++) {
		cmd_hdr(iu, cdb, cdb_len);
		ret = exec_iu(c, iu, sizeof(iu), r);
		if (ret || r->status != 2 || sense_key(r) != 6)
			break;
		note("unit attention (asc %#x), retrying", r->sense[12]);
	}
	return ret;
}

int tur_good(struct conn *c)
{
	static const uint8_t cdb[6];
	struct rsp r;
	char b[160];

	if (nodata_cmd(c, cdb, 6, &r))
		return failctx("TEST UNIT READY");
	if (r.status != 0)
		return failf("TEST UNIT READY: %s", rsp_str(&r, b, sizeof(b)));
	return 0;
}

/* Log in (with the login flags @flags) and see TEST UNIT READY succeed. */
int login_tur_flags(struct conn *c, uint8_t flags)
{
	struct login_req l;
	int ret;

	default_login(&l);
	l.flags = flags;
	ret = login_ok(c, &l);
	return ret ? ret : tur_good(c);
}

/* login_tur_flags() with SINGLE. */
int login_tur(struct conn *c)
{
	return login_tur_flags(c, 0);
}

int read_capacity(struct conn *c, uint64_t *blocks, uint32_t *bs)
{
	uint8_t cdb[10] = { 0x25 };
	struct seg s = { S_OFF, 8 };
	struct rsp r;
	char b[160];

	if (data_cmd(c, cdb, 10, false, DIRECT, &s, 1, &r))
		return failctx("READ CAPACITY(10)");
	if (r.status)
		return failf("READ CAPACITY(10): %s", rsp_str(&r, b, sizeof(b)));
	*blocks = (uint64_t)get_be32(c->data + S_OFF) + 1;
	*bs = get_be32(c->data + S_OFF + 4);
	if (*bs < 512 || *bs > 65536 || *blocks < 256)
		return failf("READ CAPACITY(10): %" PRIu64 " blocks of %u bytes: unusable",
			     *blocks, *bs);
	return 0;
}

void rw10_cdb(uint8_t *cdb, bool write, uint32_t lba, uint16_t nblk)
{
	memset(cdb, 0, 10);
	cdb[0] = write ? 0x2a : 0x28;
	put_be32(cdb + 2, lba);
	put_be16(cdb + 7, nblk);
}

/* WRITE(10) or READ(10) with the given layout; expects GOOD, no residual. */
int rw(struct conn *c, bool write, uint32_t lba, uint16_t nblk,
       enum layout lay, const struct seg *s, int n)
{
	uint8_t cdb[10];
	struct rsp r;
	char b[160];

	rw10_cdb(cdb, write, lba, nblk);
	if (data_cmd(c, cdb, 10, write, lay, s, n, &r))
		return failctx("%s(10)", write ? "WRITE" : "READ");
	if (r.status || r.flags & SRP_RSP_RESID_FLAGS)
		return failf("%s(10) of %u blocks: %s", write ? "WRITE" : "READ",
			     nblk, rsp_str(&r, b, sizeof(b)));
	return 0;
}

uint64_t g_rand = 88172645463325252ULL;

void fill_random(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		g_rand ^= g_rand << 13;
		g_rand ^= g_rand >> 7;
		g_rand ^= g_rand << 17;
		p[i] = g_rand >> 24;
	}
}

/* Compare @len bytes at W_OFF with the segments @s read back. */
int compare_segs(struct conn *c, const struct seg *s, int n,
		 uint32_t len)
{
	uint32_t pos = 0, i, k;
	int j;

	for (j = 0; j < n; j++) {
		for (k = 0; k < s[j].len; k++, pos++) {
			i = pos;
			if (c->data[W_OFF + i] != c->data[s[j].off + k])
				return failf("data mismatch at byte %u: wrote %#x, read %#x",
					     i, c->data[W_OFF + i],
					     c->data[s[j].off + k]);
		}
	}
	if (pos != len)
		return failf("internal: compared %u of %u bytes", pos, len);
	return 0;
}

