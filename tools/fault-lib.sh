#!/bin/bash
# The fault rig of tests/20-faults-under-io.sh, also used by tests/soak.sh:
# sourced by a guest scenario after tools/guest-lib.sh.  ib_srp (RDMA/CM,
# two channels) on four LUNs - ramdisk, fileio, block (iblock on null_blk)
# and block on dm-linear over null_blk - and, for each fault NAME (tests/20
# describes them), plan_NAME (the LUNs fio verifies on through the fault:
# STRICT; those it only loads: LOOSE) and fault_NAME (break it, repair it).
#
#   fault_rig_setup      target, LUNs, ACLs, ib_srp logged in (DISKS)
#   run_fault NAME ROUND one fault under fio with every check after it
#   figures              what the target holds (refcount + resources file,
#                        which must be readable: the rig fails without it)
#   io_start / io_stop   fio on STRICT (verify) and LOOSE (load) LUNs
# shellcheck disable=SC2317,SC2034  # faults are called by name, variables used by the scenarios
. "$PROJECT/tools/ibcm-test/ibcm-lib.sh"

ALL_FAULTS=rdma-link,veth,acl,tpg,lun,backstore,rmmod,logins,killed-login
# Faults that need fault injection in the kernel (the debug kernel).
INJECTED_FAULTS=alloc-fail,post-fail
CYCLES=${CYCLES:-100}
export DM_DISABLE_UDEV=1
MAIN_OPTS=ch_count=2
KINDS=(ramdisk fileio block dm)
BACKSTORES=(ramdisk/f-ram fileio/f-file block/f-blk block/f-dm)
DM="f-dm"
EXT2=0000000000000001				# the cycling ib_srp login
CLIENT_ID=00000000000000010002c903c11e0020	# raw initiator
CLIENT2_ID=00000000000000020002c903c11e0020	# raw initiator, killed
IBCM_ID=00000000000000030002c903c11e0020	# IB CM test initiator
EXTRA_ACL_IDS=()
# IOS: I/Os fio issued so far (io_stop adds each run's).
IOS=0
OP_MAX=60

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# ft WHAT: add "WHAT <seconds since the last ft>" to the fault's timing.
ft() {
	FT+="${FT:+, }$1 $(since "$T")s"
	T=$(now)
}

# --- target configuration (again after rmmod)
# ACL_IDS: the initiator port IDs with an ACL (a scenario may add more
# before fault_rig_setup); the first is ib_srp's.
acl_ids() { echo "$INI_PORT_ID" "$EXT2$INI_PORT_GUID" "$CLIENT_ID" "$CLIENT2_ID" "$IBCM_ID" "${EXTRA_ACL_IDS[@]}"; }
make_acls() {
	local id
	for id in $(acl_ids); do
		make_acl "$id"
	done
}
# The admin's configfs steps (targetcli takes half a minute per command
# while fio keeps both CPUs of the guest busy): ACLs are named 0x<ID32>
# as rtslib names them; a mapped LUN is lun_N with a link to the TPG's LUN.
acl_dir() { echo "$TPG_DIR/acls/0x$1"; }
lun_map() { mkdir "$(acl_dir "$1")/lun_$2" && ln -s "$TPG_DIR/lun/lun_$2" "$(acl_dir "$1")/lun_$2/link"; }
lun_unmap() { find "$(acl_dir "$1")/lun_$2" -maxdepth 1 -type l -delete && rmdir "$(acl_dir "$1")/lun_$2"; }
acl_add() {
	local l
	mkdir "$(acl_dir "$1")" || return 1
	for l in "$TPG_DIR"/lun/lun_*; do
		lun_map "$1" "${l##*lun_}" || return 1
	done
}
acl_del() {
	local l
	for l in "$(acl_dir "$1")"/lun_*; do
		lun_unmap "$1" "${l##*lun_}" || return 1
	done
	rmdir "$(acl_dir "$1")"
}
dm_table() { dm_reload "$DM" "$1"; }

# target_remove: what LIO needs before rmmod, keeping the backstores:
# network portals (siw), the target port, the fabric directory.
target_remove() {
	local np i
	for np in "$SRPT_DIR"/*/tpgt_*/np/*; do
		[ -d "$np" ] || continue
		rmdir "$np" || return 1
	done
	targetcli_q /srpt delete "$TGT_WWN" || return 1
	rmdir "$SRPT_DIR" || return 1
	for i in $(seq 1 20); do
		rmmod ib_srpt 2>/dev/null && return 0
		sleep 1
	done
	rmmod ib_srpt
}
# The TPG stays disabled until every ACL has its LUNs (as a targetcli
# restoreconfig does it): ib_srp, reconnecting every second, would log in
# as soon as its ACL exists and find LUNs missing - commands to them fail.
target_restore() {
	local i name id
	load_target
	tpg_disable || fail "$FAULT: cannot disable the new TPG"
	for i in "${!BACKSTORES[@]}"; do
		name=${BACKSTORES[i]#*/}
		{ mkdir "$TPG_DIR/lun/lun_$i" &&
			ln -s /sys/kernel/config/target/core/*/"$name" "$TPG_DIR/lun/lun_$i/$name"; } ||
			fail "$FAULT: cannot export $name as LUN $i"
	done
	for id in $(acl_ids); do
		acl_add "$id" || fail "$FAULT: cannot create the ACL of $id"
	done
	tpg_enable || fail "$FAULT: cannot enable the TPG"
}
# --- the initiator
# main_login: ib_srp logs in ($MAIN_OPTS); DISKS = the four LUNs.  Why it
# failed: stderr and /tmp/main-login.why.
main_login() {
	local out p
	out=$(srp_login "$MAIN_OPTS" 2>/tmp/main-login.why) ||
		{ cat /tmp/main-login.why >&2; return 1; }
	mapfile -t DISKS <<<"$out"
	[ ${#DISKS[@]} = ${#BACKSTORES[@]} ] ||
		{ log "main login: ${#DISKS[@]} disks (${DISKS[*]}), ${#BACKSTORES[@]} LUNs" |
			tee /tmp/main-login.why >&2; return 1; }
	for p in /sys/class/srp_remote_ports/port-*; do
		{ echo 1 >"$p/reconnect_delay" && echo off >"$p/fast_io_fail_tmo" &&
			echo 120 >"$p/dev_loss_tmo"; } || fail "cannot set the timeouts of $p"
	done
}
rport_running() { grep -q running /sys/class/srp_remote_ports/port-*/state; }
reconnects() { klog_count 'ib_srp: reconnect succeeded'; }
more_reconnects() { [ "$(reconnects)" -gt "$1" ]; }
# ib_srp_back N0 SECS: ib_srp reconnected (more than N0 reconnects so far)
# within SECS and runs.
ib_srp_back() { wait_for "$2" more_reconnects "$1" && wait_for 30 rport_running; }

# --- what the target holds
# figures: the module's refcount and the resources file as name=value.
# The data pages command slots keep (data_cache_bytes) grow with the load,
# and so, on the shared receive queue (USE_SRQ=1), does a channel's command
# pool and its response buffers: data_cache_bytes is left out, and there
# cmd_slots, cmd_bytes and send_bytes too (with nobody logged in every
# figure must still be 0: run_faults checks the resources file itself).
figures() {
	local f skip='^(data_cache_bytes)$'
	[ "${USE_SRQ:-0}" = 1 ] && skip='^(cmd_slots|cmd_bytes|send_bytes|data_cache_bytes)$'
	f="refcnt=$(cat /sys/module/ib_srpt/refcnt 2>/dev/null)"
	f+=" $(awk -v skip="$skip" 'skip == "" || $1 !~ skip { printf "%s=%s ", $1, $2 }' "$RES")"
	echo "${f% }"
}
figure() { figures | tr ' ' '\n' | sed -n "s/^$1=//p"; }
# target_channels: channels the target holds (the resources file).
target_channels() {
	local k v
	# Builtins: the logins fault asks this twice a cycle.
	while read -r k v; do
		[ "$k" = channels ] && echo "$v"
	done <"$RES"
}
# klog_channels [ID32]: logins minus releases in the kernel log, of the
# initiator port ID32 only if given.
klog_channels() {
	echo $(($(klog_count "${1:+0x$1 }logged in to") - $(klog_count "${1:+0x$1: }channel released")))
}
channels_are() { [ "$(target_channels)" = "$1" ]; }
figures_are() { [ "$(figures)" = "$1" ]; }

# --- data
REF_MB=4
# ref_write / ref_check: 4 MiB of random data at the start of each LUN,
# written before the fault, must read back intact afterwards.
ref_write() {
	local i
	for i in 0 1 2 3; do
		dd if=/dev/urandom of="/tmp/ref-$i" bs=1M count=$REF_MB status=none
		dd if="/tmp/ref-$i" of="${DISKS[i]}" bs=1M oflag=direct status=none ||
			fail "$FAULT: cannot write the reference data to ${DISKS[i]}"
	done
}
ref_check() {
	local i bad=
	for i in 0 1 2 3; do
		dd if="${DISKS[i]}" of="/tmp/ref-$i.back" bs=1M count=$REF_MB iflag=direct status=none ||
			{ bad+=" ${KINDS[i]}: read failed;"; continue; }
		cmp -s "/tmp/ref-$i" "/tmp/ref-$i.back" ||
			bad+=" ${KINDS[i]}: $(bad_blocks "/tmp/ref-$i" "/tmp/ref-$i.back") of $((REF_MB * 256)) blocks differ;"
	done
	[ -z "$bad" ] || fail "$FAULT: data written before the fault came back wrong:$bad"
}

# fio_jobs FILE MODE IDX...: fio jobs on [8M, 24M) of the LUNs IDX.  MODE
# verify: random writes of 4k..256k verified as they go (a job stops at
# its first error), until SIGINT; load: reads and writes until SIGINT or
# the first error (the fault fails them: one error is enough, and a few
# thousand would flood the kernel log); once: write the region once and
# verify it.
fio_jobs() {
	local file=$1 mode=$2 i
	shift 2
	{
		printf '%s\n' '[global]' ioengine=libaio direct=1 iodepth=4 offset=8M \
			size=16M randrepeat=0
		case $mode in
		verify) printf '%s\n' time_based=1 runtime=3600 rw=randwrite \
			bssplit=4k/50:64k/30:256k/20 verify=crc32c verify_backlog=32 ;;
		load) printf '%s\n' time_based=1 runtime=3600 rw=randrw bs=4k ;;
		once) printf '%s\n' size=8M rw=randwrite bssplit=4k/50:64k/30:256k/20 \
			verify=crc32c do_verify=1 ;;
		esac
		for i; do
			printf '[%s]\nfilename=%s\n' "${KINDS[i]}" "${DISKS[i]}"
		done
	} >"$file"
}
# io_start: fio verifying on the LUNs in STRICT, load on those in LOOSE.
io_start() {
	FIO_PIDS=() LOOSE_PID=
	rm -f /tmp/fio-strict.out /tmp/fio-loose.out
	if [ ${#STRICT[@]} -gt 0 ]; then
		fio_jobs /tmp/strict.fio verify "${STRICT[@]}"
		fio --eta=never --output=/tmp/fio-strict.out /tmp/strict.fio &
		FIO_PIDS+=($!)
	fi
	if [ ${#LOOSE[@]} -gt 0 ]; then
		fio_jobs /tmp/loose.fio load "${LOOSE[@]}"
		fio --eta=never --output=/tmp/fio-loose.out /tmp/loose.fio 2>/tmp/fio-loose.err &
		LOOSE_PID=$!
		FIO_PIDS+=($!)
	fi
}
# loose_stop: stop the fio that loads the LOOSE LUNs when their disks are
# gone for good.  Its time-based jobs on a removed disk do not always end
# with an error: seen, all four in user space (state R) for 16 minutes
# after the rdma-link fault, starving the guest's two vCPUs, the login
# after it not done when the guest gave up.  SIGINT, then SIGKILL to fio
# and the job processes it forked.
loose_stop() {
	[ -n "${LOOSE_PID:-}" ] || return 0
	kill -INT "$LOOSE_PID" 2>/dev/null
	if ! wait_gone 10 "$LOOSE_PID"; then
		pkill -KILL -P "$LOOSE_PID"
		kill -KILL "$LOOSE_PID" 2>/dev/null
	fi
	wait_gone 10 "$LOOSE_PID" || fail "$FAULT: the fio on the removed disks does not end"
	LOOSE_PID=
}
# io_stop: stop fio (SIGINT: it reports and exits 128) and judge the
# verifying jobs: no error, no verify failure, each one verified data.
# IO_SUM says what they did.
io_stop() {
	local p out=/tmp/fio-strict.out bad njobs idle errs
	for p in "${FIO_PIDS[@]}"; do
		kill -INT "$p" 2>/dev/null
	done
	wait_gone 120 "${FIO_PIDS[@]}" || fail "$FAULT: fio does not end"
	wait "${FIO_PIDS[@]}"
	cp /tmp/fio-strict.out /tmp/fio-loose.out /tmp/fio-loose.err "$RESULTS/" 2>/dev/null
	IOS=$((IOS + $(cat /tmp/fio-strict.out /tmp/fio-loose.out 2>/dev/null |
		awk '/issued rwts:/ { split($3, t, /[=,]/); n += t[2] + t[3] } END { print n + 0 }')))
	IO_SUM="no LUN left alone"
	[ ${#STRICT[@]} -gt 0 ] || return 0
	bad=$(grep -cE '(verify failed|verify: bad).* at file ' $out)
	njobs=$(grep -c 'issued rwts:' $out)
	idle=$(awk '/issued rwts:/ { split($3, t, /[=,]/); if (t[2] + 0 == 0) n++ }
		END { print n + 0 }' $out)
	errs=$(grep -cE 'err= *[1-9]' $out)
	# The verify reads are counted from "issued rwts": fio's READ line
	# leaves them out at times (seen: 416 reads a job, no READ line).
	IO_SUM="${#STRICT[@]} LUN(s) verified, $(awk '/issued rwts:/ { split($3, t, /[=,]/); n += t[2] }
		END { print n + 0 }' $out) verify reads; $(grep -E '^ *(READ|WRITE):' $out |
		sed -E 's/^ *(READ|WRITE):.* io=([^ ]+).*/\1 \2/' | xargs)"
	if [ "$bad" != 0 ] || [ "$errs" != 0 ] || [ "$njobs" != ${#STRICT[@]} ] || [ "$idle" != 0 ]; then
		grep -E 'verify|err=|error' $out | head -n 8 | sed 's/^/  fio: /'
		fail "$FAULT: fio on the LUNs left alone: $errs job(s) with errors, $bad block(s) failed verification, $idle of $njobs jobs verified nothing"
	fi
}

# after_checks: every LUN takes a fresh verified write of the region fio
# used, the data from before the fault is intact, the target takes a new
# login.
after_checks() {
	fio_jobs /tmp/after.fio once 0 1 2 3
	fio_verify "after" /tmp/after.fio || fail "$FAULT: verified fio after the fault: $(fio_bad_on after "${DISKS[@]}")"
	ref_check
	raw_client "$CLIENT_ID" --timeout 30 login-ok >/tmp/login-ok.out 2>&1 ||
		{ cat /tmp/login-ok.out; fail "$FAULT: the target refuses a new login"; }
}

# writes_moving [SECS]: fio's writes reach every LUN it verifies on
# within SECS (30).
writes_moving() {
	local i dev w
	for i in "${STRICT[@]}"; do
		dev=${DISKS[i]#/dev/}
		w=$(awk '{ print $5 }' "/sys/class/block/$dev/stat")
		wait_for "${1:-30}" sh -c "[ \$(awk '{ print \$5 }' /sys/class/block/$dev/stat) -gt $w ]" ||
			fail "$FAULT: no writes reach ${KINDS[i]} LUN /dev/$dev after the fault"
	done
}
# reads_work IDX / writes_work IDX: a 4 KiB O_DIRECT read of LUN IDX / a
# write into the region fio uses; reads_fail, writes_fail: the opposite.
reads_work() { dd if="${DISKS[$1]}" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null; }
reads_fail() { ! reads_work "$1"; }
writes_work() {
	dd if=/dev/zero of="${DISKS[$1]}" bs=4k seek=2048 count=1 oflag=direct status=none 2>/dev/null
}
writes_fail() { ! writes_work "$1"; }

# --- the faults: plan_X says on which LUNs fio verifies through the fault
# (STRICT, default all) and on which it only loads them (LOOSE); fault_X
# breaks something and repairs it, ft notes the time each step took.

plan_rdma_link() { STRICT=() LOOSE=(0 1 2 3); }
fault_rdma_link() {
	local p why end
	# ib_srp removes its hosts only once their commands are gone: with
	# fast_io_fail_tmo off they would wait for dev_loss_tmo (120 s).
	for p in /sys/class/srp_remote_ports/port-*; do
		echo 5 >"$p/fast_io_fail_tmo" || fail "$FAULT: cannot set fast_io_fail_tmo of $p"
	done
	bounded "$OP_MAX" "rdma link del $HCA0" rdma link del "$HCA0"
	ft "link del"
	wait_for 60 no_srp_hosts || fail "$FAULT: ib_srp kept its hosts: $(srp_hosts | xargs)"
	loose_stop
	wait_for 30 channels_are 0 || fail "$FAULT: the target holds $(target_channels) channels with $HCA0 gone"
	ft "SRP host and channels gone"
	why=$(hca0_add) || fail "$FAULT: $why"
	ft "link add"
	# Until the target's port is back (ib_srpt adds it after the device);
	# a try that fails says why.  Each waits for its disks itself: bounded
	# by time, not by tries.
	end=$((SECONDS + 90))
	until main_login; do
		((SECONDS < end)) || fail "$FAULT: no login after $HCA0 came back: $(cat /tmp/main-login.why)"
		sleep 1
	done
	ft "login"
}

plan_veth() { :; }
# rport_delay SECS: ib_srp's reconnect_delay on every remote port.
rport_delay() {
	local p
	for p in /sys/class/srp_remote_ports/port-*; do
		echo "$1" >"$p/reconnect_delay" || fail "$FAULT: cannot set reconnect_delay of $p"
	done
}
# ib_srp reconnects 10 s after the break here, once the link is back: a
# reconnect while the rxe port is down sends a CM REQ that is lost without
# an error or a timeout, and ib_srp waits for its answer forever in
# srp_connect_ch() (6.12; the stock target the same: tests/README.md).
fault_veth() {
	local n0
	n0=$(reconnects)
	rport_delay 10
	ip link set veth0 down || fail "$FAULT: ip link set veth0 down"
	wait_for 10 sh -c "! grep -q ACTIVE /sys/class/infiniband/$HCA0/ports/1/state" ||
		fail "$FAULT: $HCA0 port still active with veth0 down"
	sleep 3
	ft "veth0 down"
	ip link set veth0 up || fail "$FAULT: ip link set veth0 up"
	wait_for 20 grep -q ACTIVE "/sys/class/infiniband/$HCA0/ports/1/state" ||
		fail "$FAULT: $HCA0 port not active again"
	ft "up"
	# ib_srp may not see the break at once (no QP error on its side):
	# then its SCSI command timeouts make it reconnect.
	writes_moving 150
	ft "I/O moving ($(($(reconnects) - n0)) reconnects)"
	rport_delay 1
}

# out_and_back WHAT CMD-OUT CMD-BACK: the target logs ib_srp out with
# CMD-OUT, ib_srp cannot get in until CMD-BACK, then it reconnects.
out_and_back() {
	local n0
	n0=$(reconnects)
	bounded "$OP_MAX" "$1" "$2"
	wait_for 30 sh -c "! grep -q running /sys/class/srp_remote_ports/port-*/state" ||
		fail "$FAULT: ib_srp still logged in after $1"
	ft "$1, ib_srp out"
	sleep 2
	$3 || fail "$FAULT: $3"
	ib_srp_back "$n0" 60 || fail "$FAULT: ib_srp did not reconnect"
	ft "back, ib_srp reconnected"
}
# LIO wants the ACL's mapped LUNs removed before the ACL (rtslib does the
# same): commands that come in between fail (LOGICAL UNIT NOT SUPPORTED,
# or DATA PROTECT from LIO's virtual LUN 0), before the logout.
plan_acl() { STRICT=() LOOSE=(0 1 2 3); }
acl_out() { acl_del "$INI_PORT_ID"; }
acl_back() { acl_add "$INI_PORT_ID"; }
fault_acl() {
	out_and_back "ACL removal" acl_out acl_back
}
plan_tpg() { :; }
tpg_enable() { echo 1 >"$TPG_DIR/enable"; }
tpg_disable() { echo 0 >"$TPG_DIR/enable"; }
fault_tpg() { out_and_back "TPG disable" tpg_disable tpg_enable; }

plan_lun() { STRICT=(3) LOOSE=(0 1 2); }
fault_lun() {
	local l
	for l in 0 1 2; do
		bounded "$OP_MAX" "unmap LUN $l" lun_unmap "$INI_PORT_ID" "$l"
	done
	# (LIO answers for an unmapped LUN 0 with its read-only virtual LUN 0.)
	for l in 0 1 2; do
		wait_for 10 writes_fail "$l" || fail "$FAULT: ${KINDS[l]} LUN still writable when unmapped"
	done
	ft "LUNs 0-2 unmapped"
	sleep 2
	for l in 0 1 2; do
		lun_map "$INI_PORT_ID" "$l" || fail "$FAULT: map LUN $l again"
	done
	for l in 0 1 2; do
		wait_for 30 writes_work "$l" || fail "$FAULT: ${KINDS[l]} LUN not writable when mapped again"
	done
	ft "mapped again"
}

plan_backstore() { STRICT=(0 1 2) LOOSE=(3); }
fault_backstore() {
	bounded "$OP_MAX" "dm table: error" dm_table "0 $DM_SECTORS error"
	wait_for 10 reads_fail 3 || fail "$FAULT: dm LUN still readable with an error table"
	ft "error table"
	sleep 3
	bounded "$OP_MAX" "dm table: linear" dm_table "$DM_TABLE"
	wait_for 30 reads_work 3 || fail "$FAULT: dm LUN not readable with its table back"
	ft "linear again"
}

plan_rmmod() { :; }
fault_rmmod() {
	local n0
	n0=$(reconnects)
	bounded 120 "configfs teardown + rmmod" target_remove
	! grep -q '^ib_srpt ' /proc/modules || fail "$FAULT: ib_srpt still loaded"
	ft "rmmod"
	target_restore >/dev/null
	ft "modprobe + configured"
	ib_srp_back "$n0" 90 || fail "$FAULT: ib_srp did not reconnect"
	ft "ib_srp reconnected"
}

plan_logins() { :; }
# cycle_login CH: ib_srp logs in as initiator_ext EXT2 with CH channels,
# the target holds them, logs out, the target lets them go.
# LOGIN_US / LOGOUT_US: the time the cycles spent logging in (add_target
# returns after ib_srp's LUN scan) and logging out (until the SCSI host is
# gone and the target has let the channels go).
cycle_login() {
	local base=$1 ch=$2 before h new='' t0 t1
	before=$(srp_hosts)
	t0=${EPOCHREALTIME/./}
	srp_add_target "id_ext=$ID_EXT,ioc_guid=$IOC_GUID,dest=$TGT_IP:$SRP_PORT,initiator_ext=$EXT2,ch_count=$ch" ||
		fail "$FAULT: login with ch_count=$ch failed: $ADD_TARGET_ERR"
	for h in $(srp_hosts "$before"); do
		new=$h
	done
	[ -n "$new" ] || fail "$FAULT: no SCSI host for the login with ch_count=$ch"
	channels_are $((base + ch)) ||
		fail "$FAULT: login with ch_count=$ch: the target holds $(target_channels) channels, not $base + $ch"
	t1=${EPOCHREALTIME/./}
	LOGIN_US=$((LOGIN_US + t1 - t0))
	echo 1 >"/sys/class/srp_remote_ports/port-${new#host}:1/delete" ||
		fail "$FAULT: cannot log out $new"
	wait_for 30 scsi_host_gone "$new" || fail "$FAULT: $new still there"
	wait_for 10 channels_are "$base" ||
		fail "$FAULT: logout of ch_count=$ch: the target holds $(target_channels) channels, not $base"
	LOGOUT_US=$((LOGOUT_US + ${EPOCHREALTIME/./} - t1))
}
fault_logins() {
	local base i
	base=$(target_channels)
	LOGIN_US=0 LOGOUT_US=0
	for ((i = 0; i < CYCLES; i++)); do
		cycle_login "$base" $((i % 4 + 1))
	done
	ft "$CYCLES logins/logouts, ch_count 1..4 (a login $((LOGIN_US / CYCLES / 1000)) ms, a logout $((LOGOUT_US / CYCLES / 1000)) ms on average)"
}

plan_killed_login() { :; }
# The raw initiator frozen right after it sent its login request: the
# REP is never taken from the RDMA/CM, so no RTU goes back.
FREEZE_SO=/tmp/freeze-after-connect.so
freeze_shim() {
	[ -e "$FREEZE_SO" ] && return 0
	cat >/tmp/freeze.c <<-'EOT'
	#define _GNU_SOURCE
	#include <dlfcn.h>
	#include <stdio.h>
	#include <stdlib.h>
	#include <unistd.h>
	int rdma_connect(void *id, void *param)
	{
		int (*real)(void *, void *) = (int (*)(void *, void *))dlsym(RTLD_NEXT, "rdma_connect");
		const char *f = getenv("FREEZE_FILE");
		int ret = real(id, param);
		FILE *fp;

		if (ret || !f)
			return ret;
		fp = fopen(f, "w");
		if (fp)
			fclose(fp);
		for (;;)
			pause();
	}
	EOT
	gcc -shared -fPIC -O2 -Wall -o "$FREEZE_SO" /tmp/freeze.c -ldl || fail "cannot build $FREEZE_SO"
}
# frozen_login ID32 NAME: a raw login of ID32 that stops after its
# request; FROZEN = its pid.
frozen_login() {
	rm -f "/tmp/frozen-$2"
	FREEZE_FILE=/tmp/frozen-$2 LD_PRELOAD=$FREEZE_SO "$SRP_CLIENT" --dest "$TGT_IP:$SRP_PORT" \
		--id-ext "$ID_EXT" --ioc-guid "$IOC_GUID" --initiator-id "$1" --timeout 200 \
		login-ok >"/tmp/frozen-$2.out" 2>&1 &
	FROZEN=$!
	wait_for 20 test -e "/tmp/frozen-$2" || fail "$FAULT: raw login $2 did not send its request"
}
# killed_storms N: raw login storms killed (SIGKILL) at random moments.
killed_storms() {
	local i p
	for ((i = 0; i < $1; i++)); do
		# The client itself, not a subshell running raw_client: the
		# kill must hit the process that holds the connections.
		"$SRP_CLIENT" --dest "$TGT_IP:$SRP_PORT" --id-ext "$ID_EXT" \
			--ioc-guid "$IOC_GUID" --initiator-id "$CLIENT2_ID" --timeout 10 \
			--rounds 1000 --channels 4 login-storm >/dev/null 2>&1 &
		p=$!
		sleep "0.$((RANDOM % 9 + 1))"
		kill -KILL "$p"
		wait "$p" 2>/dev/null
	done
}
# ibcm_channels: channels of the IB CM test initiator the target holds
# (its logins minus its releases in the kernel log).  Counted by the
# initiator's own ID, not by the target's total: the frozen RDMA/CM login
# of fault_killed_login may meet the RTU timeout at any time meanwhile (on
# a loaded machine it did, in the middle of these steps).
ibcm_channels() { klog_channels "$IBCM_ID"; }
ibcm_channels_are() { [ "$(ibcm_channels)" = "$1" ]; }
ibcm_no_rtu() {
	local r
	ibcm_load
	r=$(ibcm_login initiator_id="$IBCM_ID" no_rtu=1 cm_timeout=12 max_cm_retries=1)
	[[ $r == REP_NO_RTU* ]] || fail "$FAULT: IB CM login without RTU: $r"
	wait_for 10 ibcm_channels_are 0 || fail "$FAULT: IB CM channel without RTU kept after the CM timeout"
	ibcm close >/dev/null
	ft "IB CM no-RTU login released by the CM timeout"
	r=$(ibcm_login initiator_id="$IBCM_ID" no_rtu=1)
	[[ $r == REP_NO_RTU* ]] || fail "$FAULT: IB CM login without RTU: $r"
	wait_for 10 ibcm_channels_are 1 || fail "$FAULT: the target holds $(ibcm_channels) IB CM test channels, not 1"
	ibcm_unload || fail "$FAULT: rmmod srp_ibcm_test"
	wait_for 10 ibcm_channels_are 0 || fail "$FAULT: IB CM channel without RTU kept after rmmod of its initiator"
	ft "IB CM no-RTU login released after rmmod"
}
# The target's RTU timeout (debugfs, 60 s by default) while the frozen
# login of fault_killed_login waits it out.
RTU_KNOB=/sys/kernel/debug/ib_srpt/rtu_timeout_s
RTU_TEST_S=10
fault_killed_login() {
	local base t_a a rtu held rtu_was=
	base=$(target_channels)
	freeze_shim
	frozen_login "$CLIENT2_ID" B
	wait_for 10 channels_are $((base + 1)) || fail "$FAULT: the target holds $(target_channels) channels, not $base + 1"
	kill -KILL "$FROZEN"
	wait_for 10 channels_are "$base" || fail "$FAULT: channel of a login killed before its RTU kept"
	ft "RDMA/CM login killed before its RTU released"
	killed_storms 10
	wait_for 20 channels_are "$base" || fail "$FAULT: $(target_channels) channels after killed login storms, not $base"
	ft "10 login storms killed"
	if [ "$TRANSPORT" = rxe ]; then
		ibcm_no_rtu
	fi
	# Last, alone: a login whose initiator never sends the RTU.
	rtu=60
	if [ -w "$RTU_KNOB" ]; then
		rtu_was=$(cat "$RTU_KNOB") rtu=$RTU_TEST_S
		echo "$rtu" >"$RTU_KNOB" || fail "$FAULT: cannot set $RTU_KNOB"
	fi
	frozen_login "$CLIENT_ID" A
	a=$FROZEN t_a=$(now)
	wait_for 10 channels_are $((base + 1)) || fail "$FAULT: the target holds $(target_channels) channels, not $base + 1"
	# (With rtu_timeout_s at 10 s this also fails if the knob were ignored:
	# the 60 s default is beyond the wait.)
	wait_for $((rtu + 40)) channels_are "$base" ||
		fail "$FAULT: RDMA/CM login without RTU still held $(since "$t_a")s after its request"
	held=$(since "$t_a")
	[ -z "$rtu_was" ] || echo "$rtu_was" >"$RTU_KNOB"
	awk -v t="$held" -v r="$rtu" 'BEGIN { exit !(t >= r - 1) }' ||
		fail "$FAULT: the login without RTU was released ${held}s after its request, before the ${rtu} s RTU timeout"
	ft "RDMA/CM no-RTU login released by the target's RTU timeout (${held}s after the request)"
	kill -KILL "$a"
	wait "$a" 2>/dev/null
}

# --- injected faults (CONFIG_FAULT_INJECTION: the debug kernel of
# make check-debug).  Each arms a fault injection point for INJ_SECS
# seconds, or until INJ_TIMES failures were injected, while fio runs and
# logins come and go; the figures after it must be those before it, as
# for every fault.
DBG=/sys/kernel/debug
INJ_SECS=${INJ_SECS:-20}
INJ_TIMES=${INJ_TIMES:-300}
# injection_available: the kernel has fault injection (then ib_srpt, once
# loaded, has its injection point too).
injection_available() {
	[ -d $DBG/failslab ] && [ -d $DBG/fail_page_alloc ]
}
# module_text_range MOD: "0xSTART 0xEND" around MOD's functions (kallsyms;
# the last one is taken to be shorter than 4 KiB).
module_text_range() {
	local a
	a=$(awk -v m="[$1]" '$4 == m && ($2 == "t" || $2 == "T") { print $1 }' /proc/kallsyms | sort)
	[ -n "$a" ] || return 1
	printf '0x%s 0x%x\n' "$(head -n1 <<<"$a")" $((16#$(tail -n1 <<<"$a") + 4096))
}
# inj_arm DIR PROBABILITY: fail with PROBABILITY percent, at most
# INJ_TIMES times, quietly; inj_disarm DIR prints how many were injected.
inj_arm() {
	{ echo 0 >"$1/verbose" && echo 1 >"$1/interval" &&
		echo "$INJ_TIMES" >"$1/times" && echo "$2" >"$1/probability"; } ||
		fail "$FAULT: cannot arm $1"
}
inj_disarm() {
	local left
	echo 0 >"$1/probability"
	left=$(cat "$1/times")
	echo $((INJ_TIMES - left))
}
# logins_meanwhile: raw logins and ib_srp logins of the second nexus while
# the injection is armed; their outcome is free (a refused or failed login
# is a right answer to an allocation that failed), what they leave behind
# is not.
logins_meanwhile() {
	local end=$(($(date +%s) + INJ_SECS)) h before
	INJ_LOGINS=0
	while [ "$(date +%s)" -lt "$end" ]; do
		raw_client "$CLIENT_ID" --timeout 10 login-ok >/dev/null 2>&1
		before=$(srp_hosts)
		{ echo "id_ext=$ID_EXT,ioc_guid=$IOC_GUID,dest=$TGT_IP:$SRP_PORT,initiator_ext=$EXT2,ch_count=2" \
			>"$(srp_add_target_path)"; } 2>/dev/null
		for h in $(srp_hosts "$before"); do
			echo 1 >"/sys/class/srp_remote_ports/port-${h#host}:1/delete"
			wait_for 30 scsi_host_gone "$h"
		done
		INJ_LOGINS=$((INJ_LOGINS + 2))
	done
}

# fio verifies on the ramdisk LUN through it: the fileio and block
# backends allocate while they execute a command (we call into LIO from
# our completion context, so on our stack), and LIO answers their
# failure with NOT READY, LOGICAL UNIT COMMUNICATION FAILURE, which the
# initiator does not retry. Our own failures answer BUSY or TASK SET FULL
# (retried) or refuse the login; the other LUNs are checked afterwards.
plan_alloc_fail() { STRICT=(0) LOOSE=(1 2 3); }
# Memory allocations made with ib_srpt on the stack (its own, and those
# of LIO, rdma_rw and the CM it calls) fail: failslab and fail_page_alloc
# filtered to the module's code, sleeping allocations included.
fault_alloc_fail() {
	local range d slab pages
	injection_available || fail "$FAULT: no fault injection in this kernel (make check-debug)"
	range=$(module_text_range ib_srpt)
	[ -n "$range" ] || fail "$FAULT: no ib_srpt code in /proc/kallsyms"
	for d in $DBG/failslab $DBG/fail_page_alloc; do
		{ echo "${range% *}" >"$d/require-start" &&
			echo "${range#* }" >"$d/require-end" &&
			echo 32 >"$d/stacktrace-depth" && echo N >"$d/ignore-gfp-wait"; } ||
			fail "$FAULT: cannot filter $d to ib_srpt"
	done
	echo 0 >$DBG/fail_page_alloc/min-order
	echo N >$DBG/fail_page_alloc/ignore-gfp-highmem
	inj_arm $DBG/failslab 5
	inj_arm $DBG/fail_page_alloc 5
	logins_meanwhile
	slab=$(inj_disarm $DBG/failslab)
	pages=$(inj_disarm $DBG/fail_page_alloc)
	[ $((slab + pages)) -gt 0 ] || fail "$FAULT: no allocation of ib_srpt was failed"
	ft "$slab slab and $pages page allocations failed, $INJ_LOGINS logins meanwhile"
	ib_srp_running_again
}

plan_post_fail() { :; }
# ib_post_send() takes only the first work request of a chain (a full send
# queue of a real HCA can do this): the channel is closed, the commands of
# the chain are failed once the drain has flushed what was posted, ib_srp
# reconnects and retries them.
fault_post_fail() {
	local n0 posts
	injection_available || fail "$FAULT: no fault injection in this kernel (make check-debug)"
	n0=$(reconnects)
	[ -d $DBG/ib_srpt/fail_post_send ] || fail "$FAULT: no $DBG/ib_srpt/fail_post_send"
	INJ_TIMES=5 inj_arm $DBG/ib_srpt/fail_post_send 2
	wait_for "$INJ_SECS" sh -c "[ \$(cat $DBG/ib_srpt/fail_post_send/times) = 0 ]"
	posts=$(INJ_TIMES=5 inj_disarm $DBG/ib_srpt/fail_post_send)
	[ "$posts" -gt 0 ] || fail "$FAULT: no post was failed"
	ft "$posts posts failed in part"
	ib_srp_back "$n0" 60 || fail "$FAULT: ib_srp did not reconnect"
	ib_srp_running_again
}
# ib_srp_running_again: both channels of ib_srp's login are back.
ib_srp_running_again() {
	wait_for 60 rport_running || fail "$FAULT: ib_srp not running again"
	ft "ib_srp running"
}

# kernel_mem: the kernel's own memory (KiB, /proc/meminfo) - not checked
# (it moves for many reasons), printed with each fault: memory that the
# target's own figures do not count but that grows fault after fault shows
# there.
kernel_mem() {
	awk '/^(MemFree|Slab|SUnreclaim|Percpu|VmallocUsed):/ { sub(":", "", $1); printf "%s%s=%s", sep, $1, $2; sep = " " }' /proc/meminfo
}
# slab_growth BEFORE: the 5 slab caches with the most more objects than in
# BEFORE (a copy of /proc/slabinfo).
slab_growth() {
	awk 'FNR == 1 { f++ } FNR <= 2 { next } f == 1 { n[$1] = $2; next }
		{ d = $2 - n[$1]; if (d > 0) printf "%d %s\n", d, $1 }' "$1" /proc/slabinfo |
		sort -rn | head -n 5 | awk '{ printf "%s%s +%s", sep, $2, $1; sep = ", " }'
}

# run_fault NAME ROUND: one fault under I/O, with the checks.
run_fault() {
	local t0 before kmem host
	FAULT="$1 #$2"
	STRICT=(0 1 2 3) LOOSE=()
	"plan_${1//-/_}"
	wait_for 60 rport_running || fail "$FAULT: ib_srp not logged in before the fault"
	before=$(figures)
	kmem=$(kernel_mem)
	ref_write
	io_start
	sleep 2
	t0=$(now) T=$t0 FT='' host=$(host_vcpu)
	"fault_${1//-/_}"
	writes_moving
	sleep 2
	io_stop
	ft "fio stopped"
	after_checks
	ft "checks"
	wait_for 30 figures_are "$before" ||
		fail "$FAULT: the target holds other resources than before: before [$before] after [$(figures)]"
	[ -z "$(klog_splats)" ] || fail "$FAULT: kernel splat: $(klog_splats | head -n 3)"
	host=$(host_share "$host")
	log "FAULT $FAULT: $FT (total $(since "$t0")s${host:+; $host}); fio: $IO_SUM; before = after: $before; kernel memory (KiB) before: $kmem, after: $(kernel_mem)"
}

# fault_rig_setup: the RDMA devices, the target with its four LUNs and the
# ACLs, the raw initiator, the kept kernel log, and ib_srp logged in.
fault_rig_setup() {
	setup_transport
	# ib_srp before ib_srpt: on device removal the kernel removes the clients
	# in reverse order, the target first (see tests/13).
	modprobe -a sd_mod sg ib_srp dm_mod || fail "modprobe ib_srp dm_mod"
	# The target port ID stays what ib_srp logged in to across a reload:
	# by default it is the node GUID of the device added first, and after
	# the rdma-link fault that is rxe1 (an admin pins it the same way).
	mkdir -p /etc/modprobe.d
	echo "options ib_srpt srpt_service_guid=0x$ID_EXT" >/etc/modprobe.d/ib_srpt.conf
	load_target f-ram:32M:ramdisk:wce f-file:32M:fileio:wce f-blk:32M:block:wce
	# Every fault is judged by the resources file too (figures).
	[ -r "$RES" ] || fail "cannot read $RES: the target's resources could not be checked"
	make_dm_lun $DM 32M
	if [ "${RIG_FUZZ_LUN:-0}" = 1 ]; then
		# A LUN for the wire fuzzer (tests/soak.sh), not for fio.
		BACKSTORES+=(ramdisk/f-fuzz) KINDS+=(fuzz) FUZZ_LUN=4
		make_lun f-fuzz 32M ramdisk
	fi
	make_acls
	raw_client_setup
	klog_start
	main_login || fail "login failed"
	log "LUNs: ${DISKS[*]} (${KINDS[*]}); target: $(figures)"
}

# run_faults REPEAT FAULTS: the rig, REPEAT rounds of the comma-separated
# FAULTS (run_fault each), and its teardown.
run_faults() {
	local r f
	fault_rig_setup
	cp /proc/slabinfo /tmp/slabinfo.start
	for ((r = 1; r <= $1; r++)); do
		for f in ${2//,/ }; do
			run_fault "$f" "$r"
		done
		log "after round $r: slab caches grown most since the first: $(slab_growth /tmp/slabinfo.start)"
	done
	fault_rig_teardown
}

# fault_rig_teardown: ib_srp logs out, the target then holds nothing
# (every resource figure 0), the admin unloads it; no splat all along.
fault_rig_teardown() {
	srp_logout || fail "logout"
	resources_free || fail "resources held with nobody logged in: $(figures)"
	log "logged out: $(figures)"
	unload_target || fail "target teardown: $UNLOAD_ERR"
	klog_save
	[ -z "$(klog_splats)" ] || fail "kernel splat: $(klog_splats | head -n 3)"
}
