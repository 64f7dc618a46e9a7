#!/bin/bash
# An RDMA/CM initiator can also be admitted by an ACL named after its IP
# address (created in configfs directly: rtslib only knows ib.<hex> names).
# Without it (and without a port-ID ACL) the login is refused for that
# reason (SRP_LOGIN_REJ 0x00010003 logged by ib_srp, the target's counter
# and log line: tools/guest-lib.sh expect_refused); removing the
# ACL of a logged-in initiator logs it out.  The ACL maps one LUN of each
# backstore kind (ramdisk, fileio, block = iblock on a null_blk disk) and
# data written through each reads back intact.
# stock: skip Debian's ib_srpt ACLs are by port ID only (checked by running it)
. "$PROJECT/tools/guest-lib.sh"

KINDS=(ramdisk fileio block)
setup_transport
load_target byip-ram:16M:ramdisk byip-file:16M:fileio byip-blk:16M:block
acls=$TPG_DIR/acls
SRP_EXPECT=1 expect_refused unable_associate_channel "$INI_PORT_ID" 'no ACL for it' srp_login
srp_logout

# ib_srp logs in from the address the route to 192.0.2.1 uses (loopback:
# the target's own address, see guest-lib.sh).
mkdir "$acls/$TGT_IP" || fail "cannot create ACL $TGT_IP"
# Map the LUNs for it, as targetcli does for ib.<hex> ACLs.
for l in 0 1 2; do
	mkdir "$acls/$TGT_IP/lun_$l" || fail "cannot create mapped LUN $l"
	ln -s "$TPG_DIR/lun/lun_$l" "$acls/$TGT_IP/lun_$l/map" || fail "cannot map LUN $l"
done
out=$(srp_login) || fail "login with an ACL for $TGT_IP refused"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks, got ${#disks[*]}"
log "admitted by IP ACL: ${disks[*]}"
for i in 0 1 2; do
	verify_io "${disks[i]}" 8 || fail "${KINDS[i]} LUN ${disks[i]}: write/read-back failed"
done
grep -q "$TGT_IP" "$acls/$TGT_IP/info" 2>/dev/null ||
	log "note: ACL info: $(head -n2 "$acls/$TGT_IP/info" 2>/dev/null | tr '\n' ' ')"

# An ACL that is not a port ID or an address is refused by the target.
if mkdir "$acls/not-an-initiator" 2>/dev/null; then
	fail "ACL name 'not-an-initiator' was accepted"
fi

# Removing the ACL of a live session logs the initiator out.
for p in /sys/class/srp_remote_ports/port-*; do
	echo 2 >"$p/reconnect_delay" 2>/dev/null
done
find "$acls/$TGT_IP" -maxdepth 2 -type l -delete
rmdir "$acls/$TGT_IP"/lun_* 2>/dev/null
rmdir "$acls/$TGT_IP" || fail "cannot remove ACL $TGT_IP"
wait_for 30 sh -c "dmesg | grep -q 'channel released'" || fail "channel not released after ACL removal"
log "ACL removed: $(dmesg | grep 'ib_srpt' | tail -n 2 | tr '\n' ' ')"
srp_logout || fail "logout"
pass "initiator admitted by IP ACL (ramdisk, fileio, block LUNs read back intact), refused without, logged out on ACL removal"
