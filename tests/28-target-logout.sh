#!/bin/bash
# The target tells its initiators when it is the one going away: before it
# ends the connection it sends an SRP_T_LOGOUT (reason 0, no reason) to
# each live channel when the admin removes the initiator's ACL, disables
# the TPG and when the target is unloaded (targetcli clearconfig +
# rmmod).  A raw initiator logged in for each must get the SRP_T_LOGOUT
# and then the disconnect; ib_srp, logged in beside it, gets them too (it
# logs "Got target logout request") and comes back by itself.  A SINGLE
# login that ends older channels of its nexus says reason 4 (tests/10
# multichannel and tests/18 check it).  Device removal sends reason 0 as
# well, but no initiator here can see it: both ends share rxe0 (see
# tools/guest-lib.sh), so `rdma link del` takes the initiator's device
# away at the same time.
# stock: skip the in-kernel module sends no SRP_T_LOGOUT
. "$PROJECT/tools/guest-lib.sh"

klog_start
standard_setup ram:16M:ramdisk
raw_client_setup
disk=$(srp_login) || fail "ib_srp login"
n_tlogout() { klog_count "Got target logout request"; }

# logged_out WHAT CMD...: a raw channel waits for the target's logout
# while CMD runs; it must get SRP_T_LOGOUT reason 0, then the disconnect.
# It logs in with MULTI, next to ib_srp's channel (same initiator port):
# a SINGLE login would end ib_srp's channel (reason 4), and ib_srp's
# SINGLE reconnect 10 s later the raw one, when CMD is slow (the debug
# kernel) - then neither would see CMD's logout.
logged_out() {
	local what=$1 pid
	shift
	: >/tmp/await.out
	raw_client "$INI_PORT_ID" --timeout 30 await-logout >/tmp/await.out 2>&1 &
	pid=$!
	wait_for 20 grep -q "waiting for the target to log out" /tmp/await.out ||
		fail "$what: the raw initiator did not log in: $(cat /tmp/await.out)"
	"$@" || fail "$what: $* failed"
	wait "$pid" || fail "$what: $(cat /tmp/await.out)"
	grep -q "SRP_T_LOGOUT reason 0, then a disconnect" /tmp/await.out ||
		fail "$what: $(cat /tmp/await.out)"
	log "$what: SRP_T_LOGOUT reason 0, then the disconnect"
}
# ib_srp_back: ib_srp logged in again and its disk reads.
# shellcheck disable=SC2317  # called through wait_for
ib_srp_back() { dd if="$disk" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null; }
set_enable() { echo "$1" >"$TPG_DIR/enable"; }

logged_out "ACL removal" targetcli_q "/srpt/$TGT_WWN/acls" delete "ib.$INI_PORT_ID"
make_acl
wait_for 60 ib_srp_back || fail "ib_srp not back after the ACL came back"

logged_out "TPG disable" set_enable 0
set_enable 1 || fail "TPG enable"
wait_for 60 ib_srp_back || fail "ib_srp not back after TPG enable"

n=$(n_tlogout)
[ "$n" = 2 ] || fail "ib_srp logged $n target logouts, expected one per action (2)"
log "ib_srp got an SRP_T_LOGOUT for each and came back by itself"

logged_out "module unload" unload_target
[ -z "$(klog_splats)" ] || fail "kernel splat: $(klog_splats)"
pass "SRP_T_LOGOUT (reason 0) before the disconnect on ACL removal, TPG disable and unload; ib_srp got them and came back"
