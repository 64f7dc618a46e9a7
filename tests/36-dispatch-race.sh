#!/bin/bash
# A channel goes while an IU it received is being dispatched by a context
# the QP drain does not wait for (issue 37's use-after-free). An initiator
# keeps a channel on the shared receive queue full (use_srq=1: its command
# pool starts at 16, so further IUs wait for a command); the channel's
# dispatch work (queued to grow the pool, or by a command coming back
# from LIO) dispatches the waiting ones, and the fault point "dispatch"
# (3 s) holds each such dispatch before its handler.
# The initiator logs out while one is held: the release must wait for the
# dispatch before it frees the LIO session (one it stopped refuses the
# request). Before the fix it did not, and the handler called
# target_init_cmd() on the freed session (slub_debug=P poisons freed
# objects, so the release kernel oopses too).
# Checks: the fault point was taken, the channel released, no kernel
# report, every resources figure 0, and a new login does verified I/O.
# kernel-args: slub_debug=P
# stock: skip fault points and the fix are ours
. "$PROJECT/tools/guest-lib.sh"

FAULT=/sys/kernel/debug/ib_srpt/fault_delay_ms
RAW=0000000000000000d15a7c4000000001
klog_start
standard_setup blk:64M:block acl:"$RAW"
echo 1 >"$TPG_DIR/attrib/use_srq" || fail "use_srq=1"
raw_client_setup

echo 3000 >"$FAULT/dispatch" || fail "cannot set the dispatch fault point"
raw_client "$RAW" --timeout 60 --rounds 1 flood >/tmp/flood.out 2>&1 ||
	fail "flood: $(tail -n3 /tmp/flood.out | xargs)"
log "flood: $(grep -o '[0-9]* writes of 1 MiB.*' /tmp/flood.out)"
held=$(klog_count "fault point dispatch:")
[ "$held" -gt 0 ] || fail "no dispatch outside the CQ was held: no IU waited for a command"
log "dispatches held 3 s each: $held"
wait_for 60 sh -c "grep -q 'channel released' $KLOG" || fail "the channel was not released"
echo 0 >"$FAULT/dispatch"
# A dispatch held when the session went would resume within 3 s.
sleep 4
r=$(klog_splats)
[ -z "$r" ] || fail "kernel report: $(head -n3 <<<"$r")"
resources_free || fail "resources held after the release: $(tr '\n' ' ' <"$RES")"

raw_client "$RAW" --timeout 30 login-ok write-read-direct >/tmp/raw.out 2>&1 ||
	fail "a new login after the race: $(tail -n3 /tmp/raw.out | xargs)"
pass "logout during $held held dispatches: the release waited, no use-after-free; a new login works"
