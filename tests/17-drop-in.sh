#!/bin/bash
# An admin replaces the in-kernel ib_srpt with ours and keeps what was
# written for it.  First the in-kernel (Debian) module runs: targetcli sets
# up a target port with a ramdisk, a fileio and a block LUN (iblock on a
# brd RAM disk, a block driver with its own queue limits, so that
# immediate data and unaligned buffers meet a real block queue; a loop
# device with direct I/O needs a backing file system with O_DIRECT, and
# the guest's root is tmpfs), an ACL and the TPG attributes, and
# `targetcli saveconfig` saves it; its srpt_service_guid parameter is
# noted.  Then the module is unloaded and ours loaded:
#   - srpt_service_guid reads the same (0x%016llx, the first device's node
#     GUID): scripts build ib_srp's id_ext/ioc_guid from it, as below;
#   - `targetcli restoreconfig` of the saved file prints no error or
#     warning and gives the same attributes back;
#   - ib_srp logs in with id_ext/ioc_guid taken from the parameter, and
#     fio verifies 512 B..1 MiB writes on every LUN;
#   - the largest commands move with the saved srp_max_rdma_size (65536,
#     the in-kernel default, which only advertises a size): ib_srp logged
#     in with max_sect=131072,cmd_sg_entries=255 writes and reads back
#     64 MiB with O_DIRECT on every LUN (the block layer makes 8 MiB
#     requests of it on soft-RoCE), and the raw client's 64 MiB WRITE(16)
#     and READ(16), one SRP_CMD each with 16 indirect descriptors, are
#     answered GOOD with the data right on the ramdisk and block LUNs
#     (LIO's fileio takes 8 MiB a command at most; the client's ACL is
#     saved with the in-kernel module too);
#   - a setup written by hand in configfs the way the in-kernel module's
#     users write it - target port named by its port GUID
#     (xxxx:xxxx:xxxx:xxxx), ACLs by initiator GUID, IPv4 and fully
#     expanded IPv6 - logs ib_srp in and does verified I/O.
# Before that, module parameters written for the in-kernel module (checked
# on the in-kernel module first, then on the module under test):
#   - srpt_service_guid is hexadecimal with or without 0x: the node GUID
#     without 0x (as admins copy it, colons removed) and with 0x both read
#     back 0x%016llx, and a value of decimal digits only is hex too;
#   - srpt_srq_size 3 and 65536, srp_max_req_size 995 (ours: 65537 too)
#     refuse the load, ours with a log line naming the range;
# and ours is loaded with srpt_service_guid=1234567890123456 (decimal
# digits only, read as hex) srpt_srq_size=64 srp_max_req_size=8276, the
# values of a stock tuning: ib_srp logs in with id_ext/ioc_guid
# 1234567890123456 and gets more than 64 credits (srpt_srq_size is the SRQ
# depth only).
# With --stock both phases run the in-kernel module (the reference).
# core:
. "$PROJECT/tools/guest-lib.sh"

setup_transport
modprobe -a target_core_mod ib_cm rdma_cm || fail "modprobe LIO / CMs"
pgrep -x dbus-daemon >/dev/null || dbus-daemon --system --fork || fail "dbus-daemon"
mkdir -p /etc/target
SRPT_DIR=/sys/kernel/config/target/srpt
TGT_WWN=ib.$TGT_GID
PARAM=/sys/module/ib_srpt/parameters/srpt_service_guid
RAW=00000000000000010002c903c11e0017	# the raw client's initiator port ID
# listen TPG ADDR...: RDMA/CM logins to port 5555 reach TPG.  The wildcard
# listener (rdma_cm_port) does on rxe; on siw it misses IPv4 logins (see
# load_target), so there the TPG listens on each address (np).
listen() {
	local tpg=$1 a
	shift
	if [ "$TRANSPORT" != siw ]; then
		echo $SRP_PORT >"$SRPT_DIR/discovery_auth/rdma_cm_port" || fail "cannot set rdma_cm_port"
		return
	fi
	for a in "$@"; do
		mkdir "$tpg/np/$a:$SRP_PORT" || fail "cannot listen on $a:$SRP_PORT (np)"
	done
}

# --- the in-kernel module, configured and saved with targetcli
stock=$(stock_srpt_ko)
[ -n "$stock" ] || fail "no in-kernel ib_srpt under /lib/modules/$(uname -r)/kernel"
insmod "$stock" || fail "insmod $stock"
stock_guid=$(cat $PARAM)
log "in-kernel ib_srpt: srpt_service_guid=$stock_guid"
rmmod ib_srpt || fail "rmmod the in-kernel ib_srpt"

# load_mod WHICH PARAM...: load the in-kernel module (stock) or the one
# under test (ours: ours, or the in-kernel one with --stock).
load_mod() {
	local which=$1
	shift
	if [ "$which" = stock ] || [ "$STOCK" = 1 ]; then
		insmod "$stock" "$@"
	else
		install_modules
		modprobe ib_srpt "$@"
	fi
}
# params WHICH: the parameter checks above on one module.
params() {
	local which=$1 g v n
	for g in "${stock_guid#0x}" "$stock_guid" 1234567890123456; do
		load_mod "$which" srpt_service_guid="$g" ||
			fail "$which: srpt_service_guid=$g refused"
		v=$(cat $PARAM)
		rmmod ib_srpt || fail "rmmod"
		case $g in 0x*) ;; *) g=0x$g ;; esac
		[ "$v" = "$g" ] || fail "$which: srpt_service_guid=$g reads $v"
	done
	log "$which: srpt_service_guid ${stock_guid#0x}, $stock_guid, 1234567890123456 load and read back as hex"
	local bad=(srpt_srq_size=3 srpt_srq_size=65536 srp_max_req_size=995)
	[ "$which" = stock ] || [ "$STOCK" = 1 ] || bad+=(srp_max_req_size=65537)
	for v in "${bad[@]}"; do
		n=$(dmesg | wc -l)
		if load_mod "$which" "$v" 2>/tmp/load.err; then
			rmmod ib_srpt
			fail "$which: $v loaded"
		fi
		log "$which: $v refused: $(xargs </tmp/load.err); log: $(dmesg | tail -n +$((n + 1)) | grep -i srp | xargs)"
		[ "$which" = stock ] || [ "$STOCK" = 1 ] ||
			dmesg | tail -n +$((n + 1)) | grep -q "ib_srpt: ${v%%=*}=${v#*=} out of range [0-9]*\.\.[0-9]*" ||
			fail "$which: no log line naming the range of ${v%%=*} after $v"
	done
}
params stock
params ours
insmod "$stock" || fail "insmod $stock"
modprobe brd rd_nr=1 rd_size=73728 || fail "modprobe brd"
blkdev=/dev/ram0
wait_for 10 test -b $blkdev || fail "no $blkdev"
{
	echo "set global auto_save_on_exit=false color_mode=false"
	echo "/backstores/ramdisk create disk-ram 72M"
	echo "/backstores/fileio create disk-file /tmp/disk-file.img 72M"
	echo "/backstores/block create disk-blk $blkdev"
	echo "/srpt create $TGT_WWN"
	for b in ramdisk/disk-ram fileio/disk-file block/disk-blk; do
		echo "/srpt/$TGT_WWN/luns create /backstores/$b"
	done
	echo "/srpt/$TGT_WWN/acls create ib.$INI_PORT_ID"
	echo "/srpt/$TGT_WWN/acls create ib.$RAW"
} | targetcli_batch || fail "the in-kernel module's LUNs and ACL (targetcli)"
TPG_DIR=$(echo "$SRPT_DIR"/*"$TGT_GID"/tpgt_1)
# A value of its own to see restored, above the default: below it an admin
# asks for a send queue too small for the largest commands on siw (admin
# guide, srp_sq_size), which the raw client sends below.
echo 8192 >"$TPG_DIR/attrib/srp_sq_size" || fail "srp_sq_size=8192 on the in-kernel module"
[ "$(cat "$TPG_DIR/attrib/srp_max_rdma_size")" = 65536 ] ||
	fail "the in-kernel module's srp_max_rdma_size is $(cat "$TPG_DIR/attrib/srp_max_rdma_size"), not 65536"
targetcli saveconfig /tmp/saved.json >/tmp/save.out 2>&1 || fail "saveconfig: $(cat /tmp/save.out)"
cp /tmp/saved.json "$RESULTS/saved.json"
attrs_saved=$(grep -A5 '"attributes"' /tmp/saved.json | grep srp_ | tr -d ' ,' | sort | xargs)
log "saved: $attrs_saved"
timed 120 targetcli clearconfig confirm=True >/tmp/clear.out 2>&1 || fail "clearconfig: $(cat /tmp/clear.out)"
rmdir "$SRPT_DIR" 2>/dev/null
rmmod ib_srpt || fail "rmmod the in-kernel ib_srpt"

# --- ours (or the in-kernel one again with --stock), with stock-style values
load_mod ours srpt_service_guid=1234567890123456 srpt_srq_size=64 srp_max_req_size=8276 ||
	fail "load with srpt_service_guid=1234567890123456 srpt_srq_size=64 srp_max_req_size=8276"
log "now: $(modinfo -F filename ib_srpt)"
[ "$(cat $PARAM)" = 0x1234567890123456 ] ||
	fail "srpt_service_guid reads '$(cat $PARAM)', given 1234567890123456 (hex)"
targetcli restoreconfig /tmp/saved.json >/tmp/restore.out 2>&1 ||
	fail "restoreconfig failed: $(cat /tmp/restore.out)"
if grep -qiE 'error|warn|fail|cannot|invalid' /tmp/restore.out; then
	fail "restoreconfig complained: $(cat /tmp/restore.out)"
fi
TPG_DIR=$(echo "$SRPT_DIR"/*"$TGT_GID"/tpgt_1)
[ -d "$TPG_DIR" ] || fail "no TPG after restoreconfig: $(cat /tmp/restore.out)"
for a in srp_sq_size:8192 srp_max_rdma_size:65536 use_srq:0; do
	[ "$(cat "$TPG_DIR/attrib/${a%%:*}")" = "${a#*:}" ] ||
		fail "after restoreconfig ${a%%:*} is $(cat "$TPG_DIR/attrib/${a%%:*}"), saved ${a#*:}"
done
log "restoreconfig: no complaint; srp_sq_size, srp_max_rdma_size, use_srq as saved"
listen "$TPG_DIR" $TGT_IP

# What scripts do: id_ext and ioc_guid from the parameter.
ID_EXT=$(sed 's/^0x//' $PARAM) IOC_GUID=$ID_EXT
out=$(srp_login) || fail "login after restoreconfig (id_ext=ioc_guid=$ID_EXT)"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks, got ${#disks[*]}"
req_lim=$(cat "/sys/class/scsi_host/$(srp_hosts | head -n1)/req_lim" 2>/dev/null)
log "logged in with id_ext=ioc_guid=$ID_EXT; ib_srp req_lim $req_lim with srpt_srq_size=64"
[ "${req_lim:-0}" -gt 64 ] ||
	fail "ib_srp's req_lim is '$req_lim' with srpt_srq_size=64: it caps the credits"
args=(--ioengine=libaio --direct=1 --rw=randwrite --bsrange=512-1M --iodepth=16
      --size=24M --verify=crc32c --randrepeat=0)
kinds=(ramdisk fileio "block on $blkdev")
for i in 0 1 2; do
	args+=(--name="d$i" --filename="${disks[i]}")
done
fio_verify restored "${args[@]}" ||
	fail "fio 512 B..1 MiB on the restored LUNs: $FIO_BAD bad blocks ($(fio_bad_on restored "${disks[@]}" | xargs))"
log "restored LUNs (${kinds[*]}): verified"
srp_logout || fail "logout"

# The largest commands, with the restored srp_max_rdma_size 65536.
out=$(srp_login "max_sect=131072,cmd_sg_entries=255") ||
	fail "login with max_sect=131072,cmd_sg_entries=255"
mapfile -t disks <<<"$out"
dd if=/dev/urandom of=/tmp/big-pat bs=1M count=64 status=none
for i in 0 1 2; do
	d=${disks[i]}
	kb=$(cat "/sys/block/${d#/dev/}/queue/max_sectors_kb")/$(cat "/sys/block/${d#/dev/}/queue/max_hw_sectors_kb")
	dd if=/tmp/big-pat of="$d" bs=64M count=1 oflag=direct status=none ||
		fail "64 MiB O_DIRECT write to the ${kinds[i]} LUN $d (max_sectors_kb/max_hw_sectors_kb $kb)"
	dd if="$d" of=/tmp/big-back bs=64M count=1 iflag=direct status=none ||
		fail "64 MiB O_DIRECT read from the ${kinds[i]} LUN $d"
	cmp -s /tmp/big-pat /tmp/big-back ||
		fail "64 MiB on the ${kinds[i]} LUN $d: $(bad_blocks /tmp/big-pat /tmp/big-back) of 16384 4 KiB blocks read back wrong"
	log "${kinds[i]} LUN $d: 64 MiB written and read back with O_DIRECT (max_sectors_kb/max_hw_sectors_kb $kb), verified"
done
rm -f /tmp/big-pat /tmp/big-back
srp_logout || fail "logout"
raw_client_setup
# Not on fileio: LIO's fileio backstore takes at most 8 MiB a command
# (FD_MAX_BYTES; its Block Limits VPD page says so) and answers a larger
# one with CHECK CONDITION whatever the fabric.
for i in 0 2; do
	if raw_client "$RAW" --lun $i big >/tmp/big.out 2>&1; then
		log "raw client, ${kinds[i]} LUN $i: $(grep -o '64 MiB written.*' /tmp/big.out)"
	elif [ "$STOCK" = 1 ]; then
		log "raw client, ${kinds[i]} LUN $i, in-kernel module: $(tail -n3 /tmp/big.out | xargs)"
	else
		fail "raw client 64 MiB WRITE/READ on the ${kinds[i]} LUN $i: $(tail -n5 /tmp/big.out | xargs)"
	fi
done

# --- by hand, as the in-kernel module's users write it
for np in "$TPG_DIR"/np/*; do [ -d "$np" ] && rmdir "$np"; done
timed 120 targetcli clearconfig confirm=True >/tmp/clear.out 2>&1 || fail "clearconfig: $(cat /tmp/clear.out)"
port_guid=$(sed 's/.*:\(....:....:....:....\)$/\1/' "/sys/class/infiniband/$HCA0/ports/1/gids/0")
ini_guid=$(sed -E 's/(....)/\1:/g; s/:$//' <<<"$INI_PORT_GUID")
# In the loopback rig the initiator's address is the one it logs in to.
ini_ip6=2001:db8::1
expanded6=2001:0db8:0000:0000:0000:0000:0000:0001
ip -6 addr add $ini_ip6/64 dev veth0 nodad || fail "cannot add $ini_ip6 to veth0"
if [ "$TRANSPORT" = rxe ]; then
	wait_for 10 grep -qi '^2001:0db8:' /sys/class/infiniband/"$HCA0"/ports/1/gids/* ||
		fail "$HCA0 has no GID for $ini_ip6"
fi
targetcli_q /backstores/block create disk-blk "$blkdev" || fail "block on $blkdev again"
t=$SRPT_DIR/$port_guid/tpgt_1
mkdir -p "$t" || fail "target port named by port GUID $port_guid refused"
{ mkdir "$t/lun/lun_0" && ln -s /sys/kernel/config/target/core/iblock_*/disk-blk "$t/lun/lun_0/blk"; } ||
	fail "LUN 0 by hand"
for acl in "$ini_guid" "$TGT_IP" "$expanded6"; do
	{ mkdir "$t/acls/$acl" && mkdir "$t/acls/$acl/lun_0" &&
		ln -s "$t/lun/lun_0" "$t/acls/$acl/lun_0/map"; } || fail "ACL $acl refused"
done
listen "$t" $TGT_IP "[$ini_ip6]"
echo 1 >"$t/enable" || fail "cannot enable $t"
TPG_DIR=$t
out=$(SRP_EXPECT=1 srp_login) || fail "login to the port named $port_guid (ACLs $ini_guid, $TGT_IP, $expanded6)"
verify_io "$out" 16 || fail "write/read-back on the block LUN of port $port_guid"
log "port $port_guid, ACLs by GUID/IPv4/expanded IPv6: logged in, I/O verified"
srp_logout || fail "logout"
for acl in "$ini_guid" "$TGT_IP"; do
	{ rm "$t/acls/$acl/lun_0/map" && rmdir "$t/acls/$acl/lun_0" "$t/acls/$acl"; } ||
		fail "rmdir ACL $acl"
done
out=$(TGT_IP=[$ini_ip6] SRP_EXPECT=1 srp_login) || fail "IPv6 login admitted by ACL $expanded6"
verify_io "$out" 4 || fail "I/O over the IPv6 login"
srp_logout || fail "logout"
log "IPv6 login admitted by the expanded-IPv6 ACL alone"
pass "srpt_service_guid hex with or without 0x (also decimal digits), out-of-range srpt_srq_size/srp_max_req_size refused; loaded with stock-style values, req_lim $req_lim with srpt_srq_size=64; in-kernel module's saveconfig restored without a complaint, ib_srp max_sect=131072 64 MiB O_DIRECT verified on ramdisk, fileio, block, raw 64 MiB indirect SRP_CMDs on ramdisk, block, ramdisk/fileio/block-on-brd LUNs verified at 512 B..1 MiB; port by GUID with ACLs by GUID, IPv4, expanded IPv6 logs in"
