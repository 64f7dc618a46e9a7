#!/bin/bash
# (g) Tear the target down while an initiator is logged in and fio is
# running: clear the LIO config, rmmod ib_srpt.  rmmod must succeed, the
# initiator sees I/O errors (expected), the guest stays healthy, and a
# reloaded target serves a new login.
. "$PROJECT/tools/guest-lib.sh"

standard_setup vol:64M
dev=$(srp_login "ch_count=2") || fail "login failed"
# Fail outstanding I/O quickly once the target is gone.
for p in /sys/class/srp_remote_ports/port-*; do
	echo 5 >"$p/fast_io_fail_tmo" 2>/dev/null
	echo 2 >"$p/reconnect_delay" 2>/dev/null
done
fio --name=bg --filename="$dev" --ioengine=libaio --direct=1 --rw=randrw \
	--bs=4k --iodepth=32 --time_based --runtime=300 --continue_on_error=all --eta=never \
	--output=/tmp/fio-bg.out &
fio_pid=$!
sleep 8
kill -0 $fio_pid || fail "fio died before the teardown"

log "clearconfig + rmdir srpt + rmmod ib_srpt while logged in with I/O running"
t0=$(date +%s)
unload_target || fail "target teardown failed: $UNLOAD_ERR"
log "rmmod ib_srpt ok after $(( $(date +%s) - t0 ))s"
lsmod | grep -q '^ib_srpt' && fail "ib_srpt still loaded"

# The initiator must give up on the I/O (fast_io_fail) rather than hang.
kill $fio_pid 2>/dev/null
for i in $(seq 1 120); do kill -0 $fio_pid 2>/dev/null || break; sleep 1; done
kill -0 $fio_pid 2>/dev/null && fail "fio still stuck 120s after the target went away"
wait $fio_pid
log "fio ended (rc=$?) after $(( $(date +%s) - t0 ))s"
tail -n 5 /tmp/fio-bg.out | sed 's/^/  fio: /'

srp_logout || fail "could not remove the dead SRP port"
log "initiator port removed"

# Healthy again: reload and serve a new login.
lsmod | grep -q '^ib_srpt' && fail "ib_srpt still loaded"
load_target
make_lun vol2 16M
make_acl
dev=$(srp_login) || fail "login after reload failed"
verify_io "$dev" || fail "write/read-back after reload failed"
srp_logout || fail "final logout"
unload_target || fail "second teardown failed: $UNLOAD_ERR"
pass "target torn down under I/O, rmmod ok, reload + login ok"
