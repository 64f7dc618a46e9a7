#!/bin/bash
# A channel torn down with many commands parked: the target moves write
# data with RDMA READs, and when its send queue holds fewer of them than
# it grants credits, the other commands wait in line.  When the channel
# goes away every waiting command has to be failed and handed back to LIO
# - none lost (the release would wait for it forever), and without one
# nested call chain per waiting command (the kernel stack is 16 KiB; such
# a chain takes about 250 bytes per command).  The TPG gets srp_credits 64
# (srp_sq_size 64 too: a send queue no bigger than the credits need) and
# RDMA contexts of 64 KiB (the test knob debugfs ib_srpt/rw_size; the
# in-kernel module gets srp_max_rdma_size 65536, its contexts' size), so
# that a 1 MiB write needs 16
# RDMA contexts and a 4 MiB one 64: the send queue (about 254 work
# requests on rxe) holds 14 and 3 of them, the other writes wait.  The
# block LUN's null_blk takes 4 MiB requests (NULLB_MAX_SECTORS): with
# null_blk's default LIO reports 124 KiB at most, ib_srp splits its
# writes to that, and 64 of those (2 contexts each) fit without waiting.
#
# 1. A raw initiator (build/srp-client flood) keeps all credits busy with
#    1 MiB writes, then (a) logs out with all of them outstanding, (b) the
#    admin disables the TPG under it (and enables it again), (c) the admin
#    removes its ACL (and creates it again).
# 2. ib_srp with queue_size=128,max_sect=8192 (4 MiB commands), fio 4 MiB
#    O_DIRECT writes at iodepth 128 to a block LUN (iblock on null_blk),
#    and mid-I/O the same three: (a) logout (SRP remote port deleted),
#    (b) TPG disable + enable, (c) ACL removal + re-creation - after (b)
#    and (c) ib_srp reconnects by itself and its I/O must work.
# Each step REPEAT=N times (an argument: tools/vm.sh
# tests/15-parked-commands.sh REPEAT=4; default 1), on a fresh login;
# CREDITS=N sets srp_credits and srp_sq_size (default 64; the in-kernel
# module, which grants 128 credits whatever they say, gets srp_sq_size).  Checked: every step returns in
# bounded time, logins work after each, no splat, every channel is
# released, the deepest kernel stack any ib_srpt function ran on stays
# below STACK_MAX (ftrace's stack tracer), and at the end fio with 4 MiB
# verified writes at iodepth 128 is clean.  Each step makes writes wait:
# the flood sends as many writes as it has credits at once, fio keeps them
# all busy, and the send queue holds the transfers of 14 or 3 of them, so
# the port's sq_waits counter (fabric_statistics/srpt_port_stats, not in
# the in-kernel module) must grow in each; the log shows by how much, and
# how many writes were outstanding at the logout.
# long: write floods parked on a full send queue while the channel goes, 4-5 minutes on a slow machine
. "$PROJECT/tools/guest-lib.sh"

REPEAT=1 CREDITS=64
scenario_args "REPEAT CREDITS" "$@"
OP_MAX=60
STACK_MAX=8192
LOGIN_OPTS="queue_size=128,max_sect=8192,ch_count=1"
CLIENT_ID=00000000000000010002c903c11e0005

NULLB_MAX_SECTORS=8192 standard_setup big:128M:block acl:"$CLIENT_ID"
echo "$CREDITS" >"$TPG_DIR/attrib/srp_sq_size" || fail "cannot set srp_sq_size=$CREDITS"
if [ "$STOCK" != 1 ]; then
	echo "$CREDITS" >"$TPG_DIR/attrib/srp_credits" || fail "cannot set srp_credits=$CREDITS"
fi
echo 65536 >"$TPG_DIR/attrib/srp_max_rdma_size" || fail "cannot set srp_max_rdma_size=65536"
if [ "$STOCK" != 1 ]; then
	echo 65536 >/sys/kernel/debug/ib_srpt/rw_size || fail "cannot set debugfs ib_srpt/rw_size=65536"
fi
raw_client_setup
klog_start

# The transfers and responses that waited for send queue room, as the
# target port counts them (0 for the in-kernel module, which has no such
# counter); waited WHAT N0: they grew from N0.
WAITS=$(dirname "$TPG_DIR")/fabric_statistics/srpt_port_stats/sq_waits
sq_waits() { if [ "$STOCK" = 1 ]; then echo 0; else cat "$WAITS"; fi; }
waited() {
	local n
	n=$(sq_waits)
	[ "$STOCK" = 1 ] && return 0
	[ "$n" -gt "$2" ] || fail "$1: sq_waits still $n: no write waited for the send queue"
	log "$1: $((n - $2)) transfers and responses waited for send queue room (sq_waits)"
}

# ftrace's stack tracer, limited to ib_srpt's functions, keeps the deepest
# kernel stack any of them ran on: a wait list drained by recursion shows
# up there.
TRACEFS=/sys/kernel/tracing
[ -e $TRACEFS/stack_trace_filter ] || mount -t tracefs tracefs $TRACEFS
{ echo 'srpt_*' >$TRACEFS/stack_trace_filter &&
	echo 1 >/proc/sys/kernel/stack_tracer_enabled; } 2>/tmp/tracer.err ||
	fail "cannot start the stack tracer: $(cat /tmp/tracer.err)"
# stack_check WHAT: log the deepest stack since the last check and the
# functions most often in it (whole trace: stack-<N>.txt in the log dir);
# fail above STACK_MAX.
STACKS=0
stack_check() {
	local max
	STACKS=$((STACKS + 1))
	cp $TRACEFS/stack_trace "$RESULTS/stack-$STACKS.txt" 2>/dev/null
	max=$(cat $TRACEFS/stack_max_size)
	log "$1: deepest stack at an ib_srpt function $max bytes, most frequent frames: $(awk 'NR > 2 { sub(/\+.*/, "", $4); print $4 }' $TRACEFS/stack_trace |
		sort | uniq -c | sort -rn | head -n 3 | awk '{ printf "%s x%s, ", $2, $1 }')see stack-$STACKS.txt"
	echo 0 >$TRACEFS/stack_max_size
	[ "$max" -lt $STACK_MAX ] || fail "$1: an ib_srpt function ran on a $max-byte deep kernel stack"
}

# --- 1. raw initiator floods, then the teardown
# flood WHAT SECS: the raw initiator's flood in the background (FLOOD).
flood() {
	W0=$(sq_waits)
	raw_client "$CLIENT_ID" --timeout 30 --rounds "$2" flood >/tmp/flood.out 2>&1 &
	FLOOD=$!
	# The teardown comes once writes are answered and others wait (a fixed
	# 2 s was too short on the debug kernel: no write was answered yet).
	wait_for 60 grep -q "first answer" /tmp/flood.out ||
		{ cat /tmp/flood.out; fail "$1: no write answered in 60 s"; }
	# A flood of a few seconds ((a): it logs out by itself) may be over by
	# now on the debug kernel; a longer one must still run for its teardown.
	[ "$2" -lt 10 ] || kill -0 $FLOOD ||
		{ cat /tmp/flood.out; fail "$1: the flood ended early"; }
}
# flood_end WHAT: wait for it; it must have ended well.
flood_end() {
	wait_gone $OP_MAX $FLOOD || fail "$1: the flood does not end"
	wait $FLOOD || { cat /tmp/flood.out; fail "$1: flood: $(grep '^FAIL' /tmp/flood.out)"; }
	log "$1: $(grep -o '[0-9]* writes of 1 MiB.*' /tmp/flood.out)"
	waited "$1" "$W0"
}
raw_login_ok() {
	raw_client "$CLIENT_ID" --timeout 30 login-ok >/tmp/login-ok.out 2>&1 ||
		{ cat /tmp/login-ok.out; fail "$1: raw login afterwards"; }
}
for ((r = 1; r <= REPEAT; r++)); do
	what="round $r raw (a) logout"
	flood "$what" 4
	flood_end "$what"
	raw_login_ok "$what"
	stack_check "$what"

	what="round $r raw (b) TPG disable/enable"
	flood "$what" 60
	bounded $OP_MAX "$what" sh -c "echo 0 >$TPG_DIR/enable"
	flood_end "$what"
	echo 1 >"$TPG_DIR/enable" || fail "$what: cannot enable the TPG"
	raw_login_ok "$what"
	stack_check "$what"

	what="round $r raw (c) ACL removal"
	flood "$what" 60
	bounded $OP_MAX "$what" targetcli_q "/srpt/$TGT_WWN/acls" delete "ib.$CLIENT_ID"
	flood_end "$what"
	make_acl "$CLIENT_ID"
	raw_login_ok "$what"
	stack_check "$what"
done

# --- 2. ib_srp with fio, then the teardown
# login WHAT: a fresh ib_srp login; sets DEV and HOST, lets 4 MiB requests
# through unsplit and makes ib_srp reconnect every 2 s.
login() {
	local q p
	DEV=$(srp_login "$LOGIN_OPTS") || fail "$1: login failed"
	HOST=$(srp_hosts | head -n1)
	LIM0=$(cat "/sys/class/scsi_host/$HOST/req_lim")
	q=/sys/block/${DEV#/dev/}/queue
	cat "$q/max_hw_sectors_kb" >"$q/max_sectors_kb"
	[ "$(cat "$q/max_sectors_kb")" -ge 4096 ] ||
		fail "$1: $DEV takes only $(cat "$q/max_sectors_kb") KiB a command, not 4 MiB"
	for p in /sys/class/srp_remote_ports/port-*; do
		echo 2 >"$p/reconnect_delay"
	done
}

# busy WHAT: fio 4 MiB O_DIRECT writes, iodepth 128, in the background
# (FIO); returns once ib_srp has nearly all credits out at the target.
# shellcheck disable=SC2317  # called through wait_for
credits_out() { [ "$(cat "/sys/class/scsi_host/$HOST/req_lim")" -le 2 ]; }
busy() {
	W0=$(sq_waits)
	fio --name=big --filename="$DEV" --ioengine=libaio --direct=1 \
		--rw=write --bs=4M --iodepth=128 --size=128M --time_based \
		--runtime=300 --continue_on_error=all --eta=never \
		--output=/tmp/fio-bg.out &
	FIO=$!
	wait_for 30 credits_out ||
		fail "$1: ib_srp still has $(cat "/sys/class/scsi_host/$HOST/req_lim") of $LIM0 credits"
	log "$1: $((LIM0 - $(cat "/sys/class/scsi_host/$HOST/req_lim"))) of $LIM0 credits out with 4 MiB commands"
}

# stop_fio WHAT: end the background fio (it sees errors, that is fine).
stop_fio() {
	kill "$FIO" 2>/dev/null
	wait_gone 60 $FIO || fail "$1: fio still stuck 60s after it was killed"
	wait "$FIO"
	waited "$1" "$W0"
}

# shellcheck disable=SC2317  # called through wait_for
rport_running() { grep -q running /sys/class/srp_remote_ports/port-*/state; }

# back WHAT: ib_srp reconnected by itself and its I/O works.
back() {
	wait_for 60 rport_running || fail "$1: ib_srp did not reconnect"
	stop_fio "$1"
	wait_for 60 verify_io "$DEV" 4 || fail "$1: no verified I/O after the reconnect"
	log "$1: ib_srp reconnected, 512 KiB read back intact"
}

for ((r = 1; r <= REPEAT; r++)); do
	what="round $r ib_srp (a) logout"
	login "$what"
	busy "$what"
	bounded $OP_MAX "$what" sh -c "echo 1 >/sys/class/srp_remote_ports/port-${HOST#host}:1/delete"
	wait_for $OP_MAX no_srp_hosts || fail "$what: SCSI host still there"
	stop_fio "$what"
	stack_check "$what"

	what="round $r ib_srp (b) TPG disable/enable"
	login "$what"
	busy "$what"
	bounded $OP_MAX "$what" sh -c "echo 0 >$TPG_DIR/enable"
	sleep 1
	echo 1 >"$TPG_DIR/enable" || fail "$what: cannot enable the TPG"
	back "$what"
	srp_logout || fail "$what: logout"
	stack_check "$what"

	what="round $r ib_srp (c) ACL removal"
	login "$what"
	busy "$what"
	bounded $OP_MAX "$what" targetcli_q "/srpt/$TGT_WWN/acls" delete "ib.$INI_PORT_ID"
	sleep 1
	make_acl
	back "$what"
	srp_logout || fail "$what: logout"
	stack_check "$what"
	[ -z "$(klog_splats)" ] || fail "round $r: kernel splat: $(klog_splats | head -n 3)"
done

# shellcheck disable=SC2317  # called through wait_for
all_released() { [ "$(klog_count 'logged in to')" = "$(klog_count 'channel released')" ]; }
if [ "$STOCK" = 1 ]; then
	log "channels not counted: the stock module logs them differently"
else
	wait_for 30 all_released ||
		fail "$(klog_count 'logged in to') channels logged in, only $(klog_count 'channel released') released"
fi

login "final check"
W0=$(sq_waits)
fio_verify final --name=final --filename="$DEV" --ioengine=libaio --direct=1 \
	--rw=write --bs=4M --iodepth=128 --size=128M --verify=crc32c \
	--randrepeat=0 || fail "4 MiB verified writes at iodepth 128: $FIO_BAD bad blocks"
waited "final check" "$W0"
srp_logout || fail "final logout"
stack_check "final check"
unload_target || fail "target teardown: $UNLOAD_ERR"
klog_save
[ -z "$(klog_splats)" ] || fail "kernel splat: $(klog_splats | head -n 3)"
pass "$REPEAT x logout, TPG disable/enable and ACL removal with writes waiting for the send queue (raw flood of 1 MiB, ib_srp 4 MiB qd128, $CREDITS credits): bounded, stack < $STACK_MAX, logins work, final verified fio clean"
