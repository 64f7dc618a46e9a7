#!/bin/bash
# Resets under I/O, and the credits they must not cost.
#   - ib_srp with two channels runs fio crc32c verify (2 jobs, one per CPU
#     and so per channel) on a block LUN while the admin resets the LUN
#     three times (sg_reset -d: an SRP LOGICAL UNIT RESET) and then the
#     host (sg_reset -b: ib_srp reconnects both channels); every block
#     must verify, and afterwards, idle, each channel's initiator holds
#     every credit the target granted: the target's count (debugfs
#     ib_srpt/channels req_lim) and ib_srp's own (sysfs req_lim) agree.
#   - A request that LIO ends without any response (a LOGICAL UNIT RESET
#     from another session with TAS off) still gives its credit back: a
#     raw channel with 4 READs in flight on a slow LUN (dm-delay completing
#     each I/O after 5 s, emulate_tas=0) gets an SRP_CRED_REQ with them
#     when another channel resets the LUN (srp-client case cred-req).
#   - ABORT TASK SET, which LIO lacks and ib_srpt builds from ABORT TASK,
#     aborts 4 READs in flight on the slow LUN: no response for them, and
#     the TMF's FUNCTION COMPLETE brings their credits (abort-task-set).
#   - CLEAR TASK SET, which LIO lacks too, clears the tasks of every I_T
#     nexus on the LU (LIO has one task set per LU): with 4 READs in flight
#     on each of 3 channels (2 of one initiator port, 1 of another), on a
#     slow LUN with TAS off and on one with TAS on (LIO's default): the
#     issuing nexus' READs end without a response, the other nexus' READs
#     with TASK ABORTED when TAS is on, and every credit comes back. Once
#     iSCSI exports the LU too, whose tasks an SRP target cannot abort, it
#     is "function not supported" with a log line (clear-task-set).
# stock: skip the in-kernel module sends no SRP_CRED_REQ
. "$PROJECT/tools/guest-lib.sh"

klog_start
# OTHER_ID: the second I_T nexus of CLEAR TASK SET (below).
OTHER_ID=0000000000000000c1ea75e700000001
standard_setup blk:64M:block acl:$OTHER_ID
raw_client_setup
CH=/sys/kernel/debug/ib_srpt/channels

# Slow LUNs, whose every I/O takes 5 s (slow_blockdev: 4 s on a kernel
# without dm-delay): the resets and aborts must find the READs still in
# the backend (with 2 s, a TCG stall once let 2 of 4 complete first).
# LUN 1 "slow" with TAS off, LUN 2 "slowtas" with TAS on.
dev1=$(slow_blockdev slow 5000) || exit 1
dev2=$(slow_blockdev slowtas 5000) || exit 1
printf '%s\n' "/backstores/block create slow $dev1" "/backstores/block create slowtas $dev2" |
	configfs_batch || fail "block create slow, slowtas"
# Before the LUN exists: LIO takes no TAS change on an exported device.
echo 0 >/sys/kernel/config/target/core/iblock_*/slow/attrib/emulate_tas || fail "emulate_tas=0 on slow"
echo 1 >/sys/kernel/config/target/core/iblock_*/slowtas/attrib/emulate_tas || fail "emulate_tas=1 on slowtas"
printf '%s\n' "/srpt/$TGT_WWN/luns create /backstores/block/slow" \
	"/srpt/$TGT_WWN/luns create /backstores/block/slowtas" |
	configfs_batch || fail "lun create slow, slowtas"


# --- a reset on another session aborts READs without a response.
c0=$(srpt_event cred_reqs)
raw_client "$INI_PORT_ID" --lun 1 cred-req >/tmp/cred.out 2>&1 || fail "cred-req: $(cat /tmp/cred.out)"
grep -E 'aborted without a response' /tmp/cred.out | sed 's/^ */  /'
[ "$(srpt_event cred_reqs)" -gt "$c0" ] || fail "the target counted no SRP_CRED_REQ"
log "LU reset from another channel: the aborted READs' credits came back in an SRP_CRED_REQ"
raw_client "$INI_PORT_ID" --lun 1 abort-task-set >/tmp/ats.out 2>&1 || fail "abort-task-set: $(cat /tmp/ats.out)"
grep -E 'READs aborted' /tmp/ats.out | sed 's/^ */  /'
log "ABORT TASK SET (built from LIO's ABORT TASK): 4 READs in flight aborted, credits back with its response"

# --- CLEAR TASK SET over two I_T nexuses, TAS off (LUN 1) and on (LUN 2).
for lun in 1 2; do
	raw_client "$INI_PORT_ID" --lun $lun --other-initiator "$OTHER_ID" clear-task-set \
		>/tmp/cts.out 2>&1 || fail "clear-task-set on LUN $lun: $(cat /tmp/cts.out)"
	grep -E "I_T nexus|TAS" /tmp/cts.out | sed 's/^ */  /'
	log "CLEAR TASK SET on LUN $lun: the tasks of both I_T nexuses cleared, credits back"
done
# The same LU exported through iSCSI too (no portal: nobody logs in).
IQN=iqn.2003-01.org.example:clear-task-set
printf '%s\n' "set global auto_add_default_portal=false" "/iscsi create $IQN" \
	"/iscsi/$IQN/tpg1/luns create /backstores/block/slowtas" |
	targetcli_batch || fail "iscsi create, lun create"
raw_client "$INI_PORT_ID" --lun 2 --other-initiator "$OTHER_ID" --foreign-export clear-task-set \
	>/tmp/cts.out 2>&1 || fail "clear-task-set with an iSCSI export: $(cat /tmp/cts.out)"
grep -E "another fabric" /tmp/cts.out | sed 's/^ */  /'
[ "$(klog_count 'CLEAR TASK SET of LUN 2 not supported: another fabric exports the LU')" -ge 1 ] ||
	fail "no log line for the refused CLEAR TASK SET"
targetcli_q /iscsi delete "$IQN" || fail "iscsi delete"
rmdir /sys/kernel/config/target/iscsi || fail "rmdir the iscsi fabric"
modprobe -r iscsi_target_mod || fail "modprobe -r iscsi_target_mod"
log "CLEAR TASK SET on a LU iSCSI exports too: function not supported, its READs completed, one log line"

# --- ib_srp: LU and host resets under verified I/O.
srp_login "ch_count=2,queue_size=32" >/tmp/disks || fail "ib_srp login"
disk=$(head -n1 /tmp/disks)
wait_for 10 sh -c "[ \$(grep -c . $CH) = 2 ]" || fail "not 2 channels: $(cat "$CH")"
fio_verify resets --name=resets --filename="$disk" --direct=1 --ioengine=libaio \
	--rw=randwrite --bs=4k --iodepth=16 --numjobs=2 --size=24M --offset_increment=24M \
	--cpus_allowed=0-1 --cpus_allowed_policy=split --verify=crc32c --do_verify=1 \
	--verify_fatal=1 >/tmp/fio.log 2>&1 &
fio_pid=$!
for r in 1 2 3; do
	sleep 3
	sg_reset -d "$disk" >/tmp/sg.out 2>&1 || fail "sg_reset -d: $(cat /tmp/sg.out)"
	log "LU reset $r under fio"
done
sleep 3
sg_reset -b "$disk" >/tmp/sg.out 2>&1 || fail "sg_reset -b: $(cat /tmp/sg.out)"
log "host reset under fio"
wait "$fio_pid" || { cat /tmp/fio.log; fail "fio through the resets"; }
cat /tmp/fio.log
host=$(srp_hosts | head -n1)
# shellcheck disable=SC2317  # called through wait_for
all_credits_home() {
	awk '$4 == "live" { for (i = 1; i < NF; i++) { if ($i == "credits") c = $(i + 1); if ($i == "req_lim") r = $(i + 1) }
		if (c != r) bad++; n++ } END { exit !(n == 2 && !bad) }' "$CH" &&
		[ "$(cat "/sys/class/scsi_host/$host/req_lim")" = "$(awk '{ for (i = 1; i < NF; i++) if ($i == "credits") print $(i + 1) }' "$CH" | sort -n | head -n1)" ]
}
wait_for 30 all_credits_home || fail "credits after the resets: target $(cat "$CH"); ib_srp req_lim $(cat "/sys/class/scsi_host/$host/req_lim")"
cp "$CH" "$RESULTS/channels.txt"
log "idle after the resets: both channels' initiators hold all their credits ($(cat "/sys/class/scsi_host/$host/req_lim")), as ib_srp counts too"
srp_logout || fail "logout"
wait_for 30 all_released || fail "channels not released"
[ -z "$(klog_splats)" ] || fail "kernel splat: $(klog_splats)"
pass "LU resets and a host reset under fio with 2 channels: every block verified, every credit back; credits of silently aborted READs returned in an SRP_CRED_REQ; ABORT TASK SET aborts READs in flight; CLEAR TASK SET clears both I_T nexuses' READs (TAS off and on), not supported beside iSCSI"
