#!/bin/bash
# What an InfiniBand initiator does, on soft-RoCE: find the target with
# Device Management MADs, as srp_daemon/ibsrpdm would, and log in through
# the IB CM with the service ID, id_ext and IOC GUID the DM agent gave -
# no IP address involved.  ib_srp needs a subnet manager for that, which
# RoCE lacks, so the IB CM initiator is tools/ibcm-test (a test kernel
# module driven through debugfs) and the DM client build/srp-discover.
#
# Checked:
#   - DM: IOUnitInfo, IOControllerProfile and ServiceEntries field by
#     field (IOC GUID = srpt_service_guid, SRP I/O class/subclass/protocol,
#     send message size = srp_max_req_size, maximum RDMA size = the TPG's
#     srp_max_rdma_size (also after a change), one service SRP.T10:<id_ext>
#     with service ID = IOC GUID); a Set, an unknown attribute, slot 2 and
#     a service entry past the last get the MAD status for it;
#   - an IB CM login gets a LOGIN_RSP, its REP's SRQ bit set with use_srq=1
#     (tests/run.sh --srq) and clear without; TUR, INQUIRY (LIO-ORG) and 1 MiB
#     written and read back verified on a ramdisk, a fileio and a block
#     LUN (data moved by the target's RDMA READ/WRITE); logout (DREQ)
#     releases the channel;
#   - every refusal comes as an SRP_LOGIN_REJ in a consumer-defined CM
#     REJ with its exact reason: wrong target port ID and no ACL 0x00010003,
#     REQ_IT_IU_LEN too large 0x00010002, wrong opcode (no SRP_LOGIN_REQ)
#     0x00010000, TPG disabled 0x00010003; an unknown service ID gets a CM
#     REJ;
#   - a login whose RTU never comes leaves no channel behind; an IU sent
#     before the RTU is answered once the channel is live;
#   - one I_T nexus with an IB CM and an RDMA/CM (ib_srp) channel: ib_srp's
#     SINGLE login ends the IB CM channel (SRP_T_LOGOUT reason 4, then a
#     DREQ); an IB CM MULTI login keeps ib_srp's; ACL removal and TPG
#     disable log IB CM channels out (SRP_T_LOGOUT reason 0, DREQ); the
#     module unloads with an IB CM channel live; rdma link del releases
#     an IB CM channel, and after rdma link add the initiator logs in
#     again and reads its data back, with no admin action.
# siw: skip iWARP has neither the IB CM nor MADs (logins there are RDMA/CM only)
# core:
. "$PROJECT/tools/guest-lib.sh"

standard_setup disk-ram:16M:ramdisk disk-file:16M:fileio disk-blk:16M:block
modprobe ib_umad || fail "modprobe ib_umad"
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
ko=$PROJECT/build/ibcm-test/$(uname -r)/srp_ibcm_test.ko
[ -f "$ko" ] || fail "no $ko (make tools builds it)"
insmod "$ko" || fail "insmod $ko"
CMD=/sys/kernel/debug/srp_ibcm_test/cmd
SG=$(sed 's/^0x//' /sys/module/ib_srpt/parameters/srpt_service_guid)
DGID=$(gid_hex "/sys/class/infiniband/$HCA0/ports/1/gids/0")
DISCOVER=$PROJECT/build/srp-discover

# ibcm COMMAND...: run a test-module command; its result line in $R.
ibcm() {
	echo "$*" >$CMD || { R="write failed: $*"; return 1; }
	R=$(cat $CMD)
}
# expect PATTERN COMMAND...: the result must match the extended regex.
expect() {
	local pat=$1
	shift
	ibcm "$@"
	grep -qE "$pat" <<<"$R" || fail "'$*' answered '$R', expected /$pat/"
	log "$* -> $R"
}

# --- discovery
out=$("$DISCOVER" -d "$HCA0" "$DGID") || fail "srp-discover found nothing: $out"
while read -r l; do log "  $l"; done <<<"$out"
rdma=$(cat "$TPG_DIR/attrib/srp_max_rdma_size")
grep -qE "slot 1: IOC GUID $SG, \".+\", I/O class 0x0100, protocol 0x0108, send size $(cat /sys/module/ib_srpt/parameters/srp_max_req_size), RDMA size $rdma," <<<"$out" ||
	fail "IOControllerProfile not as expected (RDMA size: srp_max_rdma_size $rdma)"
# The maximum RDMA size is the TPG's srp_max_rdma_size.
echo 1048576 >"$TPG_DIR/attrib/srp_max_rdma_size" || fail "srp_max_rdma_size=1048576"
"$DISCOVER" -d "$HCA0" "$DGID" | grep -q "slot 1: .*, RDMA size 1048576," ||
	fail "IOControllerProfile: RDMA size not 1048576 after srp_max_rdma_size=1048576"
echo "$rdma" >"$TPG_DIR/attrib/srp_max_rdma_size" || fail "srp_max_rdma_size=$rdma"
log "IOControllerProfile RDMA size = srp_max_rdma_size ($rdma, then 1048576)"
grep -q "service SRP.T10:$SG, service ID $SG" <<<"$out" || fail "ServiceEntries not as expected"
grep -q "add_target (IB CM):  id_ext=$SG,ioc_guid=$SG,dgid=$DGID,pkey=ffff,service_id=$SG" <<<"$out" ||
	fail "no IB CM add_target line"
grep -q "add_target (RDMA/CM): id_ext=$SG,ioc_guid=$SG,dest=$TGT_IP:5555" <<<"$out" ||
	fail "no RDMA/CM add_target line with $TGT_IP"
# raw ATTR:MOD [--set]: the MAD status of one DM query.
raw() { "$DISCOVER" -d "$HCA0" "${2:---get}" "$1" "$DGID" | awk '{print $2}'; }
# IOUnitInfo: slot 1 present (high nibble of byte 4).
iou=$("$DISCOVER" -d "$HCA0" --get 0x10:0 "$DGID")
grep -qE "^status 0x0000 data [0-9a-f]{8}1" <<<"$iou" || fail "IOUnitInfo: $iou"
# IOControllerProfile data: subclass 0x609e at byte 30, protocol version 1.
prof=$("$DISCOVER" -d "$HCA0" --get 0x11:1 "$DGID" | tr -d ' ')
# "status0x0000data" + the bytes in hex: byte N at 16 + 2N.
[ "${prof:16:16}" = "$SG" ] || fail "IOC GUID in the profile: ${prof:16:16}"
[ "${prof:72:16}" = "0100609e01080001" ] || fail "class/subclass/protocol/version: ${prof:72:16}"
for q in "0x11:2 --get 0x001c" "0x11:0 --get 0x001c" "0x12:0x10001 --get 0x001c" \
	"0x12:0x20000 --get 0x001c" "0x99:0 --get 0x000c" "0x10:0 --set 0x000c"; do
	read -r attr how want <<<"$q"
	got=$(raw "$attr" "$how")
	[ "$got" = "$want" ] || fail "DM $how $attr: status $got, expected $want"
done
log "DM: profile, service entry and add_target lines right; Set, unknown attribute, bad slot/range refused"

# --- IB CM login, I/O, logout
LOGIN="login dev=$HCA0 dgid=$DGID service_id=$SG id_ext=$SG ioc_guid=$SG"
expect "^LOGIN_RSP req_lim=[1-9]" "$LOGIN initiator_id=$INI_PORT_ID"
# The REP's SRQ bit says whether the target's QP receives from an SRQ
# (tests/run.sh --srq: use_srq=1).
expect "^STATE live .* rep_srq=${USE_SRQ:-0}\$" state
expect "^RSP status=0x00" tur
expect "LIO-ORG" inquiry
for lun in 0 1 2; do
	# A new nexus first gets the LUN's UNIT ATTENTION (REPORTED LUNS
	# DATA HAS CHANGED, 6/3f/0e): a TUR takes it.
	expect "^RSP status=0x0[02]" tur lun=$lun
	expect "^RSP status=0x00" write lun=$lun lba=0 blocks=2048 pattern=$((lun + 3))
	expect "^RSP status=0x00 verified" read lun=$lun lba=0 blocks=2048 pattern=$((lun + 3))
	expect "^RSP status=0x00 verified" read lun=$lun lba=100 blocks=8 pattern=$((lun + 3))
done
expect "^DISCONNECTED" dreq
expect "^CLOSED" close
wait_for 10 sh -c "dmesg | grep -q '0x$INI_PORT_ID: channel released'" ||
	fail "the target did not release the IB CM channel after the DREQ"

# --- refusals
expect "^LOGIN_REJ reason=0x00010003 " "login dev=$HCA0 dgid=$DGID service_id=$SG id_ext=1234 ioc_guid=$SG initiator_id=$INI_PORT_ID"
expect "^CLOSED" close
expect "^LOGIN_REJ reason=0x00010003 " "$LOGIN initiator_id=00000000000000000000000000000099"
expect "^CLOSED" close
expect "^LOGIN_REJ reason=0x00010002 " "$LOGIN initiator_id=$INI_PORT_ID it_iu_len=1048576"
expect "^CLOSED" close
# Not an SRP_LOGIN_REQ: no reason of its own, the generic one.
expect "^LOGIN_REJ reason=0x00010000 " "$LOGIN initiator_id=$INI_PORT_ID opcode=5"
expect "^CLOSED" close
expect "^CM_REJ" "login dev=$HCA0 dgid=$DGID service_id=1234 id_ext=$SG ioc_guid=$SG initiator_id=$INI_PORT_ID"
expect "^CLOSED" close

# --- a login whose RTU never comes (the target's REP times out after
# (1 + 1) x 2^(12 - 8) ms), and an IU sent before the RTU (parked until
# the channel is live: rxe raises no COMM_EST)
released() { dmesg | grep -c "0x$INI_PORT_ID: channel released"; }
n0=$(released)
expect "^REP_NO_RTU" "$LOGIN initiator_id=$INI_PORT_ID no_rtu=1 cm_timeout=12 max_cm_retries=1"
# shellcheck disable=SC2317  # called through wait_for
more_released() { [ "$(released)" -gt "$n0" ]; }
wait_for 10 more_released || fail "the target kept a channel whose RTU never came"
expect "^CLOSED" close
expect "^LOGIN_RSP .*early_tur=" "$LOGIN initiator_id=$INI_PORT_ID early_iu=1"
expect "^RSP status=0x00" tur
expect "^DISCONNECTED" dreq
expect "^CLOSED" close
log "no RTU: channel released; IU before the RTU: answered once live"

# --- one nexus over both CMs
expect "^LOGIN_RSP" "$LOGIN initiator_id=$INI_PORT_ID"
dev=$(SRP_EXPECT=3 srp_login | head -n1) || fail "ib_srp login"
expect "^DISCONNECTED by target" wait_disconnect timeout=10
expect "^STATE .* t_logout=1 t_logout_reason=0x4 " state
expect "^CLOSED" close
verify_io "$dev" 4 || fail "ib_srp I/O after its SINGLE login"
expect "^LOGIN_RSP .*flags=0x0*2" "$LOGIN initiator_id=$INI_PORT_ID req_flags=1"
verify_io "$dev" 4 || fail "ib_srp I/O after an IB CM MULTI login of its nexus"
expect "^RSP status=0x00" tur
log "SINGLE over RDMA/CM logged the IB CM channel out (SRP_T_LOGOUT reason 4); MULTI over IB CM kept ib_srp's"
srp_logout || fail "ib_srp logout"
expect "^DISCONNECTED|^CLOSED" close

# --- admin actions end IB CM channels
expect "^LOGIN_RSP" "$LOGIN initiator_id=$INI_PORT_ID"
targetcli_q "/srpt/$TGT_WWN/acls" delete "ib.$INI_PORT_ID" || fail "acl delete"
expect "^DISCONNECTED by target" wait_disconnect timeout=10
expect "^STATE .* t_logout=1 t_logout_reason=0x0 " state
expect "^CLOSED" close
make_acl
expect "^LOGIN_RSP" "$LOGIN initiator_id=$INI_PORT_ID"
echo 0 >"$TPG_DIR/enable" || fail "TPG disable"
expect "^DISCONNECTED by target" wait_disconnect timeout=10
expect "^STATE .* t_logout=1 t_logout_reason=0x0 " state
expect "^CLOSED" close
expect "^LOGIN_REJ reason=0x00010003 " "$LOGIN initiator_id=$INI_PORT_ID"
expect "^CLOSED" close
echo 1 >"$TPG_DIR/enable" || fail "TPG enable"
expect "^LOGIN_RSP" "$LOGIN initiator_id=$INI_PORT_ID"
expect "^RSP status=0x0[02]" tur lun=2
expect "^RSP status=0x00 verified" read lun=2 lba=0 blocks=2048 pattern=5

# --- the device goes (HCA reset, driver unload) under a live IB CM
# channel and comes back: the target releases the channel, keeps its
# configuration, listens again, and the initiator logs in as before.
n0=$(released)
rdma link del "$HCA0" || fail "rdma link del $HCA0"
wait_for 10 more_released || fail "IB CM channel not released when $HCA0 went away"
expect "^CLOSED" close
rdma link add "$HCA0" type rxe netdev veth0 || fail "rdma link add $HCA0"
wait_for 20 grep -q ACTIVE "/sys/class/infiniband/$HCA0/ports/1/state" ||
	fail "$HCA0 port not active again"
# shellcheck disable=SC2317  # called through wait_for
ibcm_login_ok() {
	ibcm "$LOGIN initiator_id=$INI_PORT_ID"
	grep -q "^LOGIN_RSP" <<<"$R" && return 0
	ibcm close
	return 1
}
wait_for 20 ibcm_login_ok || fail "no IB CM login after rdma link add: $R"
expect "^RSP status=0x0[02]" tur lun=2
expect "^RSP status=0x00 verified" read lun=2 lba=0 blocks=2048 pattern=5
log "rdma link del/add: IB CM channel released, login and data back after the device returned"
unload_target || fail "unload with an IB CM channel live: $UNLOAD_ERR"
expect "^DISCONNECTED|^CLOSED" close
rmmod srp_ibcm_test || fail "rmmod srp_ibcm_test"
pass "DM answers right, IB CM login + verified 1 MiB on ramdisk/fileio/block, logout, every refusal with its reason, SINGLE/MULTI across CMs, ACL removal/TPG disable/rmmod end IB CM channels"
