#!/bin/bash
# (g) Tear the target down while an initiator is logged in and fio writes
# to one LUN of each backstore kind (ramdisk, fileio, block = iblock on a
# null_blk disk with a write cache, plus a job with O_SYNC = FUA writes
# there): clear the LIO config, rmmod ib_srpt.  rmmod must succeed (a block
# device may still hold write buffers of commands the target gave it), the
# initiator sees I/O errors (expected), the guest stays healthy, and a
# reloaded target serves a new login whose writes read back intact on all
# three kinds.
. "$PROJECT/tools/guest-lib.sh"

KINDS=(ramdisk fileio block)
standard_setup vol-ram:64M:ramdisk vol-file:64M:fileio vol-blk:64M:block:wce
out=$(srp_login "ch_count=2") || fail "login failed"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks, got ${#disks[*]}"
# Fail outstanding I/O quickly once the target is gone.
for p in /sys/class/srp_remote_ports/port-*; do
	echo 5 >"$p/fast_io_fail_tmo" 2>/dev/null
	echo 2 >"$p/reconnect_delay" 2>/dev/null
done
fio --ioengine=libaio --direct=1 --rw=randrw --bs=4k --iodepth=32 \
	--time_based --runtime=300 --continue_on_error=all --eta=never \
	--output=/tmp/fio-bg.out \
	--name="${KINDS[0]}" --filename="${disks[0]}" \
	--name="${KINDS[1]}" --filename="${disks[1]}" \
	--name="${KINDS[2]}" --filename="${disks[2]}" \
	--name="${KINDS[2]}-sync" --filename="${disks[2]}" --sync=1 --bs=16k &
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
wait_gone 120 $fio_pid || fail "fio still stuck 120s after the target went away"
wait $fio_pid
log "fio ended (rc=$?) after $(( $(date +%s) - t0 ))s"
tail -n 5 /tmp/fio-bg.out | sed 's/^/  fio: /'

srp_logout || fail "could not remove the dead SRP port"
log "initiator port removed"

# Healthy again: reload and serve a new login.
lsmod | grep -q '^ib_srpt' && fail "ib_srpt still loaded"
load_target vol2-ram:16M:ramdisk vol2-file:16M:fileio vol2-blk:16M:block acl:"$INI_PORT_ID"
out=$(srp_login) || fail "login after reload failed"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks after reload, got ${#disks[*]}"
for i in 0 1 2; do
	verify_io "${disks[i]}" || fail "${KINDS[i]} LUN ${disks[i]}: write/read-back after reload failed"
done
srp_logout || fail "final logout"
unload_target || fail "second teardown failed: $UNLOAD_ERR"
pass "target torn down under I/O to ramdisk, fileio and block LUNs, rmmod ok, reload + login + read-back ok"
