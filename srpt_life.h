/* SPDX-License-Identifier: GPL-2.0 */
/* srpt_life.c: a channel's state, closing, references, the channel list. */
#ifndef SRPT_LIFE_H
#define SRPT_LIFE_H

#include <linux/wait_bit.h>
#include "srpt_base.h"

int srpt_life_init(void);
void srpt_life_exit(void);
void srpt_life_debugfs_init(void);
void srpt_queue_work(struct work_struct *work);
bool srpt_ch_change_state(struct srpt_rdma_ch *ch, enum srpt_ch_state new);
void srpt_close_ch(struct srpt_rdma_ch *ch);
void srpt_logout_ch(struct srpt_rdma_ch *ch, u32 reason);
void srpt_ch_setup_done(struct srpt_rdma_ch *ch, bool accepted);
bool __srpt_ch_get_live(struct srpt_rdma_ch *ch);
void srpt_ch_put_wait(struct srpt_rdma_ch *ch);
bool srpt_ch_pin(struct srpt_rdma_ch *ch);
int srpt_ch_pin_live(struct srpt_rdma_ch **chs, int max,
		     const struct srpt_rdma_ch *skip);
void srpt_ch_list_add(struct srpt_rdma_ch *ch);
void srpt_ch_unlist(struct srpt_rdma_ch *ch);
void srpt_close_tpg_chs(struct srpt_tpg *stpg);
void srpt_close_dev_chs(struct srpt_device *sdev);
void srpt_close_all_chs(void);
int srpt_close_nexus(struct srpt_rdma_ch *ch);
bool srpt_nexus_has_chs(struct srpt_rdma_ch *ch);
void srpt_count_chs(struct srpt_rdma_ch *ch, bool single, u32 *n_tpg,
		    u32 *n_nexus);
int srpt_acl_channels(const struct se_node_acl *se_nacl,
		      struct srpt_ch_info *info, int max);
void srpt_tport_counts(struct srpt_tport *tport, struct srpt_port_counts *pc);

/**
 * srpt_ch_get() - take another reference to a channel (srpt_rdma_ch.ref)
 * @ch: channel the caller holds a reference to, or whose release has not
 *	dropped its own yet (its receive completions, its CM's handlers)
 */
static inline void srpt_ch_get(struct srpt_rdma_ch *ch)
{
	refcount_inc(&ch->ref);
}

/**
 * srpt_ch_put() - drop a reference taken with srpt_ch_get()
 * @ch: channel; the caller must not touch it afterwards (the release may
 *	free it once the count is 0: srpt_ch_put_wait())
 */
static inline void srpt_ch_put(struct srpt_rdma_ch *ch)
{
	if (refcount_dec_and_test(&ch->ref))
		wake_up_var(&ch->ref);
}

#endif /* SRPT_LIFE_H */
