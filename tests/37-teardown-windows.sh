#!/bin/bash
# Channel teardown inside windows held open by the module's fault points
# (debugfs ib_srpt/fault_delay_ms; use_srq=1, so that a channel's command
# pool starts at 16 commands and a write flood makes it grow):
# 1. grow (the dispatch work, before it grows the pool) held 3 s under a
#    raw write flood; the initiator's process is killed inside the hold
#    (its connection ends), with writes waiting for commands.
# 2. grow held 3 s under a flood while the TPG is disabled (then enabled).
# 3. login (an accepted login, before it hands its channel on: still NEW,
#    a close is only recorded) held 4 s while the initiator's ACL is
#    removed (its mapped LUN, then the ACL directory; then made again).
# 4. login held 4 s while the TPG is disabled (then enabled).
# 5. release (a channel's release, after the drain, before it stops its
#    LIO session) held 3 s while the ACL is removed (then made again).
# The teardown runs in the background while the point is held, and it and
# the initiator must end within OP_MAX seconds (a hang fails the scenario
# with the blocked tasks in the kernel log). Each step checks: the point
# was taken, the teardown began inside the hold and the channel's release
# ended after it (kernel log time stamps), every channel accepted was
# released, no kernel report, every resources figure 0, and a new login
# does verified I/O (slub_debug=P: a use-after-free oopses on the release
# kernel too).
# kernel-args: slub_debug=P
# stock: skip fault points are ours
. "$PROJECT/tools/guest-lib.sh"

FAULT=/sys/kernel/debug/ib_srpt/fault_delay_ms
RAW=0000000000000000d15a7c4000000001
OP_MAX=60

# fault POINT MS: hold the fault point POINT MS ms each time (0: off).
fault() { echo "$2" >"$FAULT/$1" || fail "cannot set the fault point $1 to $2 ms"; }
# taken POINT: how often POINT was held so far (its kernel log lines).
taken() { klog_count "fault point $1:"; }
# mark WHAT: a line of ours in the kernel log, for its time stamp.
mark() { echo "tests/37: $*" >/dev/kmsg; }
# klog_time PATTERN: the time stamp (s) of the last kept log line with it.
klog_time() { grep -- "$1" "$KLOG" | tail -n1 | line_time; }
# line_time: the time stamp (s) of the kernel log line on stdin.
line_time() { sed -n 's/^\[ *\([0-9]*\.[0-9]*\)\].*/\1/p'; }
# secs_between T0 T1: T1 - T0, two decimals.
secs_between() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

# held WHAT POINT N0: POINT is taken (again since N0) within 30 s.
held() {
	wait_for 30 grown "$3" taken "$2" ||
		fail "$1: the fault point $2 was not taken (${3} times before, $(taken "$2") now)"
}

# finish WHAT PID: the background job PID ends within OP_MAX s, else the
# blocked tasks go to the kernel log and the scenario fails; returns the
# job's status.
finish() {
	if ! wait_gone $OP_MAX "$2"; then
		echo w >/proc/sysrq-trigger
		fail "$1: still running after ${OP_MAX}s (a hang; blocked tasks in dmesg)"
	fi
	wait "$2"
}

# in_window WHAT POINT MARK MS: our log line MARK came less than MS ms
# after the hold of POINT it followed began: the teardown began inside
# the hold (a slow kernel may take the point again after MARK).
in_window() {
	local t0 t1 d
	t0=$(awk -v p="fault point $2:" -v m="tests/37: $3" '
		index($0, p) { t = $0 } index($0, m) { r = t } END { print r }' "$KLOG" |
		line_time)
	t1=$(klog_time "tests/37: $3")
	if [ -z "$t0" ] || [ -z "$t1" ]; then
		fail "$1: no time stamps of the $2 hold before '$3' ($t0) and of '$3' ($t1)"
	fi
	d=$(secs_between "$t0" "$t1")
	awk -v d="$d" -v ms="$4" 'BEGIN { exit !(d >= 0 && d * 1000 < ms) }' ||
		fail "$1: '$3' came ${d}s after the $2 hold began, not inside its $4 ms"
	log "$1: '$3' ${d}s into the $4 ms $2 hold"
}

# released_after WHAT POINT MS: the last channel release ended MS ms or
# more after POINT was last taken: the teardown waited for the held step.
released_after() {
	local t0 t1 d
	t0=$(klog_time "fault point $2:")
	t1=$(klog_time "channel released")
	[ -n "$t1" ] || fail "$1: no 'channel released' line"
	d=$(secs_between "$t0" "$t1")
	awk -v d="$d" -v ms="$3" 'BEGIN { exit !(d * 1000 >= ms) }' ||
		fail "$1: the channel was released ${d}s after the $2 hold began, before its $3 ms were over"
	log "$1: channel released ${d}s after the $2 hold began"
}

# flood_done WHAT PID: the raw flood ended; it passes, or (TEARDOWN set)
# the target closed the channel before it answered a write.
flood_done() {
	finish "$1: the flood" "$2" && { log "$1: $(grep -o '[0-9]* writes of 1 MiB.*' /tmp/flood.out)"; return 0; }
	if [ -z "${3:-}" ] || ! grep -q 'none of [0-9]* writes answered' /tmp/flood.out; then
		fail "$1: flood: $(grep -E '^(FAIL|XPASS)' /tmp/flood.out | xargs)"
	fi
	log "$1: the channel closed before a write was answered"
}

# client_done WHAT PID: the raw login ended (accepted or not: its channel
# was closed inside the hold); logs how.
client_done() {
	finish "$1: the raw login" "$2"
	log "$1: raw login: $(grep -E '^(PASS|FAIL)' /tmp/login.out | xargs)"
}

# acl_remove: the raw initiator's ACL removed as rtslib does it: each
# mapped LUN (its link, then its directory), then the ACL directory.
# shellcheck disable=SC2317  # called through teardown
acl_remove() {
	local m l
	for m in "$ACL_DIR"/lun_*; do
		[ -d "$m" ] || continue
		for l in "$m"/*; do
			if [ -L "$l" ]; then rm "$l" || return 1; fi
		done
		rmdir "$m" || return 1
	done
	rmdir "$ACL_DIR"
}
acl_create() {
	echo "/srpt/$TGT_WWN/acls create ib.$RAW" | configfs_batch ||
		fail "$1: cannot create the ACL of $RAW again"
}

# teardown NAME CMD...: mark the kernel log with NAME and run CMD in the
# background (TEARDOWN_PID); teardown_done WHAT NAME waits for it.
teardown() {
	local what=$1
	shift
	{ mark "$what"; "$@"; } 2>/tmp/teardown.err &
	TEARDOWN_PID=$!
}
teardown_done() {
	finish "$1: $2" "$TEARDOWN_PID" || fail "$1: $2 failed: $(xargs </tmp/teardown.err)"
}
# shellcheck disable=SC2317  # called through teardown
tpg_disable() { echo 0 >"$TPG_DIR/enable"; }

# after WHAT POINT N0 MS: with POINT off again, every channel released,
# the last one after the hold, no kernel report, resources free, and a new
# login does verified I/O.
after() {
	local what=$1 point=$2 r
	fault "$point" 0
	wait_for $OP_MAX all_released ||
		fail "$what: $(klog_count 'logged in to') channels accepted, $(klog_count 'channel released') released"
	released_after "$what" "$point" "$4"
	r=$(klog_splats)
	[ -z "$r" ] || fail "$what: kernel report: $(head -n3 <<<"$r")"
	resources_free || fail "$what: resources held after the releases: $(tr '\n' ' ' <"$RES")"
	raw_client "$RAW" --timeout 30 login-ok write-read-direct >/tmp/raw.out 2>&1 ||
		fail "$what: a new login afterwards: $(grep '^FAIL' /tmp/raw.out | xargs)"
	wait_for 30 all_released || fail "$what: the new login's channel was not released"
	log "$what: $point held $(($(taken "$point") - $3)) times, every channel released, resources free, a new login verified"
}

# grow_held WHAT: a raw flood in the background runs the pool out and the
# grow point holds the growth; sets the caller's n0 (grow taken before) and
# pid (the flood).
grow_held() {
	n0=$(taken grow)
	fault grow 3000
	raw_client "$RAW" --timeout 60 --rounds 30 flood >/tmp/flood.out 2>&1 &
	pid=$!
	held "$1" grow "$n0"
}

step_grow_disconnect() {
	local what="1 grow + initiator gone" n0 pid
	grow_held "$what"
	# The initiator's process dies: its connection ends (no logout).
	mark "initiator killed"
	pkill -KILL -f -- "--initiator-id $RAW .*flood" ||
		fail "$what: no raw flood to kill"
	finish "$what: the killed flood" $pid || true
	in_window "$what" grow "initiator killed" 3000
	after "$what" grow "$n0" 3000
}

step_grow_disable() {
	local what="2 grow + TPG disable" n0 pid
	grow_held "$what"
	teardown "TPG disable" tpg_disable
	teardown_done "$what" "TPG disable"
	flood_done "$what" $pid teardown
	echo 1 >"$TPG_DIR/enable" || fail "$what: cannot enable the TPG again"
	in_window "$what" grow "TPG disable" 3000
	after "$what" grow "$n0" 3000
}

# login_held WHAT NAME CMD: a raw login held 4 s at the point login while
# CMD (the teardown NAME) closes its channel; LOGIN_N0: the point's count
# before.
login_held() {
	local what=$1 name=$2 pid
	LOGIN_N0=$(taken login)
	fault login 4000
	raw_client "$RAW" --timeout 30 login-ok >/tmp/login.out 2>&1 &
	pid=$!
	held "$what" login "$LOGIN_N0"
	teardown "$name" "$3"
	teardown_done "$what" "$name"
	client_done "$what" $pid
	in_window "$what" login "$name" 4000
}

step_login_acl() {
	local what="3 login + ACL removal"
	login_held "$what" "ACL removal" acl_remove
	acl_create "$what"
	after "$what" login "$LOGIN_N0" 4000
}

step_login_disable() {
	local what="4 login + TPG disable"
	login_held "$what" "TPG disable" tpg_disable
	echo 1 >"$TPG_DIR/enable" || fail "$what: cannot enable the TPG again"
	after "$what" login "$LOGIN_N0" 4000
}

step_release_acl() {
	local what="5 release + ACL removal" n0
	n0=$(taken release)
	fault release 3000
	raw_client "$RAW" --timeout 30 login-ok >/tmp/login.out 2>&1 ||
		fail "$what: the raw login: $(grep '^FAIL' /tmp/login.out | xargs)"
	held "$what" release "$n0"
	teardown "ACL removal" acl_remove
	teardown_done "$what" "ACL removal"
	in_window "$what" release "ACL removal" 3000
	acl_create "$what"
	after "$what" release "$n0" 3000
}

klog_start
standard_setup blk:64M:block acl:"$RAW"
echo 1 >"$TPG_DIR/attrib/use_srq" || fail "use_srq=1"
raw_client_setup
ACL_DIR=$TPG_DIR/acls/$(cfs_acl_name "ib.$RAW")
[ -d "$ACL_DIR" ] || fail "no ACL directory $ACL_DIR"

step_grow_disconnect
step_grow_disable
step_login_acl
step_login_disable
step_release_acl
pass "the initiator gone and the TPG disabled in a held pool growth, ACL removal and TPG disable in a held login, ACL removal in a held release: bounded, every channel released after its hold, no kernel report, resources free, new logins verified"
