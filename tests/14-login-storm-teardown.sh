#!/bin/bash
# Channels closed while their login is still running: an admin removes
# initiators' ACLs (targetcli acls delete, or rmdir of the ACL with its
# mapped LUN links) and disables and re-enables the target portal group
# while initiators log in and out as fast as they can - raw SRP initiators
# (build/srp-client login-storm, four channels a login; two of them share
# a port ID, so that their SINGLE logins also terminate each other's
# channels) - and ib_srp, logged in with four channels and reading, gets
# logged out and reconnects (reconnect_delay 1 s) whenever it is let in.
# (Not ib_srp add_target/delete in a loop: when a login's channels are
# closed during its add_target, the 6.12 ib_srp scans over dead channels,
# times out and oopses removing the SCSI host - srp_free_ch_ib ->
# ib_process_cq_direct -> NULL - whatever the target does; see
# tests/README.md.)  A close
# request that hits a login must neither get lost (a channel nobody
# releases: the ACL removal or the TPG disable hangs, or the module cannot
# be unloaded) nor run twice (use after free, double release).
#
# Checked: every ACL removal and TPG disable returns within OP_MAX
# seconds; the raw initiators get an answer to every login (refusals and
# dropped channels are fine, silence is not; a command left without an
# answer is only logged, see login-storm in tools/srp-client.c); afterwards
# every channel the target accepted has been released ("logged in" vs
# "channel released" in the kernel log, kept whole by klog_start), ib_srp
# logs in with four channels and does verified I/O, and the module
# unloads; no splat.  REPEAT=N cycles of ACL removal + TPG disable (an
# argument: tools/vm.sh tests/14-login-storm-teardown.sh REPEAT=10;
# default 3).  DYNDBG=1 turns on the module's debug messages (channel
# state changes) in the kept kernel log (klog.txt in the log dir).
# long: login storms against ACL removal and TPG disable, about 4 minutes (REPEAT=N for more)
. "$PROJECT/tools/guest-lib.sh"

REPEAT=3 DYNDBG=0
scenario_args "REPEAT DYNDBG" "$@"
OP_MAX=60
# Port IDs of the raw initiators: A (two processes) and B.
CLIENT_A=00000000000000010002c903c11e0003
CLIENT_B=00000000000000020002c903c11e0003

standard_setup disk0:32M:ramdisk acl:"$CLIENT_A" acl:"$CLIENT_B"
raw_client_setup
modprobe -a sd_mod sg ib_srp || fail "modprobe ib_srp"
klog_start
if [ "$DYNDBG" = 1 ]; then
	echo 'module ib_srpt +p' >/sys/kernel/debug/dynamic_debug/control ||
		fail "cannot enable ib_srpt debug messages"
fi

# acl_del ID32 targetcli|rmdir: remove the ACL of an initiator port ID,
# with targetcli or as configfs wants it by hand (mapped LUN links, their
# directories, then the ACL).  rtslib names it 0x<ID32> in configfs.
# shellcheck disable=SC2317  # called through bounded
acl_del() {
	local id=$1 d=$TPG_DIR/acls/0x$1
	if [ "$2" = targetcli ]; then
		targetcli_q "/srpt/$TGT_WWN/acls" delete "ib.$id"
		return
	fi
	find "$d" -mindepth 2 -maxdepth 2 -type l -delete || return 1
	rmdir "$d"/lun_* && rmdir "$d"
}

rm -f /tmp/stop
pids=()
for who in A1:$CLIENT_A A2:$CLIENT_A B:$CLIENT_B; do
	raw_client "${who#*:}" --timeout 20 --rounds 1000000 --channels 4 \
		--stop-file /tmp/stop login-storm >"/tmp/storm-${who%%:*}.out" 2>&1 &
	pids+=($!)
done
dev=$(srp_login ch_count=4) || fail "ib_srp login before the storm"
for p in /sys/class/srp_remote_ports/port-*; do
	echo 1 >"$p/reconnect_delay" || fail "cannot set $p/reconnect_delay"
done
# ib_srp reads while it is logged out and in again (errors expected).
ibsrp_reader() {
	local n=0 ok=0
	while [ ! -e /tmp/stop ]; do
		n=$((n + 1))
		dd if="$dev" of=/dev/null bs=64k count=16 iflag=direct 2>/dev/null &&
			ok=$((ok + 1))
		sleep 0.2
	done
	echo "$ok of $n reads done" >/tmp/srp-storm.out
}
ibsrp_reader &
srp_pid=$!

for ((c = 1; c <= REPEAT; c++)); do
	how=targetcli
	[ $((c % 2)) = 0 ] && how="rmdir"
	sleep 3
	log "--- cycle $c of $REPEAT: $(klog_count 'logged in to') logins accepted so far"
	bounded $OP_MAX "ACL removal ($how) of ib_srp" acl_del "$INI_PORT_ID" $how
	bounded $OP_MAX "ACL removal ($how) of raw initiator A" acl_del "$CLIENT_A" $how
	sleep 1
	make_acl
	make_acl "$CLIENT_A"
	sleep 3
	bounded $OP_MAX "TPG disable" sh -c "echo 0 >$TPG_DIR/enable"
	sleep 1
	echo 1 >"$TPG_DIR/enable" || fail "cannot enable the TPG again"
done
sleep 3
touch /tmp/stop

# The raw initiators end after their current round (a login or command
# may take up to their --timeout of 20 s).
for p in "${pids[@]}" $srp_pid; do
	wait_gone 120 "$p" || fail "a login storm does not end"
done
bad=0
for p in "${pids[@]}"; do
	wait "$p" || bad=$((bad + 1))
done
for f in /tmp/storm-*.out; do
	sed -n 's/.*\] //p' "$f" | while read -r l; do log "raw ${f#/tmp/storm-}: $l"; done
done
[ $bad = 0 ] || fail "the target left logins unanswered: $(grep -h '^FAIL' /tmp/storm-*.out)"
wait $srp_pid
log "ib_srp during the storm: $(cat /tmp/srp-storm.out), $(klog_count 'ib_srp: reconnect succeeded') reconnects"
[ -z "$(klog_splats)" ] || fail "kernel splat during the storm: $(klog_splats | head -n 3)"
# shellcheck disable=SC2317  # called through wait_for
rport_running() { grep -q running /sys/class/srp_remote_ports/port-*/state; }
wait_for 60 rport_running ||
	fail "ib_srp did not reconnect after the storm: $(cat /sys/class/srp_remote_ports/port-*/state)"
wait_for 30 verify_io "$dev" 4 || fail "ib_srp I/O after its reconnect"
srp_logout || fail "SRP hosts left: $(srp_hosts | xargs)"
if [ "$STOCK" = 1 ]; then
	log "channels not counted: the stock module logs them differently"
else
	wait_for 60 all_released ||
		fail "$(klog_count 'logged in to') channels logged in, only $(klog_count 'channel released') released"
	log "all $(klog_count 'logged in to') channels the target accepted are released"
fi

# Still in shape: raw logins of both initiators, ib_srp with verified I/O.
for id in "$CLIENT_A" "$CLIENT_B"; do
	raw_client "$id" --timeout 30 login-ok >/tmp/login-ok.out 2>&1 ||
		{ cat /tmp/login-ok.out; fail "raw login of $id after the storm"; }
done
dev=$(srp_login ch_count=4) || fail "ib_srp login after the storm"
verify_io "$dev" || fail "write/read-back after the storm"
srp_logout || fail "logout"
log "after the storm: raw logins, ib_srp login with 4 channels and 2 MiB read back intact"
unload_target || fail "target teardown: $UNLOAD_ERR"
klog_save
[ -z "$(klog_splats)" ] || fail "kernel splat: $(klog_splats | head -n 3)"
pass "$REPEAT x ACL removal + TPG disable/enable under login storms: bounded, every login answered, every channel released, I/O and unload fine"
