#!/bin/bash
# What a channel costs: an admin sizing a target for many initiators logs
# in 8 initiator ports (initiator_ext 0..7, an ACL each) with ch_count=4,
# 32 channels in all, to one block LUN, and reads the target's memory
# before, while all 32 are logged in, and after they logged out.
#
# Printed per channel: the module's own accounting (debugfs
# ib_srpt/resources: receive and response buffer bytes, CQ entries,
# command slots) and the kernel's (MemFree and unreclaimable slab, target
# and initiator together - the initiator side is the same ib_srp for every
# target mode, so differences between modes are the target's).  Checked:
# all 32 channels and their 32 LIO sessions are live and every disk reads back
# what was written; each receive
# buffer takes at most the request size rounded up to whole pages plus one
# page (a fitting allocator: an 8 KiB IU does not take 16 KiB); after the
# logouts every resources figure is 0 again and MemFree came back (within a
# quarter of what the 32 channels took).
# stock: skip Debian's ib_srpt has no resources file to read its channels from
. "$PROJECT/tools/guest-lib.sh"

PORTS=8 CH=4
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# live_channels_are N: the target holds N channels now (for wait_for,
# which must run the reading each time, not a value taken once).
# shellcheck disable=SC2317  # run by wait_for
live_channels_are() { [ "$(resource channels)" -eq "$1" ]; }
# settle: let freed memory and RCU callbacks come home before a reading.
settle() { sync; echo 3 >/proc/sys/vm/drop_caches; sleep 2; }

standard_setup mem:256M:block
for ((p = 1; p < PORTS; p++)); do
	make_acl "$(printf '%016x' "$p")$INI_PORT_GUID"
done
credits=$(cat "$TPG_DIR/attrib/srp_credits")
req_max=$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)
page=$(getconf PAGESIZE)

settle
free0=$(meminfo MemFree) slab0=$(meminfo SUnreclaim)
log "before: MemFree ${free0} KiB, SUnreclaim ${slab0} KiB; $(tr '\n' ' ' <"$RES")"

for ((p = 0; p < PORTS; p++)); do
	SRP_EXPECT=$((p + 1)) srp_login "initiator_ext=$(printf '%016x' "$p"),ch_count=$CH" >/dev/null ||
		fail "login of initiator port $p (ch_count=$CH) failed"
done
nch=$((PORTS * CH))
wait_for 30 live_channels_are "$nch" || fail "$(resource channels) channels live, not $nch"
# One LIO session per channel (each channel is an I_T nexus of its own).
[ "$(resource sessions)" -eq "$nch" ] || fail "$(resource sessions) LIO sessions, not $nch"
for h in $(srp_hosts); do
	[ "$(cat "/sys/class/scsi_host/$h/ch_count")" = "$CH" ] ||
		fail "$h has ch_count $(cat "/sys/class/scsi_host/$h/ch_count"), not $CH"
done
# Every channel's memory is in use: a short verified run on every disk.
for d in $(srp_disks); do
	verify_io "$d" 4 || fail "read-back on $d"
done
rm -f /tmp/vio-pat /tmp/vio-back

settle
free1=$(meminfo MemFree) slab1=$(meminfo SUnreclaim)
recv=$(resource recv_bytes) send=$(resource send_bytes) cqe=$(resource cq_entries) slots=$(resource cmd_slots)
log "with $nch channels: MemFree ${free1} KiB, SUnreclaim ${slab1} KiB; $(tr '\n' ' ' <"$RES")"
took=$((free0 - free1))
log "per channel (credits $credits, srp_max_req_size $req_max): receive buffers $((recv / nch)) B, response buffers $((send / nch)) B, CQ entries $((cqe / nch)), command slots $((slots / nch)); kernel (target + initiator): MemFree $((took / nch)) KiB, SUnreclaim $(((slab1 - slab0) / nch)) KiB"
echo "per_channel recv_bytes=$((recv / nch)) send_bytes=$((send / nch)) cq_entries=$((cqe / nch)) cmd_slots=$((slots / nch)) memfree_kib=$((took / nch)) sunreclaim_kib=$(((slab1 - slab0) / nch)) credits=$credits" \
	>"$RESULTS/memory.txt"

# A fitting allocator: each receive buffer at most the request size in
# whole pages plus one page of padding (immediate data page-aligned).
per_iu=$((recv / nch / credits))
limit=$(((req_max + page - 1) / page * page + page))
[ "$per_iu" -le "$limit" ] ||
	fail "a receive buffer takes $per_iu bytes, more than $limit for srp_max_req_size $req_max"
[ "$took" -gt 0 ] || fail "MemFree did not move with $nch channels ($free0 -> $free1 KiB)"

srp_logout || fail "logout"
wait_for 30 live_channels_are 0 || fail "$(resource channels) channels left after logout"
while read -r k v; do
	[ "$v" = 0 ] || fail "after logout $k is $v, not 0"
done <"$RES"
settle
free2=$(meminfo MemFree)
log "after logout: MemFree ${free2} KiB, SUnreclaim $(meminfo SUnreclaim) KiB"
[ $((free0 - free2)) -le $((took / 4)) ] ||
	fail "MemFree $free2 KiB after logout, $((free0 - free2)) KiB short of before ($free0); the channels took $took"

pass "$nch channels ($PORTS ports x ch_count $CH): $((recv / nch)) B receive + $((send / nch)) B response buffers and $((took / nch)) KiB MemFree (target + initiator) per channel; all back after logout"
