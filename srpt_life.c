// SPDX-License-Identifier: GPL-2.0
/*
 * The life of a channel: its state and the one function that changes it,
 * close requests, references, task set functions' pins, and srpt_ch_list,
 * which closing (by device, TPG, nexus, module) and the counters walk.
 *
 * Locking: srpt_ch_lock protects srpt_ch_list (entries stay until
 * srpt_ch_unlist()); ch->lock the state. Order: srpt_ch_lock, ch->lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include "srpt_life.h"
#include "srpt_stats.h"
#include "srpt_trace.h"

static DEFINE_SPINLOCK(srpt_ch_lock);
static LIST_HEAD(srpt_ch_list);
/* Woken when a channel leaves srpt_ch_list. */
static DECLARE_WAIT_QUEUE_HEAD(srpt_ch_gone);
static atomic_t srpt_ch_ids = ATOMIC_INIT(0);
/* Runs channel release work; destroyed (drained) at module unload. */
static struct workqueue_struct *srpt_wq;

typedef bool (*srpt_ch_match_fn)(struct srpt_rdma_ch *ch, const void *arg);

/**
 * srpt_life_init() - create the workqueue channels are released on
 */
int srpt_life_init(void)
{
	srpt_wq = alloc_workqueue("srpt", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	return srpt_wq ? 0 : -ENOMEM;
}

/**
 * srpt_queue_work() - run work on the module's workqueue
 * @work: work item; srpt_life_exit() waits for it
 */
void srpt_queue_work(struct work_struct *work)
{
	queue_work(srpt_wq, work);
}

/**
 * srpt_life_exit() - wait for release work still running and free the queue
 */
void srpt_life_exit(void)
{
	destroy_workqueue(srpt_wq);
}

/* Channel states in words, for logs and debugfs ib_srpt/channels. */
static const char *const srpt_ch_state_names[] = {
	[SRPT_CH_NEW] = "new", [SRPT_CH_CONNECTING] = "connecting",
	[SRPT_CH_LIVE] = "live", [SRPT_CH_DISCONNECTING] = "disconnecting",
	[SRPT_CH_DRAINING] = "draining",
};

/* The transitions enum srpt_ch_state lists: the states each comes from. */
static const u8 srpt_ch_state_from[] = {
	[SRPT_CH_CONNECTING] = BIT(SRPT_CH_NEW),
	[SRPT_CH_LIVE] = BIT(SRPT_CH_CONNECTING),
	[SRPT_CH_DISCONNECTING] = BIT(SRPT_CH_NEW) | BIT(SRPT_CH_CONNECTING) |
				  BIT(SRPT_CH_LIVE),
	[SRPT_CH_DRAINING] = BIT(SRPT_CH_DISCONNECTING),
};

/*
 * Change the state of @ch if allowed; caller holds ch->lock. A close of a
 * closing channel, or an RTU after a close, is refused (false); a login
 * or release step finding another state than its own is a bug (warned).
 *
 * The rule of a channel's life: only in LIVE does new work start (a
 * dispatch of a received IU, a task set function's pin), each with a
 * reference (__srpt_ch_get_live()); after LIVE the references only fall,
 * and the release waits for them all before it removes the LIO session
 * and frees the QP and buffers (srpt_ch_put_wait()).
 */
static bool __srpt_ch_change_state(struct srpt_rdma_ch *ch,
				   enum srpt_ch_state new)
{
	lockdep_assert_held(&ch->lock);
	if (!(srpt_ch_state_from[new] & BIT(ch->state))) {
		WARN_ONCE(new == SRPT_CH_CONNECTING || new == SRPT_CH_DRAINING,
			  "ib_srpt: channel %u: %s -> %s\n", ch->id,
			  srpt_ch_state_names[ch->state],
			  srpt_ch_state_names[new]);
		return false;
	}
	pr_debug("%s: channel %s -> %s\n", ch->sess_name,
		 srpt_ch_state_names[ch->state], srpt_ch_state_names[new]);
	trace_srpt_ch_state(ch, ch->state, new);
	WRITE_ONCE(ch->state, new);
	return true;
}

/**
 * srpt_ch_change_state() - move a channel to another state, if allowed
 * @ch: channel
 * @new: LIVE or DRAINING (the other transitions are this file's own)
 *
 * Return: whether the state changed.
 */
bool srpt_ch_change_state(struct srpt_rdma_ch *ch, enum srpt_ch_state new)
{
	unsigned long flags;
	bool changed;

	spin_lock_irqsave(&ch->lock, flags);
	changed = __srpt_ch_change_state(ch, new);
	spin_unlock_irqrestore(&ch->lock, flags);
	return changed;
}

/* srpt_close_ch(), with the reason of an SRP_T_LOGOUT or -1. */
static void __srpt_close_ch(struct srpt_rdma_ch *ch, int logout_reason)
{
	unsigned long flags;
	bool release;

	spin_lock_irqsave(&ch->lock, flags);
	if (ch->state == SRPT_CH_LIVE && logout_reason >= 0)
		ch->logout_reason = logout_reason;
	if (ch->state == SRPT_CH_NEW) {
		ch->close_requested = true;
		release = false;
	} else {
		release = __srpt_ch_change_state(ch, SRPT_CH_DISCONNECTING);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (release)
		queue_work(srpt_wq, &ch->release_work);
}

/**
 * srpt_close_ch() - start tearing a channel down
 * @ch: channel
 *
 * Moves it to DISCONNECTING and queues its release work, once; in NEW the
 * request is only recorded (the login owns it until srpt_ch_setup_done()).
 *
 * Context: any.
 */
void srpt_close_ch(struct srpt_rdma_ch *ch)
{
	__srpt_close_ch(ch, -1);
}

/**
 * srpt_logout_ch() - log a channel out, then tear it down
 * @ch: channel
 * @reason: SRPT_T_LOGOUT_* reason
 *
 * As srpt_close_ch(), but a live channel is first sent an SRP_T_LOGOUT
 * with @reason (srpt_ch_send_logout()): the target goes, not the connection.
 *
 * Context: any.
 */
void srpt_logout_ch(struct srpt_rdma_ch *ch, u32 reason)
{
	__srpt_close_ch(ch, reason);
}

/**
 * srpt_ch_setup_done() - the login is done with a channel it set up
 * @ch: channel in state NEW
 * @accepted: the CM accepted the connection
 *
 * An accepted channel waits for the RTU (CONNECTING) unless a close was
 * requested meanwhile; any other goes to its release, which undoes what
 * the login did. The login must not touch @ch afterwards.
 *
 * Context: any.
 */
void srpt_ch_setup_done(struct srpt_rdma_ch *ch, bool accepted)
{
	unsigned long flags;
	bool release;

	spin_lock_irqsave(&ch->lock, flags);
	ch->accepted = accepted;
	release = !accepted || ch->close_requested;
	__srpt_ch_change_state(ch, release ? SRPT_CH_DISCONNECTING :
					     SRPT_CH_CONNECTING);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (release)
		queue_work(srpt_wq, &ch->release_work);
}

/**
 * __srpt_ch_get_live() - a reference for new work, if the channel is LIVE
 * @ch: channel; the caller holds ch->lock
 *
 * The one place new work is let in (see __srpt_ch_change_state()).
 *
 * Return: whether the channel is LIVE and the reference was taken.
 */
bool __srpt_ch_get_live(struct srpt_rdma_ch *ch)
{
	lockdep_assert_held(&ch->lock);
	if (ch->state != SRPT_CH_LIVE)
		return false;
	refcount_inc(&ch->ref);
	return true;
}

/**
 * srpt_ch_put_wait() - drop the release's reference and wait for the rest
 * @ch: drained channel (not LIVE: no new references), its LIO session
 *	stopped and its LIO commands released
 *
 * Returns when every command is back in the pool and no dispatch, kick,
 * dispatch work or task set function uses the channel or its session.
 */
void srpt_ch_put_wait(struct srpt_rdma_ch *ch)
{
	srpt_ch_put(ch);
	wait_var_event(&ch->ref, !refcount_read(&ch->ref));
}

/*
 * Whether @ch is in a session of @se_nacl; if so, describe it in @info
 * unless NULL. Only from CONNECTING on: the login sets ch->sess before it
 * leaves NEW under ch->lock. Not once DRAINING: the release removes the
 * session after that transition, which it makes under ch->lock.
 */
static bool srpt_ch_snapshot(struct srpt_rdma_ch *ch,
			     const struct se_node_acl *se_nacl,
			     struct srpt_ch_info *info)
{
	unsigned long flags;
	bool match;

	spin_lock_irqsave(&ch->lock, flags);
	match = ch->state != SRPT_CH_NEW && ch->state != SRPT_CH_DRAINING &&
		ch->sess && ch->sess->se_node_acl == se_nacl;
	if (match && info) {
		*info = (struct srpt_ch_info) {
			.id = ch->id,
			.state = ch->state,
			.cm = ch->cm_ops->name,
			.credits = ch->rq_size,
		};
		memcpy(info->i_port_id, ch->i_port_id, 16);
		strscpy(info->peer, ch->peer, sizeof(info->peer));
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	return match;
}

/**
 * srpt_ch_pin() - a reference to a live channel, for a task set function
 * @ch: channel
 *
 * Only a LIVE channel is pinned (__srpt_ch_get_live()); its LIO session
 * stays until srpt_ch_put_wait(). Context: any.
 *
 * Return: whether it was pinned; if so, srpt_ch_put() it.
 */
bool srpt_ch_pin(struct srpt_rdma_ch *ch)
{
	unsigned long flags;
	bool live;

	spin_lock_irqsave(&ch->lock, flags);
	live = ch->sess && __srpt_ch_get_live(ch);
	spin_unlock_irqrestore(&ch->lock, flags);
	return live;
}

/* Start closing the matching channels, logging the live ones out with @reason. */
static int srpt_close_matching(srpt_ch_match_fn match, const void *arg,
			       u32 reason)
{
	struct srpt_rdma_ch *ch;
	int n = 0;

	spin_lock(&srpt_ch_lock);
	list_for_each_entry(ch, &srpt_ch_list, entry) {
		if (match(ch, arg)) {
			srpt_logout_ch(ch, reason);
			n++;
		}
	}
	spin_unlock(&srpt_ch_lock);
	return n;
}

static bool srpt_any_matching(srpt_ch_match_fn match, const void *arg)
{
	struct srpt_rdma_ch *ch;
	bool found = false;

	spin_lock(&srpt_ch_lock);
	list_for_each_entry(ch, &srpt_ch_list, entry) {
		if (match(ch, arg)) {
			found = true;
			break;
		}
	}
	spin_unlock(&srpt_ch_lock);
	return found;
}

/*
 * Close the matching channels, live ones with an SRP_T_LOGOUT, and wait
 * until released; those in their login too (srpt_ch_list_add()).
 */
static void srpt_close_and_wait(srpt_ch_match_fn match, const void *arg)
{
	srpt_close_matching(match, arg, SRPT_T_LOGOUT_NONE);
	wait_event(srpt_ch_gone, !srpt_any_matching(match, arg));
}

static bool srpt_ch_of_tpg(struct srpt_rdma_ch *ch, const void *stpg)
{
	return ch->stpg == stpg;
}

static bool srpt_ch_of_dev(struct srpt_rdma_ch *ch, const void *sdev)
{
	return ch->sport->sdev == sdev;
}

static bool srpt_ch_any(struct srpt_rdma_ch *ch, const void *unused)
{
	return true;
}

static bool srpt_ch_of_nexus(struct srpt_rdma_ch *ch, const void *other)
{
	return ch != other && srpt_same_nexus(ch, other);
}

/**
 * srpt_ch_pin_live() - pin every live channel (srpt_ch_pin()) but one
 * @chs: room for @max channels
 * @max: entries in @chs
 * @skip: the channel left out (the caller pinned it already)
 *
 * Return: how many channels are live; the first of them, up to @max,
 * are pinned and stored in @chs.
 */
int srpt_ch_pin_live(struct srpt_rdma_ch **chs, int max,
		     const struct srpt_rdma_ch *skip)
{
	struct srpt_rdma_ch *ch;
	int n = 0;

	spin_lock(&srpt_ch_lock);
	list_for_each_entry(ch, &srpt_ch_list, entry) {
		if (ch == skip)
			continue;
		if (n >= max)
			n += READ_ONCE(ch->state) == SRPT_CH_LIVE;
		else if (srpt_ch_pin(ch))
			chs[n++] = ch;
	}
	spin_unlock(&srpt_ch_lock);
	return n;
}

/**
 * srpt_acl_channels() - the channels logged in through a node ACL
 * @se_nacl: the ACL
 * @info: room for @max snapshots, filled in login order
 * @max: entries in @info
 *
 * Context: any (takes spinlocks).
 *
 * Return: how many channels the ACL has (may be more than @max).
 */
int srpt_acl_channels(const struct se_node_acl *se_nacl,
		      struct srpt_ch_info *info, int max)
{
	struct srpt_rdma_ch *ch;
	int n = 0;

	spin_lock(&srpt_ch_lock);
	list_for_each_entry(ch, &srpt_ch_list, entry)
		if (srpt_ch_snapshot(ch, se_nacl, n < max ? &info[n] : NULL))
			n++;
	spin_unlock(&srpt_ch_lock);
	return n;
}

static void srpt_stats_add(u64 *sum, struct srpt_rdma_ch *ch)
{
	int i;

	for (i = 0; i < SRPT_STAT_NR; i++)
		sum[i] += atomic64_read(&ch->stats[i]);
}

/**
 * srpt_tport_counts() - what the channels of a target port did and are
 * @tport: target port
 * @pc: filled in: SRPT_STAT_* of its channels, live and released, its
 *	channels by state and the credits its live initiators hold
 *
 * Context: any (takes a spinlock).
 */
void srpt_tport_counts(struct srpt_tport *tport, struct srpt_port_counts *pc)
{
	struct srpt_rdma_ch *ch;
	enum srpt_ch_state state;

	memset(pc, 0, sizeof(*pc));
	spin_lock(&srpt_ch_lock);
	memcpy(pc->stats, tport->released, sizeof(pc->stats));
	list_for_each_entry(ch, &srpt_ch_list, entry) {
		if (ch->stpg->tport != tport)
			continue;
		srpt_stats_add(pc->stats, ch);
		state = READ_ONCE(ch->state);
		pc->channels[state]++;
		if (state == SRPT_CH_LIVE)
			pc->credits += max(atomic_read(&ch->req_lim), 0);
	}
	spin_unlock(&srpt_ch_lock);
}

/* debugfs ib_srpt/channels: a line per channel, "name value" pairs. */
static const char *const srpt_cmd_state_names[SRPT_CMD_NR] = {
	[SRPT_CMD_FREE] = "free", [SRPT_CMD_RECEIVED] = "received",
	[SRPT_CMD_TABLE] = "table", [SRPT_CMD_IN_LIO] = "in_lio",
	[SRPT_CMD_DATA_OUT] = "data_out", [SRPT_CMD_RSP] = "rsp",
	[SRPT_CMD_SENT] = "sent",
};

/* " cmd_<state> N" for each command state: the pool of @ch by state. */
static void srpt_show_cmd_states(struct seq_file *m, struct srpt_rdma_ch *ch)
{
	u32 n[SRPT_CMD_NR] = {};
	struct srpt_cmd_chunk *chunk;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&ch->lock, flags);
	list_for_each_entry(chunk, &ch->cmd_chunks, entry)
		for (i = 0; i < chunk->n; i++)
			n[READ_ONCE(chunk->cmds[i].state)]++;
	spin_unlock_irqrestore(&ch->lock, flags);
	for (i = 0; i < SRPT_CMD_NR; i++)
		seq_printf(m, " cmd_%s %u", srpt_cmd_state_names[i], n[i]);
}

static int srpt_channels_show(struct seq_file *m, void *v)
{
	struct srpt_rdma_ch *ch;
	int i;

	spin_lock(&srpt_ch_lock);
	list_for_each_entry(ch, &srpt_ch_list, entry) {
		seq_printf(m, "ch %u state %s acl %s initiator 0x%16phN target %s cm %s peer %s credits %u req_lim %d srq %d cmds %u",
			   ch->id, srpt_ch_state_names[READ_ONCE(ch->state)],
			   ch->sess_name, ch->i_port_id, ch->stpg->tport->name,
			   ch->cm_ops->name, ch->peer, ch->rq_size,
			   atomic_read(&ch->req_lim), ch->srq ? 1 : 0,
			   READ_ONCE(ch->n_cmds));
		for (i = 0; i < SRPT_STAT_NR; i++)
			seq_printf(m, " %s %lld", srpt_stat_name(i),
				   atomic64_read(&ch->stats[i]));
		srpt_show_cmd_states(m, ch);
		seq_putc(m, '\n');
	}
	spin_unlock(&srpt_ch_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(srpt_channels);

/**
 * srpt_ch_list_add() - put a new channel on the channel list
 * @ch: channel in state NEW; gets its number (ch->id)
 *
 * From the start of its login, so that closing and waiting for the
 * channels of a device, TPG or nexus covers it.
 */
void srpt_ch_list_add(struct srpt_rdma_ch *ch)
{
	ch->id = atomic_inc_return(&srpt_ch_ids);
	spin_lock(&srpt_ch_lock);
	list_add_tail(&ch->entry, &srpt_ch_list);
	spin_unlock(&srpt_ch_lock);
}

/**
 * srpt_ch_unlist() - the last step of a channel's release
 * @ch: channel nothing uses any more; the caller frees it
 *
 * Adds its counters to its target port's and unlists it in one step (so
 * srpt_tport_counts() counts them once), then wakes those waiting.
 */
void srpt_ch_unlist(struct srpt_rdma_ch *ch)
{
	spin_lock(&srpt_ch_lock);
	srpt_stats_add(ch->stpg->tport->released, ch);
	list_del(&ch->entry);
	spin_unlock(&srpt_ch_lock);
	wake_up_all(&srpt_ch_gone);
}

/**
 * srpt_close_tpg_chs() - close a TPG's channels, wait until released
 * @stpg: TPG
 */
void srpt_close_tpg_chs(struct srpt_tpg *stpg)
{
	srpt_close_and_wait(srpt_ch_of_tpg, stpg);
}

/**
 * srpt_close_dev_chs() - close a device's channels, wait until released
 * @sdev: device
 */
void srpt_close_dev_chs(struct srpt_device *sdev)
{
	srpt_close_and_wait(srpt_ch_of_dev, sdev);
}

/**
 * srpt_close_all_chs() - close every channel, wait until released (unload)
 */
void srpt_close_all_chs(void)
{
	srpt_close_and_wait(srpt_ch_any, NULL);
}

/**
 * srpt_close_nexus() - log the other channels of a channel's nexus out
 * @ch: channel of a SINGLE login
 *
 * Return: how many there were.
 */
int srpt_close_nexus(struct srpt_rdma_ch *ch)
{
	return srpt_close_matching(srpt_ch_of_nexus, ch,
				   SRPT_T_LOGOUT_MULTICHANNEL);
}

/**
 * srpt_nexus_has_chs() - whether a channel's nexus has other channels
 * @ch: channel
 *
 * Return: true if it has.
 */
bool srpt_nexus_has_chs(struct srpt_rdma_ch *ch)
{
	return srpt_any_matching(srpt_ch_of_nexus, ch);
}

/**
 * srpt_count_chs() - the channels a new one counts against its limits
 * @ch: the new channel
 * @single: its login is SINGLE: the other channels of its nexus end, so
 *	they do not count
 * @n_tpg: set to the others of its TPG
 * @n_nexus: set to the others of its nexus
 *
 * Channels already closing do not count.
 */
void srpt_count_chs(struct srpt_rdma_ch *ch, bool single, u32 *n_tpg,
		    u32 *n_nexus)
{
	struct srpt_rdma_ch *o;

	*n_tpg = 0;
	*n_nexus = 0;
	spin_lock(&srpt_ch_lock);
	list_for_each_entry(o, &srpt_ch_list, entry) {
		if (o == ch || o->stpg != ch->stpg ||
		    READ_ONCE(o->state) >= SRPT_CH_DISCONNECTING)
			continue;
		if (srpt_ch_of_nexus(o, ch)) {
			if (single)
				continue;
			(*n_nexus)++;
		}
		(*n_tpg)++;
	}
	spin_unlock(&srpt_ch_lock);
}

/**
 * srpt_life_debugfs_init() - create debugfs ib_srpt/channels
 *
 * srpt_stats_exit() removes it with the directory.
 */
void srpt_life_debugfs_init(void)
{
	debugfs_create_file("channels", 0444, srpt_debugfs_dir(), NULL,
			    &srpt_channels_fops);
}
