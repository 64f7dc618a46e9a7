#!/bin/bash
# A storage admin tunes the target port group: srp_sq_size sets the credits
# an initiator gets (ib_srp's req_lim) and every credit comes back once the
# I/O is done; out-of-range attribute values are refused; disabling the TPG
# logs initiators out and enabling it lets them reconnect; a target port can
# also be named by its port GUID, and a name that is neither GID nor GUID is
# refused.  The credit check runs verified fio writes (qd 64 > 32 credits,
# without and with O_SYNC) on one LUN of each backstore kind: ramdisk,
# fileio, block (iblock on a null_blk disk).
# stock: skip Debian's ib_srpt grants 128 credits whatever srp_sq_size says (seen by running it)
. "$PROJECT/tools/guest-lib.sh"

KINDS=(ramdisk fileio block)
standard_setup disk-ram:32M:ramdisk disk-file:32M:fileio disk-blk:32M:block
attrib=$TPG_DIR/attrib
for a in srp_max_rdma_size srp_max_rsp_size srp_sq_size; do
	[ -f "$attrib/$a" ] || fail "no TPG attribute $a"
	log "$a = $(cat "$attrib/$a")"
done
echo 32 >"$attrib/srp_sq_size" || fail "cannot set srp_sq_size=32"
if echo 0 >"$attrib/srp_sq_size" 2>/dev/null; then
	fail "srp_sq_size=0 accepted"
fi
if echo 8 >"$attrib/srp_max_rsp_size" 2>/dev/null; then
	fail "srp_max_rsp_size=8 accepted (an SRP_RSP alone is 36 bytes)"
fi
[ "$(cat "$attrib/srp_sq_size")" = 32 ] || fail "srp_sq_size is $(cat "$attrib/srp_sq_size"), not 32"

out=$(srp_login "ch_count=2") || fail "login failed"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks, got ${#disks[*]}"
host=$(srp_hosts | head -n1)
# shellcheck disable=SC2317  # called through wait_for
req_lim_is() { [ "$(cat "/sys/class/scsi_host/$host/req_lim")" = "$1" ]; }
# The SCSI scan may still have a command out: wait for it.
wait_for 10 req_lim_is 32 ||
	fail "initiator has $(cat "/sys/class/scsi_host/$host/req_lim") credits, srp_sq_size is 32"
log "ib_srp req_lim after login: 32"
for sync in 0 1; do
	args=(--ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=64
	      --size=16M --runtime=6 --time_based --verify=crc32c "--sync=$sync" --randrepeat=0)
	for i in 0 1 2; do
		args+=(--name="${KINDS[i]}" --filename="${disks[i]}")
	done
	fio_verify "credits-sync$sync" "${args[@]}" ||
		fail "fio qd64 sync=$sync on ${KINDS[*]} LUNs ${disks[*]}: $FIO_BAD bad blocks ($(fio_bad_on "credits-sync$sync" "${disks[@]}" | xargs))"
	wait_for 10 req_lim_is 32 ||
		fail "only $(cat "/sys/class/scsi_host/$host/req_lim") of 32 credits came back after the I/O"
	log "ib_srp req_lim after fio sync=$sync (queue depth above the credits): 32"
done
srp_logout || fail "logout"

# Disabling the TPG logs the initiator out; enabled again, it reconnects.
out=$(srp_login) || fail "login for the disable check"
mapfile -t disks <<<"$out"
dev=${disks[0]}
host=$(srp_hosts | head -n1)
for p in /sys/class/srp_remote_ports/port-*; do
	echo 2 >"$p/reconnect_delay" 2>/dev/null
done
# The initiator's view: its remote port leaves "running" once the target
# has dropped the channel (and stays out while reconnects are refused).
rport_running() { grep -q running /sys/class/srp_remote_ports/port-*/state; }
rport_running || fail "SRP remote port not running while logged in"
echo 0 >"$TPG_DIR/enable" || fail "cannot disable the TPG"
wait_for 30 sh -c '! grep -q running /sys/class/srp_remote_ports/port-*/state' ||
	fail "initiator still connected after disabling the TPG"
log "TPG disabled: initiator disconnected ($(cat /sys/class/srp_remote_ports/port-*/state))"
echo 1 >"$TPG_DIR/enable" || fail "cannot enable the TPG"
wait_for 60 verify_io "$dev" 4 || fail "no I/O after the TPG was enabled again"
for i in 1 2; do
	verify_io "${disks[i]}" 4 || fail "${KINDS[i]} LUN ${disks[i]}: write/read-back after the TPG was enabled again"
done
log "TPG enabled: the initiator reconnected and does I/O"
srp_logout || fail "logout"

guid=$(sed 's/.*:\(....:....:....:....\)$/\1/' "/sys/class/infiniband/$HCA1/ports/1/gids/0")
mkdir "$SRPT_DIR/$guid" || fail "a target port named by port GUID $guid refused"
rmdir "$SRPT_DIR/$guid"
for bad in bogus 0x1234 fe80:0000; do
	if mkdir "$SRPT_DIR/$bad" 2>/dev/null; then
		fail "target port name '$bad' accepted"
	fi
done
pass "srp_sq_size=32 gives 32 credits, all back after fio; TPG disable/enable; bad values and names refused"
