#!/bin/bash
# Failures the fabric and the kernel rarely show, injected while ib_srp
# verifies its I/O (the rig of tests/20: ramdisk, fileio, block and dm
# LUNs, two channels):
#
#  alloc-fail    memory allocations with ib_srpt on the stack fail (5 %,
#                at most INJ_TIMES, for INJ_SECS seconds): failslab and
#                fail_page_alloc filtered to the module's code, sleeping
#                allocations too - ours, and those of LIO, rdma_rw and the
#                CM made for us.  Meanwhile raw and ib_srp logins come and
#                go; a login may be refused, a command may end in BUSY,
#                TASK SET FULL or ABORTED COMMAND (the initiator retries
#                them). fio verifies on the ramdisk LUN throughout; the
#                fileio and block backends allocate too while they execute
#                (on our stack: we call LIO from the completion context)
#                and LIO fails such a command with NOT READY, LOGICAL UNIT
#                COMMUNICATION FAILURE, which is not retried - those LUNs
#                are only loaded, and checked afterwards.
#  post-fail     ib_post_send() takes only the first work request of a
#                chain, 5 times (/sys/kernel/debug/ib_srpt/fail_post_send):
#                the channel closes, the commands of the chain fail once
#                the drain has flushed the posted part, ib_srp reconnects.
#
# After each, as in tests/20: fio verified all along, a fresh verified run
# and the data from before the fault intact on every LUN, a new login
# accepted, the target's figures (module refcount, channels, sessions,
# buffers) as before, no splat; at the end every figure 0 and, on the
# debug kernel, no kmemleak report.  REPEAT=N rounds, FAULTS=a,b,
# INJ_SECS=N, INJ_TIMES=N.
# release: skip needs a kernel with fault injection (make check-debug)
# stock: skip the injection point fail_post_send and the resources file are our module's
. "$PROJECT/tools/guest-lib.sh"
. "$PROJECT/tools/fault-lib.sh"

REPEAT=1 FAULTS=$INJECTED_FAULTS
scenario_args "REPEAT FAULTS INJ_SECS INJ_TIMES" "$@"
for f in ${FAULTS//,/ }; do
	[[ ,$INJECTED_FAULTS, == *,$f,* ]] || fail "unknown fault $f (faults: $INJECTED_FAULTS)"
done
injection_available || fail "no fault injection in this kernel ($(uname -r)): run it with make check-debug"

run_faults "$REPEAT" "$FAULTS"
pass "$REPEAT x injected faults $FAULTS under verified fio on ramdisk, fileio, block, dm LUNs: no corruption, no splat, resources back, logins accepted"
