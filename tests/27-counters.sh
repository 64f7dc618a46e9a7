#!/bin/bash
# "Why was my login rejected, and what is the target doing?" - answered
# without a debugger.  The target port's counters in configfs
# (fabric_statistics/srpt_login_stats and srpt_port_stats) start at 0;
# five refused logins (the raw initiator asks for a 1 MiB REQ_IT_IU_LEN;
# an initiator without an ACL; a login while the TPG is disabled; an IU
# of 32 bytes, too small for any request; buffer format 0x0008) are each
# counted under their SRP_LOGIN_REJ reason (every other rejected_* stays
# as it was), the last one's initiator, address and reason in words are
# shown, and each left exactly one kernel log line naming the initiator,
# the target port and the reason.  Then ib_srp logs in: one live channel,
# the credits the target says the initiator holds equal ib_srp's own
# req_lim when idle; a 1 MiB direct write and read back move exactly 1 MiB
# each way (bytes_in / bytes_out of the channel in debugfs
# ib_srpt/channels), a READ past the end counts one error and no data,
# sg_reset -d one task management function; the port's figures are its
# channel's plus those of the raw channels released before, and keep them
# after the logout.  Then the channel limits: ib_srp with ch_count=4
# against srp_max_channels_per_initiator=2 gets 2 channels (the third
# login is refused: 0x00010006), ch_count=2 against 1 gets one
# (0x00010005), and with srp_max_channels=1 a second initiator is refused
# (0x00010001).  Last, the raw initiator makes the port's counters move by
# amounts the target's code fixes, and every other counter stay: an ABORT
# TASK of a READ held in a slow LUN counts one abort and one TMF, no error
# and no data; a CLEAR TASK SET with TAS over 12 READs on 3 channels of 2
# I_T nexuses 12 aborts (each once: the 4 answered TASK ABORTED are not
# counted again when LIO aborts them) and one TMF; a 4 KiB WRITE from a
# wrong rkey one failed work request (wr_errors) and one error; 8 WRITEs
# sent back to back, each needing more than half of the send queue
# (srp_sq_size 4, debugfs rw_size 4096), make at least 7 and at most 16
# transfers and responses wait (sq_waits), move exactly their bytes, and
# the port's figures equal the released channels' plus the live one's
# while its channel is held; a READ needing the whole send queue, which
# cannot be moved, one error (its CHECK CONDITION replaces the GOOD
# response queued).
# stock: skip the in-kernel module has no such counters
. "$PROJECT/tools/guest-lib.sh"

klog_start
standard_setup blk:32M:block
raw_client_setup
PORT=$(dirname "$TPG_DIR")
LS=$PORT/fabric_statistics/srpt_login_stats
PS=$PORT/fabric_statistics/srpt_port_stats
CH=/sys/kernel/debug/ib_srpt/channels
[ -d "$LS" ] || fail "no srpt_login_stats in $PORT/fabric_statistics"
[ -d "$PS" ] || fail "no srpt_port_stats in $PORT/fabric_statistics"

# is DIR FILE VALUE: configfs DIR/FILE reads VALUE.
is() {
	local v
	v=$(cat "$1/$2") || fail "cannot read $1/$2"
	[ "$v" = "$3" ] || fail "$(basename "$1")/$2 is '$v', expected '$3'"
}
# refusal N WHAT PATTERN: N-th refusal: exactly N kernel log lines of
# refused logins, the last one matching PATTERN.
refusal() {
	local lines
	wait_for 10 sh -c "[ \$(grep -c ' refused: ' $KLOG) -ge $1 ]" || true
	lines=$(grep ' refused: ' "$KLOG")
	[ "$(wc -l <<<"$lines")" = "$1" ] || fail "$2: expected $1 refusal lines in the kernel log, got:"$'\n'"$lines"
	tail -n1 <<<"$lines" | grep -qE -- "$3" || fail "$2: log line: $(tail -n1 <<<"$lines")"
	log "$2: $(tail -n1 <<<"$lines" | sed 's/^\[[^]]*\] //')"
}

# rejects NAME=N...: the login counters rejected_NAME are N, every other
# rejected_* 0, and rejected their sum.
rejects() {
	local f n a want sum=0
	for f in "$LS"/rejected_*; do
		n=${f##*/rejected_} want=0
		for a in "$@"; do
			[ "${a%%=*}" = "$n" ] && want=${a#*=}
		done
		is "$LS" "rejected_$n" "$want"
		sum=$((sum + want))
	done
	is "$LS" rejected $sum
}

for f in "$LS"/accepted "$LS"/rejected* "$PS"/*; do
	is "$(dirname "$f")" "$(basename "$f")" 0
done
is "$LS" last_rejected_reason none
tport=$(basename "$PORT")

# --- refused: the initiator asks for a larger IU than srp_max_req_size.
raw_client "$INI_PORT_ID" login-iu-too-big >/tmp/rej.out 2>&1 || fail "login-iu-too-big: $(cat /tmp/rej.out)"
rejects it_iu_length_too_large=1
is "$LS" accepted 1	# the client's valid login after the refusal
is "$LS" last_rejected_initiator "0x$INI_PORT_ID"
grep -qE '^192\.0\.2\.[0-9]+$' "$LS/last_rejected_address" || fail "last_rejected_address: $(cat "$LS/last_rejected_address")"
grep -q '^0x00010002 requested IU length too large: it_iu_len 1048576 above srp_max_req_size [0-9]*$' "$LS/last_rejected_reason" ||
	fail "last_rejected_reason: $(cat "$LS/last_rejected_reason")"
refusal 1 "IU too large" "login from 0x$INI_PORT_ID at [0-9.]+ to $tport refused: requested IU length too large \(0x10002\): it_iu_len 1048576"

# --- refused: an initiator without an ACL.
stranger=00000000000000000000000000abcdef
if raw_client "$stranger" login-ok >/tmp/rej.out 2>&1; then fail "a login without an ACL was accepted"; fi
rejects it_iu_length_too_large=1 unable_associate_channel=1
is "$LS" last_rejected_initiator "0x$stranger"
grep -q '^0x00010003 unable to associate the channel with the I_T nexus: no ACL for it$' "$LS/last_rejected_reason" ||
	fail "last_rejected_reason: $(cat "$LS/last_rejected_reason")"
refusal 2 "no ACL" "login from 0x$stranger at [0-9.]+ to $tport refused: unable to associate .* \(0x10003\): no ACL for it"

# --- refused: the TPG is disabled (still counted for its target port).
echo 0 >"$TPG_DIR/enable"
if raw_client "$INI_PORT_ID" login-ok >/tmp/rej.out 2>&1; then fail "a login to a disabled TPG was accepted"; fi
echo 1 >"$TPG_DIR/enable"
rejects it_iu_length_too_large=1 unable_associate_channel=2
grep -q ': its TPG is not enabled$' "$LS/last_rejected_reason" || fail "last_rejected_reason: $(cat "$LS/last_rejected_reason")"
refusal 3 "TPG disabled" "login from 0x$INI_PORT_ID at [0-9.]+ to $tport refused: .*its TPG is not enabled"

# --- refused: an IU of 32 bytes, too small for any request (SRP needs 64).
raw_client "$INI_PORT_ID" login-iu-too-small >/tmp/rej.out 2>&1 || fail "login-iu-too-small: $(cat /tmp/rej.out)"
rejects it_iu_length_too_large=1 unable_associate_channel=2 unable_establish_channel=1
is "$LS" accepted 2	# the client's valid login after the refusal
grep -q '^0x00010000 unable to establish the channel: it_iu_len 32, multichannel action 0$' "$LS/last_rejected_reason" ||
	fail "last_rejected_reason: $(cat "$LS/last_rejected_reason")"
refusal 4 "IU too small" "login from 0x$INI_PORT_ID at [0-9.]+ to $tport refused: unable to establish the channel \(0x10000\): it_iu_len 32,"

# --- refused: a buffer format the target does not support (0x0008).
raw_client "$INI_PORT_ID" login-bad-fmt >/tmp/rej.out 2>&1 || fail "login-bad-fmt: $(cat /tmp/rej.out)"
rejects it_iu_length_too_large=1 unable_associate_channel=2 unable_establish_channel=1 unsupported_descriptor_fmt=1
is "$LS" accepted 3
grep -q '^0x00010004 requested buffer formats not supported: buf_fmt 0x8$' "$LS/last_rejected_reason" ||
	fail "last_rejected_reason: $(cat "$LS/last_rejected_reason")"
refusal 5 "buffer format" "login from 0x$INI_PORT_ID at [0-9.]+ to $tport refused: requested buffer formats not supported \(0x10004\): buf_fmt 0x8$"

# --- ib_srp logs in.
STATS="commands task_mgmt bytes_in bytes_out errors aborts sq_waits wr_errors"
declare -A base
# snap: the port's STATS now, in base[] (no channel live: the figures of
# the channels released so far).
snap() {
	local f
	for f in $STATS; do base[$f]=$(cat "$PS/$f"); done
}
snap	# the raw client's channels
disk=$(srp_login) || fail "ib_srp login"
is "$LS" accepted 4
is "$PS" channels_live 1
[ "$(grep -c . "$CH")" = 1 ] || fail "debugfs channels: $(cat "$CH")"
# field NAME: the value after NAME on the channel's line.
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$CH"; }
grep -q " state live acl [^ ]*$INI_PORT_ID initiator 0x$INI_PORT_ID target $tport cm rdma_cm " "$CH" || fail "channel line: $(cat "$CH")"
host=$(srp_hosts | head -n1)
# shellcheck disable=SC2317  # called through wait_for
idle_credits() {
	local ini
	ini=$(cat "/sys/class/scsi_host/$host/req_lim")
	[ "$(field req_lim)" = "$(field credits)" ] && [ "$ini" = "$(field req_lim)" ] &&
		[ "$(cat "$PS/credits_outstanding")" = "$ini" ]
}
wait_for 10 idle_credits || fail "idle: target req_lim $(field req_lim) of $(field credits), ib_srp's req_lim $(cat "/sys/class/scsi_host/$host/req_lim"), credits_outstanding $(cat "$PS/credits_outstanding")"
log "idle: ib_srp holds $(field req_lim) credits of $(field credits), as the target counts"

# --- 1 MiB written and read back: exactly 1 MiB each way.
sleep 1
in0=$(field bytes_in) out0=$(field bytes_out) cmd0=$(field commands) err0=$(field errors)
head -c 1048576 /dev/urandom >/tmp/mib
dd if=/tmp/mib of="$disk" bs=1M count=1 seek=1 oflag=direct status=none || fail "write $disk"
dd if="$disk" of=/tmp/back bs=1M count=1 skip=1 iflag=direct status=none || fail "read $disk"
cmp -s /tmp/mib /tmp/back || fail "the 1 MiB read back differs"
[ $(($(field bytes_in) - in0)) = 1048576 ] || fail "bytes_in grew by $(($(field bytes_in) - in0)), not 1048576"
[ $(($(field bytes_out) - out0)) = 1048576 ] || fail "bytes_out grew by $(($(field bytes_out) - out0)), not 1048576"
[ $(($(field commands) - cmd0)) -ge 2 ] || fail "commands grew by $(($(field commands) - cmd0))"
[ "$(field errors)" = "$err0" ] || fail "errors grew to $(field errors)"
log "1 MiB each way: $(($(field commands) - cmd0)) commands, bytes_in +1048576, bytes_out +1048576, no error"

# --- a READ past the end: one error, no data.
blocks=$(( $(blockdev --getsize64 "$disk") / 512 ))
out0=$(field bytes_out)
# shellcheck disable=SC2046  # the LBA bytes are meant to split
if sg_raw -r 512 "$disk" 28 00 $(printf '%02x %02x %02x %02x' $((blocks >> 24 & 255)) $((blocks >> 16 & 255)) $((blocks >> 8 & 255)) $((blocks & 255))) 00 00 01 00 >/tmp/sg.out 2>&1; then
	fail "READ(10) past the end succeeded"
fi
[ "$(field errors)" = $((err0 + 1)) ] || fail "errors $(field errors) after a READ past the end, expected $((err0 + 1))"
[ "$(field bytes_out)" = "$out0" ] || fail "a refused READ moved $(($(field bytes_out) - out0)) bytes"

# --- a LUN reset through sg_reset: one task management function.
tmf0=$(field task_mgmt)
sg_reset -d "$disk" >/tmp/sg.out 2>&1 || fail "sg_reset -d: $(cat /tmp/sg.out)"
[ "$(field task_mgmt)" = $((tmf0 + 1)) ] || fail "task_mgmt $(field task_mgmt) after sg_reset -d, expected $((tmf0 + 1))"
[ "$(field errors)" = $((err0 + 1)) ] || fail "the LUN reset counted as an error: $(field errors)"
wait_for 10 idle_credits || fail "credits after the reset: target $(field req_lim) of $(field credits), ib_srp $(cat "/sys/class/scsi_host/$host/req_lim")"

# --- the port adds up its channels, and keeps the figures of released ones.
# port_is_sum: each of the port's STATS is base[] (the figures of the
# channels released before) plus the live channel's.
port_is_sum() {
	local f
	for f in $STATS; do
		is "$PS" "$f" $((base[$f] + $(field "$f")))
	done
}
port_is_sum
cp "$CH" "$RESULTS/channels.txt"
in1=$(field bytes_in) out1=$(field bytes_out) err1=$(field errors) cmd1=$(field commands)
srp_logout || fail "logout"
wait_for 30 all_released || fail "channels not released"
is "$PS" channels_live 0
is "$PS" credits_outstanding 0
! grep -q . "$CH" || fail "channels left in debugfs: $(cat "$CH")"
is "$PS" bytes_in $((base[bytes_in] + in1))
is "$PS" bytes_out $((base[bytes_out] + out1))
[ "$(cat "$PS/errors")" -ge $((base[errors] + err1)) ] || fail "errors went back from $err1 to $(cat "$PS/errors")"
[ "$(cat "$PS/commands")" -ge $((base[commands] + cmd1)) ] || fail "commands went back from $cmd1 to $(cat "$PS/commands")"

# --- channel limits (srp_max_channels_per_initiator, srp_max_channels).
A=$TPG_DIR/attrib
# rej_logged CODE: ib_srp logged a refusal with that reason; on siw, where
# ib_srp cannot read the reason (tools/guest-lib.sh: ini_rejected), that it
# logged a reject (the counters above say which reason it was).
# shellcheck disable=SC2317  # called through wait_for
rej_logged() {
	if [ "$TRANSPORT" = siw ]; then
		grep -q "REJ reason 0xffffff98" "$KLOG"
	else
		grep -q "REJECTED, reason 0x$1" "$KLOG"
	fi
}
echo 2 >"$A/srp_max_channels_per_initiator" || fail "srp_max_channels_per_initiator=2"
srp_login ch_count=4 >/dev/null || fail "ib_srp login with ch_count=4"
is "$PS" channels_live 2
is "$LS" rejected_channel_limit_reached 1
wait_for 10 rej_logged 00010006 || fail "ib_srp did not log reason 0x00010006"
grep -q ': 2 channels of this initiator already, srp_max_channels_per_initiator 2$' "$LS/last_rejected_reason" ||
	fail "last_rejected_reason: $(cat "$LS/last_rejected_reason")"
srp_logout || fail "logout"
wait_for 30 all_released || fail "channels not released"
log "ch_count=4, srp_max_channels_per_initiator=2: 2 channels, the third refused with 0x00010006"
echo 1 >"$A/srp_max_channels_per_initiator" || fail "srp_max_channels_per_initiator=1"
srp_login ch_count=2 >/dev/null || fail "ib_srp login with ch_count=2"
is "$PS" channels_live 1
is "$LS" rejected_multi_channel_unsupported 1
wait_for 10 rej_logged 00010005 || fail "ib_srp did not log reason 0x00010005"
srp_logout || fail "logout"
wait_for 30 all_released || fail "channels not released"
log "ch_count=2, srp_max_channels_per_initiator=1: 1 channel, the MULTI login refused with 0x00010005"
echo 0 >"$A/srp_max_channels_per_initiator" || fail "srp_max_channels_per_initiator=0"
echo 1 >"$A/srp_max_channels" || fail "srp_max_channels=1"
make_acl "$stranger"
srp_login >/dev/null || fail "ib_srp login with srp_max_channels=1"
if raw_client "$stranger" login-ok >/tmp/rej.out 2>&1; then fail "a second channel beyond srp_max_channels=1 was accepted"; fi
is "$LS" rejected_insufficient_resources 1
grep -q ': 1 channels on the target port already, srp_max_channels 1$' "$LS/last_rejected_reason" ||
	fail "last_rejected_reason: $(cat "$LS/last_rejected_reason")"
srp_logout || fail "logout"
wait_for 30 all_released || fail "channels not released"
echo 0 >"$A/srp_max_channels" || fail "srp_max_channels=0"
log "srp_max_channels=1: a second initiator refused with 0x00010001"

# --- counters that move by known amounts.  The raw initiator logs in as
# an initiator port of its own; its channels are released when it exits,
# and the port keeps their figures.  A LUN whose every I/O takes 5 s
# (slow_blockdev) holds a READ until the ABORT TASK comes.
RAW=000000000000000000000000c0ffee01
slow=$(slow_blockdev slow 5000) || exit 1
printf '%s\n' "/backstores/block create slow $slow" "/srpt/$TGT_WWN/luns create /backstores/block/slow" \
	"/srpt/$TGT_WWN/acls create ib.$RAW" | configfs_batch || fail "slow LUN, ACL ib.$RAW"
# LIO keeps unit attentions (LUNs added) for the new ACL: a TEST UNIT
# READY on each LUN takes them, so that none counts as an error below.
for lun in 0 1; do
	raw_client "$RAW" --lun $lun login-ok >/tmp/raw.out 2>&1 || fail "login-ok on LUN $lun: $(cat /tmp/raw.out)"
done
wait_for 30 all_released || fail "channels not released"
# moved WHAT NAME=N|NAME=LO..HI...: since snap, each NAME grew by N (by
# LO to HI), every other one of STATS not at all.
moved() {
	local what=$1 f a d spec got=
	shift
	for f in $STATS; do
		d=$(($(cat "$PS/$f") - base[$f])) spec=0
		for a in "$@"; do
			[ "${a%%=*}" = "$f" ] && spec=${a#*=}
		done
		((d >= ${spec%..*} && d <= ${spec#*..})) || fail "$what: $f moved by $d, expected $spec"
		((d == 0)) || got+=" $f +$d"
	done
	log "$what:$got, no other counter moved"
}

# ABORT TASK of a READ in the slow LUN: LIO aborts it without a response
# (same I_T nexus: no TASK ABORTED) and calls srpt_aborted_task(), which
# counts one abort; the TMF's FUNCTION COMPLETE is no error, and no data
# moves.  Commands: the READ and three TEST UNIT READYs (after the login,
# after the READ, after the TMF).
snap
raw_client "$RAW" --lun 1 abort-task >/tmp/raw.out 2>&1 || fail "abort-task: $(cat /tmp/raw.out)"
wait_for 30 all_released || fail "channels not released"
moved "ABORT TASK of a READ in flight" commands=4 task_mgmt=1 aborts=1

# CLEAR TASK SET on the slow LUN with TAS on, 4 READs in flight on each of
# 3 channels: 2 of the issuing I_T nexus (their READs end without a
# response: srpt_aborted_task() counts each) and 1 of another initiator
# port (its READs are answered TASK ABORTED: counted when each response
# is sent, not a second time when LIO aborts them): 12 aborts, one TMF, no
# error.  Commands: 12 READs, a TEST UNIT READY per channel after the
# logins, after the READs and at the end, the MODE SENSE that reads the
# TAS bit (its data: bytes_out).
OTHER=000000000000000000000000c0ffee02
targetcli_q "/srpt/$TGT_WWN/acls" create "ib.$OTHER" || fail "ACL ib.$OTHER"
raw_client "$OTHER" --lun 1 login-ok >/tmp/raw.out 2>&1 || fail "login-ok of $OTHER: $(cat /tmp/raw.out)"
# LIO's default; it cannot be changed while the LU is exported.
[ "$(cat /sys/kernel/config/target/core/iblock_*/slow/attrib/emulate_tas)" = 1 ] || fail "emulate_tas is not 1 on slow"
wait_for 30 all_released || fail "channels not released"
snap
raw_client "$RAW" --lun 1 --other-initiator "$OTHER" clear-task-set >/tmp/raw.out 2>&1 ||
	fail "clear-task-set: $(cat /tmp/raw.out)"
grep -q "TAS 1: b's 4 READs answered TASK ABORTED" /tmp/raw.out || fail "clear-task-set: not TAS 1: $(cat /tmp/raw.out)"
wait_for 30 all_released || fail "channels not released"
moved "CLEAR TASK SET with TAS over 12 READs, 4 of another I_T nexus" commands=22 task_mgmt=1 aborts=12 bytes_out=1..64

# A 4 KiB WRITE from a wrong rkey: the target's one RDMA READ (a single
# work request, the signaled one) fails with a remote access error:
# srpt_read_done() counts it (wr_errors; flushes are not counted) and
# closes the channel, and LIO's CHECK CONDITION for the command counts one
# error (when queued, though the closing channel never sends it).  No
# bytes.  Commands: the WRITE and the TEST UNIT READY of the client's
# valid login afterwards.  (A READ into a wrong rkey counts neither: the
# failed RDMA WRITE is unsignaled, rdma_rw posts it without a completion
# handler, so the RDMA core drops its error completion, and the response
# behind it only completes as flushed.)
snap
raw_client "$RAW" bad-rkey-write >/tmp/raw.out 2>&1 || fail "bad-rkey-write: $(cat /tmp/raw.out)"
wait_for 30 all_released || fail "channels not released"
# On siw the initiator answers the READ with an iWARP TERMINATE ("siw: got
# TERMINATE"), and siw completes the READ as flushed, which is not counted.
wr_err=1
[ "$TRANSPORT" = siw ] && wr_err=0
moved "WRITE from a wrong rkey" commands=2 wr_errors=$wr_err errors=1

# sq_waits.  srp_sq_size 4 gives a channel a send queue of 64 work
# requests plus what rdma_rw and the device add (SQ, from the login's log
# line: 254 on rxe); debugfs ib_srpt/rw_size 4096 (a test knob) one RDMA
# context per page of a transfer: one work request on rxe, two on siw (MR
# registration and READ), whose MR pool holds 128 contexts.  Each WRITE below needs more
# than half of the send queue (SQ/2 + 1 pages on rxe; (SQ+1)/4 on siw,
# the whole MR pool too), so no two transfers are ever posted together.
# The client sends K of them back to back: the target takes each (from
# the channel's CQ, in arrival order; the transfers' completions come
# through the same CQ) while an earlier one's transfer - hundreds of KiB
# in 4 KiB RDMA READs through software RDMA - still holds the send queue
# or waits for it.  So every WRITE but the first waits, and srpt_sq_kick()
# counts each once: K-1 at least.  It counts a command at most once for
# its transfer and once for its response: 2K at most.
A=$TPG_DIR/attrib
RW_SIZE=/sys/kernel/debug/ib_srpt/rw_size
sq0=$(cat "$A/srp_sq_size") rw0=$(cat $RW_SIZE)
echo 4 >"$A/srp_sq_size" || fail "srp_sq_size=4"
echo 4096 >$RW_SIZE || fail "rw_size=4096"
raw_client "$RAW" login-ok >/tmp/raw.out 2>&1 || fail "login-ok: $(cat /tmp/raw.out)"
SQ=$(grep -o "0x$RAW at .* logged in to .*send queue [0-9]*" "$KLOG" | tail -n1 | grep -o '[0-9]*$')
[ -n "$SQ" ] || fail "no send queue size in the login's log line"
case $TRANSPORT in
siw) ctxs=$(((SQ + 1) / 4)) ;;
*) ctxs=$((SQ / 2 + 1)) ;;
esac
K=8 len=$((ctxs * 4096))
wait_for 30 all_released || fail "channels not released"
snap
rm -f /tmp/burst.stop
raw_client "$RAW" --rounds $K --length $len --stop-file /tmp/burst.stop burst >/tmp/burst.out 2>&1 &
burst=$!
wait_for 60 grep -q 'all GOOD' /tmp/burst.out || fail "burst: $(cat /tmp/burst.out)"
w=$(field sq_waits)
((w >= K - 1 && w <= 2 * K)) || fail "$K WRITEs of $len bytes, send queue $SQ: the channel's sq_waits is $w, expected $((K - 1))..$((2 * K))"
[ "$(field bytes_in)" = $((K * len)) ] || fail "burst: the channel's bytes_in is $(field bytes_in), expected $((K * len))"
port_is_sum
touch /tmp/burst.stop
wait_gone 30 $burst || fail "burst: the client does not end"
wait $burst || fail "burst: $(cat /tmp/burst.out)"
wait_for 30 all_released || fail "channels not released"
moved "$K WRITEs of $len bytes, send queue $SQ" commands=$((K + 1)) bytes_in=$((K * len)) sq_waits=$((K - 1))..$((2 * K))

# A READ whose data-in needs as many RDMA WRITEs as the send queue has work
# requests (one 4 KiB context each, plus the response) cannot be moved:
# the target answers CHECK CONDITION, ABORTED COMMAND instead of the GOOD
# status LIO queued, and counts one error.  No data.  Commands: the READ
# and two TEST UNIT READYs.
snap
raw_client "$RAW" --length $((SQ * 4096)) read-fails >/tmp/raw.out 2>&1 ||
	fail "read-fails: $(cat /tmp/raw.out)"
wait_for 30 all_released || fail "channels not released"
moved "READ of $((SQ * 4096)) bytes over a send queue of $SQ" commands=3 errors=1
echo "$sq0" >"$A/srp_sq_size" || fail "srp_sq_size=$sq0"
echo "$rw0" >$RW_SIZE || fail "rw_size=$rw0"

# Accepted: the clients' valid logins after 3 refusals, ib_srp 4 channels,
# the raw initiators 12 since the slow LUN; refused: 5 + the 3 limits.
is "$LS" accepted 20
is "$LS" rejected 8
[ "$(srpt_event logins_accepted)" = 20 ] || fail "debugfs events: $(cat /sys/kernel/debug/ib_srpt/events)"
[ "$(srpt_event logins_refused)" = 8 ] || fail "debugfs events: $(cat /sys/kernel/debug/ib_srpt/events)"
for f in "$LS"/* "$PS"/*; do echo "$(basename "$(dirname "$f")")/$(basename "$f") $(cat "$f")"; done >"$RESULTS/counters.txt"
[ -z "$(klog_splats)" ] || fail "kernel splat: $(klog_splats)"
pass "5 refusals counted by reason with the last one's initiator, address and reason, one log line each; ib_srp's credits as the target counts them; 1 MiB each way counted exactly, a READ past the end one error, sg_reset one TMF; port figures = its channels', kept after logout; channel limits refuse with 0x10006, 0x10005, 0x10001; ABORT TASK +1 aborts, CLEAR TASK SET with TAS over 12 READs +12 aborts, bad rkey +1 wr_errors, $K WRITEs over a one-transfer send queue sq_waits +$((K - 1))..$((2 * K)), a READ that cannot be moved +1 errors, nothing else moved"
