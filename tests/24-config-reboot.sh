#!/bin/bash
# A target that comes back after a reboot.  An admin sets ib_srpt's module
# parameters in /etc/modprobe.d (rdma_cm_port, srpt_service_guid: not part
# of what targetcli saves), configures LUNs (ramdisk, fileio on a file,
# block on a loop device over a file), an ACL and a TPG attribute with
# targetcli and saves the configuration (`targetcli saveconfig`, its
# default file).  ib_srp logs in and writes data to the fileio and block
# LUNs.  Then a "reboot": the configuration cleared, ib_srpt, LIO, ib_srp
# and the soft-RoCE devices unloaded/removed, the loop device detached.
# "Boot": the soft-RoCE devices and the loop device come back, and what
# target.service runs (mkdir -p /etc/rtslib-fb-target; targetctl restore)
# loads ib_srpt with the modprobe.d parameters and restores the LUNs, the
# ACL and the attribute; ib_srp logs in over the RDMA/CM on that port and
# with that service GUID, the IB CM test initiator logs in over the IB CM,
# and the data written before the reboot reads back on both LUNs, through
# both CMs: ib_srp's 4 MiB compared with what it wrote (md5 of the data
# sent, which also read back so before the reboot), the IB CM
# initiator's pattern verified by it.
# stock: skip rdma_cm_port is no module parameter of the in-kernel module
# siw: skip the IB CM (iWARP has none)
. "$PROJECT/tools/guest-lib.sh"
. "$PROJECT/tools/ibcm-test/ibcm-lib.sh"

PORT=5566			# not the rig's 5555: it must come from modprobe.d
GUID=0x0002c903005a5a01		# srpt_service_guid (id_ext, IOC GUID)
SAVED=/etc/rtslib-fb-target/saveconfig.json
MiB4=64			# 4 MiB in 64 KiB blocks (512-byte ones: 16384 round
				# trips a disk, 2 minutes under TCG)

# The admin's persistent block device: a loop device over a file.
loop_up() {
	modprobe loop || fail "modprobe loop"
	LOOP=$(losetup -f --show /tmp/blk.img) || fail "losetup /tmp/blk.img"
}
# The devices the admin's network setup makes at boot (same MACs, so the
# same GIDs as before).
rdma_devices_up() {
	modprobe rdma_rxe || fail "modprobe rdma_rxe"
	rdma link add "$HCA0" type rxe netdev veth0 || fail "rdma link add $HCA0"
	rdma link add "$HCA1" type rxe netdev veth1 || fail "rdma link add $HCA1"
	wait_for 20 grep -q ACTIVE "/sys/class/infiniband/$HCA0/ports/1/state" || fail "$HCA0 not active"
	[ "$(gid_hex "/sys/class/infiniband/$HCA0/ports/1/gids/0")" = "$TGT_GID" ] ||
		fail "$HCA0 came back with another GID"
}
# disk_md5 DEV: checksum of the first 4 MiB (what ib_srp wrote).
disk_md5() { dd if="$1" bs=64k count=$MiB4 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1; }

setup_transport
install_modules
mkdir -p /etc/modprobe.d
echo "options ib_srpt rdma_cm_port=$PORT srpt_service_guid=$GUID" >/etc/modprobe.d/ib_srpt.conf
modprobe ib_srpt || fail "modprobe ib_srpt"
[ "$(cat /sys/module/ib_srpt/parameters/rdma_cm_port)" = $PORT ] || fail "rdma_cm_port not from modprobe.d"
[ "$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)" = $GUID ] ||
	fail "srpt_service_guid reads $(cat /sys/module/ib_srpt/parameters/srpt_service_guid), modprobe.d says $GUID"
ID_EXT=${GUID#0x} IOC_GUID=${GUID#0x} SRP_PORT=$PORT

pgrep -x dbus-daemon >/dev/null || dbus-daemon --system --fork || fail "dbus-daemon"
# What the targetcli-fb and rtslib-fb packages leave on a system.
mkdir -p /etc/target /etc/rtslib-fb-target
truncate -s 32M /tmp/blk.img
loop_up
TGT_WWN=ib.$TGT_GID
# One targetcli session (each start of it costs 3-8 s under TCG).
{
	echo "set global auto_save_on_exit=false"
	echo "/backstores/ramdisk create disk-ram 16M"
	echo "/backstores/fileio create disk-file /tmp/file.img 32M"
	echo "/backstores/block create disk-blk $LOOP"
	echo "/srpt create $TGT_WWN"
	for b in ramdisk/disk-ram fileio/disk-file block/disk-blk; do
		echo "/srpt/$TGT_WWN/luns create /backstores/$b"
	done
	echo "/srpt/$TGT_WWN/acls create ib.$INI_PORT_ID"
} | targetcli_batch || fail "targetcli: LUNs on ramdisk, fileio, block on $LOOP and the ACL"
SRPT_DIR=/sys/kernel/config/target/srpt
TPG_DIR=$(echo "$SRPT_DIR"/*"$TGT_GID"/tpgt_1)
echo 96 >"$TPG_DIR/attrib/srp_credits" || fail "srp_credits=96"
echo 128 >"$TPG_DIR/attrib/srp_sq_size" || fail "srp_sq_size=128"
targetcli saveconfig >/tmp/save.out 2>&1 || fail "saveconfig: $(cat /tmp/save.out)"
[ -s $SAVED ] || fail "targetcli saveconfig wrote no $SAVED: $(cat /tmp/save.out)"
cp $SAVED "$RESULTS/saveconfig.json"

out=$(srp_login) || fail "ib_srp login before the reboot"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks, got ${#disks[*]}"
for i in 1 2; do
	dd if=/dev/urandom of=/tmp/data$i bs=64k count=$MiB4 status=none || fail "/tmp/data$i"
	dd if=/tmp/data$i of="${disks[i]}" bs=64k count=$MiB4 oflag=direct status=none ||
		fail "write ${disks[i]}"
	sum[i]=$(md5sum </tmp/data$i | cut -d' ' -f1)
	[ "$(disk_md5 "${disks[i]}")" = "${sum[i]}" ] || fail "${disks[i]}: read back before the reboot differs from what was written"
done
srp_logout || fail "logout"
# The IB CM initiator writes a pattern behind that (LBA 16384, 1 MiB).
ibcm_load
ibcm_rw() {
	local op=$1 lun want="RSP status=0x00" r
	[ "$op" = read ] && want+=" verified"
	# shellcheck disable=SC2119  # the rig's login options only
	r=$(ibcm_login) || true
	[[ $r == LOGIN_RSP* ]] || fail "IB CM login: $r"
	for lun in 1 2; do
		r=$(ibcm tur lun=$lun)
		[[ $r =~ ^RSP\ status=0x0[02] ]] || fail "IB CM TUR lun $lun: $r"
		r=$(ibcm "$op" lun=$lun lba=16384 blocks=2048 pattern=$((lun + 4)))
		[[ $r == "$want"* ]] || fail "IB CM $op lun $lun: $r"
	done
	r=$(ibcm dreq)
	[[ $r == DISCONNECTED* ]] || fail "IB CM dreq: $r"
	ibcm close >/dev/null
}
ibcm_rw write
ibcm_unload
log "before: RDMA/CM port $PORT, service GUID $GUID, 3 LUNs; 4 MiB written to fileio and block by ib_srp, 1 MiB by the IB CM initiator"

# --- reboot
timed 120 targetcli clearconfig confirm=True >/tmp/clear.out 2>&1 || fail "clearconfig: $(cat /tmp/clear.out)"
# The fabric directories targetcli made (srpt, iscsi, ...) hold their modules.
for d in /sys/kernel/config/target/*/; do
	[ "$d" = /sys/kernel/config/target/core/ ] || rmdir "$d" || fail "rmdir $d"
done
modprobe -r ib_srp || fail "modprobe -r ib_srp"
rmmod ib_srpt || fail "rmmod ib_srpt"
# LIO's backends and whatever fabrics targetcli loaded (iscsi_target_mod).
for m in /sys/module/target_core_mod/holders/*; do
	[ -e "$m" ] || continue
	modprobe -r "${m##*/}" || fail "modprobe -r ${m##*/}"
done
# (modprobe -r of the last one takes target_core_mod along.)
if [ -d /sys/module/target_core_mod ]; then
	rmmod target_core_mod || fail "rmmod target_core_mod: $(ls /sys/module/target_core_mod/holders)"
fi
{ rdma link delete "$HCA0" && rdma link delete "$HCA1"; } || fail "rdma link delete"
modprobe -r rdma_rxe || fail "modprobe -r rdma_rxe"
losetup -d "$LOOP" || fail "losetup -d $LOOP"
lsmod | grep -E '^(ib_srpt|target_core|rdma_rxe|ib_srp) ' && fail "modules left after the reboot"
log "reboot: configuration cleared; ib_srpt, LIO, ib_srp, rdma_rxe unloaded; loop detached"

# --- boot: devices, then target.service
rdma_devices_up
loop_up
mkdir -p /etc/rtslib-fb-target
timeout 120 targetctl restore >/tmp/restore.out 2>&1 || fail "targetctl restore: $(cat /tmp/restore.out)"
if grep -qiE 'error|warn|fail|cannot|invalid' /tmp/restore.out; then
	fail "targetctl restore complained: $(cat /tmp/restore.out)"
fi
[ -d /sys/module/ib_srpt ] || fail "targetctl restore did not load ib_srpt"
{ [ "$(cat /sys/module/ib_srpt/parameters/rdma_cm_port)" = $PORT ] &&
	[ "$(cat /sys/module/ib_srpt/parameters/srpt_service_guid)" = $GUID ]; } ||
	fail "after the restore ib_srpt has rdma_cm_port $(cat /sys/module/ib_srpt/parameters/rdma_cm_port), srpt_service_guid $(cat /sys/module/ib_srpt/parameters/srpt_service_guid)"
TPG_DIR=$(echo "$SRPT_DIR"/*"$TGT_GID"/tpgt_1)
[ -d "$TPG_DIR" ] || fail "no TPG after the restore"
for a in srp_credits:96 srp_sq_size:128; do
	[ "$(cat "$TPG_DIR/attrib/${a%%:*}")" = "${a#*:}" ] ||
		fail "after the restore ${a%%:*} is $(cat "$TPG_DIR/attrib/${a%%:*}"), saved ${a#*:}"
done
[ "$(find "$TPG_DIR/lun" -maxdepth 1 -name 'lun_*' | wc -l)" = 3 ] || fail "not 3 LUNs after the restore"
[ -d "$TPG_DIR/acls/$INI_PORT_ID" ] || [ -d "$TPG_DIR/acls/0x$INI_PORT_ID" ] ||
	fail "the ACL is gone: $(ls "$TPG_DIR/acls")"
log "restore: ib_srpt loaded with the modprobe.d parameters; 3 LUNs, the ACL, srp_credits and srp_sq_size back"

# RDMA/CM: ib_srp, on the port and with the service GUID of modprobe.d.
out=$(srp_login) || fail "ib_srp login after the reboot (port $PORT, id_ext $ID_EXT)"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks after the reboot, got ${#disks[*]}"
for i in 1 2; do
	[ "$(disk_md5 "${disks[i]}")" = "${sum[i]}" ] ||
		fail "${disks[i]}: not the data written before the reboot"
done
srp_logout || fail "logout"

# IB CM: the test initiator, service ID = the service GUID; its pattern back.
ibcm_load
ibcm_rw read
ibcm_unload
pass "modprobe.d parameters and the targetcli configuration survived the reboot (targetctl restore): ib_srp over the RDMA/CM (port $PORT) and the IB CM initiator read back what they wrote before it"
