#!/bin/bash
# The admin guide's quick start works as written: a newcomer copies the
# blocks of Documentation/admin-guide.rst's "Quick start: soft-RoCE on one
# machine" into a root shell and gets disks.  This scenario takes each
# literal block marked ".. quick-start: <name>" out of the .rst (awk, no
# docutils), fills in the guide's placeholders (<netdev> = veth0, <target IP>
# = <initiator IP> = 192.0.2.1, the rig of setup_transport, whose own rxe0
# and rxe1 are deleted so that the guide's `rdma link add` makes the only
# device) and runs its commands one by one in this shell: any command that
# fails fails the scenario, naming the block and the command.  Between the
# blocks it checks what each should have done:
#   - rdma: rxe0 on veth0 is ACTIVE with the GID setup_transport read;
#   - module: our ib_srpt (updates/) is loaded with rdma_cm_port 5555;
#   - luns, port: ramdisk, fileio and block (iblock on null_blk) backstores
#     are LUNs 0-2 of the enabled target port named after that GID;
#   - acl: the guide's initiator port ID is ib_srp's, its ACL maps 3 LUNs;
#   - login: ib_srp shows the 3 LIO-ORG disks, data written to each reads
#     back intact (verify_io), the channel was admitted by that ACL;
#   - logout: the SCSI host goes, the target holds no resources;
#   - ip-acl: the ACL by IP address made with mkdir maps the 3 LUNs; login
#     (admitted by it), verified I/O on each disk and logout again;
#   - cleanup: ib_srpt unloaded, its configfs directory and rxe0 gone.
# Every marked block of the guide must have run.  It is run on 6.12 and
# with --kver 6.1 (Debian 12's kernel).
# stock: skip the guide is this module's (rdma_cm_port, ACLs by IP address)
# siw: skip the quick start is the soft-RoCE walk-through (rdma link add rxe0)
. "$PROJECT/tools/guest-lib.sh"

GUIDE=$PROJECT/Documentation/admin-guide.rst
KINDS=(ramdisk fileio block)
RAN=" "

# guide_block NAME: the commands of the literal block after the
# ".. quick-start: NAME" comment (the paragraph ending in "::" that
# follows it, then its indented lines, unindented), placeholders filled in.
guide_block() {
	awk -v name="$1" '
		$0 == ".. quick-start: " name { state = 1; next }
		state == 1 && /::$/ { state = 2; next }
		state == 2 && /^$/ { next }
		state == 2 && /^  / { sub(/^  /, ""); print; next }
		state == 2 { exit }' "$GUIDE" |
		sed -e "s/<netdev>/veth0/g" -e "s/<target IP>/$TGT_IP/g" \
			-e "s/<initiator IP>/$TGT_IP/g"
}

# run_block NAME: run the guide's block NAME, one command (a line, or
# lines joined by a trailing backslash) at a time, in this shell (the
# blocks set variables that later ones use); fail on the first command
# that fails.
run_block() {
	local name=$1 line cmd='' rc
	local -a lines
	mapfile -t lines < <(guide_block "$name")
	[ ${#lines[@]} -gt 0 ] || fail "no block '.. quick-start: $name' in the admin guide"
	for line in "${lines[@]}"; do
		if [[ $line == *\\ ]]; then
			cmd+="${line%\\} "
			continue
		fi
		cmd+=$line
		[[ $cmd =~ \<[A-Za-z][^\>]*\> ]] &&
			fail "admin guide, quick start block '$name': placeholder ${BASH_REMATCH[0]} not filled in: $cmd"
		log "guide ($name)# $cmd"
		eval "$cmd"
		rc=$?
		[ $rc = 0 ] || fail "admin guide, quick start block '$name': \`$cmd\` failed (rc=$rc)"
		cmd=
	done
	RAN+="$name "
}

# mapped_luns ACLDIR: the number of lun_N of the ACL that link to a LUN.
mapped_luns() { find "$1" -mindepth 2 -maxdepth 2 -path '*/lun_*' -type l | wc -l; }

# login_io ACL: after the login block: 3 LIO-ORG disks, verified I/O on
# each, and the channel was admitted by ACL; then the logout block.
login_io() {
	local acl=$1 i disks
	run_block login
	wait_for 60 srp_ndisks_ge 3 || fail "ib_srp shows $(srp_disks | wc -l) LIO-ORG disks after the guide's login, want 3"
	mapfile -t disks < <(srp_disks)
	for i in 0 1 2; do
		verify_io "${disks[i]}" 8 || fail "${KINDS[i]} LUN ${disks[i]}: write/read-back failed (ACL $acl)"
	done
	grep -q " acl $acl " /sys/kernel/debug/ib_srpt/channels ||
		fail "the channel was not admitted by ACL $acl: $(cat /sys/kernel/debug/ib_srpt/channels)"
	log "admitted by ACL $acl: ${disks[*]} (${KINDS[*]}) read back intact; $(cat /sys/kernel/debug/ib_srpt/channels)"
	run_block logout
	wait_for 60 no_srp_hosts || fail "the ib_srp SCSI host is still there after the guide's logout"
	resources_free || fail "the target still holds resources after logout: $(grep -v ' 0$' "$RES" | xargs)"
}

# The machine the guide assumes: an interface with an IPv4 address (veth0,
# 192.0.2.1), no RDMA device yet; our module installed; udev's part (sd_mod
# for the disks) and dbus (targetcli) as on an installed system.
setup_transport
for dev in "$HCA0" "$HCA1"; do
	rdma link del "$dev" || fail "rdma link del $dev"
done
install_modules
modprobe -a sd_mod sg || fail "modprobe sd_mod sg"
pgrep -x dbus-daemon >/dev/null || dbus-daemon --system --fork || fail "dbus-daemon"

run_block rdma
wait_for 10 grep -q ACTIVE /sys/class/infiniband/rxe0/ports/1/state || fail "rxe0 not ACTIVE"
[ "$(gid_hex /sys/class/infiniband/rxe0/ports/1/gids/0)" = "$TGT_GID" ] ||
	fail "the guide's rxe0 has GID $(gid_hex /sys/class/infiniband/rxe0/ports/1/gids/0), not $TGT_GID"

run_block module
[[ $(modinfo -F filename ib_srpt) == */updates/* ]] || fail "modprobe ib_srpt loaded $(modinfo -F filename ib_srpt), not ours"
[ "$(cat /sys/module/ib_srpt/parameters/rdma_cm_port)" = "$SRP_PORT" ] || fail "rdma_cm_port is not $SRP_PORT"

run_block luns
run_block port
[ "$GID" = "$TGT_GID" ] || fail "the guide's GID '$GID' is not rxe0's $TGT_GID"
TPG_DIR=/sys/kernel/config/target/srpt/0x$TGT_GID/tpgt_1
[ "$(cat "$TPG_DIR/enable")" = 1 ] || fail "the target port's TPG is not enabled"
for i in 0 1 2; do
	lun=$(readlink -f "$TPG_DIR"/lun/lun_$i/*/ | head -n1)
	log "LUN $i: ${lun#/sys/kernel/config/target/core/}"
	case $i:$lun in
	0:*/rd_mcp_*/ram0 | 1:*/fileio_*/file0 | 2:*/iblock_*/blk0) ;;
	*) fail "LUN $i is '$lun', not the guide's ${KINDS[i]} backstore" ;;
	esac
done

run_block acl
[ "$INI" = "$INI_PORT_ID" ] || fail "the guide's initiator port ID $INI is not ib_srp's $INI_PORT_ID"
[ "$(mapped_luns "$TPG_DIR/acls/0x$INI_PORT_ID")" = 3 ] ||
	fail "the targetcli ACL maps $(mapped_luns "$TPG_DIR/acls/0x$INI_PORT_ID") LUNs, not 3"
login_io "0x$INI_PORT_ID"

run_block ip-acl
[ ! -e "$TPG_DIR/acls/0x$INI_PORT_ID" ] || fail "the guide's ACL ib.$INI_PORT_ID is still there"
[ "$(mapped_luns "$TPG_DIR/acls/$TGT_IP")" = 3 ] ||
	fail "the ACL $TGT_IP maps $(mapped_luns "$TPG_DIR/acls/$TGT_IP") LUNs, not 3"
login_io "$TGT_IP"

run_block cleanup
[ ! -e /sys/module/ib_srpt ] || fail "ib_srpt still loaded after the guide's cleanup"
[ ! -e /sys/kernel/config/target/srpt ] || fail "configfs target/srpt still there"
[ ! -e /sys/class/infiniband/rxe0 ] || fail "rxe0 still there"

while read -r name; do
	[[ $RAN == *" $name "* ]] || fail "the guide's quick-start block '$name' was not run by this scenario"
done < <(sed -n 's/^\.\. quick-start: //p' "$GUIDE")
pass "the admin guide's quick start as written (blocks:${RAN% }): soft-RoCE rxe0, ramdisk/fileio/block LUNs, ACL by port ID (targetcli) and by IP address (mkdir + LUN mapping), ib_srp login, verified I/O on each disk, logout, cleanup"
