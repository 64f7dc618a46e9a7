#!/bin/bash
# An admin serving many initiators from one box turns on the shared receive
# queue (TPG attribute use_srq=1; module parameter srpt_srq_size buffers per
# RDMA device) and sets srp_credits=32:
# - the first login makes the device's SRQ: debugfs resources shows
#   srpt_srq_size receive buffers and 8 spares for SRP_CRED_RSPs (each at
#   most the request size in whole pages plus one page) and no more for
#   the next channels; every channel
#   receives through it (debugfs channels: srq 1) with immediate data;
# - two initiator ports with ch_count=2 (4 channels on one SRQ) run fio
#   with crc32c verification at once on a ramdisk, a fileio and a block LUN
#   (512 B..256 KiB: immediate data and RDMA, queue depth above the
#   credits), without and with O_SYNC: every block reads back right, every
#   credit comes back, and the channels' command pools grew from the 16
#   commands they start with;
# - meanwhile an initiator that ignores its credits (raw client: twice its
#   credits plus 8 READs in flight on a slow LUN) has its channel closed
#   with a log line, and the fio of the others goes on unharmed;
# - after the logouts the SRQ is gone: every resources figure is 0.
# stock: skip Debian's ib_srpt has no debugfs resources or channels to see the SRQ in
. "$PROJECT/tools/guest-lib.sh"

CH=/sys/kernel/debug/ib_srpt/channels
RAW_ID=0000000000000000c1ea75e700000002
klog_start
standard_setup ram:64M:ramdisk:wce file:64M:fileio:wce blk:64M:block:wce
# LUN 3, the raw client's only: every I/O held 10 s (slow_blockdev:
# dm-delay; 4 s on a kernel without it), so that all of over-credit's READs
# are in flight at once even when fio loads the guest (with a 2 s null_blk
# a loaded CI guest answered the first READs before the 65th arrived).
# ib_srp does not see the LUN (its ACLs are made before it, and it is not
# mapped to them).
make_acl "$(printf '%016x' 1)$INI_PORT_GUID"
slow=$(slow_blockdev slow 10000) || exit 1
printf '%s\n' "/backstores/block create slow $slow" \
	"/srpt/$TGT_WWN/luns create /backstores/block/slow lun=3 add_mapped_luns=false" \
	"/srpt/$TGT_WWN/acls create ib.$RAW_ID" | targetcli_batch ||
	fail "slow LUN"
echo 1 >"$TPG_DIR/attrib/use_srq" || fail "use_srq=1"
echo 32 >"$TPG_DIR/attrib/srp_credits" || fail "srp_credits=32"
raw_client_setup

srq_size=$(cat /sys/module/ib_srpt/parameters/srpt_srq_size)
req_max=$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)
page=$(getconf PAGESIZE)
[ "$(resource recv_bytes)" = 0 ] || fail "receive buffers before any login: $(resource recv_bytes)"

# --- two initiator ports, ch_count=2 each: 3 disks each
outa=$(SRP_EXPECT=3 srp_login "initiator_ext=0000000000000000,ch_count=2") ||
	fail "login of initiator port 0"
recv1=$(resource recv_bytes)
outb=$(SRP_EXPECT=6 srp_login "initiator_ext=0000000000000001,ch_count=2") ||
	fail "login of initiator port 1"
mapfile -t da < <(echo "$outa" | head -n 3)
mapfile -t db < <(comm -13 <(echo "$outa" | sort) <(echo "$outb" | sort) | head -n 3)
[ ${#db[@]} -eq 3 ] || fail "second initiator port: disks ${db[*]}"
[ "$(resource channels)" = 4 ] || fail "$(resource channels) channels, not 4"
[ "$(awk '/ srq 1 /' "$CH" | wc -l)" = 4 ] || { cat "$CH"; fail "not every channel is on the SRQ"; }
recv=$(resource recv_bytes)
[ "$recv" = "$recv1" ] ||
	fail "receive buffers grew from $recv1 to $recv bytes with more channels on the SRQ"
# srpt_srq_size buffers posted, and 8 spares for SRP_CRED_RSPs (SRPT_SRQ_SPARES).
bufs=$((srq_size + 8))
per_buf=$((recv / bufs))
limit=$(((req_max + page - 1) / page * page + page))
if [ $((per_buf * bufs)) != "$recv" ] || [ "$per_buf" -gt "$limit" ]; then
	fail "$recv bytes of receive buffers for an SRQ of $srq_size + 8 spares (at most $limit each)"
fi
[ "$(klog_count 'logged in to .*immediate data yes')" -ge 4 ] ||
	fail "channels on the SRQ without immediate data: $(grep 'logged in to' "$KLOG" | tail -n 4)"
log "4 channels of 2 initiator ports on one SRQ: $srq_size + 8 buffers of $per_buf bytes ($recv in all), immediate data"

# --- fio on both ports at once (A: first 12 MiB of each LUN, B: from 32 MiB)
fio_job() {
	local sync=$1 i
	cat <<-EOT
	[global]
	ioengine=libaio
	direct=1
	iodepth=48
	rw=randwrite
	bssplit=512/10:4k/40:64k/30:256k/20
	size=12M
	verify=crc32c
	do_verify=1
	randrepeat=0
	sync=$sync
	EOT
	for i in 0 1 2; do
		printf '[a%s]\nfilename=%s\n[b%s]\nfilename=%s\noffset=32M\n' \
			"$i" "${da[i]}" "$i" "${db[i]}"
	done
}
for sync in 0 1; do
	fio_job "$sync" >/tmp/srq.fio
	fio_verify "srq-sync$sync" /tmp/srq.fio &
	fpid=$!
	if [ "$sync" = 0 ]; then
		raw_client "$RAW_ID" --lun 3 --timeout 60 over-credit >/tmp/oc.out 2>&1 ||
			{ cat /tmp/oc.out; fail "over-credit"; }
		grep -q 'the target closed the channel' /tmp/oc.out ||
			{ cat /tmp/oc.out; fail "an initiator 2 x beyond its credits kept its channel on the SRQ"; }
		wait_for 10 grep -q '65 requests in flight with 32 credits; closing the channel' "$KLOG" ||
			fail "the channel of the initiator beyond its credits closed without a log line"
		[ "$(klog_count 'requests in flight with 32 credits')" = 1 ] ||
			fail "$(klog_count 'requests in flight with 32 credits') log lines for one channel beyond its credits"
		log "over-credit: $(grep -E 'READs sent|closed' /tmp/oc.out | tr -s ' \n' ' ')"
	fi
	wait "$fpid" || fail "fio on 6 disks of 2 initiator ports, sync=$sync (/tmp/fio-srq-sync$sync.out)"
	log "fio sync=$sync: 6 jobs on 2 initiator ports verified"
done
for h in $(srp_hosts); do
	wait_for 10 sh -c "[ \$(cat /sys/class/scsi_host/$h/req_lim) = 32 ]" ||
		fail "$h: req_lim $(cat "/sys/class/scsi_host/$h/req_lim") after the I/O, not 32"
done
cmds=$(awk '/ srq 1 / { for (i = 1; i < NF; i++) if ($i == "cmds") printf "%s ", $(i + 1) }' "$CH")
for n in $cmds; do
	if [ "$n" -le 16 ] || [ "$n" -gt 64 ]; then
		fail "command pools of $cmds (16 at login, at most 2 x 32)"
	fi
done
log "credits all back (req_lim 32); command pools grew to: $cmds"

srp_logout || fail "logout"
wait_for 30 sh -c "[ \$(awk '\$1 == \"channels\" { print \$2 }' $RES) = 0 ]" ||
	fail "$(resource channels) channels left after logout"
while read -r k v; do
	[ "$v" = 0 ] || fail "after logout $k is $v, not 0 (the SRQ is freed with its last channel)"
done <"$RES"
splats=$(klog_splats)
[ -z "$splats" ] || { echo "$splats" | head -n 20; fail "kernel splats"; }
pass "4 channels of 2 initiator ports on one SRQ of $srq_size buffers: fio verified (sync 0 and 1), credits back, pools grew ($cmds); an initiator beyond its credits closed; SRQ freed after logout"
