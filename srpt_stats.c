// SPDX-License-Identifier: GPL-2.0
/*
 * Counters of what the module holds (debugfs ib_srpt/resources, all 0 with no channel left: leak
 * checks) and of rarer paths taken (ib_srpt/events); fail_post_send (a chain posted in part, as a
 * full HCA send queue can), the fault points, the tracepoints of srpt_trace.h. The files:
 * Documentation/ib_srpt.rst, debugfs. Calls nothing else of the module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fault-inject.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>

#include "srpt_stats.h"

#define CREATE_TRACE_POINTS
#include "srpt_trace.h"

static atomic_long_t srpt_res[SRPT_RES_NR];
static struct dentry *srpt_dbg_dir;

static const char * const srpt_res_names[SRPT_RES_NR] = {
	[SRPT_RES_CHANNELS]	= "channels",
	[SRPT_RES_SESSIONS]	= "sessions",
	[SRPT_RES_CQ_ENTRIES]	= "cq_entries",
	[SRPT_RES_RECV_BYTES]	= "recv_bytes",
	[SRPT_RES_SEND_BYTES]	= "send_bytes",
	[SRPT_RES_CMD_SLOTS]	= "cmd_slots",
	[SRPT_RES_CMD_BYTES]	= "cmd_bytes",
	[SRPT_RES_RW_TABLES]	= "rw_tables",
	[SRPT_RES_DATA_BYTES]	= "data_bytes",
	[SRPT_RES_DATA_CACHE_BYTES] = "data_cache_bytes",
	[SRPT_RES_TABLE_BYTES]	= "table_bytes",
};

static atomic_long_t srpt_events[SRPT_EV_NR];

static const char * const srpt_event_names[SRPT_EV_NR] = {
	[SRPT_EV_TABLES_FETCHED] = "tables_fetched",
	[SRPT_EV_LOGINS_ACCEPTED] = "logins_accepted",
	[SRPT_EV_LOGINS_REFUSED] = "logins_refused",
	[SRPT_EV_CRED_REQS] = "cred_reqs",
};

static const char * const srpt_stat_names[SRPT_STAT_NR] = {
	[SRPT_STAT_CMDS]	= "commands",
	[SRPT_STAT_TMFS]	= "task_mgmt",
	[SRPT_STAT_BYTES_IN]	= "bytes_in",
	[SRPT_STAT_BYTES_OUT]	= "bytes_out",
	[SRPT_STAT_ERRORS]	= "errors",
	[SRPT_STAT_ABORTS]	= "aborts",
	[SRPT_STAT_SQ_WAITS]	= "sq_waits",
	[SRPT_STAT_WR_ERRORS]	= "wr_errors",
};

/**
 * srpt_stat_name() - the name of a channel counter
 * @stat: which one
 *
 * Return: its name in debugfs ib_srpt/channels and in configfs.
 */
const char *srpt_stat_name(enum srpt_stat stat)
{
	return srpt_stat_names[stat];
}

/**
 * srpt_res_add() - account for resources taken (@n > 0) or given back
 * @res: which resource
 * @n: amount (objects or bytes, see enum srpt_res)
 */
void srpt_res_add(enum srpt_res res, long n)
{
	atomic_long_add(n, &srpt_res[res]);
}

static int srpt_res_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < SRPT_RES_NR; i++)
		seq_printf(m, "%s %ld\n", srpt_res_names[i], atomic_long_read(&srpt_res[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(srpt_res);

/**
 * srpt_event() - count an event
 * @ev: which one
 */
void srpt_event(enum srpt_event ev)
{
	atomic_long_inc(&srpt_events[ev]);
}

static int srpt_events_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < SRPT_EV_NR; i++)
		seq_printf(m, "%s %ld\n", srpt_event_names[i], atomic_long_read(&srpt_events[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(srpt_events);

#ifdef CONFIG_FAULT_INJECTION
static DECLARE_FAULT_ATTR(srpt_fail_post_send);

/**
 * srpt_fault_post_send() - should a chain's post fail after its first WR?
 *
 * Return: true when the fail_post_send fault injection says so.
 */
bool srpt_fault_post_send(void)
{
	return should_fail(&srpt_fail_post_send, 1);
}

static void srpt_fault_init(struct dentry *dir)
{
	fault_create_debugfs_attr("fail_post_send", dir, &srpt_fail_post_send);
}
#else
static void srpt_fault_init(struct dentry *dir)
{
}
#endif

/*
 * Fault points (tests): delay a chosen step to hold a race window open. debugfs
 * ib_srpt/fault_delay_ms/<point> in ms, 0 = off (default); the parameter
 * fault_delay_ms="<point>=<ms>[,...]" sets them at load, for module init's steps.
 */
DEFINE_STATIC_KEY_FALSE(srpt_fault_key);
static u32 srpt_fault_ms[SRPT_FAULT_NR];
static const char *const srpt_fault_names[SRPT_FAULT_NR] = {
	[SRPT_FAULT_SET_PORT]		= "set_port",
	[SRPT_FAULT_RELISTEN]		= "relisten",
	[SRPT_FAULT_NP_LISTEN]		= "np_listen",
	[SRPT_FAULT_UNLOAD]		= "unload",
	[SRPT_FAULT_CLOSE_SESSION]	= "close_session",
	[SRPT_FAULT_RELEASE]		= "release",
	[SRPT_FAULT_FAIL_INIT]		= "fail_init",
	[SRPT_FAULT_DISPATCH]		= "dispatch",
	[SRPT_FAULT_GROW]		= "grow",
	[SRPT_FAULT_LOGIN]		= "login",
};

static char srpt_fault_param[128];
module_param_string(fault_delay_ms, srpt_fault_param, sizeof(srpt_fault_param), 0444);
MODULE_PARM_DESC(fault_delay_ms,
		 "Tests only: <point>=<ms>[,...] delays a step (debugfs ib_srpt/fault_delay_ms); fail_init=<ms> fails module init after that long");

/**
 * __srpt_fault_delay() - sleep as long as a fault point says (for srpt_fault_delay())
 * @p: the point
 *
 * Return: true if the point was set (and slept).
 */
bool __srpt_fault_delay(enum srpt_fault_point p)
{
	u32 ms = READ_ONCE(srpt_fault_ms[p]);

	if (!ms)
		return false;
	pr_info("fault point %s: %u ms\n", srpt_fault_names[p], ms);
	msleep(ms);
	return true;
}

static int srpt_fault_get(void *data, u64 *val)
{
	*val = READ_ONCE(*(u32 *)data);
	return 0;
}

static int srpt_fault_set(void *data, u64 val)
{
	if (val > 600000)
		return -ERANGE;
	WRITE_ONCE(*(u32 *)data, val);
	if (val)
		static_branch_enable(&srpt_fault_key);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(srpt_fault_fops, srpt_fault_get, srpt_fault_set, "%llu\n");

/* fault_delay_ms="<point>=<ms>,...": unknown points are logged, skipped. */
static void srpt_fault_parse(void)
{
	char *s = srpt_fault_param, *tok, *eq;
	unsigned int ms;
	int p;

	while ((tok = strsep(&s, ",")) != NULL) {
		eq = strchr(tok, '=');
		if (!*tok || !eq)
			continue;
		*eq = '\0';
		p = match_string(srpt_fault_names, SRPT_FAULT_NR, tok);
		if (p < 0 || kstrtouint(eq + 1, 0, &ms) || srpt_fault_set(&srpt_fault_ms[p], ms))
			pr_warn("fault_delay_ms: %s=%s ignored\n", tok, eq + 1);
		*eq = '=';
	}
}

static void srpt_fault_delay_init(struct dentry *dir)
{
	struct dentry *d = debugfs_create_dir("fault_delay_ms", dir);
	int i;

	for (i = 0; i < SRPT_FAULT_NR; i++)
		debugfs_create_file_unsafe(srpt_fault_names[i], 0600, d,
					   &srpt_fault_ms[i], &srpt_fault_fops);
	srpt_fault_parse();
}

/**
 * srpt_stats_init() - create /sys/kernel/debug/ib_srpt/resources
 *
 * Without debugfs the counters are still kept, just not shown.
 */
void srpt_stats_init(void)
{
	srpt_dbg_dir = debugfs_create_dir("ib_srpt", NULL);
	debugfs_create_file("resources", 0444, srpt_dbg_dir, NULL, &srpt_res_fops);
	debugfs_create_file("events", 0444, srpt_dbg_dir, NULL, &srpt_events_fops);
	srpt_fault_init(srpt_dbg_dir);
	srpt_fault_delay_init(srpt_dbg_dir);
}

/**
 * srpt_debugfs_dir() - the module's debugfs directory
 *
 * Return: /sys/kernel/debug/ib_srpt (an error pointer without debugfs,
 * which debugfs_create_file() takes too).
 */
struct dentry *srpt_debugfs_dir(void)
{
	return srpt_dbg_dir;
}

/**
 * srpt_stats_exit() - remove the debugfs files; warn about anything held
 *
 * Called last at module unload, when every channel is gone: a figure other than 0 is a leak.
 */
void srpt_stats_exit(void)
{
	int i;

	debugfs_remove_recursive(srpt_dbg_dir);
	for (i = 0; i < SRPT_RES_NR; i++)
		if (atomic_long_read(&srpt_res[i]))
			pr_err("unload: %ld %s still held\n", atomic_long_read(&srpt_res[i]),
			       srpt_res_names[i]);
}
