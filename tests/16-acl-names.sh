#!/bin/bash
# An admin names a node ACL after the initiator in whatever spelling is at
# hand, and the target must admit the initiator whatever the spelling: its
# SRP initiator port ID as 0x + 32 hex digits or 32 hex digits in either
# case, or as eight colon-separated groups of four; its port GUID (the
# second half of the port ID, what ibstat shows) as xxxx:xxxx:xxxx:xxxx or
# [0x]16 hex digits - an ACL by GUID admits every initiator extension; or,
# for RDMA/CM logins, its IP address: IPv4, IPv6 compressed or fully
# expanded, either case.  ACLs are made with mkdir in configfs (targetcli
# would rewrite the name), LUN 0 mapped by hand.
#
# For each spelling only that ACL exists: ib_srp logs in (its disk shows up
# and a read-back works), then the ACL is removed while it is logged in,
# which must log it out.  IPv6 logins go to [2001:db8::1]:5555 on veth0.
# In the rxe loopback rig the initiator's source address is the target's
# own (see tools/guest-lib.sh).  Names that are none of these are refused
# by mkdir with EINVAL, and with no matching ACL the login is refused as
# having none (SRP_LOGIN_REJ 0x00010003 logged by ib_srp, the target's
# counter and log line "no ACL for it": tools/guest-lib.sh expect_refused).
# stock: skip Debian's ib_srpt admits by port ID spelled 0x + 32 lower-case hex digits only: an upper-case spelling is created but the login refused (seen by running it)
. "$PROJECT/tools/guest-lib.sh"

TGT_IP6=2001:db8::1
setup_transport
load_target disk0:16M:ramdisk
ACLS=$TPG_DIR/acls
ip -6 addr add $TGT_IP6/64 dev veth0 nodad || fail "cannot add $TGT_IP6 to veth0"
# rxe adds a RoCE v2 GID for the address (siw has only its MAC GID and
# needs none: iWARP connections are plain TCP).
if [ "$TRANSPORT" = rxe ]; then
	wait_for 10 grep -qi '^2001:0db8:' /sys/class/infiniband/"$HCA0"/ports/1/gids/* ||
		fail "$HCA0 has no GID for $TGT_IP6"
else
	# On siw load_target listens on 192.0.2.1 only (a network portal,
	# see there): the IPv6 logins need one of their own.
	mkdir "$TPG_DIR/np/[$TGT_IP6]:$SRP_PORT" ||
		fail "cannot listen on [$TGT_IP6]:$SRP_PORT (np)"
fi

id=$INI_PORT_ID guid=$INI_PORT_GUID
upper() { tr '[:lower:]' '[:upper:]' <<<"$1"; }
# groups HEX: the hex digits in groups of four, colon-separated.
groups() { sed -E 's/(....)/\1:/g; s/:$//' <<<"$1"; }

# acl_add NAME: an ACL named NAME by mkdir, with LUN 0 mapped.
acl_add() {
	mkdir "$ACLS/$1" || fail "ACL name '$1' refused"
	{ mkdir "$ACLS/$1/lun_0" && ln -s "$TPG_DIR/lun/lun_0" "$ACLS/$1/lun_0/map"; } ||
		fail "cannot map LUN 0 for ACL '$1'"
}
acl_rm() {
	find "$ACLS/$1" -mindepth 2 -maxdepth 2 -type l -delete &&
		rmdir "$ACLS/$1/lun_0" && rmdir "$ACLS/$1"
}
# shellcheck disable=SC2317  # called through wait_for
rport_down() { ! grep -q running /sys/class/srp_remote_ports/port-*/state; }

# admitted NAME DEST [ADD_TARGET OPTIONS]: with only ACL NAME, ib_srp logs
# in to DEST (an IP or [IPv6]), reads back, and is logged out by the ACL's
# removal.
admitted() {
	local name=$1 dest=$2 opts=${3:-} dev p
	acl_add "$name"
	dev=$(TGT_IP=$dest srp_login "$opts") ||
		fail "ACL '$name': login${opts:+ with $opts} to $dest refused"
	verify_io "$dev" 4 || fail "ACL '$name': write/read-back on $dev failed"
	for p in /sys/class/srp_remote_ports/port-*; do
		echo 2 >"$p/reconnect_delay"
	done
	acl_rm "$name" || fail "cannot remove ACL '$name'"
	wait_for 30 rport_down || fail "ACL '$name' removed, initiator still logged in"
	srp_logout || fail "ACL '$name': logout"
	log "ACL '$name': admitted${opts:+ with $opts} to $dest ($dev), logged out by its removal"
}

# --- no ACL, or none that matches: refused
refused() {
	SRP_EXPECT=1 expect_refused unable_associate_channel "$INI_PORT_ID" 'no ACL for it' srp_login
	[ -z "$(srp_hosts)" ] || srp_logout
	log "login refused $1"
}
refused "without any ACL"
mkdir "$ACLS/0002:c903:00a1:b2c3" || fail "ACL by another GUID refused"
mkdir "$ACLS/192.0.2.99" || fail "ACL by another IP refused"
refused "with ACLs for another GUID and another IP only"
rmdir "$ACLS/0002:c903:00a1:b2c3" "$ACLS/192.0.2.99"

# --- every spelling admits
for name in "0x$id" "0x$(upper "$id")" "$id" "$(upper "$id")" "$(groups "$id")" \
	"$(upper "$(groups "$id")")" "$(groups "$guid")" "0x$guid" "$(upper "$guid")" \
	"$TGT_IP"; do
	admitted "$name" "$TGT_IP"
done
admitted "$(groups "$guid")" "$TGT_IP" initiator_ext=00000000000000aa
for name in "$TGT_IP6" 2001:0db8:0000:0000:0000:0000:0000:0001 2001:DB8::1; do
	admitted "$name" "[$TGT_IP6]"
done

# --- names that are nothing: EINVAL.  Among them a port ID in groups
# with a 5-digit last group: the kernel's in6_pton() takes it for an IPv6
# address (it allows more than four digits when they start with zeros),
# and an ACL by that address would never match the initiator meant.
# Then names that start with an address, port ID or GUID and go on: the
# kernel's in4_pton()/in6_pton() stop at the first character that cannot
# be in an address, so "192.0.2.1O" (a typo for .10) or "192.0.2.1-old"
# would admit 192.0.2.1; a port name with a trailing ':' or a last group
# of the wrong length; a name of 64 characters or more (sessions are named
# after the ACL in 64 bytes).  Each is refused with a log line naming the
# forms that are taken.
long=$(printf '%-63s' "$TGT_IP" | tr ' ' 0)x
for name in foo 0x123 1.2.3 "${id}0" "0x${id%?}g" 192.0.2.256 2001:db8:::1 \
	"$(groups "$id"):0" "$(groups "$id")0" \
	"${TGT_IP}O" "$TGT_IP-old" "$TGT_IP:3260" "$TGT_IP6-hostA" "$TGT_IP6%veth0" \
	"[$TGT_IP6]" 192.0.2.010 "$(groups "$id"):" "$(groups "$guid"):" \
	"$(groups "$guid")0" "$(groups "${guid%?}")" "0x$(groups "$guid")" "$long"; do
	if mkdir "$ACLS/$name" 2>/tmp/mkdir.err; then
		rmdir "$ACLS/$name"
		fail "ACL name '$name' accepted"
	fi
	grep -q 'Invalid argument' /tmp/mkdir.err || fail "ACL name '$name': $(cat /tmp/mkdir.err), not EINVAL"
done
# The log line (rate-limited: checked for one name after a pause).
sleep 5
dmesg -C
mkdir "$ACLS/${TGT_IP}O" 2>/dev/null && fail "ACL name '${TGT_IP}O' accepted"
dmesg | grep -q "ACL ${TGT_IP}O: not taken; the whole name must be the initiator port ID" ||
	fail "ACL name '${TGT_IP}O' refused without the log line naming the forms"
log "ACL names foo, 0x123, 1.2.3, 33 hex digits, ${TGT_IP}O, $TGT_IP-old, $TGT_IP:3260, $TGT_IP6-hostA, trailing ':', 64 characters ... refused with EINVAL and a log line"

# Target port names are as exact: a GUID with a trailing ':' or a last
# group of 3 or 5 digits, a GID with 33 digits.
tguid=${TGT_GID:16:16}
for name in "$(groups "$tguid"):" "$(groups "$tguid")0" "$(groups "${tguid%?}")" \
	"0x${TGT_GID}0" "0x$(groups "$tguid")"; do
	if mkdir "$SRPT_DIR/$name" 2>/tmp/mkdir.err; then
		rmdir "$SRPT_DIR/$name"
		fail "target port name '$name' accepted"
	fi
	grep -q 'Invalid argument' /tmp/mkdir.err || fail "target port name '$name': $(cat /tmp/mkdir.err), not EINVAL"
done
log "target port names with a trailing ':', a 5- or 3-digit last group or 33 digits refused with EINVAL"
pass "ACLs by port ID (0x/plain/groups, either case), GUID, IPv4 and IPv6 (compressed/expanded/upper) admit ib_srp and log it out when removed; bad names (trailing junk, 64 characters) EINVAL; bad port names EINVAL; no match refused"
