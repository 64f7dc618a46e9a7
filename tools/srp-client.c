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
 * /work/shared/SRP-PROTOCOL.md and Documentation/ib_srpt.rst). It prints one
 * "PASS case" or "FAIL case: why" line per case and exits with 1 if any case
 * failed (2 for usage errors).
 *
 * Credits are respected: a request that consumes a credit (SRP_CMD,
 * SRP_TSK_MGMT, and the invalid IUs) is only sent while the request limit
 * (LOGIN_RSP REQ_LIM_DELTA plus the deltas of SRP_RSP, SRP_CRED_REQ and
 * SRP_AER_REQ) is positive; CRED_REQ/AER_REQ are answered.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* SRP information unit opcodes. */
enum {
	SRP_LOGIN_REQ = 0x00,
	SRP_TSK_MGMT = 0x01,
	SRP_CMD = 0x02,
	SRP_I_LOGOUT = 0x03,
	SRP_LOGIN_RSP = 0xc0,
	SRP_RSP = 0xc1,
	SRP_LOGIN_REJ = 0xc2,
	SRP_T_LOGOUT = 0x80,
	SRP_CRED_REQ = 0x81,
	SRP_AER_REQ = 0x82,
	SRP_CRED_RSP = 0x41,
	SRP_AER_RSP = 0x42,
};

/* SRP_RSP flags (byte 18). */
#define RSP_RSPVALID	0x01
#define RSP_SNSVALID	0x02
#define RSP_DOOVER	0x04
#define RSP_DOUNDER	0x08
#define RSP_DIOVER	0x10
#define RSP_DIUNDER	0x20

/* Login reject reasons. */
#define REJ_NO_REASON		0x00010000
#define REJ_IU_TOO_LARGE	0x00010002
#define REJ_CANNOT_ASSOCIATE	0x00010003
#define REJ_BAD_FMT		0x00010004

/* IB CM REJ reason carrying an SRP_LOGIN_REJ. */
#define IB_CM_REJ_CONSUMER_DEFINED 28

#define SRP_CMD_LEN		48
#define SRP_IMM_OFFSET		68	/* what ib_srp asks for */
#define DEF_IT_IU_LEN		8260	/* ib_srp's default login size */
#define MAX_SLOTS		1024	/* QP send/receive depth */
#define RESERVED_SLOTS		4	/* send slots kept for CRED/AER_RSP */
#define DATA_LEN		(4u << 20)
#define W_OFF			0		/* write buffers */
#define R_OFF			(1u << 20)	/* read buffers */
#define S_OFF			(2u << 20)	/* scratch (INQUIRY etc.) */
#define T_OFF			(3u << 20)	/* copy of indirect tables */
#define TAG_ABSENT		0xdeadbeefcafe0001ULL

/* ---- options and reporting ---------------------------------------------- */

static struct sockaddr_in g_dst;
static uint8_t g_tgt_id[16], g_ini_id[16];
static unsigned int g_lun;
static int g_timeout_ms = 30000;
static int g_verbose;
static const char *g_case = "";
static char g_why[1024];
static uint64_t g_tag_seq = 0x5352500000000000ULL;	/* "SRP" */
static size_t g_data_len = DATA_LEN;	/* data MR per channel */

static int failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int failf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g_why, sizeof(g_why), fmt, ap);
	va_end(ap);
	return -1;
}

/* Prefix the current failure reason with some context. */
static int failctx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int failctx(const char *fmt, ...)
{
	char old[sizeof(g_why)];
	va_list ap;
	int n;

	memcpy(old, g_why, sizeof(old));
	va_start(ap, fmt);
	n = vsnprintf(g_why, sizeof(g_why), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n + 2 < sizeof(g_why)) {
		memcpy(g_why + n, ": ", 2);
		strncpy(g_why + n + 2, old, sizeof(g_why) - n - 3);
		g_why[sizeof(g_why) - 1] = 0;
	}
	return -1;
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	printf("  [%s] ", g_case);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void hexdump(const char *what, const uint8_t *p, uint32_t len)
{
	uint32_t i;

	if (!g_verbose)
		return;
	fprintf(stderr, "  %s (%u bytes):", what, len);
	for (i = 0; i < len && i < 128; i++)
		fprintf(stderr, "%s%02x", i % 16 ? " " : "\n    ", p[i]);
	fprintf(stderr, "%s\n", len > 128 ? " ..." : "");
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void put_be16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v; }
static void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, v >> 16);
	put_be16(p + 2, v);
}
static void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, v);
}
static uint16_t get_be16(const uint8_t *p) { return p[0] << 8 | p[1]; }
static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)get_be16(p) << 16 | get_be16(p + 2);
}

/* Tags are opaque: written and compared as raw host-order bytes. */
static uint64_t get_tag(const uint8_t *iu)
{
	uint64_t t;

	memcpy(&t, iu + 8, 8);
	return t;
}
static void put_tag(uint8_t *iu, uint64_t t) { memcpy(iu + 8, &t, 8); }
static uint64_t new_tag(void) { return ++g_tag_seq; }

/* ---- one RDMA/CM connection = one SRP channel ------------------------- */

struct login_req {
	uint64_t tag;
	uint16_t buf_fmt;
	uint8_t flags;
	uint8_t opcode;
	uint32_t it_iu_len;
	uint8_t ini[16];
	uint8_t tgt[16];
	uint16_t imm_off;
	uint8_t pdata_len;
};

struct iu {
	struct iu *next;
	uint32_t len;
	uint8_t buf[];
};

struct conn {
	struct rdma_event_channel *ech;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	unsigned int cq_events;
	bool have_qp;
	struct ibv_mr *data_mr, *msg_mr;
	uint8_t *data, *msg;
	size_t msg_len;
	uint8_t *sendbuf, *recvbuf;
	uint32_t send_slot, recv_slot;
	unsigned int nsend, nrecv;
	int free_send[MAX_SLOTS];
	unsigned int nfree;

	/* CM state */
	bool addr_resolved, route_resolved, established, rejected;
	bool disconnected;
	int cm_error;			/* an unexpected CM event, or 0 */
	int cm_status;
	int rej_status;			/* IB CM reject reason */
	uint8_t pdata[256];		/* private data of ESTABLISHED/REJECTED */
	uint32_t pdata_len;

	/* login result */
	uint64_t login_tag;
	uint32_t req_it_iu_len;
	int32_t req_lim, req_lim_init, req_lim_min, req_lim_max;
	uint32_t max_it, max_ti;
	uint16_t buf_fmt;
	uint8_t rsp_flags;
	uint16_t imm_off;		/* 0: no immediate data */

	/* data path */
	bool qp_error;
	enum ibv_wc_status wc_err;
	const char *wc_err_op;
	struct iu *rxq;
	unsigned int outstanding;	/* credit-consuming requests in flight */
	unsigned int n_cred_req, n_aer_req;
};

static void default_login(struct login_req *l)
{
	memset(l, 0, sizeof(*l));
	l->tag = new_tag();
	l->buf_fmt = 0x0006;
	l->flags = 0;		/* SINGLE */
	l->opcode = SRP_LOGIN_REQ;
	l->it_iu_len = DEF_IT_IU_LEN;
	memcpy(l->ini, g_ini_id, 16);
	memcpy(l->tgt, g_tgt_id, 16);
	l->pdata_len = 56;
}

static void imm_login(struct login_req *l)
{
	default_login(l);
	l->flags |= 0x80;
	l->imm_off = SRP_IMM_OFFSET;
}

static void handle_cm_events(struct conn *c)
{
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(c->ech, &ev)) {
		const void *pd = ev->param.conn.private_data;
		uint32_t len = ev->param.conn.private_data_len;

		if (g_verbose)
			fprintf(stderr, "  CM event %s status %d\n",
				rdma_event_str(ev->event), ev->status);
		switch (ev->event) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			c->addr_resolved = true;
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			c->route_resolved = true;
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
		case RDMA_CM_EVENT_REJECTED:
			if (ev->event == RDMA_CM_EVENT_ESTABLISHED) {
				c->established = true;
			} else {
				c->rejected = true;
				c->rej_status = ev->status;
			}
			if (len > sizeof(c->pdata))
				len = sizeof(c->pdata);
			c->pdata_len = pd ? len : 0;
			if (pd)
				memcpy(c->pdata, pd, c->pdata_len);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			c->disconnected = true;
			break;
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			break;
		default:
			if (!c->cm_error) {
				c->cm_error = ev->event;
				c->cm_status = ev->status;
			}
			break;
		}
		rdma_ack_cm_event(ev);
	}
}

static void post_recv(struct conn *c, unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->recvbuf + (size_t)i * c->recv_slot),
		.length = c->recv_slot,
		.lkey = c->msg_mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = (1ULL << 63) | i,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;

	if (ibv_post_recv(c->id->qp, &wr, &bad) && !c->qp_error) {
		c->qp_error = true;
		c->wc_err = IBV_WC_GENERAL_ERR;
		c->wc_err_op = "post_recv";
	}
}

static int post_send_slot(struct conn *c, const void *iu, uint32_t len);

static void on_recv(struct conn *c, unsigned int i, uint32_t len)
{
	uint8_t *buf = c->recvbuf + (size_t)i * c->recv_slot;
	struct iu *iu = malloc(sizeof(*iu) + len), **pp;
	uint8_t op = len ? buf[0] : 0xff;

	hexdump("received", buf, len);
	if (iu) {
		iu->next = NULL;
		iu->len = len;
		memcpy(iu->buf, buf, len);
		for (pp = &c->rxq; *pp; pp = &(*pp)->next)
			;
		*pp = iu;
	}
	if (len >= 8 && (op == SRP_RSP || op == SRP_CRED_REQ ||
			 op == SRP_AER_REQ)) {
		c->req_lim += (int32_t)get_be32(buf + 4);
		if (c->req_lim < c->req_lim_min)
			c->req_lim_min = c->req_lim;
		if (c->req_lim > c->req_lim_max)
			c->req_lim_max = c->req_lim;
	}
	if (op == SRP_RSP && c->outstanding)
		c->outstanding--;
	if (len >= 16 && (op == SRP_CRED_REQ || op == SRP_AER_REQ)) {
		uint8_t ans[16] = { op == SRP_CRED_REQ ? SRP_CRED_RSP :
				    SRP_AER_RSP };

		put_tag(ans, get_tag(buf));
		if (op == SRP_CRED_REQ)
			c->n_cred_req++;
		else
			c->n_aer_req++;
		if (c->nfree)
			post_send_slot(c, ans, sizeof(ans));
	}
	if (!c->disconnected && !c->qp_error)
		post_recv(c, i);
}

static int drain_cq(struct conn *c)
{
	struct ibv_wc wc[16];
	int n, i, total = 0;

	if (!c->cq)
		return 0;
	while ((n = ibv_poll_cq(c->cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			bool rx = wc[i].wr_id >> 63;
			unsigned int idx = wc[i].wr_id & 0xffffffff;

			if (wc[i].status != IBV_WC_SUCCESS) {
				if (g_verbose)
					fprintf(stderr, "  %s completion error: %s\n",
						rx ? "recv" : "send",
						ibv_wc_status_str(wc[i].status));
				if (!c->qp_error ||
				    (c->wc_err == IBV_WC_WR_FLUSH_ERR &&
				     wc[i].status != IBV_WC_WR_FLUSH_ERR)) {
					c->wc_err = wc[i].status;
					c->wc_err_op = rx ? "recv" : "send";
				}
				c->qp_error = true;
				if (!rx)
					c->free_send[c->nfree++] = idx;
				continue;
			}
			if (rx)
				on_recv(c, idx, wc[i].byte_len);
			else
				c->free_send[c->nfree++] = idx;
		}
		total += n;
	}
	return total;
}

/* Wait up to @timeout_ms for a completion or a CM event and handle it. */
static void pump(struct conn *c, int timeout_ms)
{
	struct pollfd p[2];
	int n = 0;

	if (drain_cq(c))
		return;
	p[n++] = (struct pollfd){ .fd = c->ech->fd, .events = POLLIN };
	if (c->cch)
		p[n++] = (struct pollfd){ .fd = c->cch->fd, .events = POLLIN };
	if (timeout_ms < 0)
		timeout_ms = 0;
	if (poll(p, n, timeout_ms) <= 0)
		return;
	if (p[0].revents)
		handle_cm_events(c);
	if (n > 1 && p[1].revents) {
		struct ibv_cq *cq;
		void *ctx;

		if (!ibv_get_cq_event(c->cch, &cq, &ctx)) {
			c->cq_events++;
			ibv_req_notify_cq(cq, 0);
		}
		drain_cq(c);
	}
}

static bool dead(const struct conn *c)
{
	return c->disconnected || c->qp_error || c->cm_error;
}

static const char *death(const struct conn *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s", c->disconnected ? "disconnected" : "",
		 c->disconnected && c->qp_error ? ", " : "",
		 c->qp_error ? c->wc_err_op : "",
		 c->qp_error ? " completion " : "",
		 c->qp_error ? ibv_wc_status_str(c->wc_err) : "");
	if (c->cm_error && !c->disconnected && !c->qp_error)
		snprintf(buf, len, "CM event %s status %d",
			 rdma_event_str(c->cm_error), c->cm_status);
	return buf;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void conn_close(struct conn *c)
{
	struct iu *iu;
	int64_t end;

	if (c->id && c->established) {
		rdma_disconnect(c->id);
		end = now_ms() + 5000;
		while (!c->disconnected && now_ms() < end)
			pump(c, (int)(end - now_ms()));
	}
	if (c->have_qp)
		rdma_destroy_qp(c->id);
	if (c->cq) {
		ibv_ack_cq_events(c->cq, c->cq_events);
		ibv_destroy_cq(c->cq);
	}
	if (c->cch)
		ibv_destroy_comp_channel(c->cch);
	if (c->data_mr)
		ibv_dereg_mr(c->data_mr);
	if (c->msg_mr)
		ibv_dereg_mr(c->msg_mr);
	free(c->data);
	free(c->msg);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ech)
		rdma_destroy_event_channel(c->ech);
	while ((iu = c->rxq)) {
		c->rxq = iu->next;
		free(iu);
	}
	memset(c, 0, sizeof(*c));
}

/* Wait for a CM condition; fail on timeout or an unexpected CM event. */
#define WAIT_CM(c, cond, what)						\
	do {								\
		int64_t end_ = now_ms() + g_timeout_ms;			\
		while (!(cond)) {					\
			if ((c)->cm_error)				\
				return failf("%s: CM event %s (status %d)", \
					     what,			\
					     rdma_event_str((c)->cm_error), \
					     (c)->cm_status);		\
			if (now_ms() >= end_)				\
				return failf("%s: timeout", what);	\
			pump(c, (int)(end_ - now_ms()));		\
		}							\
	} while (0)

static int alloc_buffers(struct conn *c)
{
	unsigned int i;
	int want = c->req_lim_init + 8;

	c->nsend = c->nrecv = want > MAX_SLOTS ? MAX_SLOTS : want;
	/* Room for IUs larger than MAX_IT_IU_LEN (iu-overflow). */
	c->send_slot = (c->max_it + 64 + 63) & ~63u;
	c->recv_slot = c->max_ti;
	c->msg_len = (size_t)c->nsend * c->send_slot +
		     (size_t)c->nrecv * c->recv_slot;
	c->msg = aligned_alloc(4096, (c->msg_len + 4095) & ~(size_t)4095);
	c->data = aligned_alloc(4096, g_data_len);
	if (!c->msg || !c->data)
		return failf("out of memory");
	memset(c->msg, 0, c->msg_len);
	memset(c->data, 0, g_data_len);
	c->sendbuf = c->msg;
	c->recvbuf = c->msg + (size_t)c->nsend * c->send_slot;
	c->msg_mr = ibv_reg_mr(c->pd, c->msg, c->msg_len,
			       IBV_ACCESS_LOCAL_WRITE);
	c->data_mr = ibv_reg_mr(c->pd, c->data, g_data_len,
				IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_WRITE);
	if (!c->msg_mr || !c->data_mr)
		return failf("ibv_reg_mr: %s", strerror(errno));
	for (i = 0; i < c->nsend; i++)
		c->free_send[c->nfree++] = i;
	for (i = 0; i < c->nrecv; i++)
		post_recv(c, i);
	return 0;
}

/*
 * Connect and log in. Return 1 when the target accepted the login (the
 * channel is ready), 0 when it rejected it (c->rej_status, c->pdata), -1 on
 * any other failure (g_why).
 */
static int conn_open(struct conn *c, const struct login_req *l)
{
	struct ibv_qp_init_attr qa = { 0 };
	struct rdma_conn_param cp = { 0 };
	uint8_t pd[56] = { 0 };
	const uint8_t *r;

	memset(c, 0, sizeof(*c));
	c->ech = rdma_create_event_channel();
	if (!c->ech)
		return failf("rdma_create_event_channel: %s", strerror(errno));
	if (set_nonblock(c->ech->fd))
		return failf("fcntl: %s", strerror(errno));
	if (rdma_create_id(c->ech, &c->id, c, RDMA_PS_TCP))
		return failf("rdma_create_id: %s", strerror(errno));
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&g_dst, 5000))
		return failf("rdma_resolve_addr: %s", strerror(errno));
	WAIT_CM(c, c->addr_resolved, "resolving the address");
	if (rdma_resolve_route(c->id, 5000))
		return failf("rdma_resolve_route: %s", strerror(errno));
	WAIT_CM(c, c->route_resolved, "resolving the route");

	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cch = ibv_create_comp_channel(c->id->verbs);
	if (!c->pd || !c->cch)
		return failf("PD/completion channel: %s", strerror(errno));
	if (set_nonblock(c->cch->fd))
		return failf("fcntl: %s", strerror(errno));
	c->cq = ibv_create_cq(c->id->verbs, 2 * MAX_SLOTS + 16, c, c->cch, 0);
	if (!c->cq || ibv_req_notify_cq(c->cq, 0))
		return failf("ibv_create_cq: %s", strerror(errno));
	qa.send_cq = c->cq;
	qa.recv_cq = c->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = MAX_SLOTS;
	qa.cap.max_recv_wr = MAX_SLOTS;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &qa))
		return failf("rdma_create_qp: %s", strerror(errno));
	c->have_qp = true;

	/* struct srp_login_req_rdma */
	memcpy(pd, &l->tag, 8);
	put_be16(pd + 8, l->buf_fmt);
	pd[10] = l->flags;
	pd[11] = l->opcode;
	put_be32(pd + 12, l->it_iu_len);
	memcpy(pd + 16, l->ini, 16);
	memcpy(pd + 32, l->tgt, 16);
	put_be16(pd + 48, l->imm_off);
	hexdump("login request", pd, l->pdata_len);
	cp.private_data = pd;
	cp.private_data_len = l->pdata_len;
	cp.responder_resources = 4;
	cp.initiator_depth = 0;
	cp.flow_control = 1;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	c->login_tag = l->tag;
	c->req_it_iu_len = l->it_iu_len;
	if (rdma_connect(c->id, &cp))
		return failf("rdma_connect: %s", strerror(errno));
	WAIT_CM(c, c->established || c->rejected, "login");
	hexdump(c->established ? "login response" : "login reject",
		c->pdata, c->pdata_len);
	if (c->rejected)
		return 0;

	r = c->pdata;
	if (c->pdata_len < 52 || r[0] != SRP_LOGIN_RSP)
		return failf("ESTABLISHED without SRP_LOGIN_RSP (%u bytes, opcode %#x)",
			     c->pdata_len, c->pdata_len ? r[0] : 0);
	c->req_lim = c->req_lim_init = c->req_lim_min = c->req_lim_max =
		(int32_t)get_be32(r + 4);
	c->max_it = get_be32(r + 16);
	c->max_ti = get_be32(r + 20);
	c->buf_fmt = get_be16(r + 24);
	c->rsp_flags = r[26];
	if (get_tag(r) != l->tag)
		return failf("LOGIN_RSP tag %016" PRIx64 " does not echo %016" PRIx64,
			     get_tag(r), l->tag);
	if (c->req_lim < 1)
		return failf("LOGIN_RSP grants %d credits", c->req_lim);
	if (c->max_ti < 36 || c->max_ti > 65536)
		return failf("LOGIN_RSP MAX_TI_IU_LEN %u", c->max_ti);
	/*
	 * Smaller than asked: ib_srp would only WARN and send what it asked
	 * for; a target must reject instead. Larger is harmless (we never
	 * send more than we asked for, except in iu-overflow).
	 */
	if (c->max_it < l->it_iu_len)
		return failf("LOGIN_RSP MAX_IT_IU_LEN %u for a request of %u",
			     c->max_it, l->it_iu_len);
	if (c->rsp_flags & 0x80) {
		if (!(l->flags & 0x80))
			return failf("LOGIN_RSP grants immediate data that was not requested");
		c->imm_off = l->imm_off;
	}
	if (alloc_buffers(c))
		return -1;
	return 1;
}

/* Log in with @l and insist on success. */
static int login_ok(struct conn *c, const struct login_req *l)
{
	int r = conn_open(c, l);

	if (r < 0)
		return -1;
	if (r == 0) {
		uint32_t reason = c->pdata_len >= 8 ? get_be32(c->pdata + 4) : 0;

		return failf("login rejected (CM reason %d, SRP reason %#x)",
			     c->rej_status, reason);
	}
	return 0;
}

/* ---- sending and receiving IUs ---------------------------------------- */

static int post_send_slot(struct conn *c, const void *iu, uint32_t len)
{
	unsigned int i = c->free_send[--c->nfree];
	uint8_t *buf = c->sendbuf + (size_t)i * c->send_slot;
	struct ibv_sge sge = {
		.addr = (uintptr_t)buf,
		.length = len,
		.lkey = c->msg_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = i,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (len)
		memcpy(buf, iu, len);
	hexdump("sending", buf, len);
	if (ibv_post_send(c->id->qp, &wr, &bad)) {
		c->free_send[c->nfree++] = i;
		return failf("ibv_post_send: %s", strerror(errno));
	}
	return 0;
}

/*
 * Send an IU. @credit: it consumes a request-limit credit, so wait until
 * one is available (and until a receive buffer is sure to be free for the
 * answer).
 */
static int send_iu(struct conn *c, const void *iu, uint32_t len, bool credit)
{
	int64_t end = now_ms() + g_timeout_ms;
	char d[128];

	if (len > c->send_slot)
		return failf("IU of %u bytes too big for the send buffers", len);
	while (c->nfree <= RESERVED_SLOTS ||
	       (credit && (c->req_lim <= 0 ||
			   c->outstanding + RESERVED_SLOTS >= c->nrecv))) {
		if (dead(c))
			return failf("channel died before sending: %s",
				     death(c, d, sizeof(d)));
		if (now_ms() >= end)
			return failf("no %s after %d s (req_lim %d)",
				     c->nfree <= RESERVED_SLOTS ? "send slot" : "credit",
				     g_timeout_ms / 1000, c->req_lim);
		pump(c, (int)(end - now_ms()));
	}
	if (credit) {
		c->req_lim--;
		c->outstanding++;
		if (c->req_lim < c->req_lim_min)
			c->req_lim_min = c->req_lim;
	}
	return post_send_slot(c, iu, len);
}

/* Take the first received IU that matches @tag (any tag if !@by_tag) and
 * @opcode (any if < 0). */
static struct iu *take_iu(struct conn *c, bool by_tag, uint64_t tag, int opcode)
{
	struct iu **pp, *iu;

	for (pp = &c->rxq; (iu = *pp); pp = &iu->next) {
		if (by_tag && (iu->len < 16 || get_tag(iu->buf) != tag))
			continue;
		if (opcode >= 0 && (!iu->len || iu->buf[0] != opcode))
			continue;
		*pp = iu->next;
		return iu;
	}
	return NULL;
}

/* Wait for an IU; NULL (g_why set) on timeout or when the channel died. */
static struct iu *wait_iu(struct conn *c, bool by_tag, uint64_t tag,
			  int opcode)
{
	int64_t end = now_ms() + g_timeout_ms;
	struct iu *iu;
	char d[128];

	for (;;) {
		iu = take_iu(c, by_tag, tag, opcode);
		if (iu)
			return iu;
		if (dead(c)) {
			drain_cq(c);
			iu = take_iu(c, by_tag, tag, opcode);
			if (iu)
				return iu;
			failf("no answer, channel died: %s",
			      death(c, d, sizeof(d)));
			return NULL;
		}
		if (now_ms() >= end) {
			failf("no answer after %d s", g_timeout_ms / 1000);
			return NULL;
		}
		pump(c, (int)(end - now_ms()));
	}
}

/* Wait until the target closes the channel. */
static int wait_dead(struct conn *c, bool want_disconnect)
{
	int64_t end = now_ms() + g_timeout_ms;

	while (want_disconnect ? !c->disconnected : !dead(c)) {
		if (now_ms() >= end)
			return failf("target did not %s within %d s",
				     want_disconnect ? "disconnect" :
				     "close the channel",
				     g_timeout_ms / 1000);
		pump(c, (int)(end - now_ms()));
	}
	return 0;
}

/*
 * After a case: give stray IUs a moment to arrive, then complain about
 * anything unexpected (a second response, a T_LOGOUT, ...).
 */
static int check_quiet(struct conn *c)
{
	int64_t end = now_ms() + 300;
	struct iu *iu;

	while (now_ms() < end && !dead(c))
		pump(c, (int)(end - now_ms()));
	drain_cq(c);
	while ((iu = c->rxq)) {
		c->rxq = iu->next;
		if (iu->len && (iu->buf[0] == SRP_CRED_REQ ||
				iu->buf[0] == SRP_AER_REQ)) {
			free(iu);
			continue;
		}
		failf("unexpected IU: opcode %#x, %u bytes, tag %016" PRIx64,
		      iu->len ? iu->buf[0] : 0, iu->len,
		      iu->len >= 16 ? get_tag(iu->buf) : 0);
		free(iu);
		return -1;
	}
	return 0;
}

/* ---- SRP_RSP and SCSI helpers ----------------------------------------- */

struct rsp {
	uint8_t flags, status;
	int32_t delta;
	uint32_t do_resid, di_resid, sense_len, resp_len, len;
	uint8_t resp[64];
	uint8_t sense[256];
};

static int parse_rsp(const struct iu *iu, uint64_t tag, struct rsp *r)
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
	if (!(r->flags & RSP_RSPVALID) && r->resp_len)
		return failf("SRP_RSP resp_data_len %u without RSPVALID",
			     r->resp_len);
	if (!(r->flags & RSP_SNSVALID) && r->sense_len)
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

static int sense_key(const struct rsp *r)
{
	uint8_t code = r->sense[0] & 0x7f;

	if (!(r->flags & RSP_SNSVALID) || r->sense_len < 3)
		return -1;
	if (code == 0x70 || code == 0x71)
		return r->sense[2] & 0xf;
	if (code == 0x72 || code == 0x73)
		return r->sense[1] & 0xf;
	return -1;
}

static void sense_asc(const struct rsp *r, int *asc, int *ascq)
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

static const char *rsp_str(const struct rsp *r, char *buf, size_t len)
{
	int asc, ascq;

	sense_asc(r, &asc, &ascq);
	snprintf(buf, len, "status %#x flags %#x di_resid %u do_resid %u sense key %d asc/ascq %#x/%#x",
		 r->status, r->flags, r->di_resid, r->do_resid, sense_key(r),
		 asc, ascq);
	return buf;
}

/* Send a request IU (credit) and wait for its SRP_RSP. */
static int exec_iu(struct conn *c, const uint8_t *iu, uint32_t len,
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
static uint32_t cmd_hdr(uint8_t *iu, const uint8_t *cdb, unsigned int cdb_len)
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

static uint32_t put_desc(uint8_t *p, uint64_t va, uint32_t rkey, uint32_t len)
{
	put_be64(p, va);
	put_be32(p + 8, rkey);
	put_be32(p + 12, len);
	return 16;
}

static uint64_t va_of(struct conn *c, uint32_t off)
{
	return (uintptr_t)(c->data + off);
}

struct seg {
	uint32_t off, len;
};

enum layout { DIRECT = 1, INDIRECT = 2, IMMEDIATE = 3 };

/*
 * Build an SRP_CMD with data buffers in the data MR: one direct descriptor,
 * an indirect table with every segment inline (and a copy of the table in
 * the MR for the table descriptor), or immediate data (the bytes of the
 * segments copied to the negotiated offset).
 */
static uint32_t build_data_cmd(struct conn *c, uint8_t *iu, const uint8_t *cdb,
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
static int data_cmd(struct conn *c, const uint8_t *cdb, unsigned int cdb_len,
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
static int nodata_cmd(struct conn *c, const uint8_t *cdb, unsigned int cdb_len,
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

static int tur_good(struct conn *c)
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

static int read_capacity(struct conn *c, uint64_t *blocks, uint32_t *bs)
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

static void rw10_cdb(uint8_t *cdb, bool write, uint32_t lba, uint16_t nblk)
{
	memset(cdb, 0, 10);
	cdb[0] = write ? 0x2a : 0x28;
	put_be32(cdb + 2, lba);
	put_be16(cdb + 7, nblk);
}

/* WRITE(10) or READ(10) with the given layout; expects GOOD, no residual. */
static int rw(struct conn *c, bool write, uint32_t lba, uint16_t nblk,
	      enum layout lay, const struct seg *s, int n)
{
	uint8_t cdb[10];
	struct rsp r;
	char b[160];

	rw10_cdb(cdb, write, lba, nblk);
	if (data_cmd(c, cdb, 10, write, lay, s, n, &r))
		return failctx("%s(10)", write ? "WRITE" : "READ");
	if (r.status || r.flags & (RSP_DIUNDER | RSP_DIOVER | RSP_DOUNDER |
				   RSP_DOOVER))
		return failf("%s(10) of %u blocks: %s", write ? "WRITE" : "READ",
			     nblk, rsp_str(&r, b, sizeof(b)));
	return 0;
}

static uint64_t g_rand = 88172645463325252ULL;

static void fill_random(uint8_t *p, size_t len)
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
static int compare_segs(struct conn *c, const struct seg *s, int n,
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
	if (r.status != 0x02 || !(r.flags & RSP_SNSVALID) || sense_key(&r) != 5)
		return failf("%s: %s, want CHECK CONDITION with ILLEGAL REQUEST sense",
			     what, rsp_str(&r, b, sizeof(b)));
	if (r.flags & (RSP_DIUNDER | RSP_DIOVER | RSP_DOUNDER | RSP_DOOVER))
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

/* A partial inline list: the table would have to be fetched (ib_srp
 * allow_ext_sg=1). Doing that is allowed, so accept CHECK CONDITION
 * or a correct execution. */
static int m_indirect_ext(struct conn *c)
{
	uint8_t iu[256];
	uint32_t len;
	struct rsp r;
	char b[160];
	int i;

	/* count 1 inline, table of 4 x 1024 in the MR */
	len = indirect_iu(c, iu, 1, 64, 4096, 1, 1024);
	for (i = 1; i < 4; i++)
		put_desc(c->data + T_OFF + 16 * i,
			 va_of(c, R_OFF + i * 1024), c->data_mr->rkey, 1024);
	if (exec_iu(c, iu, len, &r))
		return failctx("indirect: 1 inline of a 4-entry table");
	if (r.status == 0) {
		note("partial inline table fetched and executed");
	} else if (r.status != 2 || sense_key(&r) != 5) {
		return failf("indirect with an external table: %s",
			     rsp_str(&r, b, sizeof(b)));
	} else {
		note("indirect: 1 inline of a 4-entry table -> CHECK CONDITION, ILLEGAL REQUEST");
	}
	return tur_good(c);
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

/* After a refused login the target must still accept a valid one. */
static int relogin(void)
{
	struct login_req l;
	struct conn c;
	int ret;

	default_login(&l);
	ret = login_ok(&c, &l);
	if (!ret)
		ret = tur_good(&c);
	conn_close(&c);
	return ret ? failctx("valid login afterwards") : 0;
}

/* @want: the SRP_LOGIN_REJ reason required, or 0 for any rejection. */
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
		if (want) {
			ret = failf("REJ (CM reason %d) without SRP_LOGIN_REJ (%u bytes, opcode %#x)",
				    c.rej_status, c.pdata_len,
				    c.pdata_len ? c.pdata[0] : 0);
			conn_close(&c);
			return ret;
		}
		note("rejected (CM reason %d) without an SRP_LOGIN_REJ",
		     c.rej_status);
		conn_close(&c);
		return relogin();
	}
	reason = get_be32(c.pdata + 4);
	note("SRP_LOGIN_REJ reason %#x, BUF_FMT %#x, tag %016" PRIx64,
	     reason, get_be16(c.pdata + 24), get_tag(c.pdata));
	if (want && reason != want)
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
	return expect_rej(&l, REJ_CANNOT_ASSOCIATE, true);
}

static int case_login_iu_too_big(void)
{
	struct login_req l;

	default_login(&l);
	l.it_iu_len = 1u << 20;
	return expect_rej(&l, REJ_IU_TOO_LARGE, true);
}

static int case_login_iu_too_small(void)
{
	struct login_req l;

	default_login(&l);
	l.it_iu_len = 32;
	return expect_rej(&l, 0, true);
}

static int case_login_bad_fmt(void)
{
	struct login_req l;

	default_login(&l);
	l.buf_fmt = 0x0008;
	return expect_rej(&l, REJ_BAD_FMT, true);
}

static int case_login_short_pdata(void)
{
	struct login_req l;

	default_login(&l);
	l.pdata_len = 8;	/* only the tag; the CM pads with zeroes */
	return expect_rej(&l, 0, false);
}

static int case_login_wrong_opcode(void)
{
	struct login_req l;

	default_login(&l);
	l.opcode = SRP_CMD;
	return expect_rej(&l, 0, false);
}

static int case_login_bad_multichannel(void)
{
	struct login_req l;

	default_login(&l);
	l.flags = 3;		/* reserved multichannel action */
	return expect_rej(&l, 0, true);
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
	} else if (got < 255 && !(r.flags & RSP_DIUNDER)) {
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

/* RDMA WRITE with a wrong rkey: an error status or a closed channel. */
static int case_bad_rkey(void)
{
	struct login_req l;
	struct conn c;
	uint8_t iu[64], cdb[10];
	struct iu *a;
	struct rsp r;
	uint32_t len;
	char b[160];
	int ret;

	default_login(&l);
	ret = login_ok(&c, &l);
	if (ret)
		goto out;
	rw10_cdb(cdb, false, 0, 8);
	len = cmd_hdr(iu, cdb, 10);
	iu[5] = DIRECT;
	len += put_desc(iu + len, va_of(&c, R_OFF),
			c.data_mr->rkey ^ 0x00ffff00, 4096);
	ret = send_iu(&c, iu, len, true);
	if (ret)
		goto out;
	a = wait_iu(&c, true, get_tag(iu), -1);
	if (a) {
		ret = parse_rsp(a, get_tag(iu), &r);
		free(a);
		if (ret)
			goto out;
		if (r.status == 0) {
			ret = failf("READ into a wrong rkey answered GOOD");
			goto out;
		}
		note("answered %s", rsp_str(&r, b, sizeof(b)));
		ret = tur_good(&c);
		if (!ret)
			ret = check_quiet(&c);
		goto out;
	}
	if (!dead(&c)) {
		ret = failf("no answer and no disconnect: %s", g_why);
		goto out;
	}
	note("channel died: %s", death(&c, b, sizeof(b)));
	ret = wait_dead(&c, true);
	if (!ret)
		note("target disconnected");
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
	if (!(r.flags & RSP_RSPVALID) || r.resp_len != 4)
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
	    tm(c, 0x08, ~0ULL, 0x00, "LOGICAL UNIT RESET"))
		return -1;
	/* The LU reset leaves a unit attention; tur_good consumes it. */
	return tur_good(c);
}
static int case_tsk_mgmt(void) { return with_channel(false, m_tsk_mgmt); }

static int m_tsk_mgmt_short(struct conn *c)
{
	uint8_t iu[48] = { SRP_TSK_MGMT };
	struct rsp r;

	put_tag(iu, new_tag());
	iu[30] = 0x01;
	if (exec_iu(c, iu, 20, &r))
		return failctx("SRP_TSK_MGMT of 20 bytes");
	if (!(r.flags & RSP_RSPVALID) || r.resp_len != 4 || r.resp[3] == 0)
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
	if (r.status || !(r.flags & RSP_DIUNDER) || r.di_resid != 4096)
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
	if (r.status == 0 && (!(r.flags & RSP_DIOVER) || r.di_resid != 3072))
		return failf("READ(10) 4 KiB into 1 KiB: %s; want DIOVER, residual 3072",
			     rsp_str(&r, b, sizeof(b)));
	if (r.status && (r.status != 2 || sense_key(&r) != 5))
		return failf("READ(10) 4 KiB into 1 KiB: %s", rsp_str(&r, b, sizeof(b)));

	/* WRITE 4096 bytes from a 1024-byte buffer. */
	rw10_cdb(cdb, true, 0, 8);
	if (data_cmd(c, cdb, 10, true, DIRECT, &s, 1, &r))
		return failctx("WRITE(10) 4 KiB from 1 KiB");
	note("WRITE(10) 4 KiB from 1 KiB -> %s", rsp_str(&r, b, sizeof(b)));
	if (r.status == 0 && (!(r.flags & RSP_DOOVER) || r.do_resid != 3072))
		return failf("WRITE(10) 4 KiB from 1 KiB: %s; want DOOVER, residual 3072, or CHECK CONDITION",
			     rsp_str(&r, b, sizeof(b)));
	if (r.status && (r.status != 2 || sense_key(&r) != 5))
		return failf("WRITE(10) 4 KiB from 1 KiB: %s", rsp_str(&r, b, sizeof(b)));
	return tur_good(c);
}
static int case_residuals(void) { return with_channel(false, m_residuals); }

/* SINGLE, then MULTI (kept: result 2), then SINGLE (result 1, the other
 * two channels of the I_T nexus are disconnected). */
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
	ret = wait_dead(&a, true);
	if (!ret)
		ret = wait_dead(&b, true);
	if (ret) {
		failctx("the channels of the SINGLE login's nexus");
		goto out;
	}
	note("MULTI -> result 2, SINGLE -> result 1, old channels disconnected");
	ret = tur_good(&c);
out:
	conn_close(&c);
	conn_close(&b);
	conn_close(&a);
	return ret;
}

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

static unsigned int g_rounds = 20, g_channels = 4;
static const char *g_stop_file;
static bool g_hold;

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

static int case_login_storm(void)
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
 * descriptor each, all to LBA 0) for --rounds seconds, then log out with
 * all of them outstanding. The target has to RDMA READ each one; when its
 * send queue holds fewer of those transfers than it grants credits, the
 * rest wait for room, and the logout (or a close from the target side:
 * TPG disabled, ACL removed, which also ends the flood) finds them
 * waiting. Fails if the login fails, if no write is ever answered, or if
 * the target answers nothing for --timeout while the channel is up.
 */
#define FLOOD_LEN	(1u << 20)

static int case_flood(void)
{
	unsigned long sent = 0, answered = 0, not_good = 0;
	int64_t end, last;
	struct seg s = { W_OFF, FLOOD_LEN };
	struct login_req l;
	uint8_t iu[64], cdb[10];
	struct conn c;
	struct iu *a;
	int ret;

	default_login(&l);
	ret = login_ok(&c, &l);
	if (!ret)
		ret = tur_good(&c);
	if (ret)
		goto out;
	fill_random(c.data + W_OFF, FLOOD_LEN);
	rw10_cdb(cdb, true, 0, FLOOD_LEN / 512);
	end = now_ms() + (int64_t)g_rounds * 1000;
	last = now_ms();
	while (now_ms() < end && !dead(&c)) {
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
				answered++;
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

struct tcase {
	const char *name;
	int (*fn)(void);
	const char *what;
};

static const struct tcase cases[] = {
	{ "login-ok", case_login_ok, "valid login, sane LOGIN_RSP, TUR" },
	{ "login-bad-target-id", case_login_bad_target_id, "wrong target port ID -> REJ 0x00010003" },
	{ "login-iu-too-big", case_login_iu_too_big, "REQ_IT_IU_LEN 1 MiB -> REJ 0x00010002" },
	{ "login-iu-too-small", case_login_iu_too_small, "REQ_IT_IU_LEN 32 -> REJ" },
	{ "login-bad-fmt", case_login_bad_fmt, "REQ_BUF_FMT 0x0008 -> REJ 0x00010004" },
	{ "login-short-private-data", case_login_short_pdata, "8 bytes of private data -> REJ" },
	{ "login-wrong-opcode", case_login_wrong_opcode, "opcode 0x02 in the login -> REJ" },
	{ "login-bad-multichannel", case_login_bad_multichannel, "multichannel action 3 -> REJ" },
	{ "inquiry", case_inquiry, "INQUIRY 255 bytes, header, DIUNDER residual" },
	{ "write-read-direct", case_write_read_direct, "WRITE/READ(10) via direct descriptors" },
	{ "write-read-indirect", case_write_read_indirect, "WRITE/READ(10) via scattered inline indirect tables" },
	{ "write-immediate", case_write_immediate, "WRITE(10) with immediate data (SRP-2)" },
	{ "zero-length", case_zero_length, "0-byte transfers with 0-byte descriptors" },
	{ "residuals", case_residuals, "descriptor lengths != CDB: residuals, no overrun" },
	{ "bad-truncated", case_bad_truncated, "SRP_CMD of 40 bytes" },
	{ "bad-direct-cut", case_bad_direct_cut, "direct descriptor cut off" },
	{ "bad-indirect-count", case_bad_indirect_count, "indirect: count vs table length vs IU" },
	{ "bad-indirect-ext", case_bad_indirect_ext, "indirect: partial inline list (external table)" },
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
	{ "tsk-mgmt", case_tsk_mgmt, "ABORT TASK unknown tag, function 0x20, LUN RESET" },
	{ "tsk-mgmt-short", case_tsk_mgmt_short, "SRP_TSK_MGMT of 20 bytes -> failure code" },
	{ "unknown-iu", case_unknown_iu, "IU opcode 0x7f -> SRP_T_LOGOUT + disconnect" },
	{ "empty-iu", case_empty_iu, "IU of 0 bytes -> SRP_T_LOGOUT + disconnect" },
	{ "unsolicited-cred-rsp", case_unsolicited_cred_rsp, "SRP_CRED_RSP without CRED_REQ" },
	{ "iu-overflow", case_iu_overflow, "IU longer than MAX_IT_IU_LEN -> disconnect" },
	{ "multichannel", case_multichannel, "SINGLE, MULTI (kept), SINGLE (terminates both)" },
	{ "credits", case_credits, "req_lim commands back to back" },
	{ "i-logout", case_i_logout, "SRP_I_LOGOUT -> disconnect" },
	{ "login-storm", case_login_storm, "(not in all) --rounds x --channels logins, refusals and drops tolerated, no hang" },
	{ "flood", case_flood, "(not in all) every credit busy with 1 MiB writes for --rounds seconds, then log out" },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* "all" is every case but the login storm and the flood, tools for other
 * scenarios. */
static bool in_all(const struct tcase *t)
{
	return t->fn != case_login_storm && t->fn != case_flood;
}

static int parse_hex(const char *s, uint8_t *out, size_t n)
{
	size_t i;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned int v;

		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = v;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: srp-client --dest IP:PORT --id-ext HEX16 --ioc-guid HEX16\n"
		"                  --initiator-id HEX32 [--lun N] [--timeout SECS] [-v]\n"
		"                  [--xfail CASE]... CASE... | all\n"
		"                  [--rounds N] [--channels N] [--stop-file PATH] [--hold]\n"
		"       srp-client --list\n"
		"--xfail CASE: a known failure; prints XFAIL (not counted) or XPASS\n"
		"(counted as a failure: the marker is stale).\n"
		"--rounds/--channels/--stop-file: for login-storm (default 20 x 4);\n"
		"--rounds: seconds for flood.\n");
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

int main(int argc, char **argv)
{
	bool have_dest = false, have_ext = false, have_ioc = false,
	     have_ini = false;
	const char *sel[NCASES * 2];
	int nsel = 0, failed = 0, i;
	size_t k;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--list")) {
			for (k = 0; k < NCASES; k++)
				printf("%-26s %s\n", cases[k].name, cases[k].what);
			return 0;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			g_verbose = 1;
		} else if (!strcmp(a, "--hold")) {
			g_hold = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (a[0] == '-' && a[1] == '-' && !v) {
			fprintf(stderr, "srp-client: %s needs a value\n", a);
			return 2;
		} else if (!strcmp(a, "--dest")) {
			char host[64];
			const char *colon = strrchr(v, ':');

			i++;
			if (!colon || colon - v >= (long)sizeof(host)) {
				fprintf(stderr, "srp-client: --dest wants IP:PORT\n");
				return 2;
			}
			memcpy(host, v, colon - v);
			host[colon - v] = 0;
			g_dst.sin_family = AF_INET;
			g_dst.sin_port = htons(atoi(colon + 1));
			if (inet_pton(AF_INET, host, &g_dst.sin_addr) != 1) {
				fprintf(stderr, "srp-client: bad IPv4 address %s\n", host);
				return 2;
			}
			have_dest = true;
		} else if (!strcmp(a, "--id-ext")) {
			i++;
			have_ext = !parse_hex(v, g_tgt_id, 8);
		} else if (!strcmp(a, "--ioc-guid")) {
			i++;
			have_ioc = !parse_hex(v, g_tgt_id + 8, 8);
		} else if (!strcmp(a, "--initiator-id")) {
			i++;
			have_ini = !parse_hex(v, g_ini_id, 16);
		} else if (!strcmp(a, "--lun")) {
			i++;
			g_lun = strtoul(v, NULL, 0);
		} else if (!strcmp(a, "--xfail")) {
			i++;
			if (g_nxfail < NCASES)
				g_xfail[g_nxfail++] = v;
		} else if (!strcmp(a, "--timeout")) {
			i++;
			g_timeout_ms = atoi(v) * 1000;
		} else if (!strcmp(a, "--rounds")) {
			i++;
			g_rounds = strtoul(v, NULL, 0);
		} else if (!strcmp(a, "--channels")) {
			i++;
			g_channels = strtoul(v, NULL, 0);
		} else if (!strcmp(a, "--stop-file")) {
			i++;
			g_stop_file = v;
		} else if (a[0] == '-') {
			fprintf(stderr, "srp-client: unknown option %s\n", a);
			usage(stderr);
			return 2;
		} else if (!strcmp(a, "all")) {
			for (k = 0; k < NCASES && nsel < (int)(NCASES * 2); k++)
				if (in_all(&cases[k]))
					sel[nsel++] = cases[k].name;
		} else {
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
	}
	if (!have_dest || !have_ext || !have_ioc || !have_ini || !nsel ||
	    g_timeout_ms <= 0 || g_lun > 16383) {
		if (!have_ext || !have_ioc)
			fprintf(stderr, "srp-client: --id-ext/--ioc-guid want 16 hex digits\n");
		if (!have_ini)
			fprintf(stderr, "srp-client: --initiator-id wants 32 hex digits\n");
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
