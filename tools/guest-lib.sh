#!/bin/bash
# Helpers for guest scenarios (tests/NN-*.sh), sourced inside the test VM
# started by tools/vm.sh.
#
# Topology: soft-RoCE rxe0 on veth0 (192.0.2.1) carries BOTH the target and
# the initiator (rxe loopback): ib_srp logs in through srp-rxe0-1 to
# 192.0.2.1:5555 over RDMA/CM.  A second device rxe1 on veth1 (192.0.2.2)
# exists so that the target has to cope with two HCAs, but it cannot be the
# initiator side: 192.0.2.1 is a local address, so RDMA/CM resolves the route
# to rxe0 and rdma_create_qp() on an rxe1 PD fails with -EINVAL ("QP creation
# failed for dev rxe1: -22"); ib_srp only works in init_net, so network
# namespaces cannot separate the two either.
#
#   setup_rxe            veth pair + two soft-RoCE devices
#   load_target          our ib_srpt.ko (or Debian's with STOCK=1) + targetcli
#                        target ib.<rxe0 GID>, RDMA/CM port 5555
#   make_lun NAME SIZE   ramdisk backstore + LUN (SIZE like 64M)
#   make_acl [ID32]      ACL for the initiator (default: ib_srp's port ID)
#   srp_login [opts]     add_target, wait for the LIO-ORG disks, print them
#   srp_logout           delete every SRP remote port, wait for the hosts
#   wait_for SECS CMD..  poll until CMD succeeds
#   pass MSG / fail MSG  print the verdict and exit
# shellcheck disable=SC2034  # variables are for the scenarios

set -o pipefail
PROJECT=${PROJECT:-/mnt/project}
RESULTS=${RESULTS:-/mnt/results}
STOCK=${STOCK:-0}
TEST_NAME=${TEST_NAME:-$(basename "$0" .sh)}

TGT_IP=192.0.2.1
INI_IP=192.0.2.2
SRP_PORT=5555
# Fixed MACs make the RoCE GIDs/GUIDs (and so the ACL names) reproducible:
# rxe0 port GUID 0000:00ff:fe00:0001, rxe1 port GUID 0000:00ff:fe00:0002.
TGT_MAC=02:00:00:00:00:01
INI_MAC=02:00:00:00:00:02

log() { echo "[$TEST_NAME] $*"; }
pass() { echo "PASS: $TEST_NAME: $*"; exit 0; }
fail() {
	echo "FAIL: $TEST_NAME: $*"
	dmesg | tail -n 30 | sed 's/^/  dmesg: /'
	exit 1
}
# run CMD...: log and run a command, fail the test when it fails.
run() {
	log "+ $*"
	"$@" || fail "command failed (rc=$?): $*"
}

# wait_for SECS CMD...: poll CMD every 0.5 s, return 1 after SECS seconds.
wait_for() {
	local secs=$1 i
	shift
	for ((i = 0; i < secs * 2; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}

# 32 hex digits of a GID file (colons removed).
gid_hex() { tr -d ':\n' <"$1"; }

setup_rxe() {
	ip link add veth0 type veth peer name veth1 || fail "cannot create veth pair"
	ip link set veth0 address $TGT_MAC
	ip link set veth1 address $INI_MAC
	ip addr add $TGT_IP/24 dev veth0
	ip addr add $INI_IP/24 dev veth1
	ip link set veth0 up
	ip link set veth1 up
	modprobe rdma_rxe || fail "modprobe rdma_rxe"
	rdma link add rxe0 type rxe netdev veth0 || fail "rdma link add rxe0"
	rdma link add rxe1 type rxe netdev veth1 || fail "rdma link add rxe1"
	wait_for 10 test -e /sys/class/infiniband/rxe1/ports/1/gids/0 ||
		fail "rxe1 has no GID"
	TGT_GID=$(gid_hex /sys/class/infiniband/rxe0/ports/1/gids/0)
	INI_GID=$(gid_hex /sys/class/infiniband/rxe1/ports/1/gids/0)
	TGT_NODE_GUID=$(tr -d ':\n' </sys/class/infiniband/rxe0/node_guid)
	# Initiator = rxe0 too (loopback, see above).
	INI_PORT_GUID=${TGT_GID:16:16}
	# What ib_srp sends as initiator port ID: initiator_ext (0) || port GUID.
	INI_PORT_ID=0000000000000000$INI_PORT_GUID
	# What the target expects as target port ID = id_ext || ioc_guid: the
	# target's (node) GUID for both halves (the stock ib_srpt convention:
	# srpt_service_guid defaults to the node GUID of the first HCA).
	ID_EXT=${ID_EXT:-$TGT_NODE_GUID}
	IOC_GUID=${IOC_GUID:-$TGT_NODE_GUID}
	log "rxe0 GID $TGT_GID, rxe1 GID $INI_GID, id_ext=$ID_EXT ioc_guid=$IOC_GUID"
}

targetcli_q() { targetcli "$@" >/tmp/targetcli.out 2>&1 || { cat /tmp/targetcli.out; return 1; }; }

load_target() {
	modprobe target_core_mod || fail "modprobe target_core_mod"
	if [ "$STOCK" = 1 ]; then
		log "using the stock (Debian) ib_srpt"
	else
		# vm.sh prepared our modules with their depmod index for this
		# kernel (tools/prep-modules.sh): copy them over /lib/modules.
		local mods=$PROJECT/build/modules/$(uname -r) ko
		ko=$mods/updates/ib_srpt.ko
		[ -f "$ko" ] || fail "no $ko - build the module first (make, or make modules-6.1)"
		[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$(uname -r)" ] ||
			fail "$ko is built for another kernel than $(uname -r) (make modules-6.1?)"
		cp -r "$mods"/. "/lib/modules/$(uname -r)/" || fail "cannot install $ko"
		log "using our ib_srpt: $(modinfo -F filename ib_srpt)"
	fi
	modprobe ib_srpt || fail "modprobe ib_srpt"
	pgrep -x dbus-daemon >/dev/null || dbus-daemon --system --fork ||
		fail "dbus-daemon"
	mkdir -p /etc/target
	targetcli_q set global auto_save_on_exit=false
	targetcli_q set global color_mode=false
	targetcli_q /srpt create "ib.$TGT_GID" || fail "targetcli /srpt create ib.$TGT_GID"
	SRPT_DIR=/sys/kernel/config/target/srpt
	TPG_DIR=$(echo "$SRPT_DIR"/*"${TGT_GID}"/tpgt_1)
	[ -d "$TPG_DIR" ] || TPG_DIR=$(echo "$SRPT_DIR"/*"${TGT_GID}")
	echo $SRP_PORT >"$SRPT_DIR/discovery_auth/rdma_cm_port" ||
		fail "cannot set rdma_cm_port"
	TGT_WWN=ib.$TGT_GID
}

# make_nullb SIZE: a memory-backed null_blk device of SIZE (e.g. 64M, 1G)
# with 512-byte blocks, created through null_blk's configfs; prints its
# /dev path.  It completes I/O asynchronously, like a real disk.
make_nullb() {
	local size=$1 mb n d dev
	case $size in
	*G) mb=$(( ${size%G} * 1024 )) ;;
	*M) mb=${size%M} ;;
	*) fail "make_nullb: size $size not in M or G" ;;
	esac
	modprobe null_blk nr_devices=0 || fail "modprobe null_blk"
	for ((n = 0; ; n++)); do
		d=/sys/kernel/config/nullb/nullb$n
		[ -e "$d" ] || break
	done
	mkdir "$d" || fail "mkdir $d"
	echo 1 >"$d/memory_backed" && echo 512 >"$d/blocksize" &&
		echo "$mb" >"$d/size" && echo 1 >"$d/power" ||
		fail "cannot configure null_blk $d"
	# 6.12 names the disk after the configfs directory, 6.1 after index.
	dev=/dev/nullb$(cat "$d/index")
	[ -b "/dev/${d##*/}" ] && dev=/dev/${d##*/}
	wait_for 10 test -b "$dev" || fail "no block device for $d"
	echo "$dev"
}

# make_lun NAME SIZE [ramdisk|fileio|block]: backstore NAME of SIZE (e.g.
# 64M) mapped as the next LUN.  fileio = sparse file on the guest's /tmp
# (tmpfs); block = iblock on a memory-backed null_blk device (make_nullb):
# the only kind that consumes write buffers after the command was handed
# over, as a real disk does.
make_lun() {
	local name=$1 size=$2 type=${3:-ramdisk} dev
	case $type in
	ramdisk) targetcli_q /backstores/ramdisk create "$name" "$size" ;;
	fileio) targetcli_q /backstores/fileio create "$name" "/tmp/$name.img" "$size" ;;
	block)
		dev=$(make_nullb "$size") || exit 1
		targetcli_q /backstores/block create "$name" "$dev" ;;
	*) fail "make_lun: unknown backstore type $type" ;;
	esac || fail "$type create $name $size"
	targetcli_q "/srpt/$TGT_WWN/luns" create "/backstores/$type/$name" ||
		fail "lun create $name"
}

# shellcheck disable=SC2120  # scenarios pass an ID
# make_acl [ID32]: allow an initiator port ID (default ib_srp's) to log in.
make_acl() {
	local id=${1:-$INI_PORT_ID}
	targetcli_q "/srpt/$TGT_WWN/acls" create "ib.$id" || fail "acl create ib.$id"
}

SRP_HCA=${SRP_HCA:-rxe0}
srp_add_target_path() { echo "/sys/class/infiniband_srp/srp-$SRP_HCA-1/add_target"; }

# LIO-ORG disks behind ib_srp SCSI hosts, sorted by LUN, as /dev/sdX.
srp_disks() {
	local h d
	for h in /sys/class/scsi_host/host*; do
		[ "$(cat "$h/proc_name" 2>/dev/null)" = ib_srp ] || continue
		for d in /sys/class/scsi_device/"${h##*host}":*; do
			[ -e "$d/device/block" ] || continue
			grep -q LIO-ORG "$d/device/vendor" 2>/dev/null || continue
			echo "${d##*/} /dev/$(ls "$d/device/block")"
		done
	done | sort -t: -k4,4n | awk '{print $2}'
}
srp_ndisks_ge() { [ "$(srp_disks | wc -l)" -ge "$1" ] && srp_disks | while read -r d; do [ -b "$d" ] || exit 1; done; }
srp_hosts() {
	local h
	for h in /sys/class/scsi_host/host*; do
		[ "$(cat "$h/proc_name" 2>/dev/null)" = ib_srp ] && echo "${h##*/}"
	done
	return 0
}

# srp_login [extra add_target options, comma separated]: log in and print
# the disks.  SRP_EXPECT (default: number of LUNs of the target) disks are
# waited for.  Returns non-zero if add_target fails or no disk shows up.
srp_login() {
	local opts="id_ext=$ID_EXT,ioc_guid=$IOC_GUID,dest=$TGT_IP:$SRP_PORT"
	local want=${SRP_EXPECT:-}
	[ -n "${1:-}" ] && opts+=",$1"
	case $opts in *ch_count=*) ;; *) opts+=",ch_count=1" ;; esac
	# No udev in the guest: load the upper-level SCSI drivers ourselves.
	modprobe -a sd_mod sg ib_srp || return 1
	wait_for 10 test -e "$(srp_add_target_path)" || { log "no srp-$SRP_HCA-1" >&2; return 1; }
	if [ -z "$want" ]; then
		want=$(find "$TPG_DIR/lun" -maxdepth 1 -name 'lun_*' 2>/dev/null | wc -l)
		[ "$want" -ge 1 ] || want=1
	fi
	log "add_target: $opts" >&2
	echo "$opts" >"$(srp_add_target_path)" || { log "add_target failed" >&2; return 1; }
	wait_for 60 srp_ndisks_ge "$want" || { log "only $(srp_disks | wc -l) of $want disks" >&2; return 1; }
	srp_disks
}

# verify_io DEV [N]: write N (16) random 64 KiB blocks with O_DIRECT, read
# them back and compare.
verify_io() {
	local dev=$1 n=${2:-16}
	dd if=/dev/urandom of=/tmp/pat bs=64k count="$n" status=none
	dd if=/tmp/pat of="$dev" bs=64k oflag=direct status=none || return 1
	dd if="$dev" of=/tmp/back bs=64k count="$n" iflag=direct status=none || return 1
	cmp -s /tmp/pat /tmp/back
}

srp_logout() {
	local p
	for p in /sys/class/srp_remote_ports/port-*; do
		[ -e "$p/delete" ] && echo 1 >"$p/delete"
	done
	wait_for 60 no_srp_hosts
}
no_srp_hosts() { [ -z "$(srp_hosts)" ]; }

# unload_target: what an admin does to take the target down: clear the LIO
# config, remove the fabric's configfs dir (it pins the module) and rmmod.
# Returns non-zero (message in $UNLOAD_ERR) when a step fails.
unload_target() {
	UNLOAD_ERR=
	timeout 120 targetcli clearconfig confirm=True >/tmp/clearconfig.out 2>&1 ||
		{ UNLOAD_ERR="targetcli clearconfig: $(cat /tmp/clearconfig.out)"; return 1; }
	if [ -d "$SRPT_DIR" ]; then
		rmdir "$SRPT_DIR" 2>/tmp/rmdir.err ||
			{ UNLOAD_ERR="rmdir $SRPT_DIR: $(cat /tmp/rmdir.err)"; return 1; }
	fi
	local i
	for i in $(seq 1 20); do
		rmmod ib_srpt 2>/tmp/rmmod.err && return 0
		sleep 1
	done
	UNLOAD_ERR="rmmod ib_srpt: $(cat /tmp/rmmod.err)"
	return 1
}

# Common start of a scenario: rxe + target with ramdisk LUNs + ACL.
# standard_setup NAME:SIZE[:TYPE]...
standard_setup() {
	local l spec
	setup_rxe
	load_target
	for l in "$@"; do
		IFS=: read -r -a spec <<<"$l"
		make_lun "${spec[@]}"
	done
	make_acl
}

# stock_skip_reason: print the "# stock: skip" reason of a scenario file.
stock_skip_reason() { sed -n 's/^# stock: skip *//p' "$1" | head -n1; }
