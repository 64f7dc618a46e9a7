// SPDX-License-Identifier: GPL-2.0
/*
 * srp-fuzz - a seeded, bounded fuzzer of the SRP wire, for a target that
 * other initiators use at the same time.
 *
 *   srp-fuzz --dest IP:PORT --id-ext HEX16 --ioc-guid HEX16
 *            --initiator-id HEX32 --login-id HEX32 --lun N
 *            --seed S --cases N [--family login|iu|all] [--only K]
 *            [--probe-every K] [--max-req-size N] [--forbid-id HEX32]
 *            [--imm-offset N] [--timeout SECS] [-v]
 *   srp-fuzz --seed S --cases N --ibcm-plan     (see ibcm_plan())
 *
 * Case K is generated from its own PRNG state (xorshift64*, seeded from S
 * and K), so `--seed S --only K` (with the same --family) replays it
 * alone. Two families:
 *
 * login  RDMA/CM logins with random values in every field of struct
 *        srp_login_req_rdma (opcode, tag, REQ_IT_IU_LEN 0..huge, buffer
 *        formats, flags with the multichannel action, immediate data
 *        offset, reserved bytes, initiator and target port IDs), private
 *        data truncated (0..55 bytes: the CM pads it with zeroes) or all
 *        zero, and floods of logins on one I_T nexus. The expected reaction
 *        follows from the rules in Documentation/ib_srpt.rst "Login" and
 *        the SRP spec: accepted (LOGIN_RSP checked, a TEST UNIT READY
 *        answered) or SRP_LOGIN_REJ with one of the reasons the broken
 *        rules call for. Oversized private data cannot be sent over the
 *        RDMA/CM (its header leaves 56 bytes); the IB CM plan covers it.
 *        These logins use --login-id, an I_T nexus of their own.
 * iu     information units on a live channel: see srp-fuzz-iu.c.
 *
 * After every --probe-every cases and at the end a liveness probe logs in
 * afresh and runs TEST UNIT READY and a verified write/read on --lun.
 * Every wait is bounded by --timeout. A case whose reaction is not one of
 * those it accepts prints "UNEXPECTED case K: <case>: <what happened>";
 * the run ends with
 *   srp-fuzz: seed S cases N (login L, iu I) unexpected U, reconnects R, Xs
 * and exits 1 if U > 0 (2 for usage errors).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srp-fuzz.h"

static uint64_t g_seed;
static unsigned long g_cases = 100, g_only = ~0UL, g_probe_every = 500;
static enum { FAM_ALL, FAM_LOGIN, FAM_IU } g_family = FAM_ALL;
static uint8_t g_login_id[16], g_forbid_id[16];
static bool g_have_login_id, g_have_forbid;
static unsigned int g_max_req = DEF_IT_IU_LEN;	/* srp_max_req_size */
/* --imm-offset: the only immediate data offset granted (0: any valid one) */
static unsigned int g_imm_only;
char g_desc[512];

/* ---- PRNG and case description ----------------------------------------- */

uint64_t rnd(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

uint32_t below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(rnd(r) % n) : 0;
}

bool chance(struct rng *r, unsigned int pct)
{
	return below(r, 100) < pct;
}

uint32_t between(struct rng *r, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(rnd(r) % ((uint64_t)hi - lo + 1));
}

void rnd_bytes(struct rng *r, uint8_t *p, size_t n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(i % 8))
			v = rnd(r);
		p[i] = v >> (8 * (i % 8));
	}
}

/* The PRNG of case @k: splitmix64 of the seed and the case number. */
static void case_rng(struct rng *r, unsigned long k)
{
	uint64_t z = g_seed + (k + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	r->s = (z ^ (z >> 31)) | 1;
}

void desc(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g_desc, sizeof(g_desc), fmt, ap);
	va_end(ap);
}

/* ---- the IU channel ----------------------------------------------------- */

int fz_connect(struct fz *f)
{
	int64_t t0 = now_ms();
	struct login_req l;
	uint32_t i;

	imm_login(&l);
	if (l.it_iu_len > f->max_req)
		l.it_iu_len = f->max_req;
	l.flags |= 1;		/* MULTI: the probe must not end it */
	g_data_len = FZ_DATA_LEN;
	if (f->reconnects++ && g_verbose)
		fprintf(stderr, "  reconnecting the IU channel\n");
	/* The geometry of the LUN, once (it consumes a unit attention too,
	 * which later cases take as well). */
	if (login_ok(&f->ch, &l) ||
	    (!f->blocks && read_capacity(&f->ch, &f->blocks, &f->bs))) {
		conn_close(&f->ch);
		return -1;
	}
	f->connect_ms += now_ms() - t0;
	for (i = 0; i < FZ_CANARY_LEN; i++)
		f->ch.data[FZ_CANARY + i] = FZ_CANARY_BYTE(i);
	f->open = true;
	return 0;
}

int fz_canary_ok(struct fz *f)
{
	uint32_t i;

	if (!f->open)
		return 0;
	for (i = 0; i < FZ_CANARY_LEN; i++)
		if (f->ch.data[FZ_CANARY + i] != FZ_CANARY_BYTE(i))
			return failf("the target wrote into memory no descriptor named (byte %u of the canary)",
				     i);
	return 0;
}

/* ---- the login family --------------------------------------------------- */

/* What the rules say about a login. */
struct lwant {
	bool any_rej;		/* refused, reason unspecified */
	bool may_accept;	/* accepted is fine */
	bool must_accept;	/* nothing else is */
	uint32_t reasons;	/* REJ_BIT()s of the reasons allowed */
	bool imm;		/* accepted with immediate data */
	bool flood;		/* resources may run out (0x10001, 0x10006) */
};

static bool ini_is_acl(const uint8_t *ini)
{
	return !memcmp(ini, g_login_id, 16) || !memcmp(ini, g_ini_id, 16);
}

/*
 * The rules of Documentation/ib_srpt.rst "Login" and the SRP spec, applied
 * to the 56 bytes the target receives (@pd: struct srp_login_req_rdma).
 */
static void login_rules(const uint8_t *pd, unsigned int max_req,
			struct lwant *w)
{
	uint32_t len = get_be32(pd + 12);
	uint16_t fmt = get_be16(pd + 8), imm = get_be16(pd + 48);
	uint8_t flags = pd[10];

	memset(w, 0, sizeof(*w));
	/* Neither a wrong opcode nor a reserved multichannel action has a
	 * reason code of its own: any refusal will do. */
	w->any_rej = pd[11] != SRP_LOGIN_REQ || (flags & 3) > 1;
	if (len < 64)		/* below the minimum: generic or too large */
		w->reasons |= REJ_BIT(SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL) |
			      REJ_BIT(SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	if (len > max_req)
		w->reasons |= REJ_BIT(SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	/* No format at all: nothing the spec forbids (commands without data
	 * need none), nothing the target has to take either. */
	if (fmt & ~(SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT))
		w->reasons |= REJ_BIT(SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
	if (memcmp(pd + 32, g_tgt_id, 16) || !ini_is_acl(pd + 16))
		w->reasons |= REJ_BIT(SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
	w->may_accept = !w->any_rej && !w->reasons;
	w->must_accept = w->may_accept && fmt;
	if (!fmt)
		w->reasons |= REJ_BIT(SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
	w->imm = (flags & SRP_IMMED_REQUESTED) && imm >= 52 && imm < len &&
		 (!g_imm_only || imm == g_imm_only);
}

static void mutate_id(struct rng *r, uint8_t *id)
{
	uint32_t k = below(r, 3);

	if (k == 0)
		id[below(r, 16)] ^= 1 << below(r, 8);
	else if (k == 1)
		memset(id, 0, 16);
	else
		rnd_bytes(r, id, 16);
}

static void gen_login(struct rng *r, struct login_req *l)
{
	static const uint32_t lens[] = { 0, 1, 48, 63, 0xffffffff, 0x80000000 };

	default_login(l);
	l->tag = rnd(r);
	l->flags = below(r, 2);
	memcpy(l->ini, g_login_id, 16);
	l->it_iu_len = chance(r, 50) ? DEF_IT_IU_LEN : between(r, 64, DEF_IT_IU_LEN);
	if (chance(r, 50)) {
		l->flags |= SRP_IMMED_REQUESTED;
		l->imm_off = chance(r, 70) ? SRP_IMM_OFFSET : (uint16_t)rnd(r);
	}
	if (chance(r, 8))
		l->opcode = rnd(r);
	if (chance(r, 15))
		l->it_iu_len = chance(r, 50) ? lens[below(r, 6)] :
			       chance(r, 50) ? between(r, 0, 8300) : rnd(r);
	if (chance(r, 10))
		l->buf_fmt = chance(r, 50) ? below(r, 8) << 1 : rnd(r);
	if (chance(r, 15))
		l->flags = rnd(r);
	if (chance(r, 10))
		rnd_bytes(r, l->rsvd, 6);
	if (chance(r, 8)) {
		do
			mutate_id(r, l->ini);
		while (!memcmp(l->ini, g_ini_id, 16) ||
		       (g_have_forbid && !memcmp(l->ini, g_forbid_id, 16)));
	}
	if (chance(r, 8))
		mutate_id(r, l->tgt);
	if (chance(r, 8)) {
		l->pdata_len = below(r, 56);
	} else if (chance(r, 2)) {
		memset(l, 0, sizeof(*l));
		l->pdata_len = 56;
	}
}

/* A rejected login: is its SRP_LOGIN_REJ one that @w allows? */
static int judge_rej(const struct conn *c, const uint8_t *pd,
		     const struct lwant *w)
{
	uint32_t reason, ok = w->reasons;

	if (w->flood)
		ok |= REJ_BIT(SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES) |
		      REJ_BIT(SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED);
	if (c->pdata_len < 32 || c->pdata[0] != SRP_LOGIN_REJ) {
		if (w->any_rej)
			return 0;
		return failf("rejected without SRP_LOGIN_REJ (CM reason %d, %u bytes)",
			     c->rej_status, c->pdata_len);
	}
	reason = get_be32(c->pdata + 4);
	if (c->rej_status != IB_CM_REJ_CONSUMER_DEFINED)
		return failf("SRP_LOGIN_REJ under CM reason %d, not %d",
			     c->rej_status, IB_CM_REJ_CONSUMER_DEFINED);
	if (w->any_rej)
		return 0;
	if (memcmp(c->pdata + 8, pd, 8))
		return failf("SRP_LOGIN_REJ tag does not echo the request's");
	if (reason < SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL ||
	    reason > SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED || !(ok & REJ_BIT(reason)))
		return failf("SRP_LOGIN_REJ reason %#x; allowed mask %#x (bit n: 0x1000n)%s",
			     reason, ok, w->may_accept ? " or accepted" : "");
	return 0;
}

/* An accepted login: the LOGIN_RSP as the rules want it, then a TUR. */
static int judge_rsp_login(struct conn *c, const struct login_req *l,
			   const struct lwant *w)
{
	uint8_t mc = c->rsp_flags & 3;

	if (!w->may_accept)
		return failf("accepted (LOGIN_RSP flags %#x); expected a refusal",
			     c->rsp_flags);
	if (!!(c->rsp_flags & SRP_LOGIN_RSP_IMMED_SUPP) != w->imm)
		return failf("immediate data %s (offset %u, REQ_IT_IU_LEN %u)",
			     w->imm ? "not granted" : "granted", l->imm_off,
			     l->it_iu_len);
	/* SINGLE: 0 no channels before, 1 terminated; MULTI: 0 or 2. */
	if ((l->flags & 3) == 0 ? mc > 1 : mc != 0 && mc != 2)
		return failf("multichannel result %u for action %u", mc,
			     l->flags & 3);
	if (c->req_lim_init < 2)
		return failf("%d credits", c->req_lim_init);
	return tur_good(c) ? failctx("TEST UNIT READY") : 0;
}

/* Log in with @l (what the target receives: @pd) and judge the answer. */
static int try_login(struct conn *c, const struct login_req *l,
		     const uint8_t *pd, const struct lwant *w)
{
	int ret = conn_open(c, l);

	if (ret < 0)
		return -1;
	if (ret > 0)
		return judge_rsp_login(c, l, w);
	if (w->must_accept && !w->flood)
		return failf("rejected (CM reason %d, SRP reason %#x); expected a LOGIN_RSP",
			     c->rej_status, c->pdata_len >= 8 ?
			     get_be32(c->pdata + 4) : 0);
	return judge_rej(c, pd, w);
}

static void effective(const struct login_req *l, uint8_t pd[56])
{
	login_pdata(l, pd);
	memset(pd + l->pdata_len, 0, 56 - l->pdata_len);
}

static int login_one(struct fz *f, struct rng *r)
{
	struct login_req l;
	struct lwant w;
	uint8_t pd[56];
	struct conn c;
	int ret;

	gen_login(r, &l);
	effective(&l, pd);
	login_rules(pd, f->max_req, &w);
	desc("login: opcode %#04x, REQ_IT_IU_LEN %u, BUF_FMT %#06x, flags %#04x, imm offset %u, initiator %s, target %s, %u bytes",
	     pd[11], get_be32(pd + 12), get_be16(pd + 8), pd[10],
	     get_be16(pd + 48), ini_is_acl(pd + 16) ? "ours" : "other",
	     memcmp(pd + 32, g_tgt_id, 16) ? "other" : "ours", l.pdata_len);
	g_data_len = 64 << 10;
	ret = try_login(&c, &l, pd, &w);
	conn_close(&c);
	return ret;
}

/*
 * 4-12 valid logins of one I_T nexus back to back, SINGLE or MULTI, all
 * kept: each answered; resources may run out (0x10001, 0x10006 allowed);
 * an accepted SINGLE login ends the channels before it.
 */
static int login_flood(struct fz *f, struct rng *r)
{
	unsigned int n = between(r, 4, 12), i, j, last_single = 0;
	struct conn *c = calloc(n, sizeof(*c));
	struct lwant w;
	struct login_req l;
	uint8_t pd[56];
	int ret = 0, *ok = calloc(n, sizeof(*ok));

	if (!c || !ok) {
		free(c);
		free(ok);
		return failf("out of memory");
	}
	desc("login flood: %u logins of one nexus, kept open", n);
	g_data_len = 64 << 10;
	for (i = 0; i < n && !ret; i++) {
		default_login(&l);
		memcpy(l.ini, g_login_id, 16);
		l.flags = chance(r, 40) ? 0 : 1;
		effective(&l, pd);
		login_rules(pd, f->max_req, &w);
		w.flood = true;
		ret = try_login(&c[i], &l, pd, &w);
		if (ret)
			failctx("login %u (%s)", i, l.flags ? "MULTI" : "SINGLE");
		ok[i] = c[i].established;
		if (ok[i] && !l.flags)
			last_single = i;
	}
	for (j = 0; j < last_single && !ret; j++)
		if (ok[j] && wait_dead(&c[j], true))
			ret = failctx("channel %u after the SINGLE login %u", j,
				      last_single);
	for (i = 0; i < n; i++)
		conn_close(&c[i]);
	free(c);
	free(ok);
	return ret;
}

static int login_case(struct fz *f, struct rng *r)
{
	/* The IU channel is MULTI on another nexus: it stays. */
	return chance(r, 4) ? login_flood(f, r) : login_one(f, r);
}

/* ---- liveness probe ----------------------------------------------------- */

/* A fresh channel: TEST UNIT READY, 8 blocks written and read back. */
static int probe(struct fz *f, struct rng *r)
{
	struct seg w = { W_OFF, 0 }, rd = { R_OFF, 0 };
	struct login_req l;
	struct conn c;
	uint64_t blocks;
	uint32_t bs, lba;
	int ret;

	if (fz_canary_ok(f))
		return -1;
	default_login(&l);
	memcpy(l.ini, g_login_id, 16);
	g_data_len = 4u << 20;
	ret = login_ok(&c, &l);
	if (!ret)
		ret = tur_good(&c);
	if (!ret)
		ret = read_capacity(&c, &blocks, &bs);
	if (!ret) {
		lba = below(r, blocks - 8);
		w.len = rd.len = 8 * bs;
		fill_random(c.data + W_OFF, w.len);
		ret = rw(&c, true, lba, 8, DIRECT, &w, 1);
		if (!ret)
			ret = rw(&c, false, lba, 8, DIRECT, &rd, 1);
		if (!ret)
			ret = compare_segs(&c, &rd, 1, rd.len);
	}
	conn_close(&c);
	return ret;
}

/* ---- the IB CM plan ----------------------------------------------------- */

/*
 * --ibcm-plan: the same login rules for IB CM logins, which the kernel test
 * initiator tools/ibcm-test makes (the scenario runs it). One line per
 * case: "K<TAB>login options<TAB>extended regex the result must match<TAB>
 * description". The 64-byte SRP_LOGIN_REQ of an IB CM REQ has its own
 * layout; its private data can also be longer than 64 bytes (up to 92).
 */
static void ib_effective(const struct login_req *l, unsigned int plen,
			 uint8_t pd[56])
{
	uint8_t ib[92] = { 0 };
	struct login_req e = *l;

	ib[0] = l->opcode;
	memcpy(ib + 8, &l->tag, 8);
	put_be32(ib + 16, l->it_iu_len);
	put_be16(ib + 24, l->buf_fmt);
	ib[26] = l->flags;
	put_be16(ib + 28, l->imm_off);
	memcpy(ib + 32, l->ini, 16);
	memcpy(ib + 48, l->tgt, 16);
	memset(ib + plen, 0, sizeof(ib) - plen);
	e.opcode = ib[0];
	memcpy(&e.tag, ib + 8, 8);
	e.it_iu_len = get_be32(ib + 16);
	e.buf_fmt = get_be16(ib + 24);
	e.flags = ib[26];
	e.imm_off = get_be16(ib + 28);
	memcpy(e.ini, ib + 32, 16);
	memcpy(e.tgt, ib + 48, 16);
	memset(e.rsvd, 0, 6);
	e.pdata_len = 56;
	login_pdata(&e, pd);
}

static void hex(char *out, const uint8_t *p, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

/* The regex of the answers @w allows. */
static void plan_regex(const struct lwant *w, uint8_t flags, char *re,
		       size_t n)
{
	unsigned int b, len;

	if (w->any_rej) {
		snprintf(re, n, "^(LOGIN_REJ|CM_REJ)");
		return;
	}
	len = snprintf(re, n, "^(LOGIN_REJ reason=0x0001000[");
	for (b = 0; b < 7; b++)
		if (w->reasons >> b & 1)
			len += snprintf(re + len, n - len, "%u", b);
	len += snprintf(re + len, n - len, "] ");
	if (!w->reasons)
		len = snprintf(re, n, "^(NONE ");
	if (w->may_accept)
		snprintf(re + len, n - len,
			 "|LOGIN_RSP req_lim=([2-9]|[1-9][0-9]+) .*flags=0x%02x|LOGIN_RSP req_lim=([2-9]|[1-9][0-9]+) .*flags=0x%02x)",
			 (w->imm ? SRP_LOGIN_RSP_IMMED_SUPP : 0) |
			 SRP_LOGIN_RSP_MULTICHAN_NO_CHAN,
			 (w->imm ? SRP_LOGIN_RSP_IMMED_SUPP : 0) |
			 ((flags & 3) ? SRP_LOGIN_RSP_MULTICHAN_MAINTAINED :
			  SRP_LOGIN_RSP_MULTICHAN_TERMINATED));
	else
		snprintf(re + len, n - len, ")");
}

static void plan_case(struct rng *r, unsigned long k, unsigned int max_req)
{
	unsigned int plen = chance(r, 85) ? 64 : chance(r, 50) ?
			    below(r, 64) : between(r, 65, 92);
	char ini[33], re[400], sid[40] = "";
	uint8_t pd[56], id_ext[8], ioc[8];
	struct login_req l;
	struct lwant w;

	gen_login(r, &l);
	l.pdata_len = 56;
	ib_effective(&l, plen, pd);
	login_rules(pd, max_req, &w);
	plan_regex(&w, pd[10], re, sizeof(re));
	if (chance(r, 3)) {	/* nobody listens there: CM REJ */
		snprintf(sid, sizeof(sid), " service_id=%016" PRIx64,
			 rnd(r) | (uint64_t)1 << 63);
		snprintf(re, sizeof(re), "^CM_REJ");
	}
	hex(ini, l.ini, 16);
	memcpy(id_ext, l.tgt, 8);
	memcpy(ioc, l.tgt + 8, 8);
	printf("%lu\topcode=%u tag=%" PRIu64 " it_iu_len=%u buf_fmt=%u req_flags=%u imm_off=%u pdata_len=%u initiator_id=%s id_ext=%016" PRIx64 " ioc_guid=%016" PRIx64 "%s\t%s\t%s\n",
	       k, l.opcode, l.tag, l.it_iu_len, l.buf_fmt, l.flags, l.imm_off,
	       plen, ini, get_be64(id_ext), get_be64(ioc), sid, re,
	       w.must_accept ? "valid" : w.may_accept ? "maybe" : "invalid");
}

static int ibcm_plan(void)
{
	struct rng r;
	unsigned long k;

	for (k = 0; k < g_cases; k++) {
		if (g_only != ~0UL && k != g_only)
			continue;
		case_rng(&r, k);
		plan_case(&r, k, g_max_req);
	}
	return 0;
}

/* ---- main --------------------------------------------------------------- */

struct tally {
	unsigned long login, iu, unexpected;
	int64_t login_ms, iu_ms, probe_ms;	/* time spent in each */
};

static void report(unsigned long k, const char *what)
{
	FILE *kmsg = fopen("/dev/kmsg", "w");

	printf("UNEXPECTED case %lu (%s): %s: %s\n", k, what, g_desc,
	       g_why[0] ? g_why : "?");
	printf("  replay: srp-fuzz ... --seed %" PRIu64 " --only %lu --family %s\n",
	       g_seed, k, g_family == FAM_LOGIN ? "login" :
	       g_family == FAM_IU ? "iu" : "all");
	if (kmsg) {
		fprintf(kmsg, "srp-fuzz: seed %" PRIu64 " case %lu unexpected: %.300s\n",
			g_seed, k, g_why);
		fclose(kmsg);
	}
}

static void run_case(struct fz *f, unsigned long k, struct tally *t)
{
	struct rng r;
	bool login;
	int64_t t0;
	int ret;

	case_rng(&r, k);
	login = g_family == FAM_LOGIN ||
		(g_family == FAM_ALL && chance(&r, 10));
	g_desc[0] = g_why[0] = 0;
	t0 = now_ms();
	if (login) {
		t->login++;
		ret = login_case(f, &r);
		t->login_ms += now_ms() - t0;
	} else {
		t->iu++;
		ret = iu_case(f, &r);
		t->iu_ms += now_ms() - t0;
	}
	if (ret) {
		t->unexpected++;
		report(k, login ? "login" : "iu");
	} else if (g_verbose) {
		fprintf(stderr, "case %lu: %s: ok\n", k, g_desc);
	}
}

static void run_probe(struct fz *f, unsigned long k, struct tally *t)
{
	struct rng r;

	int64_t t0 = now_ms();

	case_rng(&r, ~k);
	desc("liveness probe after case %lu", k);
	if (probe(f, &r)) {
		t->unexpected++;
		report(k, "probe");
	}
	t->probe_ms += now_ms() - t0;
}

static int fuzz(struct fz *f)
{
	int64_t t0 = now_ms();
	struct tally t = { 0 };
	unsigned long k, done = 0;

	for (k = 0; k < g_cases && t.unexpected < 20; k++) {
		if (g_only != ~0UL && k != g_only)
			continue;
		run_case(f, k, &t);
		if (++done % g_probe_every == 0)
			run_probe(f, k, &t);
		if (done % 5000 == 0)
			fprintf(stderr, "srp-fuzz: %lu cases, %lu unexpected, %.0fs\n",
				done, t.unexpected, (now_ms() - t0) / 1000.0);
	}
	if (t.unexpected >= 20)
		printf("srp-fuzz: giving up after %lu unexpected reactions\n",
		       t.unexpected);
	if (f->open) {
		desc("end of the run");
		if (fz_canary_ok(f)) {
			t.unexpected++;
			report(k, "canary");
		}
		conn_close(&f->ch);
		f->open = false;
	}
	run_probe(f, k, &t);
	printf("srp-fuzz: seed %" PRIu64 " cases %lu (login %lu, iu %lu) unexpected %lu, reconnects %lu, %.1fs\n",
	       g_seed, t.login + t.iu, t.login, t.iu, t.unexpected,
	       f->reconnects ? f->reconnects - 1 : 0, (now_ms() - t0) / 1000.0);
	printf("srp-fuzz: login cases %.1fs (%.1f/s), iu cases %.1fs (%.1f/s, connecting %.1fs), probes %.1fs; in all, logging in %.1fs, disconnecting %.1fs\n",
	       t.login_ms / 1000.0, t.login_ms ? t.login * 1000.0 / t.login_ms : 0,
	       t.iu_ms / 1000.0, t.iu_ms ? t.iu * 1000.0 / t.iu_ms : 0,
	       f->connect_ms / 1000.0, t.probe_ms / 1000.0,
	       g_open_ms / 1000.0, g_close_ms / 1000.0);
	printf("srp-fuzz: logging in: address and route %.1fs, PD/CQ/QP %.1fs, login %.1fs, buffers %.1fs\n",
	       g_open_phase_ms[OPEN_RESOLVE] / 1000.0,
	       g_open_phase_ms[OPEN_VERBS] / 1000.0,
	       g_open_phase_ms[OPEN_LOGIN] / 1000.0,
	       g_open_phase_ms[OPEN_BUFFERS] / 1000.0);
	return t.unexpected ? 1 : 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: srp-fuzz --dest IP:PORT --id-ext HEX16 --ioc-guid HEX16\n"
		"                --initiator-id HEX32 --login-id HEX32 --lun N\n"
		"                --seed S --cases N [--family login|iu|all] [--only K]\n"
		"                [--probe-every K] [--max-req-size N] [--forbid-id HEX32]\n"
		"                [--imm-offset N] [--timeout SECS] [-v]\n"
		"       srp-fuzz --id-ext HEX16 --ioc-guid HEX16 --login-id HEX32\n"
		"                --seed S --cases N --ibcm-plan [--max-req-size N]\n"
		"                [--imm-offset N]\n"
		"--initiator-id: the I_T nexus of the IU channel; --login-id: the one\n"
		"of the login cases and probes (both need ACLs); --lun: the fuzzer's\n"
		"own LUN (SCSI commands go there or to LUNs >= 256); --forbid-id: an\n"
		"initiator port ID never to send (another initiator's nexus);\n"
		"--imm-offset: the target grants immediate data at this offset only\n"
		"(a shared receive queue's buffer layout; default: any valid one).\n");
}

enum {
	OPT_SEED = CONN_OPT_LAST,
	OPT_CASES,
	OPT_ONLY,
	OPT_PROBE_EVERY,
	OPT_MAX_REQ_SIZE,
	OPT_LOGIN_ID,
	OPT_FORBID_ID,
	OPT_FAMILY,
	OPT_IBCM_PLAN,
	OPT_IMM_OFFSET,
};

static const struct option options[] = {
	CONN_OPTIONS,
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "cases", required_argument, NULL, OPT_CASES },
	{ "only", required_argument, NULL, OPT_ONLY },
	{ "probe-every", required_argument, NULL, OPT_PROBE_EVERY },
	{ "max-req-size", required_argument, NULL, OPT_MAX_REQ_SIZE },
	{ "login-id", required_argument, NULL, OPT_LOGIN_ID },
	{ "forbid-id", required_argument, NULL, OPT_FORBID_ID },
	{ "family", required_argument, NULL, OPT_FAMILY },
	{ "ibcm-plan", no_argument, NULL, OPT_IBCM_PLAN },
	{ "imm-offset", required_argument, NULL, OPT_IMM_OFFSET },
	{ "help", no_argument, NULL, 'h' },
	{}
};

/* Our own options (@opt, @v from getopt_long()); 0, or -1 if bad. */
static int fuzz_opt(int opt, const char *v, bool *plan)
{
	switch (opt) {
	case OPT_IBCM_PLAN:
		*plan = true;
		return 0;
	case OPT_SEED:
		g_seed = strtoull(v, NULL, 0);
		return 0;
	case OPT_CASES:
		g_cases = strtoul(v, NULL, 0);
		return 0;
	case OPT_ONLY:
		g_only = strtoul(v, NULL, 0);
		return 0;
	case OPT_PROBE_EVERY:
		g_probe_every = strtoul(v, NULL, 0);
		return 0;
	case OPT_MAX_REQ_SIZE:
		return (g_max_req = strtoul(v, NULL, 0)) >= 64 ? 0 : -1;
	case OPT_IMM_OFFSET:
		return (g_imm_only = strtoul(v, NULL, 0)) < 65536 ? 0 : -1;
	case OPT_LOGIN_ID:
		return (g_have_login_id = !parse_hex(v, g_login_id, 16)) ? 0 : -1;
	case OPT_FORBID_ID:
		return (g_have_forbid = !parse_hex(v, g_forbid_id, 16)) ? 0 : -1;
	case OPT_FAMILY:
		if (!strcmp(v, "login"))
			g_family = FAM_LOGIN;
		else if (!strcmp(v, "iu"))
			g_family = FAM_IU;
		else if (!strcmp(v, "all"))
			g_family = FAM_ALL;
		else
			return -1;
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static struct fz f;
	bool plan = false;
	int n, opt;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* One connection after another, each with a 4 MiB data buffer. */
	g_reuse_bufs = true;
	while ((opt = getopt_long(argc, argv, "vh", options, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			return 0;
		}
		n = conn_opt("srp-fuzz", opt, optarg);
		if (!n)
			n = fuzz_opt(opt, optarg, &plan) ? -1 : 1;
		if (n < 0) {
			if (opt != '?')
				fprintf(stderr, "srp-fuzz: bad value %s for --%s\n",
					optarg ? optarg : "",
					conn_opt_name(options, opt));
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "srp-fuzz: unexpected argument %s\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!g_have_login_id || !g_probe_every) {
		usage(stderr);
		return 2;
	}
	g_tag_seq ^= g_seed << 24;
	g_rand ^= g_seed;
	if (plan)
		return ibcm_plan();
	if (!conn_opts_ok("srp-fuzz") || !memcmp(g_login_id, g_ini_id, 16)) {
		usage(stderr);
		return 2;
	}
	f.max_req = g_max_req;
	return fuzz(&f);
}
