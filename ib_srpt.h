/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_srpt - SCSI RDMA Protocol target for the LIO target core.
 *
 * The face of ib_srpt.c, the top of the house: module init and exit, the devices' parameters
 * (srpt_service_guid), the IB client adding and removing RDMA devices. It offers nothing; no
 * other file includes it.
 *
 * The files, each calling only the ones below it (by name; the only calls back up are those of
 * LIO, verbs and the workqueue, the per-call completion of srpt_fetch_table(), and the ops of
 * the channel's CM):
 *   ib_srpt.c      module init, parameters, IB client (devices, ports)
 *   srpt_fabric.c  LIO fabric ops and configfs
 *   srpt_fabric_stats.c  target port counters in configfs fabric_statistics
 *   srpt_ib_cm.c, srpt_rdma_cm.c, srpt_dm.c  the two CMs' listeners and channels, the DM agent
 *   srpt_login.c   the login (shared by the CMs), the device and target port registry
 *   srpt_ch.c      a channel's setup, connection events and release
 *   srpt_recv.c    receiving, and the dispatch of received IUs in order
 *   srpt_cmd.c     SRP requests (SCSI commands, TMFs), LIO callbacks
 *   srpt_tasks.c   a channel's tasks on a LU, for TMFs
 *   srpt_sq.c      the send queue, command pool entries, credits, the completions of what is
 *                  posted, the drain
 *   srpt_data.c    data buffers and RDMA contexts of commands
 *   srpt_buf.c     receive buffers (a channel's, or a device's SRQ), the memory of command pools
 *   srpt_life.c    a channel's state, references and pins; the list of channels
 *   srpt_stats.c   resource counters (debugfs), fault points, the tracepoints of srpt_trace.h
 *   srpt_proto.c, srpt_names.c  SRP wire format, ACL and port names (no verbs, no LIO)
 * Each srpt_X.c has its srpt_X.h; srpt_base.h holds the structures they all share.
 */
#ifndef IB_SRPT_H
#define IB_SRPT_H

#endif /* IB_SRPT_H */
