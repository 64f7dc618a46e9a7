#!/bin/bash
# Faults during I/O.  An initiator (ib_srp, two channels, RDMA/CM) runs fio
# with verification on four LUNs - ramdisk, fileio, block (iblock on
# null_blk) and block on a dm-linear device over null_blk - while the admin,
# the network or another initiator breaks something, and puts it right
# again.  Each fault, REPEAT=N times (an argument; default 1), FAULTS=a,b
# for a subset (names below):
#
#  rdma-link     `rdma link del` of the target's RDMA device under I/O, then
#                `rdma link add`.  In this rig the initiator sits on the same
#                device (see tools/guest-lib.sh), so this is also the
#                initiator-side removal: ib_srp removes its SRP host with the
#                device (fast_io_fail_tmo 5 s for this one: it waits for its
#                commands to end), the admin logs in again once it is back.
#                fio on the removed disks gets errors (only the data checks
#                after the fault count).
#  veth          the link under the channel goes down for 3 s and comes back
#                (ip link set veth0 down/up: the RDMA port goes DOWN); ib_srp
#                gets its I/O through, reconnecting if the channel broke.
#  acl           the initiator's ACL removed and created again (configfs:
#                mapped LUNs first, as LIO wants): the target logs ib_srp
#                out, ib_srp reconnects (reconnect_delay 1 s) once the ACL
#                is back.  Commands between the LUN unmapping and the
#                logout fail: fio gets errors.
#  tpg           the TPG disabled and enabled: the same.
#  lun           the mapped LUNs of the ramdisk, fileio and block LUNs
#                removed from the ACL and mapped again (their I/O fails
#                meanwhile; the dm LUN keeps going).
#  backstore     the dm LUN's table swapped to `error` and back (dmsetup):
#                its I/O fails meanwhile, the other LUNs keep going.
#  rmmod         the target's configfs tree removed (the LUNs' backstores
#                stay), rmmod ib_srpt with ib_srp logged in, modprobe and the
#                same configuration again: ib_srp reconnects by itself.
#  logins        CYCLES ib_srp logins and logouts of a second I_T nexus
#                (initiator_ext 1), ch_count 1..4 in turn (6 in make check,
#                about 3 s each under fio; make faults runs 100).
#  killed-login  initiators that die or hang in the middle of their login:
#                RDMA/CM - the raw initiator (build/srp-client) frozen right
#                after it sent its login (LD_PRELOAD shim: no RTU is sent;
#                its CM answers the REP with an MRA, so the CM would wait
#                for a quarter of an hour: the target gives up 60 s after
#                its login response, 10 s here via debugfs rtu_timeout_s)
#                and one killed (SIGKILL) while frozen so (its CM sends a
#                REJ), and login storms killed at random moments; IB CM
#                (tools/ibcm-test, not on iWARP) - a login without RTU that
#                the target's CM times out, and one ended by rmmod of the
#                test module.
#
# ib_srp runs with fast_io_fail_tmo=off, dev_loss_tmo=120 and
# reconnect_delay=1: commands of a channel that breaks are retried on the
# new one, so fio must see no error on a LUN the fault leaves alone - fio
# stops at the first error or block that does not verify.  After each
# fault: fio has verified all along on the LUNs left alone, a fresh verified
# fio run passes on every LUN (the region fio wrote during the fault: late
# writes of a dead channel would land there), 4 MiB written before the
# fault read back intact on every LUN, a new (raw) login is accepted, no
# kernel splat (the whole kernel log is kept: klog.txt), and the target
# holds what it held before - /sys/module/ib_srpt/refcnt and every line of
# /sys/kernel/debug/ib_srpt/resources (channels, sessions, buffers) the
# same, with ib_srp logged in again the same way.  One "FAULT" line per
# fault with its timing and these figures.  At the end, with ib_srp logged
# out, every resource figure is 0.  A resources file that cannot be read
# fails the run (it would leave these checks blind).
# timeout: 1200 (about 10 minutes on an idle machine)
# long: nine faults under I/O, 5-13 minutes (make faults repeats them)
# stock: skip the kill and rmmod faults count on our module's log lines and resources file
# core: REPEAT=1 FAULTS=tpg

. "$PROJECT/tools/guest-lib.sh"
. "$PROJECT/tools/fault-lib.sh"

REPEAT=1 FAULTS=all CYCLES=6
scenario_args "REPEAT FAULTS CYCLES" "$@"
[ "$FAULTS" = all ] && FAULTS=$ALL_FAULTS
for f in ${FAULTS//,/ }; do
	[[ ,$ALL_FAULTS, == *,$f,* ]] || fail "unknown fault $f (faults: $ALL_FAULTS)"
done

run_faults "$REPEAT" "$FAULTS"
pass "$REPEAT x faults $FAULTS under verified fio on ramdisk, fileio, block, dm LUNs: no corruption, no splat, resources back, logins accepted"
