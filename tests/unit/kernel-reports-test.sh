#!/bin/bash
# Unit test of tools/kernel-reports.sh, the one list of kernel-log reports
# that fails a test run: every report line below (as Debian's 6.1 and 6.12
# kernels print them, the timestamp included) must match, and every
# ordinary line must not.  Run by `make unit` (tests/unit/Makefile).
set -uo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tools/kernel-reports.sh
. "$TOP/tools/kernel-reports.sh"

# kind|line
REPORTS=$(cat <<'EOF_REPORTS'
KASAN|[  123.456789] BUG: KASAN: slab-use-after-free in srpt_release_ch_work+0x1a2/0x5c0 [ib_srpt]
KASAN|[   12.000001] BUG: KASAN: wild-memory-access in do_raw_spin_lock+0x7a/0x270
UBSAN|[   44.123456] UBSAN: shift-out-of-bounds in drivers/infiniband/ulp/srpt/srpt_io.c:123:45
UBSAN|[   44.123456] UBSAN: array-index-out-of-bounds in srpt_proto.c:99:13
lockdep|[  210.112233] WARNING: possible circular locking dependency detected
lockdep|[  210.112233] WARNING: possible recursive locking detected
lockdep|[  210.112233] WARNING: inconsistent lock state
lockdep|[  210.112233] WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected
lockdep|[  210.112233] WARNING: suspicious RCU usage
lockdep|[  210.112233] INFO: trying to register non-static key.
lockdep|[  210.112233] kworker/1:2/99 is freeing memory ffff888100000000-ffff8881000000ff, with a lock still held there!
lockdep|[  210.112233] WARNING: kworker/1:2/99 still has locks held!
lockdep|[  210.112233] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:283
ODEBUG|[   77.000000] ODEBUG: free active (active state 0) object: ffff88810a2b3c40 object type: work_struct hint: srpt_release_ch_work+0x0/0x5c0 [ib_srpt]
ODEBUG|[   77.000000] ODEBUG: Out of memory. ODEBUG disabled
ODEBUG|[   77.000000] ODEBUG: object 00000000abcd1234 is on stack 00000000ffff0000, but NOT annotated.
ODEBUG|[    0.400000] ODEBUG: selftest wrong state: 0 != 1
ODEBUG|[   77.000000] ODEBUG: activate active (active state 1) object: 000000001234abcd object type: timer_list hint: 0x0
list|[   88.000000] list_del corruption. prev->next should be ffff888101234560, but was ffff888101234570. (prev=ffff888101234580)
list|[   88.000000] list_add corruption. next->prev should be prev (ffff888101234560), but was 0000000000000000. (next=ffff888101234570).
list|[   88.000000] list_del corruption, ffff888101234560->next is LIST_POISON1 (dead000000000100)
RCU stall|[  300.000000] rcu: INFO: rcu_preempt self-detected stall on CPU
RCU stall|[  300.000000] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:
RCU stall|[  300.000000] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: {
RCU stall|[  300.000000] rcu: INFO: rcu_sched self-detected stall on CPU
RCU stall|[  300.000000] INFO: rcu_tasks detected stalls on tasks:
hung task|[  245.000000] INFO: task kworker/u4:3:123 blocked for more than 120 seconds.
soft lockup|[  400.000000] watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [kworker/1:1:45]
hard lockup|[  400.000000] watchdog: Watchdog detected hard LOCKUP on cpu 1
kmemleak|[  500.000000] kmemleak: 3 new suspected memory leaks (see /sys/kernel/debug/kmemleak)
kmemleak|[  500.000000] kmemleak: 1 new suspected memory leak (see /sys/kernel/debug/kmemleak)
WARNING|[   55.000000] WARNING: CPU: 1 PID: 2345 at drivers/infiniband/core/cq.c:345 ib_free_cq+0x10f/0x130 [ib_core]
WARNING|[   55.000000] ------------[ cut here ]------------ WARNING: CPU: 0 PID: 1 at kernel/workqueue.c:3629 __flush_work+0x1b/0x30
BUG|[   66.000000] BUG: unable to handle page fault for address: ffffffffc0a01234
BUG|[   66.000000] BUG: kernel NULL pointer dereference, address: 0000000000000008
BUG|[   66.000000] kernel BUG at drivers/target/target_core_transport.c:1234!
BUG|[   66.000000] BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 33s!
BUG|[   66.000000] BUG: scheduling while atomic: kworker/0:1/12/0x00000002
Oops|[   66.000001] Oops: 0000 [#1] PREEMPT SMP NOPTI
Oops|[   66.000001] Oops: general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1] PREEMPT SMP KASAN NOPTI
Oops|[   66.000001] Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI
Oops|[   66.000001] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
Oops (6.1)|[   66.000001] general protection fault, probably for non-canonical address 0xdead000000000122: 0000 [#1] PREEMPT SMP NOPTI
Oops (6.1)|[   66.000001] invalid opcode: 0000 [#1] PREEMPT SMP NOPTI
Oops (6.1)|[   66.000001] int3: 0000 [#1] PREEMPT SMP NOPTI
refcount|[   99.000000] refcount_t: underflow; use-after-free.
refcount|[   99.000000] refcount_t: addition on 0; use-after-free.
panic|[  999.000000] Kernel panic - not syncing: Fatal exception
panic|[  999.000000] Kernel panic - not syncing: stack-protector: Kernel stack is corrupted in: srpt_recv_done+0x123/0x456 [ib_srpt]
stack|[  999.000000] BUG: TASK stack guard page was hit at 00000000abcdef12 (stack is 0000000011112222..0000000033334444)
EOF_REPORTS
)

# Ordinary lines of these guests: none may match.
ORDINARY=$(cat <<'EOF_ORDINARY'
[    0.000000] Linux version 6.12.118+deb12-amd64 (debian-kernel@lists.debian.org) (x86_64-linux-gnu-gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0)
[    0.000000] Kernel command line: console=ttyS0,115200 panic=-1 loglevel=4 printk.time=1 sysctl.kernel.hung_task_timeout_secs=60 sysctl.kernel.hung_task_warnings=-1 softlockup_panic=0 rdinit=/init
[    0.000000] rcu: Preemptible hierarchical RCU implementation.
[    0.000000] rcu: 	RCU event tracing is enabled.
[    0.000000] rcu: 	RCU restricting CPUs from NR_CPUS=8192 to nr_cpu_ids=2.
[    0.000000] rcu: RCU calculated value of scheduler-enlistment delay is 25 jiffies.
[    0.120000] RCU Tasks Trace: Setting shift to 1 and lim to 1 rcu_task_cb_adjust=1.
[    0.200000] Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar
[    0.200000] kasan: KernelAddressSanitizer initialized (generic)
[    0.300000] kmemleak: Kernel memory leak detector initialized (mem pool available: 15791)
[    0.300000] kmemleak: Automatic memory scanning thread started
[    0.400000] ODEBUG: selftest passed
[    0.500000] x86/mm: Checked W+X mappings: passed, no W+X pages found.
[    1.000000] clocksource: timekeeping watchdog on CPU1: Marking clocksource 'tsc' as unstable because the skew is too large:
[    1.100000] hrtimer: interrupt took 12345678 ns
[    2.000000] ib_srpt: loading out-of-tree module taints kernel.
[    2.000000] ib_srpt: module verification failed: signature and/or required key missing - tainting kernel
[    3.000000] rdma_rxe: loaded
[    3.100000] infiniband rxe0: set active
[    3.200000] ib_srpt: srpt_service_guid 0x000000fffe000001, rdma_cm_port 5555
[    4.000000] ib_srpt: login from 0x00000000000000000000000000abcdef at 192.0.2.1 to 0xfe800000000000000000000000fffe0001 refused: unable to associate the channel with the I_T nexus (0x10003): no ACL for it
[    4.100000] scsi host3: ib_srp: REJECTED, reason 0x00010003
[    4.200000] scsi host3: ib_srp: Connection 0/1 to 192.0.2.1 failed
[    4.300000] ib_srp: srp-rxe0-1: failed RECV status WR flushed (5) for CQE 00000000deadbeef
[    5.000000] scsi 3:0:0:0: Direct-Access     LIO-ORG  disk0            4.0  PQ: 0 ANSI: 6
[    5.100000] sd 3:0:0:0: [sdb] 65536 512-byte logical blocks: (33.6 MB/32.0 MiB)
[    5.100000] sd 3:0:0:0: [sdb] Write cache: disabled, read cache: enabled, supports DPO and FUA
[    5.200000] sd 3:0:0:0: [sdb] tag#3 FAILED Result: hostbyte=DID_OK driverbyte=DRIVER_OK cmd_age=0s
[    5.200000] sd 3:0:0:0: [sdb] tag#3 Sense Key : Illegal Request [current]
[    5.200000] sd 3:0:0:0: [sdb] tag#3 Add. Sense: Logical block address out of range
[    5.200000] I/O error, dev sdb, sector 65536 op 0x0:(READ) flags 0x0 phys_seg 1 prio class 0
[    5.300000] Buffer I/O error on dev sdb, logical block 8192, async page read
[    6.000000] workqueue: srpt_release_ch_work [ib_srpt] hogged CPU for >10000us 4 times, consider switching to WQ_UNBOUND
[    6.100000] sched: RT throttling activated
[    7.000000] ib_srpt: channel released: 0x00000000000000000000000000abcdef at 192.0.2.1
[    7.100000] ib_srpt ib_srpt: ACL 0x0001 removed: logging out 1 channel
[    8.000000] null_blk: disk nullb0 created
[    8.100000] XFS (sdb): Mounting V5 Filesystem 1234abcd-0000-1111-2222-333344445555
[    9.000000] ib_srpt-test: scenario tests/01-login-logout.sh starts
[    9.100000] device-mapper: multipath round-robin: version 1.2.0 loaded
[    9.200000] audit: type=1400 audit(1700000000.000:2): apparmor="STATUS"
[   10.000000] sysrq: Show Blocked State
[   10.000000] task:kworker/0:1     state:I stack:0     pid:12    tgid:12    ppid:2      flags:0x00004000
EOF_ORDINARY
)

fails=0 n=0
while IFS='|' read -r kind line; do
	n=$((n + 1))
	grep -qE "$KERNEL_REPORTS" <<<"$line" ||
		{ echo "FAIL: not matched ($kind): $line"; fails=$((fails + 1)); }
done <<<"$REPORTS"
while IFS= read -r line; do
	n=$((n + 1))
	if grep -qE "$KERNEL_REPORTS" <<<"$line"; then
		echo "FAIL: an ordinary line matched ($(grep -oE "$KERNEL_REPORTS" <<<"$line" | head -n1)): $line"
		fails=$((fails + 1))
	fi
done <<<"$ORDINARY"
# kernel_reports FILE: the reports of a log, nothing else.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
{ cut -d'|' -f2- <<<"$REPORTS"; echo "$ORDINARY"; } >"$log"
got=$(kernel_reports "$log" | wc -l)
want=$(wc -l <<<"$REPORTS")
[ "$got" = "$want" ] || { echo "FAIL: kernel_reports found $got lines of $want"; fails=$((fails + 1)); }
if [ $fails -gt 0 ]; then
	echo "kernel-reports: $fails of $n lines wrong"
	exit 1
fi
echo "PASS kernel-reports: $(wc -l <<<"$REPORTS") report lines of every kind match, $(wc -l <<<"$ORDINARY") ordinary lines do not"
