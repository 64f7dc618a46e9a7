#!/bin/bash
# RDMA/CM listeners kept through the changes an admin makes and the
# devices that come and go (issue 36, items 12 and 14).
# (a) rdma_cm_port moved to a port that cannot be bound (4420, taken by a
#     network portal 192.0.2.1:4420 - as by nvmet-rdma or another target):
#     the write fails (configfs and the module parameter), both still read
#     5555, and ib_srp still logs in on 5555 with verified I/O; moved to a
#     free port (5556) it listens there (ib_srp logs in on 5556), and back.
# (b) an np listener whose device is removed while it starts (fault point
#     np_listen holds it between rdma_listen() and the end of its start):
#     `rdma link delete` returns within DEL_MAX s (before the fix it
#     waited until the np was removed), the np waits for its device, and
#     after `rdma link add` it listens again: ib_srp logs in through it.
# (c) ADDR_CHANGE (bonding failover with fail_over_mac=active moves the
#     MAC of the np's netdev): the np listener binds again and a login
#     through it reaches the target; skipped with a note when the guest
#     cannot build the bond.
# PARTS="a b c" (default) runs a selection; DEL_MAX=20.
# stock: skip np listeners, fault points and the logs are ours
# siw: skip the wildcard rdma_cm_port listener gets no loopback logins on siw (tests/README.md)
. "$PROJECT/tools/guest-lib.sh"

DEL_MAX=20 PARTS="a b c"
scenario_args "DEL_MAX PARTS" "$@"
part() { [[ " $PARTS " == *" $1 "* ]]; }
# shellcheck disable=SC2317  # called through wait_for
in_dmesg() { dmesg | grep -q -- "$1"; }
FAULT=/sys/kernel/debug/ib_srpt/fault_delay_ms
PARAM=/sys/module/ib_srpt/parameters/rdma_cm_port

standard_setup disk-ram:16M:ramdisk
DA=$SRPT_DIR/discovery_auth/rdma_cm_port

login_verify() {
	local out
	out=$(srp_login) || fail "$1: ib_srp login to port $SRP_PORT failed"
	verify_io "$(head -n1 <<<"$out")" 4 || fail "$1: read-back failed"
	srp_logout || fail "$1: logout"
	log "$1: ib_srp logged in on port $SRP_PORT, data read back"
}

dt=-
if part a; then
log "--- (a) rdma_cm_port to a port that is taken"
mkdir "$TPG_DIR/np/$TGT_IP:4420" || fail "np $TGT_IP:4420"
echo 4420 >"$DA" 2>/tmp/w.err && fail "configfs rdma_cm_port=4420 succeeded although $TGT_IP:4420 is bound"
log "configfs write of 4420 refused: $(cat /tmp/w.err)"
echo 4420 >"$PARAM" 2>/tmp/w.err && fail "parameter rdma_cm_port=4420 succeeded although $TGT_IP:4420 is bound"
log "parameter write of 4420 refused: $(cat /tmp/w.err)"
[ "$(cat "$DA")" = 5555 ] || fail "configfs rdma_cm_port reads $(cat "$DA") after the failed write, not 5555"
[ "$(cat "$PARAM")" = 5555 ] || fail "parameter rdma_cm_port reads $(cat "$PARAM") after the failed write, not 5555"
login_verify "after the failed move to 4420"
rmdir "$TPG_DIR/np/$TGT_IP:4420" || fail "rmdir np"
echo 5556 >"$DA" || fail "configfs rdma_cm_port=5556 failed"
[ "$(cat "$PARAM")" = 5556 ] || fail "parameter reads $(cat "$PARAM") after the move to 5556"
SRP_PORT=5556 login_verify "moved to 5556"
echo 5555 >"$PARAM" || fail "parameter rdma_cm_port=5555 failed"
[ "$(cat "$DA")" = 5555 ] || fail "configfs reads $(cat "$DA") after the move back to 5555"
login_verify "back on 5555"
fi

if part b; then
log "--- (b) np listener whose device goes while it starts"
NP=$TPG_DIR/np/$TGT_IP:5557
echo 6000 >"$FAULT/np_listen"
mkdir "$NP" 2>/tmp/np.err &
mk=$!
wait_for 20 in_dmesg "fault point np_listen" || fail "the np never reached the fault point"
t0=$(date +%s)
rdma link delete "$HCA0" >/tmp/del.out 2>&1 &
del=$!
gone_ok=1
wait_gone "$DEL_MAX" $del || gone_ok=0
dt=$(($(date +%s) - t0))
echo 0 >"$FAULT/np_listen"
if [ $gone_ok = 0 ]; then
	# The removal waits for the np's id: remove the np to let it end.
	wait $mk
	rmdir "$NP"
	wait $del
	fail "rdma link delete $HCA0 with an np listener starting: still waiting after ${dt}s (it ended only once the np was removed)"
fi
wait $del || fail "rdma link delete $HCA0 failed: $(cat /tmp/del.out)"
log "rdma link delete $HCA0 returned after ${dt}s"
wait $mk || fail "mkdir np during the removal failed: $(cat /tmp/np.err)"
in_dmesg "listener on $TGT_IP:5557: device removed" ||
	fail "the np listener did not notice its device going"
rdma link add "$HCA0" type "$TRANSPORT" netdev veth0 || fail "rdma link add $HCA0"
wait_for 20 grep -q ACTIVE "/sys/class/infiniband/$HCA0/ports/1/state" || fail "$HCA0 not active again"
wait_for 20 in_dmesg "listening on $TGT_IP:5557 again" ||
	fail "the np listener on $TGT_IP:5557 did not listen again after rdma link add"
SRP_PORT=5557 login_verify "np $TGT_IP:5557 after the device came back"
rmdir "$NP" || fail "rmdir np"
fi

log "--- (c) ADDR_CHANGE: bonding failover under an np listener"
bond_ok=0
part c && bond_ok=1
part c && { modprobe bonding && modprobe dummy &&
	ip link add bond0 type bond mode active-backup fail_over_mac active &&
	ip link add bd0 address 02:00:00:00:00:11 type dummy &&
	ip link add bd1 address 02:00:00:00:00:12 type dummy &&
	ip link set bd0 master bond0 && ip link set bd1 master bond0 &&
	ip link set bond0 up && ip addr add 198.51.100.1/24 dev bond0 &&
	rdma link add "${TRANSPORT}9" type "$TRANSPORT" netdev bond0; } >/tmp/bond.out 2>&1 || bond_ok=0
if [ $bond_ok = 1 ]; then
	wait_for 20 grep -q ACTIVE "/sys/class/infiniband/${TRANSPORT}9/ports/1/state" || fail "${TRANSPORT}9 on bond0 not active"
	mkdir "$TPG_DIR/np/198.51.100.1:5558" || fail "np 198.51.100.1:5558"
	active=$(cat /sys/class/net/bond0/bonding/active_slave)
	other=bd1
	[ "$active" = bd1 ] && other=bd0
	echo "$other" >/sys/class/net/bond0/bonding/active_slave || fail "cannot switch bond0 to $other"
	log "bond0: active slave $active -> $other, MAC $(cat /sys/class/net/bond0/address)"
	wait_for 20 in_dmesg "198.51.100.1:5558: address change" ||
		fail "no ADDR_CHANGE for the np listener after the failover ($(dmesg | grep -i 'addr change' | tail -n2))"
	wait_for 20 in_dmesg "listening on 198.51.100.1:5558 again" ||
		fail "the np listener did not bind again after ADDR_CHANGE"
	# A login through it reaches the target (refused: no target port of
	# ${TRANSPORT}9 is configured) - the listener works.
	raw_client_setup
	# shellcheck disable=SC2317  # called through wait_for
	refused_more() { [ "$(dmesg | grep -c 'login from .*refused')" -gt "$1" ]; }
	n0=$(dmesg | grep -c "login from .*refused")
	"$SRP_CLIENT" --dest 198.51.100.1:5558 --id-ext "$ID_EXT" --ioc-guid "$IOC_GUID" \
		--initiator-id "$INI_PORT_ID" --timeout 20 login-ok >/tmp/bond-login.out 2>&1
	wait_for 10 refused_more "$n0" ||
		fail "a login through the rebound np listener did not reach the target: $(tail -n3 /tmp/bond-login.out)"
	log "login through the rebound listener answered by the target: $(dmesg | grep 'login from .*refused' | tail -n1 | sed 's/^\[[^]]*\] //')"
	rmdir "$TPG_DIR/np/198.51.100.1:5558" || fail "rmdir np on bond0"
	rdma link delete "${TRANSPORT}9" || fail "rdma link delete ${TRANSPORT}9"
elif part c; then
	log "note: (c) skipped, no bond in this guest: $(tail -n2 /tmp/bond.out)"
fi

unload_target || fail "unload: $UNLOAD_ERR"
pass "parts $PARTS: failed rdma_cm_port move keeps 5555 (refused, reads 5555, ib_srp logs in), moves to 5556 and back; rdma link delete under a starting np returned in ${dt}s, np listens again after rdma link add; ADDR_CHANGE $([ $bond_ok = 1 ] && echo rebinds || echo skipped)"
