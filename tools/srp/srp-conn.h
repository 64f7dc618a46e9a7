/* SPDX-License-Identifier: GPL-2.0 */
/*
 * srp-conn - the raw SRP initiator's connection layer, shared by
 * tools/srp-client.c and tools/srp-fuzz.c: SRP constants, byte helpers,
 * reporting, one RDMA/CM connection = one SRP channel (login with the
 * 56-byte struct srp_login_req_rdma, like Linux ib_srp) and credit-aware
 * IU send/receive.
 *
 * Written from the SRP specification (T10 SRP r16a, INCITS 365-2002), not
 * from the target's code: it must not include srpt_proto.h, so that the
 * tests do not check the target against itself.
 */
#ifndef SRP_CONN_H
#define SRP_CONN_H

#include <getopt.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/*
 * The spec's numbers - IU types, buffer and descriptor formats, login and
 * SRP_RSP flags, login reject reasons, task management functions - come
 * from the kernel's <scsi/srp.h>, as copied for tests/unit (which builds
 * the target's parser against it), so that they are stated once. Only its
 * constants are used: IUs are encoded and decoded here byte by byte at the
 * spec's offsets, never through its structures.
 */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#define __packed	__attribute__((__packed__))
#define __aligned(x)	__attribute__((__aligned__(x)))
#include "../../tests/unit/shim/scsi/srp.h"

/* SRP_RSP flags that report a residual. */
#define SRP_RSP_RESID_FLAGS (SRP_RSP_FLAG_DIUNDER | SRP_RSP_FLAG_DIOVER | \
			     SRP_RSP_FLAG_DOUNDER | SRP_RSP_FLAG_DOOVER)

/* Bit of a login reject reason in a mask of allowed ones. */
#define REJ_BIT(reason)	(1u << ((reason) - SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL))

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

extern struct sockaddr_in g_dst;
extern uint8_t g_tgt_id[16], g_ini_id[16];
extern unsigned int g_lun;
extern int g_timeout_ms;
extern int g_verbose;
extern const char *g_case;
extern char g_why[1024];
extern uint64_t g_tag_seq;
extern size_t g_data_len;
/* Time spent in conn_open() and conn_close() so far, every call. */
extern int64_t g_open_ms, g_close_ms;
/*
 * conn_open()'s time by phase (the phases a call got through): address
 * and route resolution, PD/CQ/QP, the login (connect to ESTABLISHED or
 * REJECTED), the buffers of an accepted login (their MRs).
 */
enum { OPEN_RESOLVE, OPEN_VERBS, OPEN_LOGIN, OPEN_BUFFERS, OPEN_PHASES };
extern int64_t g_open_phase_ms[OPEN_PHASES];
/* Connections share a PD and reuse closed ones' buffers (srp-conn.c). */
extern bool g_reuse_bufs;
int failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int failctx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hexdump(const char *what, const uint8_t *p, uint32_t len);
int64_t now_ms(void);

static inline void put_be16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v; }
static inline void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, v >> 16);
	put_be16(p + 2, v);
}
static inline void put_be64(uint8_t *p, uint64_t v)
{
	put_be32(p, v >> 32);
	put_be32(p + 4, v);
}
static inline uint16_t get_be16(const uint8_t *p) { return p[0] << 8 | p[1]; }
static inline uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)get_be16(p) << 16 | get_be16(p + 2);
}
static inline uint64_t get_be64(const uint8_t *p)
{
	return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

/* Tags are opaque: written and compared as raw host-order bytes. */
static inline uint64_t get_tag(const uint8_t *iu)
{
	uint64_t t;

	memcpy(&t, iu + 8, 8);
	return t;
}
static inline void put_tag(uint8_t *iu, uint64_t t) { memcpy(iu + 8, &t, 8); }
static inline uint64_t new_tag(void) { return ++g_tag_seq; }

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
	uint8_t rsvd[6];	/* bytes 50-55, reserved: 0 unless fuzzing */
	uint8_t pdata_len;	/* 0..56 bytes of it sent */
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
	/* SRP_CRED_REQs are not answered: counted in n_held, the tag of
	 * the last one in held_tag (the case answers it when it wants) */
	bool hold_cred_rsp;
	unsigned int n_held;
	uint64_t held_tag;
};

void default_login(struct login_req *l);
void imm_login(struct login_req *l);
int drain_cq(struct conn *c);
void pump(struct conn *c, int timeout_ms);
bool dead(const struct conn *c);
const char *death(const struct conn *c, char *buf, size_t len);
void conn_close(struct conn *c);
int conn_open(struct conn *c, const struct login_req *l);
/* The 56-byte struct srp_login_req_rdma of @l. */
void login_pdata(const struct login_req *l, uint8_t pd[56]);
int login_ok(struct conn *c, const struct login_req *l);
int send_iu(struct conn *c, const void *iu, uint32_t len, bool credit);
struct iu *take_iu(struct conn *c, bool by_tag, uint64_t tag, int opcode);
struct iu *wait_iu(struct conn *c, bool by_tag, uint64_t tag,
		   int opcode);
int wait_dead(struct conn *c, bool want_disconnect);
int check_quiet(struct conn *c);

/* ---- common options ----------------------------------------------------- */

/* @n bytes from 2 * @n hex digits (optional 0x); 0 or -1. */
int parse_hex(const char *s, uint8_t *out, size_t n);
/*
 * The options every raw initiator takes: --dest IP:PORT, --id-ext HEX16,
 * --ioc-guid HEX16, --initiator-id HEX32, --lun N, --timeout SECS, -v
 * (--verbose). CONN_OPTIONS goes first in the program's getopt_long()
 * table; conn_opt() takes what getopt_long() returned (@opt, @arg) and
 * returns 1 if the option is one of these, 0 if not, -1 on a bad value
 * (printed).
 */
enum {
	CONN_OPT_DEST = 0x100,
	CONN_OPT_ID_EXT,
	CONN_OPT_IOC_GUID,
	CONN_OPT_INITIATOR_ID,
	CONN_OPT_LUN,
	CONN_OPT_TIMEOUT,
	CONN_OPT_LAST		/* programs number their own options from here */
};
#define CONN_OPTIONS \
	{ "dest", required_argument, NULL, CONN_OPT_DEST }, \
	{ "id-ext", required_argument, NULL, CONN_OPT_ID_EXT }, \
	{ "ioc-guid", required_argument, NULL, CONN_OPT_IOC_GUID }, \
	{ "initiator-id", required_argument, NULL, CONN_OPT_INITIATOR_ID }, \
	{ "lun", required_argument, NULL, CONN_OPT_LUN }, \
	{ "timeout", required_argument, NULL, CONN_OPT_TIMEOUT }, \
	{ "verbose", no_argument, NULL, 'v' }
int conn_opt(const char *prog, int opt, const char *arg);
/* The long name of option @val in @opts (for messages). */
const char *conn_opt_name(const struct option *opts, int val);
/* Whether the mandatory ones were given and the values are in range. */
bool conn_opts_ok(const char *prog);

#endif
