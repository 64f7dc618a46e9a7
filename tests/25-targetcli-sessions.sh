#!/bin/bash
# "Which initiators are logged in?" - `targetcli sessions` answers it for
# SRP (targetcli-fb#78: it lists nothing for the in-kernel module).  An
# admin exports two LUNs to two initiators, each with an ACL by its port
# ID: ib_srp with two channels over the RDMA/CM, and the IB CM test
# initiator with one.  `targetcli sessions` then lists two sessions, both
# LOGGED_IN, with the initiator port ID as alias; `sessions detail` shows
# each ACL's name, its mapped LUNs and one line per channel with the
# initiator's address (IP for the RDMA/CM, port GID for the IB CM) and its
# CM; `sessions detail <sid>` shows one of them.  Both log out and the list
# is empty again.  Read through rtslib, from each ACL's info attribute.
# stock: skip the in-kernel module has no info attribute (targetcli-fb#78)
# siw: skip the IB CM (iWARP has none)
. "$PROJECT/tools/guest-lib.sh"
. "$PROJECT/tools/ibcm-test/ibcm-lib.sh"

IBCM_INI=000000000000004f0002c903c11e0001	# the IB CM initiator's port ID

sessions() { timeout 60 targetcli sessions "$@" 2>&1; }
# n_lines PATTERN TEXT: how many lines of TEXT match PATTERN.
n_lines() { grep -cE -- "$1" <<<"$2" || true; }

klog_start
standard_setup ram:32M:ramdisk blk:32M:block acl:"$IBCM_INI"
ACLS=$TPG_DIR/acls

out=$(sessions)
[[ $out == *"(no open sessions)"* ]] || fail "sessions before any login: $out"
grep -q '^No active' "$ACLS"/*"$INI_PORT_ID"/info || fail "info before the login: $(cat "$ACLS"/*"$INI_PORT_ID"/info)"

disks=$(srp_login "ch_count=2") || fail "ib_srp login"
[ "$(wc -l <<<"$disks")" = 2 ] || fail "expected 2 disks, got: $disks"
ibcm_load
IBCM_GID=$(cat "/sys/class/infiniband/$HCA0/ports/1/gids/0")
r=$(ibcm login "$(ibcm_login_opts | sed "s/initiator_id=[0-9a-f]*/initiator_id=$IBCM_INI/")") || true
[[ $r == LOGIN_RSP* ]] || fail "IB CM login: $r"
cp "$ACLS"/*"$INI_PORT_ID"/info "$RESULTS/info-ib_srp.txt"
cp "$ACLS"/*"$IBCM_INI"/info "$RESULTS/info-ibcm.txt"

out=$(sessions)
echo "$out" >"$RESULTS/sessions.txt"
log "targetcli sessions:"$'\n'"$out"
[ "$(n_lines 'session-state: LOGGED_IN' "$out")" = 2 ] || fail "expected 2 LOGGED_IN sessions: $out"
[ "$(n_lines "alias: 0x$INI_PORT_ID.*type: Normal" "$out")" = 1 ] || fail "no session of ib_srp ($INI_PORT_ID): $out"
[ "$(n_lines "alias: 0x$IBCM_INI" "$out")" = 1 ] || fail "no session of the IB CM initiator ($IBCM_INI): $out"

out=$(sessions detail)
echo "$out" >"$RESULTS/sessions-detail.txt"
log "targetcli sessions detail:"$'\n'"$out"
[[ $out == *Traceback* || $out == *rror* ]] && fail "sessions detail: $out"
[ "$(n_lines 'name: .*NOT AUTHENTICATED' "$out")" = 2 ] || fail "expected 2 ACL names: $out"
[ "$(n_lines 'mapped-lun: [01] backstore: (ramdisk/ram|block/blk) mode: rw' "$out")" = 4 ] ||
	fail "expected 2 mapped LUNs per session: $out"
[ "$(n_lines '^ *address: 192\.0\.2\.[12] \(rdma_cm\) +cid: [0-9]+ connection-state: LOGGED_IN' "$out")" = 2 ] ||
	fail "expected ib_srp's 2 channels over the RDMA/CM: $out"
[ "$(n_lines "^ *address: $IBCM_GID \(ib_cm\) +cid: [0-9]+ connection-state: LOGGED_IN" "$out")" = 1 ] ||
	fail "expected the IB CM channel from $IBCM_GID: $out"

sid=$(sed -n "s/.*alias: 0x$IBCM_INI.*sid: \([0-9]*\) .*/\1/p" "$RESULTS/sessions.txt")
out=$(sessions detail "$sid")
if [ "$(n_lines 'session-state:' "$out")" != 1 ] || [[ $out != *"(ib_cm)"* ]]; then
	fail "sessions detail $sid: $out"
fi
log "sessions detail $sid: the IB CM initiator's session alone"

r=$(ibcm dreq)
[[ $r == DISCONNECTED* ]] || fail "IB CM dreq: $r"
ibcm close >/dev/null
ibcm_unload
srp_logout || fail "logout"
wait_for 30 all_released || fail "channels not released"
out=$(sessions)
[[ $out == *"(no open sessions)"* ]] || fail "sessions after the logouts: $out"
[ -z "$(klog_splats)" ] || fail "kernel splat: $(klog_splats)"
pass "targetcli sessions lists ib_srp (2 channels, RDMA/CM) and the IB CM initiator with their addresses, LUNs and states, and nothing after they log out"
