#!/bin/bash
# A storage admin tunes the target port group: srp_credits sets the credits
# an initiator gets (ib_srp's req_lim) and every credit comes back once the
# I/O is done, also when srp_sq_size keeps the send queue small (4: 64
# work requests plus what rdma_rw and the device add: 254 on 6.12's rxe,
# 127 on 6.1's, while the default is one per credit) and debugfs
# ib_srpt/rw_size 4096 (a test knob: RDMA contexts of a page instead of
# 1 MiB; srp_max_rdma_size only advertises a size, as in the in-kernel
# module) makes each page of a transfer a work request of its own: a
# command of 512 KiB (256 KiB on a send queue of 127) then takes more than
# half the send queue, so while one such transfer is posted the others
# wait for send queue room, and the port's sq_waits counter
# (fabric_statistics/srpt_port_stats) must move;
# srp_sq_size and use_srq take every value the in-kernel module takes
# (srp_sq_size 4..65535, srp_max_rdma_size 65536..16 MiB, use_srq 0 and 1;
# tests/30 uses the shared receive
# queue); out-of-range values are refused; disabling the TPG logs
# initiators out and enabling it lets them reconnect; a target port can
# also be named by its port GUID, and a name that is neither GID nor GUID is
# refused.  The credit check runs verified fio writes (qd 64 x 3 > 100
# credits, without and with O_SYNC) on one LUN of each backstore kind:
# ramdisk, fileio, block (iblock on a null_blk disk) - 4 KiB writes on
# each, and beside them writes of over half the send queue at qd 64 on the
# ramdisk LUN.
# stock: skip Debian's ib_srpt grants 128 credits whatever srp_sq_size says and has no srp_credits (seen by running it)
. "$PROJECT/tools/guest-lib.sh"

KINDS=(ramdisk fileio block)
standard_setup disk-ram:32M:ramdisk disk-file:32M:fileio disk-blk:32M:block
attrib=$TPG_DIR/attrib
for a in srp_max_rdma_size srp_max_rsp_size srp_sq_size srp_credits use_srq; do
	[ -f "$attrib/$a" ] || fail "no TPG attribute $a"
	log "$a = $(cat "$attrib/$a")"
done
# accepts ATTR VALUE / refuses ATTR VALUE
accepts() { echo "$2" >"$attrib/$1" || fail "$1=$2 refused"; }
refuses() {
	if echo "$2" >"$attrib/$1" 2>/dev/null; then
		fail "$1=$2 accepted"
	fi
}
for v in 4 0x10 65535; do accepts srp_sq_size $v; done
for v in 0 3 65536 -1 abc; do refuses srp_sq_size $v; done
srq=$(cat "$attrib/use_srq")
for v in 1 0; do
	accepts use_srq $v
	[ "$(cat "$attrib/use_srq")" = $v ] || fail "use_srq reads $(cat "$attrib/use_srq") after $v"
done
for v in 2 -1 abc; do refuses use_srq $v; done
accepts use_srq "$srq"
for v in 0 15 4097; do refuses srp_credits $v; done
# An SRP_RSP alone is 36 bytes; 40 (with response data) and 1024 are
# the in-kernel module's bounds too.
refuses srp_max_rsp_size 8
refuses srp_max_rsp_size 39
accepts srp_max_rsp_size 40
accepts srp_max_rsp_size 1024
accepts srp_max_rsp_size 256
accepts srp_credits 100
for v in 4096 65535 16777217; do refuses srp_max_rdma_size $v; done
[ "$(cat "$attrib/srp_max_rdma_size")" = 65536 ] ||
	fail "srp_max_rdma_size defaults to $(cat "$attrib/srp_max_rdma_size"), the in-kernel module's 65536"
accepts srp_max_rdma_size 16777216
accepts srp_max_rdma_size 65536
accepts srp_sq_size 4
RW_SIZE=/sys/kernel/debug/ib_srpt/rw_size
rw0=$(cat $RW_SIZE) || fail "no $RW_SIZE"
echo 4096 >$RW_SIZE || fail "rw_size=4096"
[ "$(cat "$attrib/srp_credits")" = 100 ] || fail "srp_credits is $(cat "$attrib/srp_credits"), not 100"

out=$(srp_login "ch_count=2") || fail "login failed"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks, got ${#disks[*]}"
host=$(srp_hosts | head -n1)
# shellcheck disable=SC2317  # called through wait_for
req_lim_is() { [ "$(cat "/sys/class/scsi_host/$host/req_lim")" = "$1" ]; }
# The SCSI scan may still have a command out: wait for it.
wait_for 10 req_lim_is 100 ||
	fail "initiator has $(cat "/sys/class/scsi_host/$host/req_lim") credits, srp_credits is 100"
# send_queue: the send queue size of the last login, from the kernel log.
send_queue() { dmesg | grep -o 'logged in to .*send queue [0-9]*' | tail -n1 | grep -o '[0-9]*$'; }
sq_small=$(send_queue)
log "ib_srp req_lim after login: 100; send queue $sq_small (srp_sq_size=4)"
# The port's count of transfers and responses that waited for send queue
# room.
waits=$(dirname "$TPG_DIR")/fabric_statistics/srpt_port_stats/sq_waits
waits0=$(cat "$waits") || fail "no sq_waits counter"
# The big writes: the most pages (a work request each) that fit in the
# send queue beside the response, as a power of two, which is more than
# half of it; they must reach the target whole, so no more than the disk
# takes a command. On siw the send queue is larger (rdma_rw adds room for
# the MRs iWARP's RDMA READs need) and the largest command ib_srp sends
# (max_sectors_kb) is the limit; there an RDMA READ of a page takes two or
# three work requests, and these writes still need more than half of it.
pages=1
while [ $((pages * 2 + 1)) -le "$sq_small" ]; do pages=$((pages * 2)); done
kb=$(cat "/sys/block/${disks[0]#/dev/}/queue/max_sectors_kb")
while [ $((pages * 4)) -gt "$kb" ] && [ "$TRANSPORT" = siw ]; do pages=$((pages / 2)); done
big_kb=$((pages * 4))
[ "$kb" -ge "$big_kb" ] || fail "${disks[0]} takes only $kb KiB a command, not $big_kb"
log "big writes: $big_kb KiB, $pages work requests of a send queue of $sq_small"
for sync in 0 1; do
	args=(--ioengine=libaio --direct=1 --rw=randwrite --bs=4k --iodepth=64
	      --size=16M --verify=crc32c "--sync=$sync" --randrepeat=0)
	for i in 0 1 2; do
		args+=(--name="${KINDS[i]}" --filename="${disks[i]}")
	done
	# The other half of the ramdisk LUN, in the big commands.
	args+=(--name="ramdisk-${big_kb}k" --filename="${disks[0]}" --offset=16M "--bs=${big_kb}k")
	fio_verify "credits-sync$sync" "${args[@]}" ||
		fail "fio qd64 sync=$sync on ${KINDS[*]} LUNs ${disks[*]}: $FIO_BAD bad blocks ($(fio_bad_on "credits-sync$sync" "${disks[@]}" | xargs))"
	wait_for 10 req_lim_is 100 ||
		fail "only $(cat "/sys/class/scsi_host/$host/req_lim") of 100 credits came back after the I/O"
	log "ib_srp req_lim after fio sync=$sync (queue depth above the credits): 100"
done
waits1=$(cat "$waits")
[ "$waits1" -gt "$waits0" ] ||
	fail "sq_waits is $waits1 after fio with $big_kb KiB commands over a send queue of $sq_small: nothing waited for send queue room"
log "$((waits1 - waits0)) transfers and responses waited for send queue room (sq_waits)"
srp_logout || fail "logout"

# Disabling the TPG logs the initiator out; enabled again, it reconnects.
# The defaults again: one send queue slot per credit (256), which the
# device may round up - rxe to a power of two, less one.
accepts srp_sq_size 4096
accepts srp_credits 256
echo "$rw0" >$RW_SIZE || fail "rw_size=$rw0"
out=$(srp_login) || fail "login for the disable check"
[ "$(send_queue)" -gt "$sq_small" ] ||
	fail "send queue $(send_queue) with the defaults, $sq_small with srp_sq_size=4 and 100 credits: srp_sq_size does not cap it"
log "send queue $(send_queue) with srp_sq_size=4096 and 256 credits"
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
pass "srp_credits=100 gives 100 credits, all back after fio with srp_sq_size=4 (send queue $sq_small) and rw_size=4096, where $((waits1 - waits0)) transfers and responses waited (sq_waits); srp_sq_size 4..65535, srp_max_rdma_size 65536..16777216 (default 65536) and use_srq 0/1 taken; TPG disable/enable; bad values and names refused"
