/* SPDX-License-Identifier: GPL-2.0 */
/* srpt_stats.c: counters (debugfs), fault points, tracepoints; for all files */
#ifndef SRPT_STATS_H
#define SRPT_STATS_H

#include <linux/jump_label.h>
#include "srpt_base.h"

/**
 * enum srpt_res - what srpt_stats.c counts (debugfs ib_srpt/resources)
 * @SRPT_RES_CHANNELS: channel structures allocated
 * @SRPT_RES_SESSIONS: LIO sessions set up and not yet removed
 * @SRPT_RES_CQ_ENTRIES: completion queue entries taken from the CQ pool
 * @SRPT_RES_RECV_BYTES: bytes of receive buffers
 * @SRPT_RES_SEND_BYTES: bytes of response (send) buffers
 * @SRPT_RES_CMD_SLOTS: command pool entries
 * @SRPT_RES_CMD_BYTES: bytes of the command pools (response buffers: @SRPT_RES_SEND_BYTES)
 * @SRPT_RES_RW_TABLES: RDMA context tables too large for a command
 * @SRPT_RES_DATA_BYTES: bytes of data buffers allocated for commands in flight (not those in
 *	the pages of @SRPT_RES_DATA_CACHE_BYTES)
 * @SRPT_RES_DATA_CACHE_BYTES: bytes of data pages command slots keep for buffers of up to
 *	SRPT_CACHED_DATA, in flight or not, until their pool is freed
 * @SRPT_RES_TABLE_BYTES: bytes of indirect tables fetched from initiators
 * @SRPT_RES_NR: number of counters
 */
enum srpt_res {
	SRPT_RES_CHANNELS,
	SRPT_RES_SESSIONS,
	SRPT_RES_CQ_ENTRIES,
	SRPT_RES_RECV_BYTES,
	SRPT_RES_SEND_BYTES,
	SRPT_RES_CMD_SLOTS,
	SRPT_RES_CMD_BYTES,
	SRPT_RES_RW_TABLES,
	SRPT_RES_DATA_BYTES,
	SRPT_RES_DATA_CACHE_BYTES,
	SRPT_RES_TABLE_BYTES,
	SRPT_RES_NR
};

/**
 * enum srpt_event - what srpt_stats.c counts since the module was loaded (debugfs ib_srpt/events)
 * @SRPT_EV_TABLES_FETCHED: indirect descriptor tables read from initiators
 * @SRPT_EV_LOGINS_ACCEPTED: logins accepted, on any target port
 * @SRPT_EV_LOGINS_REFUSED: logins refused, also those that found no target port
 * @SRPT_EV_CRED_REQS: SRP_CRED_REQs sent (credits no response carried)
 * @SRPT_EV_NR: number of counters
 */
enum srpt_event {
	SRPT_EV_TABLES_FETCHED,
	SRPT_EV_LOGINS_ACCEPTED,
	SRPT_EV_LOGINS_REFUSED,
	SRPT_EV_CRED_REQS,
	SRPT_EV_NR
};

void srpt_res_add(enum srpt_res res, long n);
void srpt_event(enum srpt_event ev);
const char *srpt_stat_name(enum srpt_stat stat);
struct dentry *srpt_debugfs_dir(void);
#ifdef CONFIG_FAULT_INJECTION
bool srpt_fault_post_send(void);
#else
static inline bool srpt_fault_post_send(void)
{
	return false;
}
#endif
void srpt_stats_init(void);
void srpt_stats_exit(void);

/**
 * enum srpt_fault_point - steps a test can delay (srpt_fault_delay())
 * @SRPT_FAULT_SET_PORT: the rdma_cm_port setter, before it listens
 * @SRPT_FAULT_RELISTEN: the relisten work, before it listens again
 * @SRPT_FAULT_NP_LISTEN: an np listener, after rdma_listen()
 * @SRPT_FAULT_UNLOAD: module exit/failed init: rdma_cm_port listener stopped, IB client registered
 * @SRPT_FAULT_CLOSE_SESSION: LIO's close_session, before it reads the session
 * @SRPT_FAULT_RELEASE: a channel's release, before it removes its session
 * @SRPT_FAULT_FAIL_INIT: the end of module init, which then fails
 * @SRPT_FAULT_DISPATCH: an IU dispatch outside the CQ (the drain ignores it), before its handler
 * @SRPT_FAULT_GROW: the dispatch work, before it grows the command pool
 * @SRPT_FAULT_LOGIN: a login accepted by the CM, before it hands its channel on (still NEW)
 * @SRPT_FAULT_NR: number of points
 */
enum srpt_fault_point {
	SRPT_FAULT_SET_PORT,
	SRPT_FAULT_RELISTEN,
	SRPT_FAULT_NP_LISTEN,
	SRPT_FAULT_UNLOAD,
	SRPT_FAULT_CLOSE_SESSION,
	SRPT_FAULT_RELEASE,
	SRPT_FAULT_FAIL_INIT,
	SRPT_FAULT_DISPATCH,
	SRPT_FAULT_GROW,
	SRPT_FAULT_LOGIN,
	SRPT_FAULT_NR
};

DECLARE_STATIC_KEY_FALSE(srpt_fault_key);
bool __srpt_fault_delay(enum srpt_fault_point p);

/* Sleep at fault point @p if a test set it (true if so); off, it costs a static branch. */
static inline bool srpt_fault_delay(enum srpt_fault_point p)
{
	if (static_branch_unlikely(&srpt_fault_key))
		return __srpt_fault_delay(p);
	return false;
}

#endif /* SRPT_STATS_H */
