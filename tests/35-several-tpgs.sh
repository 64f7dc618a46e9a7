#!/bin/bash
# Several TPGs per target port, as the in-kernel module allows: a port has
# tpgt_1 (targetcli) and tpgt_2 (configfs), each with a LUN of its own
# size (16 MiB, 24 MiB) and ACLs; a third TPG belongs to a second target
# port named by the port GUID (xxxx:xxxx:xxxx:xxxx) of the same RDMA port,
# with a 20 MiB LUN.  A login is admitted by an enabled TPG of the
# addressed port - of any target port named after its GID or GUID - that
# has an ACL for the initiator; the disk ib_srp gets (by its size) says
# which TPG admitted it, and each is read back:
#   - ib_srp (initiator_ext 0, ACL in tpgt_1 only) -> tpgt_1;
#     initiator_ext aa (ACL in tpgt_2 only) -> tpgt_2;
#   - both TPGs with an ACL for it: the lowest tag wins (ours; the stock
#     module's choice is logged);
#   - tpgt_1 disabled: the same login -> tpgt_2 (the stock module refuses
#     it: disabling one TPG disables its port there; logged, not checked);
#   - initiator_ext bb, ACL only in the GUID-named port -> that port;
#   - an ACL in both the GID- and the GUID-named port: the GID-named port
#     wins (ours; the stock module's choice is logged);
#   - (ours) an ACL by port ID beats one by port GUID in another TPG;
#   - no enabled TPG with an ACL for it: refused.
# Ours also names the TPG in the login's log line ("logged in to
# <port>/tpgt_N").
. "$PROJECT/tools/guest-lib.sh"

setup_transport
load_target d1:16M:ramdisk "acl:$INI_PORT_ID"
targetcli_q /backstores/ramdisk create d2 24M || fail "ramdisk d2"
targetcli_q /backstores/ramdisk create d3 20M || fail "ramdisk d3"
PORT=$(dirname "$TPG_DIR")
T1=$TPG_DIR T2=$PORT/tpgt_2
guid=${TGT_GID:16:16}
GPORT=$SRPT_DIR/${guid:0:4}:${guid:4:4}:${guid:8:4}:${guid:12:4}
T3=$GPORT/tpgt_1
ID0=$INI_PORT_ID
IDA=00000000000000aa$INI_PORT_GUID
IDB=00000000000000bb$INI_PORT_GUID
declare -A TPG_OF=([16777216]="$T1" [25165824]="$T2" [20971520]="$T3")

# tpg_lun TPG BACKSTORE: lun_0 of TPG is the ramdisk BACKSTORE.
tpg_lun() {
	mkdir -p "$1/lun/lun_0" &&
		ln -s "$(echo /sys/kernel/config/target/core/rd_mcp_*/"$2")" "$1/lun/lun_0/$2"
}
# acl_add TPG ID32: an ACL for initiator port ID32 (0x + lower-case hex,
# as both modules take it) in TPG, with its lun_0 mapped.
acl_add() {
	local acl_dir=$1/acls/0x$2
	mkdir "$acl_dir" && mkdir "$acl_dir/lun_0" && ln -s "$1/lun/lun_0" "$acl_dir/lun_0/map"
}
# acl_rm TPG NAME: remove ACL NAME (its LUN links have any name:
# targetcli's are not "map").
acl_rm() {
	local acl_dir=$1/acls/$2
	find "$acl_dir" -mindepth 2 -maxdepth 2 -type l -delete &&
		rmdir "$acl_dir"/lun_* "$acl_dir"
}
# shellcheck disable=SC2317  # called through wait_for
rport_down() { ! grep -q running /sys/class/srp_remote_ports/port-*/state 2>/dev/null; }

# admitted_by WANT WHAT [OPTS]: ib_srp (with add_target OPTS) logs in, gets
# the LUN of TPG WANT (by its size; with WANT "-" any one), reads back and
# logs out.  ADMITTED: the TPG that admitted it.
admitted_by() {
	local want=$1 what=$2 opts=${3:-} dev size
	dev=$(SRP_EXPECT=1 srp_login "$opts") || fail "$what: login refused"
	size=$(blockdev --getsize64 "$dev") || fail "$what: no size of $dev"
	ADMITTED=${TPG_OF[$size]:-}
	[ -n "$ADMITTED" ] || fail "$what: a disk of $size bytes, not one of the TPGs' LUNs"
	verify_io "$dev" 4 || fail "$what: write/read-back on $dev failed"
	if [ "$STOCK" != 1 ]; then
		dmesg | grep "logged in to" | tail -n1 |
			grep -q "logged in to ${ADMITTED#"$SRPT_DIR"/}:" ||
			fail "$what: the login's log line does not name ${ADMITTED#"$SRPT_DIR"/}: $(dmesg | grep 'logged in to' | tail -n1)"
	fi
	srp_logout || fail "$what: logout"
	[ "$want" = - ] || [ "$ADMITTED" = "$want" ] ||
		fail "$what: admitted by ${ADMITTED#"$SRPT_DIR"/}, expected ${want#"$SRPT_DIR"/}"
	log "$what: admitted by ${ADMITTED#"$SRPT_DIR"/} ($dev, $size bytes), read back"
}

# --- a second TPG of the same target port, with its own LUN and an ACL
# for initiator_ext aa.
mkdir "$T2" 2>/tmp/mkdir.err || fail "mkdir ${T2#"$SRPT_DIR"/}: $(cat /tmp/mkdir.err)"
tpg_lun "$T2" d2 || fail "lun_0 of tpgt_2"
acl_add "$T2" "$IDA" || fail "ACL 0x$IDA in tpgt_2"
echo 1 >"$T2/enable" || fail "enable tpgt_2"
[ "$STOCK" = 1 ] || [ "$(cat "$T2/enable")" = 1 ] || fail "tpgt_2 not enabled"
if [ "$STOCK" != 1 ]; then
	for bad in tpgt_0 tpgt_x tpgt_65536 tpg_3; do
		if mkdir "$PORT/$bad" 2>/dev/null; then
			rmdir "$PORT/$bad"
			fail "TPG name $bad accepted"
		fi
	done
	log "TPG names tpgt_0, tpgt_x, tpgt_65536, tpg_3 refused"
fi

admitted_by "$T1" "initiator_ext 0 (ACL in tpgt_1)"
admitted_by "$T2" "initiator_ext aa (ACL in tpgt_2)" initiator_ext=00000000000000aa

# --- both TPGs have an ACL for initiator_ext 0.
acl_add "$T2" "$ID0" || fail "ACL 0x$ID0 in tpgt_2"
if [ "$STOCK" = 1 ]; then
	admitted_by - "initiator_ext 0, ACLs in tpgt_1 and tpgt_2"
	STOCK_TIE_TPG=${ADMITTED#"$SRPT_DIR"/}
else
	admitted_by "$T1" "initiator_ext 0, ACLs in tpgt_1 and tpgt_2 (the lowest tag wins)"
fi

# --- tpgt_1 disabled: tpgt_2 admits it.
echo 0 >"$T1/enable" || fail "disable tpgt_1"
if [ "$STOCK" != 1 ]; then
	admitted_by "$T2" "initiator_ext 0, tpgt_1 disabled"
elif dev=$(SRP_EXPECT=1 srp_login); then
	srp_logout || fail "logout"
	STOCK_DISABLED="admitted ($dev)"
	log "stock: initiator_ext 0, tpgt_1 disabled: admitted"
else
	# Seen: "target port rxe0_1 has not yet been enabled", 0x00010001.
	[ -z "$(srp_hosts)" ] || srp_logout
	STOCK_DISABLED="refused: $(dmesg | grep -o 'SRP LOGIN REJECTED, reason 0x[0-9a-f]*' | tail -n1)"
	log "stock: initiator_ext 0, tpgt_1 disabled, tpgt_2 enabled with an ACL: $STOCK_DISABLED"
fi
echo 1 >"$T1/enable" || fail "enable tpgt_1"

# --- a target port named by the port GUID, for the same RDMA port, with
# an ACL for initiator_ext bb only.
mkdir "$GPORT" 2>/tmp/mkdir.err || fail "mkdir ${GPORT#"$SRPT_DIR"/}: $(cat /tmp/mkdir.err)"
mkdir "$T3" || fail "mkdir ${T3#"$SRPT_DIR"/}"
tpg_lun "$T3" d3 || fail "lun_0 of ${T3#"$SRPT_DIR"/}"
acl_add "$T3" "$IDB" || fail "ACL 0x$IDB in ${T3#"$SRPT_DIR"/}"
echo 1 >"$T3/enable" || fail "enable ${T3#"$SRPT_DIR"/}"
admitted_by "$T3" "initiator_ext bb (ACL in the GUID-named port only)" initiator_ext=00000000000000bb

# --- an ACL for initiator_ext 0 in the GUID-named port too.
acl_add "$T3" "$ID0" || fail "ACL 0x$ID0 in ${T3#"$SRPT_DIR"/}"
if [ "$STOCK" = 1 ]; then
	admitted_by - "initiator_ext 0, ACLs in both TPGs of the GID-named port and in the GUID-named port"
	STOCK_PORT_TIE=${ADMITTED#"$SRPT_DIR"/}
else
	admitted_by "$T1" "initiator_ext 0, ACLs in both TPGs of the GID-named port and in the GUID-named port (GID-named, lowest tag)"
fi
# Only the GUID-named port's ACL left for initiator_ext 0.
acl_rm "$T1" "$(basename "$(echo "$T1"/acls/*"$ID0")")" || fail "rm the ACL of initiator_ext 0 in tpgt_1"
acl_rm "$T2" "0x$ID0" || fail "rm ACL 0x$ID0 in tpgt_2"
admitted_by "$T3" "initiator_ext 0, its ACL only in the GUID-named port"

# --- (ours) ACLs by port GUID and by port ID: the port ID wins, whatever
# the TPG.
if [ "$STOCK" != 1 ]; then
	g=$INI_PORT_GUID
	gacl=$T1/acls/${g:0:4}:${g:4:4}:${g:8:4}:${g:12:4}
	{ mkdir "$gacl" && mkdir "$gacl/lun_0" && ln -s "$T1/lun/lun_0" "$gacl/lun_0/map"; } ||
		fail "ACL by port GUID in tpgt_1"
	acl_rm "$T3" "0x$ID0" || fail "rm ACL 0x$ID0 in ${T3#"$SRPT_DIR"/}"
	acl_add "$T2" "$ID0" || fail "ACL 0x$ID0 in tpgt_2"
	admitted_by "$T2" "initiator_ext 0, ACL by port GUID in tpgt_1, by port ID in tpgt_2 (port ID wins)"
	acl_rm "$T2" "0x$ID0" || fail "rm ACL 0x$ID0 in tpgt_2"
	admitted_by "$T1" "initiator_ext 0, only the ACL by port GUID in tpgt_1"
	{ rm -f "$gacl/lun_0/map" && rmdir "$gacl/lun_0" "$gacl"; } || fail "rm the ACL by port GUID"
else
	acl_rm "$T3" "0x$ID0" || fail "rm ACL 0x$ID0 in ${T3#"$SRPT_DIR"/}"
fi

# --- no enabled TPG with an ACL for initiator_ext 0: refused.
if SRP_EXPECT=1 srp_login >/dev/null 2>&1; then
	srp_logout
	fail "initiator_ext 0 admitted without any ACL for it"
fi
wait_for 10 no_srp_hosts || srp_logout
log "initiator_ext 0 without an ACL in any TPG: refused"

if [ "$STOCK" = 1 ]; then
	pass "stock: tpgt_2 made and used; ACL in tpgt_1 -> tpgt_1, in tpgt_2 -> tpgt_2; both -> $STOCK_TIE_TPG; tpgt_1 disabled -> $STOCK_DISABLED; GUID-named port admits its initiator; ACLs in both ports -> $STOCK_PORT_TIE; no ACL refused"
fi
pass "several TPGs per port and a GUID-named port beside the GID-named one: each login admitted by the enabled TPG with an ACL for it (LUN by size, read back, log line); ties: GID-named port, then lowest tag; port ID beats GUID across TPGs; no ACL refused"
