#!/bin/bash
# Tracing a login and an I/O, as an admin or developer chasing a problem
# would: the ib_srpt events enabled through tracefs
# (events/ib_srpt/enable), then a login the target refuses (the raw
# initiator asks for a 1 MiB REQ_IT_IU_LEN), ib_srp logging in, one 4 KiB
# direct write and read back, and the logout.  The trace must show the
# refusal with its reason in words, the login with the initiator, ACL,
# target port and CM, the channel's states NEW -> CONNECTING -> LIVE ->
# DISCONNECTING -> DRAINING, the WRITE(10)/READ(10) received with their
# data length and direction, and their SRP_RSPs with GOOD status.
# stock: skip the in-kernel module has no tracepoints
. "$PROJECT/tools/guest-lib.sh"

T=/sys/kernel/tracing
klog_start
standard_setup blk:32M:block
raw_client_setup
mountpoint -q $T || mount -t tracefs nodev $T || fail "cannot mount tracefs"
[ -d $T/events/ib_srpt ] || fail "no ib_srpt events in $T/events"
log "events: $(find $T/events/ib_srpt -mindepth 1 -maxdepth 1 -type d -printf '%f ')"
echo 0 >$T/tracing_on
: >$T/trace
echo 4096 >$T/buffer_size_kb
echo 1 >$T/events/ib_srpt/enable || fail "cannot enable events/ib_srpt"
echo 1 >$T/tracing_on

raw_client "$INI_PORT_ID" login-iu-too-big >/tmp/rej.out 2>&1 || fail "login-iu-too-big: $(cat /tmp/rej.out)"
disk=$(srp_login) || fail "ib_srp login"
head -c 4096 /dev/urandom >/tmp/blk
dd if=/tmp/blk of="$disk" bs=4096 count=1 seek=100 oflag=direct 2>/dev/null || fail "write $disk"
dd if="$disk" of=/tmp/back bs=4096 count=1 skip=100 iflag=direct 2>/dev/null || fail "read $disk"
cmp -s /tmp/blk /tmp/back || fail "the 4 KiB read back differ"
# Idle: the whole pool is free (debugfs shows the pool by command state).
pool_free() { awk '{ for (i = 1; i < NF; i++) { if ($i == "cmds") c = $(i + 1); if ($i == "cmd_free") f = $(i + 1) } } END { exit !(c > 0 && c == f) }' /sys/kernel/debug/ib_srpt/channels; }
wait_for 10 pool_free || fail "an idle channel's commands are not all free: $(cat /sys/kernel/debug/ib_srpt/channels)"
srp_logout || fail "logout"
wait_for 30 all_released || fail "channels not released"
echo 0 >$T/tracing_on
cp $T/trace "$RESULTS/trace.txt"
tr=$RESULTS/trace.txt
log "$(grep -c 'srpt_' "$tr") events; first ones:"$'\n'"$(grep srpt_ "$tr" | head -8)"

# has PATTERN WHAT: the trace has an event matching PATTERN.
has() { grep -qE -- "$1" "$tr" || fail "no $2 in the trace (pattern: $1)"; }
has "srpt_login_reject: initiator 0x$INI_PORT_ID target .* via rdma_cm from [0-9.]+ it_iu_len 1048576: REQ_IT_IU_LENGTH_TOO_LARGE" "login refusal"
has "srpt_login: ch [0-9]+ initiator 0x$INI_PORT_ID acl [^ ]*$INI_PORT_ID target [^ ]*$TGT_GID via rdma_cm from [0-9.]+: credits [0-9]+" "login"
ch=$(sed -nE "s/.*srpt_login: ch ([0-9]+) initiator 0x$INI_PORT_ID.*/\1/p" "$tr" | tail -n1)
for t in "NEW -> CONNECTING" "CONNECTING -> LIVE" "LIVE -> DISCONNECTING" "DISCONNECTING -> DRAINING"; do
	has "srpt_ch_state: ch $ch $t\$" "channel $ch $t"
done
# LBA 100 of 4 KiB blocks = 512-byte LBA 800; ib_srp sends WRITE(10)/READ(10).
has "srpt_cmd_recv: ch $ch tag 0x[0-9a-f]+ lun 0 opcode 0x2a out 4096 bytes" "WRITE(10) of 4096 bytes"
has "srpt_cmd_recv: ch $ch tag 0x[0-9a-f]+ lun 0 opcode 0x28 in 4096 bytes" "READ(10) of 4096 bytes"
wtag=$(sed -nE "s/.*srpt_cmd_recv: ch $ch tag (0x[0-9a-f]+) lun 0 opcode 0x2a out 4096 .*/\1/p" "$tr" | tail -n1)
rtag=$(sed -nE "s/.*srpt_cmd_recv: ch $ch tag (0x[0-9a-f]+) lun 0 opcode 0x28 in 4096 .*/\1/p" "$tr" | tail -n1)
has "srpt_send_rsp: ch $ch tag $wtag SRP_RSP status 0x00" "SRP_RSP of the write ($wtag)"
has "srpt_send_rsp: ch $ch tag $rtag SRP_RSP status 0x00, [0-9]+ bytes, after data-in" "SRP_RSP of the read ($rtag) after its data"
# A command's states, in order (immediate data, or an RDMA READ of it).
path="FREE -> RECEIVED,RECEIVED -> IN_LIO,(IN_LIO -> DATA_OUT,DATA_OUT -> IN_LIO,)?IN_LIO -> RSP,RSP -> SENT,SENT -> FREE,"
states_of() { grep -E "srpt_cmd_state: ch $ch tag $1 " "$tr" | sed -E 's/.* tag [^ ]+ //' | tr '\n' ','; }
for t in "$wtag" "$rtag"; do
	states_of "$t" | grep -qE "$path" ||
		fail "command $t did not go through its states in order: $(states_of "$t")"
done
[ -z "$(klog_splats)" ] || fail "kernel splat: $(klog_splats)"
pass "tracefs shows the refused login (REQ_IT_IU_LENGTH_TOO_LARGE), the login of ch $ch, its states to DRAINING, the 4 KiB WRITE(10)/READ(10), their command states and their GOOD SRP_RSPs"
