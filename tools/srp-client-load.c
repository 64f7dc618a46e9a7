// SPDX-License-Identifier: GPL-2.0
/*
 * srp-client-load - the srp-client cases that load the target rather than
 * check single answers (login-storm, flood, over-credit, burst, read-fails,
 * big); tools for other scenarios, not in "all".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "srp-client.h"

/*
 * A login storm, to run while an admin changes the target (ACL removal,
 * TPG disable, device removal): --rounds times (or until --stop-file
 * exists) log in on --channels channels (SINGLE, then MULTI), then close
 * them at once (odd rounds) or after a TEST UNIT READY on each (even
 * rounds). Refused logins, failed connections and dropped channels are
 * expected and only counted; a login the target never answers (within
 * --timeout) fails the case. A command without an answer on a channel
 * that still looks connected is only counted (and marked in the kernel
 * log): when the target closes a channel after its LOGIN_RSP but before
 * the RTU, the IB CM tears the connection down with a REJ that is sent
 * once, and if that is lost the initiator keeps a connection whose other
 * end is gone (real initiators time the command out and reconnect).
 *
 * With --hold a login keeps its channels until the target closes one of
 * them (or --stop-file appears) and logs in again at once; the first
 * login that does not succeed ends the storm. Run while the target's
 * RDMA device is removed, such a process logs in again right when the
 * target is closing the device's channels.
 */
#define STORM_MAX_CH	16

unsigned int g_rounds = 20, g_channels = 4, g_length;
const char *g_stop_file;
bool g_hold;

struct storm {
	unsigned int rounds, accepted, rejected, failed, unanswered;
	unsigned int tur_good, tur_bad, tur_lost, dropped, held;
	bool stop;
	uint32_t rej_reasons[4];	/* the first distinct ones */
	char first_unanswered[1024];
};

static bool storm_stop(void)
{
	return g_stop_file && !access(g_stop_file, F_OK);
}

static void storm_rej(struct storm *st, const struct conn *c)
{
	uint32_t reason = c->pdata_len >= 8 && c->pdata[0] == SRP_LOGIN_REJ ?
			  get_be32(c->pdata + 4) : 0;
	unsigned int i;

	st->rejected++;
	for (i = 0; i < 4; i++) {
		if (st->rej_reasons[i] == reason)
			return;
		if (!st->rej_reasons[i]) {
			st->rej_reasons[i] = reason;
			return;
		}
	}
}

/*
 * Something the target never answered: note it, with what the connection
 * looks like, and mark the kernel log (if we may write it) so that the
 * target's side of the story can be found there.
 */
static void storm_unanswered(struct storm *st, const char *what,
			     const struct conn *c, unsigned int k, bool fatal)
{
	char d[1024];
	FILE *kmsg;

	snprintf(d, sizeof(d),
		 "round %u channel %u: %s: %.200s (at %.3f s; CM established %d rejected %d/%d disconnected %d error %d; QP error %d; req_lim %d, %u outstanding)",
		 st->rounds, k, what, g_why, now_ms() / 1000.0,
		 c->established, c->rejected, c->rej_status, c->disconnected,
		 c->cm_error, c->qp_error, c->req_lim, c->outstanding);
	note("%s", d);
	kmsg = fopen("/dev/kmsg", "w");
	if (kmsg) {
		fprintf(kmsg, "srp-client: %s\n", d);
		fclose(kmsg);
	}
	if (!fatal) {
		st->tur_lost++;
		return;
	}
	if (!st->unanswered++)
		snprintf(st->first_unanswered, sizeof(st->first_unanswered),
			 "%s", d);
}

/* --hold: keep all channels until the target closes one of them. */
static void storm_hold(struct storm *st, struct conn *ch, unsigned int n)
{
	unsigned int k;

	if (n < g_channels) {
		st->stop = true;	/* a login did not succeed */
		return;
	}
	for (;;) {
		for (k = 0; k < n; k++) {
			pump(&ch[k], 0);
			if (dead(&ch[k])) {
				st->held++;
				return;
			}
		}
		if (storm_stop())
			return;
		pump(&ch[0], 200);
	}
}

/* One round; the channels are in @ch[0..*n). */
static void storm_round(struct storm *st, struct conn *ch, unsigned int *n)
{
	static const uint8_t tur[6];
	struct login_req l;
	unsigned int k;
	struct rsp r;
	int ret;

	for (k = 0; k < g_channels; k++) {
		default_login(&l);
		l.flags = k ? 1 : 0;	/* MULTI after the first */
		ret = conn_open(&ch[*n], &l);
		if (ret > 0) {
			st->accepted++;
			(*n)++;
			continue;
		}
		if (ret == 0)
			storm_rej(st, &ch[*n]);
		else if (strstr(g_why, "timeout"))
			storm_unanswered(st, "login", &ch[*n], k, true);
		else
			st->failed++;
		conn_close(&ch[*n]);
		break;
	}
	if (g_hold) {
		storm_hold(st, ch, *n);
		return;
	}
	if (st->rounds % 2)
		return;
	for (k = 0; k < *n; k++) {
		if (dead(&ch[k])) {
			st->dropped++;
			continue;
		}
		if (!nodata_cmd(&ch[k], tur, sizeof(tur), &r)) {
			if (r.status == 0)
				st->tur_good++;
			else
				st->tur_bad++;
		} else if (dead(&ch[k])) {
			st->dropped++;
		} else {
			storm_unanswered(st, "TEST UNIT READY", &ch[k], k,
					 false);
		}
	}
}

int case_login_storm(void)
{
	struct conn *ch = calloc(STORM_MAX_CH, sizeof(*ch));
	struct storm st = { 0 };
	unsigned int n, k;
	char rej[64] = "";

	if (!ch)
		return failf("out of memory");
	if (g_channels < 1 || g_channels > STORM_MAX_CH) {
		free(ch);
		return failf("--channels %u: 1..%d", g_channels, STORM_MAX_CH);
	}
	/* No data moves: keep the per-channel memory registration small. */
	g_data_len = 64 * 1024;
	for (st.rounds = 0; st.rounds < g_rounds && !st.stop && !storm_stop();
	     st.rounds++) {
		n = 0;
		storm_round(&st, ch, &n);
		for (k = 0; k < n; k++)
			conn_close(&ch[k]);
	}
	free(ch);
	for (k = 0; k < 4 && st.rej_reasons[k]; k++)
		snprintf(rej + strlen(rej), sizeof(rej) - strlen(rej), "%s%#x",
			 k ? "," : " reasons ", st.rej_reasons[k]);
	note("%u rounds x %u channels: %u logins accepted, %u refused%s, %u failed to connect, %u unanswered; TUR %u good, %u not good, %u unanswered, %u channels dropped%s",
	     st.rounds, g_channels, st.accepted, st.rejected, rej, st.failed,
	     st.unanswered, st.tur_good, st.tur_bad, st.tur_lost, st.dropped,
	     g_hold ? "; held until the target closed them" : "");
	if (st.unanswered)
		return failf("%u requests never answered, first: %s",
			     st.unanswered, st.first_unanswered);
	return 0;
}

/*
 * flood: keep every credit busy with 1 MiB WRITE(10)s (one direct
 * descriptor each, all to LBA 0) for --rounds seconds from the first
 * answer, then log out with all of them outstanding. The target has to
 * RDMA READ each one; when its send queue holds fewer of those transfers
 * than it grants credits, the rest wait for room, and the logout (or a
 * close from the target side: TPG disabled, ACL removed, which also ends
 * the flood) finds them waiting. Fails if the login fails, if no write
 * is ever answered, or if the target answers nothing for --timeout while
 * the channel is up.
 */
#define FLOOD_LEN	(1u << 20)

int case_flood(void)
{
	unsigned long sent = 0, answered = 0, not_good = 0;
	int64_t end, last;
	struct seg s = { W_OFF, FLOOD_LEN };
	uint8_t iu[64], cdb[10];
	struct conn c;
	struct iu *a;
	int ret;

	ret = login_tur(&c);
	if (ret)
		goto out;
	fill_random(c.data + W_OFF, FLOOD_LEN);
	rw10_cdb(cdb, true, 0, FLOOD_LEN / 512);
	end = 0;	/* set at the first answer */
	last = now_ms();
	/* The --rounds seconds count from the first answer (it can take
	 * longer than that on a debug kernel); no answer for --timeout fails
	 * below. */
	while ((now_ms() < end || !answered) && !dead(&c)) {
		if (c.req_lim > 0 && c.nfree > RESERVED_SLOTS &&
		    c.outstanding + RESERVED_SLOTS < c.nrecv) {
			uint32_t len = build_data_cmd(&c, iu, cdb, 10, true,
						      DIRECT, &s, 1);

			if (send_iu(&c, iu, len, true))
				break;
			sent++;
			continue;
		}
		pump(&c, 100);
		while ((a = take_iu(&c, false, 0, -1))) {
			if (a->len && a->buf[0] == SRP_RSP) {
				if (!answered++) {
					end = now_ms() + (int64_t)g_rounds * 1000;
					/* A scenario may wait for this line. */
					note("first answer, %lu writes sent", sent);
					fflush(stdout);
				}
				not_good += a->len < 20 || a->buf[19];
				last = now_ms();
			}
			free(a);
		}
		if (!dead(&c) && now_ms() - last > g_timeout_ms) {
			ret = failf("no answer for %d s, %u writes outstanding",
				    g_timeout_ms / 1000, c.outstanding);
			goto out;
		}
	}
	note("%lu writes of 1 MiB sent, %lu answered (%lu not GOOD), %u outstanding when %s",
	     sent, answered, not_good, c.outstanding,
	     dead(&c) ? "the target closed the channel" : "logging out");
	if (!answered)
		ret = failf("none of %lu writes answered", sent);
out:
	conn_close(&c);
	return ret;
}

/* Answers to the READs of over-credit: take them as they come. */
static void over_credit_take(struct conn *c, unsigned int *answered,
			     unsigned int *not_good, int64_t *last)
{
	struct iu *a;

	pump(c, 100);
	while ((a = take_iu(c, false, 0, SRP_RSP))) {
		(*answered)++;
		*not_good += a->len < 20 || a->buf[19];
		c->outstanding--;
		*last = now_ms();
		free(a);
	}
}

/*
 * over-credit: twice the credits plus 8 READ(10)s of one block on --lun (a
 * slow one keeps them all in flight), back to back and ignoring req_lim,
 * as an initiator that does not count its credits would. A target with a
 * receive queue per channel holds back what it has no buffer for (RNR)
 * and answers every READ; one on a shared receive queue takes them all
 * and closes the channel once more than twice the credits are in flight.
 * Either is right; the case says which, and fails if the target neither
 * answers every READ nor closes the channel, with no progress for
 * --timeout.
 */
int case_over_credit(void)
{
	unsigned int n, i, answered = 0, not_good = 0;
	uint8_t iu[64], cdb[10];
	struct conn c;
	struct seg s;
	int64_t last;
	int ret;

	ret = login_tur(&c);
	if (ret)
		goto out;
	n = 2 * c.req_lim_init + 8;
	last = now_ms();
	for (i = 0; i < n && !dead(&c); i++) {
		rw10_cdb(cdb, false, i % 16, 1);
		s = (struct seg){ R_OFF + (i % 64) * 512, 512 };
		if (send_iu(&c, iu, build_data_cmd(&c, iu, cdb, 10, false,
						   DIRECT, &s, 1), false))
			break;
		c.req_lim--;
		c.outstanding++;
		if (c.nfree <= RESERVED_SLOTS + 1)
			over_credit_take(&c, &answered, &not_good, &last);
	}
	note("%u of %u READs sent with %d credits", i, n, c.req_lim_init);
	while (answered < n && !dead(&c) && now_ms() - last < g_timeout_ms)
		over_credit_take(&c, &answered, &not_good, &last);
	if (dead(&c)) {
		note("the target closed the channel after %u answers", answered);
	} else if (answered == n) {
		note("all %u READs answered (%u not GOOD)", n, not_good);
	} else {
		ret = failf("%u of %u READs answered, nothing more for %d s, channel up",
			    answered, n, g_timeout_ms / 1000);
	}
out:
	conn_close(&c);
	return ret;
}

/*
 * burst: --rounds WRITE(10)s of --length bytes (one direct descriptor each,
 * all from the same buffer to LBA 0), sent back to back, then every answer
 * awaited: all GOOD. A target whose send queue holds the RDMA READs of
 * only one of them makes the others wait for it. With --stop-file the
 * channel then stays logged in until that file exists, so that the
 * scenario can read its counters.
 */
int case_burst(void)
{
	unsigned int n = g_rounds, i, not_good = 0;
	uint64_t tags[MAX_SLOTS];
	struct seg s = { W_OFF, g_length };
	uint8_t iu[64], cdb[10];
	struct conn c;
	struct rsp r;
	struct iu *a;
	int ret;

	if (!n || n > MAX_SLOTS || !g_length || g_length % 512 ||
	    g_length / 512 > 0xffff)
		return failf("burst: --rounds 1..%d, --length a multiple of 512 up to 32 MiB",
			     MAX_SLOTS);
	if (g_data_len < g_length)
		g_data_len = g_length;
	ret = login_tur(&c);
	if (ret)
		goto out;
	if ((int)n > c.req_lim)
		ret = failf("%u writes, only %d credits", n, c.req_lim);
	fill_random(c.data + W_OFF, g_length);
	rw10_cdb(cdb, true, 0, g_length / 512);
	for (i = 0; i < n && !ret; i++) {
		ret = send_iu(&c, iu, build_data_cmd(&c, iu, cdb, 10, true,
						     DIRECT, &s, 1), true);
		tags[i] = get_tag(iu);
	}
	for (i = 0; i < n && !ret; i++) {
		a = wait_iu(&c, true, tags[i], SRP_RSP);
		if (!a) {
			ret = failctx("write %u of %u", i + 1, n);
			break;
		}
		ret = parse_rsp(a, tags[i], &r);
		free(a);
		not_good += !ret && r.status;
	}
	if (!ret && not_good)
		ret = failf("%u of %u writes not GOOD", not_good, n);
	if (ret)
		goto out;
	note("%u writes of %u bytes sent back to back, all GOOD", n, g_length);
	while (g_stop_file && !storm_stop() && !dead(&c))
		pump(&c, 200);
	if (dead(&c))
		ret = failf("the channel died while held");
out:
	conn_close(&c);
	return ret;
}

/*
 * read-fails: one READ(10) of --length bytes into one direct descriptor,
 * which the target cannot move (tests/27 makes its transfer need more work
 * requests than the send queue has): answered with CHECK CONDITION,
 * ABORTED COMMAND, and no data; then a TEST UNIT READY is GOOD.
 */
int case_read_fails(void)
{
	struct seg s = { R_OFF, g_length };
	uint8_t iu[64], cdb[10];
	struct conn c;
	struct rsp r;
	struct iu *a;
	uint64_t tag;
	int ret;

	if (!g_length || g_length % 512 || g_length / 512 > 0xffff)
		return failf("read-fails: --length a multiple of 512 up to 32 MiB");
	if (g_data_len < R_OFF + g_length)
		g_data_len = R_OFF + g_length;
	ret = login_tur(&c);
	if (ret)
		goto out;
	rw10_cdb(cdb, false, 0, g_length / 512);
	ret = send_iu(&c, iu, build_data_cmd(&c, iu, cdb, 10, false, DIRECT,
					     &s, 1), true);
	tag = get_tag(iu);
	if (ret)
		goto out;
	a = wait_iu(&c, true, tag, SRP_RSP);
	if (!a) {
		ret = failctx("READ of %u bytes", g_length);
		goto out;
	}
	ret = parse_rsp(a, tag, &r);
	free(a);
	if (ret)
		goto out;
	if (r.status != 0x02 || !(r.flags & SRP_RSP_FLAG_SNSVALID) ||
	    sense_key(&r) != 0x0b) {
		ret = failf("READ of %u bytes: status %#x, flags %#x, sense key %d; want CHECK CONDITION, ABORTED COMMAND",
			    g_length, r.status, r.flags, sense_key(&r));
		goto out;
	}
	note("READ of %u bytes -> CHECK CONDITION, ABORTED COMMAND", g_length);
	ret = tur_good(&c);
out:
	conn_close(&c);
	return ret;
}

/*
 * big: a WRITE(16) of 64 MiB (the most one SRP_CMD may carry, the largest
 * request of ib_srp with max_sect=131072) from 16 indirect descriptors of
 * unequal, odd lengths at unaligned addresses, all in the IU,
 * then a READ(16) of it into 16 other pieces (cut elsewhere, with gaps):
 * both GOOD without a residual, the data right. The LUN (--lun) needs
 * 64 MiB.
 */
#define BIG_LEN		(64u << 20)
#define BIG_NDESC	16
#define BIG_W_OFF	(4u << 20)	/* clear of T_OFF's table copy */
#define BIG_R_OFF	(BIG_W_OFF + BIG_LEN + (1u << 20))

static void big_cdb(uint8_t *cdb, bool write, uint32_t nblk)
{
	memset(cdb, 0, 16);
	cdb[0] = write ? 0x8a : 0x88;
	put_be32(cdb + 10, nblk);
}

/* @n pieces of @total bytes from @off, cut at odd places, @gap apart. */
static void big_segs(struct seg *s, int n, uint32_t off, uint32_t total,
		     uint32_t skew, uint32_t gap)
{
	uint32_t left = total, each = total / n;
	int i;

	for (i = 0; i < n; i++) {
		uint32_t len = i == n - 1 ? left :
			       each + (i % 2 ? skew : -skew);

		s[i] = (struct seg){ off, len };
		off += len + gap;
		left -= len;
	}
}

static int big_cmd(struct conn *c, bool write, const struct seg *s,
		   uint32_t nblk)
{
	uint8_t *iu = calloc(1, c->send_slot), cdb[16];
	struct rsp r;
	char b[160];
	int ret = -1, tries;

	if (!iu)
		return failf("out of memory");
	big_cdb(cdb, write, nblk);
	for (tries = 0; tries < 3; tries++) {
		ret = exec_iu(c, iu, build_data_cmd(c, iu, cdb, 16, write,
						    INDIRECT, s, BIG_NDESC),
			      &r);
		if (ret || r.status != 2 || sense_key(&r) != 6)
			break;
	}
	free(iu);
	if (ret)
		return failctx("%s(16) of 64 MiB", write ? "WRITE" : "READ");
	if (r.status || r.flags & SRP_RSP_RESID_FLAGS)
		return failf("%s(16) of 64 MiB in %d descriptors: %s",
			     write ? "WRITE" : "READ", BIG_NDESC,
			     rsp_str(&r, b, sizeof(b)));
	return 0;
}

int case_big(void)
{
	struct seg w[BIG_NDESC], rd[BIG_NDESC];
	uint32_t bs, pos = 0, k;
	uint64_t blocks;
	struct conn c;
	int i, ret;

	if (g_data_len < BIG_R_OFF + BIG_LEN + (1u << 20))
		g_data_len = BIG_R_OFF + BIG_LEN + (1u << 20);
	ret = login_tur(&c);
	if (!ret)
		ret = read_capacity(&c, &blocks, &bs);
	if (ret)
		goto out;
	if (blocks * bs < BIG_LEN) {
		ret = failf("the LUN has %" PRIu64 " bytes, less than 64 MiB",
			    blocks * bs);
		goto out;
	}
	/*
	 * Lengths of odd byte counts: the target must still give LIO's
	 * backend whole pages (iblock makes a bio vector of each entry, and
	 * one that is not a multiple of the block size in the middle of
	 * the list misplaces the data behind it; ramdisk and fileio copy
	 * byte-wise and do not show it).
	 */
	big_segs(w, BIG_NDESC, BIG_W_OFF + 100, BIG_LEN, 3 * 4096 + 100, 0);
	big_segs(rd, BIG_NDESC, BIG_R_OFF + 8, BIG_LEN, 65536 + 5 * 4096 + 12,
		 4100);
	fill_random(c.data + BIG_W_OFF + 100, BIG_LEN);
	for (i = 0; i < BIG_NDESC; i++)
		memset(c.data + rd[i].off, 0, rd[i].len);
	ret = big_cmd(&c, true, w, BIG_LEN / bs);
	if (!ret)
		ret = big_cmd(&c, false, rd, BIG_LEN / bs);
	for (i = 0; i < BIG_NDESC && !ret; i++) {
		for (k = 0; k < rd[i].len; k++, pos++) {
			if (c.data[BIG_W_OFF + 100 + pos] != c.data[rd[i].off + k]) {
				ret = failf("data mismatch at byte %u of 64 MiB",
					    pos);
				break;
			}
		}
	}
	if (!ret)
		note("64 MiB written from %d and read into %d indirect descriptors, one SRP_CMD each: GOOD, data right",
		     BIG_NDESC, BIG_NDESC);
out:
	conn_close(&c);
	return ret;
}
