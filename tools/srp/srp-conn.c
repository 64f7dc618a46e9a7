// SPDX-License-Identifier: GPL-2.0
/*
 * srp-conn - connection layer of the raw SRP initiator (see srp-conn.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "srp-conn.h"

/* ---- options and reporting ---------------------------------------------- */

struct sockaddr_in g_dst;
uint8_t g_tgt_id[16], g_ini_id[16];
unsigned int g_lun;
int g_timeout_ms = 30000;
int g_verbose;
const char *g_case = "";
char g_why[1024];
uint64_t g_tag_seq = 0x5352500000000000ULL;	/* "SRP" */
size_t g_data_len = DATA_LEN;	/* data MR per channel */
int64_t g_open_ms, g_close_ms;
int64_t g_open_phase_ms[OPEN_PHASES];
static int64_t g_open_mark;

/* conn_open() got through @phase: its time since the last mark. */
static void open_phase(int phase)
{
	int64_t t = now_ms();

	g_open_phase_ms[phase] += t - g_open_mark;
	g_open_mark = t;
}

int failf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g_why, sizeof(g_why), fmt, ap);
	va_end(ap);
	return -1;
}

/* Prefix the current failure reason with some context. */
int failctx(const char *fmt, ...)
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

void note(const char *fmt, ...)
{
	va_list ap;

	printf("  [%s] ", g_case);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void hexdump(const char *what, const uint8_t *p, uint32_t len)
{
	uint32_t i;

	if (!g_verbose)
		return;
	fprintf(stderr, "  %s (%u bytes):", what, len);
	for (i = 0; i < len && i < 128; i++)
		fprintf(stderr, "%s%02x", i % 16 ? " " : "\n    ", p[i]);
	fprintf(stderr, "%s\n", len > 128 ? " ..." : "");
}

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}


void default_login(struct login_req *l)
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

void imm_login(struct login_req *l)
{
	default_login(l);
	l->flags |= SRP_IMMED_REQUESTED;
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
		if (op == SRP_CRED_REQ && c->hold_cred_rsp) {
			c->n_held++;
			c->held_tag = get_tag(buf);
		} else if (c->nfree)
			post_send_slot(c, ans, sizeof(ans));
	}
	if (!c->disconnected && !c->qp_error)
		post_recv(c, i);
}

int drain_cq(struct conn *c)
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
void pump(struct conn *c, int timeout_ms)
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

bool dead(const struct conn *c)
{
	return c->disconnected || c->qp_error || c->cm_error;
}

const char *death(const struct conn *c, char *buf, size_t len)
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

/*
 * With g_reuse_bufs, connections share one PD and a closed connection's
 * registered buffers wait here for the next one: on the debug kernel a
 * login spent a third of its time allocating, faulting in and registering
 * a fresh 4 MiB data buffer. A data buffer is only taken again for the
 * same size (the target must find exactly the bytes it was given), a
 * message buffer for at least the size; both are zeroed again, as new.
 */
bool g_reuse_bufs;
#define SPARE_MAX	(8u << 20)	/* larger ones are freed */
static struct ibv_pd *g_pd;
static struct spare {
	uint8_t *buf;
	struct ibv_mr *mr;		/* its length is the buffer's */
	int access;
} g_spares[8];
static unsigned int g_nspares;

static struct ibv_pd *conn_pd(struct conn *c)
{
	if (!g_reuse_bufs)
		return ibv_alloc_pd(c->id->verbs);
	if (!g_pd || g_pd->context != c->id->verbs)
		g_pd = ibv_alloc_pd(c->id->verbs);	/* one device per run */
	return g_pd;
}

/* A kept buffer of @len (or more, if !@exact) registered with @access. */
static uint8_t *take_spare(struct conn *c, size_t len, bool exact, int access,
			   struct ibv_mr **mr)
{
	struct spare *s;
	uint8_t *buf;
	unsigned int i;

	for (i = 0; i < g_nspares; i++) {
		s = &g_spares[i];
		if (s->mr->pd != c->pd || s->access != access ||
		    s->mr->length < len || (exact && s->mr->length != len))
			continue;
		buf = s->buf;
		*mr = s->mr;
		*s = g_spares[--g_nspares];
		return buf;
	}
	return NULL;
}

/* A zeroed buffer of @len (or more, if !@exact) registered with @access. */
static uint8_t *get_buf(struct conn *c, size_t len, bool exact, int access,
			struct ibv_mr **mr)
{
	uint8_t *buf = take_spare(c, len, exact, access, mr);

	if (!buf) {
		buf = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
		if (!buf)
			return NULL;
		*mr = ibv_reg_mr(c->pd, buf, len, access);
		if (!*mr) {
			free(buf);
			return NULL;
		}
	}
	memset(buf, 0, len);
	return buf;
}

/* Keep @buf for a later connection, or free it. */
static void put_buf(uint8_t *buf, struct ibv_mr *mr, int access)
{
	if (g_reuse_bufs && mr->pd == g_pd && mr->length <= SPARE_MAX &&
	    g_nspares < sizeof(g_spares) / sizeof(g_spares[0])) {
		g_spares[g_nspares++] = (struct spare){ buf, mr, access };
		return;
	}
	ibv_dereg_mr(mr);
	free(buf);
}

#define MSG_ACCESS	IBV_ACCESS_LOCAL_WRITE
#define DATA_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_WRITE)

void conn_close(struct conn *c)
{
	int64_t end, t0 = now_ms();
	struct iu *iu;

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
	if (c->data)
		put_buf(c->data, c->data_mr, DATA_ACCESS);
	if (c->msg)
		put_buf(c->msg, c->msg_mr, MSG_ACCESS);
	if (c->pd && c->pd != g_pd)
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
	g_close_ms += now_ms() - t0;
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
	c->msg = get_buf(c, c->msg_len, false, MSG_ACCESS, &c->msg_mr);
	c->data = get_buf(c, g_data_len, true, DATA_ACCESS, &c->data_mr);
	if (!c->msg || !c->data)
		return failf("buffers: %s", strerror(errno));
	c->sendbuf = c->msg;
	c->recvbuf = c->msg + (size_t)c->nsend * c->send_slot;
	for (i = 0; i < c->nsend; i++)
		c->free_send[c->nfree++] = i;
	for (i = 0; i < c->nrecv; i++)
		post_recv(c, i);
	return 0;
}

void login_pdata(const struct login_req *l, uint8_t pd[56])
{
	memcpy(pd, &l->tag, 8);
	put_be16(pd + 8, l->buf_fmt);
	pd[10] = l->flags;
	pd[11] = l->opcode;
	put_be32(pd + 12, l->it_iu_len);
	memcpy(pd + 16, l->ini, 16);
	memcpy(pd + 32, l->tgt, 16);
	put_be16(pd + 48, l->imm_off);
	memcpy(pd + 50, l->rsvd, 6);
}

/* The LOGIN_RSP of an accepted login: what it grants, checked. */
static int take_login_rsp(struct conn *c, const struct login_req *l)
{
	const uint8_t *r = c->pdata;

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
	if (c->rsp_flags & SRP_LOGIN_RSP_IMMED_SUPP) {
		if (!(l->flags & SRP_IMMED_REQUESTED))
			return failf("LOGIN_RSP grants immediate data that was not requested");
		c->imm_off = l->imm_off;
	}
	return 0;
}

/*
 * Connect and log in. Return 1 when the target accepted the login (the
 * channel is ready), 0 when it rejected it (c->rej_status, c->pdata), -1 on
 * any other failure (g_why).
 */
static int conn_login(struct conn *c, const struct login_req *l);

int conn_open(struct conn *c, const struct login_req *l)
{
	int64_t t0 = now_ms();
	int ret = conn_login(c, l);

	g_open_ms += now_ms() - t0;
	return ret;
}

/* conn_open() without its timing. */
static int conn_login(struct conn *c, const struct login_req *l)
{
	struct ibv_qp_init_attr qa = { 0 };
	struct rdma_conn_param cp = { 0 };
	uint8_t pd[56] = { 0 };

	memset(c, 0, sizeof(*c));
	g_open_mark = now_ms();
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
	open_phase(OPEN_RESOLVE);

	c->pd = conn_pd(c);
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
	open_phase(OPEN_VERBS);

	login_pdata(l, pd);
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
	open_phase(OPEN_LOGIN);
	hexdump(c->established ? "login response" : "login reject",
		c->pdata, c->pdata_len);
	if (c->rejected)
		return 0;

	if (take_login_rsp(c, l) || alloc_buffers(c))
		return -1;
	open_phase(OPEN_BUFFERS);
	return 1;
}

/* Log in with @l and insist on success. */
int login_ok(struct conn *c, const struct login_req *l)
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
int send_iu(struct conn *c, const void *iu, uint32_t len, bool credit)
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
struct iu *take_iu(struct conn *c, bool by_tag, uint64_t tag, int opcode)
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
struct iu *wait_iu(struct conn *c, bool by_tag, uint64_t tag,
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
int wait_dead(struct conn *c, bool want_disconnect)
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
int check_quiet(struct conn *c)
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

/* ---- common options ----------------------------------------------------- */

int parse_hex(const char *s, uint8_t *out, size_t n)
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

static bool have_dest, have_ext, have_ioc, have_ini;

static int parse_dest(const char *prog, const char *v)
{
	const char *colon = strrchr(v, ':');
	char host[64];

	if (!colon || colon - v >= (long)sizeof(host)) {
		fprintf(stderr, "%s: --dest wants IP:PORT\n", prog);
		return -1;
	}
	memcpy(host, v, colon - v);
	host[colon - v] = 0;
	g_dst.sin_family = AF_INET;
	g_dst.sin_port = htons(atoi(colon + 1));
	if (inet_pton(AF_INET, host, &g_dst.sin_addr) != 1) {
		fprintf(stderr, "%s: bad IPv4 address %s\n", prog, host);
		return -1;
	}
	have_dest = true;
	return 0;
}

int conn_opt(const char *prog, int opt, const char *arg)
{
	switch (opt) {
	case 'v':
		g_verbose = 1;
		break;
	case CONN_OPT_DEST:
		return parse_dest(prog, arg) ? -1 : 1;
	case CONN_OPT_ID_EXT:
		have_ext = !parse_hex(arg, g_tgt_id, 8);
		break;
	case CONN_OPT_IOC_GUID:
		have_ioc = !parse_hex(arg, g_tgt_id + 8, 8);
		break;
	case CONN_OPT_INITIATOR_ID:
		have_ini = !parse_hex(arg, g_ini_id, 16);
		break;
	case CONN_OPT_LUN:
		g_lun = strtoul(arg, NULL, 0);
		break;
	case CONN_OPT_TIMEOUT:
		g_timeout_ms = atoi(arg) * 1000;
		break;
	default:
		return 0;
	}
	return 1;
}

const char *conn_opt_name(const struct option *opts, int val)
{
	for (; opts->name; opts++)
		if (opts->val == val)
			return opts->name;
	return "?";
}

bool conn_opts_ok(const char *prog)
{
	if (!have_ext || !have_ioc)
		fprintf(stderr, "%s: --id-ext/--ioc-guid want 16 hex digits\n",
			prog);
	if (!have_ini)
		fprintf(stderr, "%s: --initiator-id wants 32 hex digits\n",
			prog);
	return have_dest && have_ext && have_ioc && have_ini &&
	       g_timeout_ms > 0 && g_lun <= 16383;
}
