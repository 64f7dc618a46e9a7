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
# TRANSPORT=siw (tools/vm.sh --siw): the same with soft-iWARP siw0/siw1
# (siw.ko built on the host by tools/build-siw.sh; Debian lacks it).  siw
# loopback works the same way (TCP over lo: ib_srp on srp-siw0-1 to
# 192.0.2.1), and siw1 cannot be the initiator either: "QP creation failed
# for dev siw1: -22" as with rxe, and with src=192.0.2.2 "Resolving address
# 192.0.2.1:5555 failed (-6)".  The IDs differ: a siw GID is the MAC
# followed by zeros (siw0: 0200:0000:0001:0000:0000:0000:0000:0000), so the
# target port is ib.02000000000100000000000000000000 and the port-GUID half
# of every siw GID is 0 - ib_srp's initiator port ID is then all zeros
# (initiator_ext 0 || GUID 0).  The node GUID is EUI-64 from the MAC as on
# rxe (000000fffe000001), so id_ext/ioc_guid do not change.
#
#   setup_transport      veth pair + two RDMA devices of $TRANSPORT (HCA0 =
#                        rxe0/siw0, HCA1 = rxe1/siw1); setup_rxe = old name
#   load_target          our ib_srpt.ko (or Debian's with STOCK=1) + targetcli
#                        target ib.<HCA0 GID>, RDMA/CM port 5555
#   make_lun NAME SIZE [KIND] [wce]  backstore + LUN (SIZE like 64M); KIND
#                        ramdisk (default), fileio or block (null_blk);
#                        wce: with a write cache (O_SYNC -> FUA)
#   make_acl [ID32]      ACL for the initiator (default: ib_srp's port ID)
#   srp_login [opts]     add_target, wait for the LIO-ORG disks, print them
#   srp_logout           delete every SRP remote port, wait for the hosts
#   verify_io DEV [N]    O_DIRECT 64 KiB + 4 KiB writes, read back, compare
#   fio_verify LABEL ..  fio write jobs with verify; fails unless all verified
#   wait_for SECS CMD..  poll until CMD succeeds
#   pass MSG / fail MSG  print the verdict and exit
# shellcheck disable=SC2034  # variables are for the scenarios

set -o pipefail
PROJECT=${PROJECT:-/mnt/project}
RESULTS=${RESULTS:-/mnt/results}
STOCK=${STOCK:-0}
# rxe (soft-RoCE, default) or siw (soft-iWARP): tools/vm.sh --siw.
TRANSPORT=${TRANSPORT:-rxe}
TEST_NAME=${TEST_NAME:-$(basename "$0" .sh)}

TGT_IP=192.0.2.1
INI_IP=192.0.2.2
SRP_PORT=5555
# Fixed MACs make the GIDs/GUIDs (and so the ACL names) reproducible:
# rxe0 port GUID 0000:00ff:fe00:0001, rxe1 port GUID 0000:00ff:fe00:0002;
# siw0 GID 0200:0000:0001:0000:..., siw1 GID 0200:0000:0002:0000:...
TGT_MAC=02:00:00:00:00:01
INI_MAC=02:00:00:00:00:02

# log MSG: a line of the scenario's own, stamped with the guest's uptime in
# seconds (where a scenario spends its time).
log() {
	local up
	read -r up _ </proc/uptime
	echo "[$TEST_NAME ${up%.*}s] $*"
}
pass() { echo "PASS: $TEST_NAME: $*"; exit 0; }
fail() {
	local msg="$*"

	# One line: the run's summary shows only the FAIL: line.
	echo "FAIL: $TEST_NAME: ${msg//$'\n'/ | }"
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

# timed SECS CMD...: run CMD (an admin tool: targetcli) with a deadline,
# 4 times longer on the debug kernel. Past it, the kernel stacks of CMD's
# processes and every blocked task (sysrq w) go to the kernel log - a hang
# in the kernel and a tool that is only slow look alike from here - and
# CMD is killed: returns 124, else CMD's status.
timed() {
	local secs=$1 pid i p
	shift
	[[ $(uname -r) == *srptdebug* ]] && secs=$((secs * 4))
	"$@" &
	pid=$!
	for ((i = 0; i < secs * 2; i++)); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
		sleep 0.5
	done
	for p in $pid $(pgrep -P "$pid"); do
		echo "timed: $* (pid $p) still running after ${secs}s, in the kernel at:" >/dev/kmsg
		sed 's/^/timed:   /' "/proc/$p/stack" >/dev/kmsg 2>/dev/null
	done
	echo w 2>/dev/null >/proc/sysrq-trigger
	kill -9 "$pid" $(pgrep -P "$pid") 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "timed out after ${secs}s (kernel stacks in dmesg)"
	return 124
}

# scenario_args "NAME..." ARG...: the scenario's arguments (tools/vm.sh
# passes them after the script) are NAME=VALUE for the NAMEs listed; each
# sets that variable.  Anything else fails the scenario.
scenario_args() {
	local names=" $1 " a
	shift
	for a in "$@"; do
		[ -n "$a" ] || continue		# vm.sh may pass ''
		case $a in
		*=*) [[ $names == *" ${a%%=*} "* ]] || fail "unknown argument $a (takes:$names)" ;;
		*) fail "unknown argument $a (takes:$names)" ;;
		esac
		printf -v "${a%%=*}" %s "${a#*=}"
	done
}

# wait_gone SECS PID...: wait until the processes have ended.
wait_gone() {
	local secs=$1 p
	shift
	for p in "$@"; do
		wait_for "$secs" sh -c "! kill -0 $p" || return 1
	done
}

# bounded SECS WHAT CMD...: run CMD; fail if it fails or takes longer.
bounded() {
	local secs=$1 what=$2 pid t0
	shift 2
	t0=$(date +%s)
	"$@" &
	pid=$!
	wait_gone "$secs" $pid || fail "$what: still running after ${secs}s"
	wait $pid || fail "$what failed"
	log "$what: $(($(date +%s) - t0))s"
}

# 32 hex digits of a GID file (colons removed).
gid_hex() { tr -d ':\n' <"$1"; }

# hca0_add: `rdma link add` of HCA0 on veth0 again (after `rdma link
# del`); it must come back active with its GID.  Prints what went wrong
# and returns 1 otherwise.
hca0_add() {
	rdma link add "$HCA0" type "$TRANSPORT" netdev veth0 ||
		{ echo "rdma link add $HCA0 failed"; return 1; }
	wait_for 20 grep -q ACTIVE "/sys/class/infiniband/$HCA0/ports/1/state" ||
		{ echo "$HCA0 port not active again"; return 1; }
	[ "$(gid_hex "/sys/class/infiniband/$HCA0/ports/1/gids/0")" = "$TGT_GID" ] ||
		{ echo "$HCA0 came back with another GID"; return 1; }
}

# install_modules: copy the modules vm.sh prepared on the host for this
# kernel (tools/prep-modules.sh: ib_srpt.ko unless STOCK=1, siw.ko for
# TRANSPORT=siw, and their depmod index) over /lib/modules (a tmpfs
# overlay), once.
install_modules() {
	local mods=$PROJECT/${MODDIR:-build/modules/$(uname -r)}
	[ -n "${MODULES_INSTALLED:-}" ] && return 0
	[ -d "$mods/updates" ] || fail "no $mods - build the modules first (make; make modules-6.1)"
	cp -r "$mods"/. "/lib/modules/$(uname -r)/" || fail "cannot install $mods"
	MODULES_INSTALLED=1
}

# setup_transport: veth pair + two RDMA devices of $TRANSPORT on it (HCA0 on
# veth0 = target side, HCA1 on veth1), and the names and IDs the scenarios
# use, read from the devices themselves.
setup_transport() {
	local gid0 gid1
	ip link add veth0 type veth peer name veth1 || fail "cannot create veth pair"
	ip link set veth0 address $TGT_MAC
	ip link set veth1 address $INI_MAC
	ip addr add $TGT_IP/24 dev veth0
	ip addr add $INI_IP/24 dev veth1
	ip link set veth0 up
	ip link set veth1 up
	case $TRANSPORT in
	rxe) modprobe rdma_rxe || fail "modprobe rdma_rxe" ;;
	siw)
		# Not in Debian's kernels: built by tools/build-siw.sh.
		install_modules
		modprobe siw || fail "modprobe siw"
		log "siw: $(modinfo -F filename siw)" ;;
	*) fail "TRANSPORT=$TRANSPORT: not rxe or siw" ;;
	esac
	HCA0=${TRANSPORT}0 HCA1=${TRANSPORT}1
	rdma link add "$HCA0" type "$TRANSPORT" netdev veth0 || fail "rdma link add $HCA0"
	rdma link add "$HCA1" type "$TRANSPORT" netdev veth1 || fail "rdma link add $HCA1"
	gid0=/sys/class/infiniband/$HCA0/ports/1/gids/0
	gid1=/sys/class/infiniband/$HCA1/ports/1/gids/0
	wait_for 10 test -e "$gid1" || fail "$HCA1 has no GID"
	wait_for 10 grep -q ACTIVE "/sys/class/infiniband/$HCA0/ports/1/state" ||
		fail "$HCA0 port not active: $(cat "/sys/class/infiniband/$HCA0/ports/1/state")"
	# The target port is named after GID 0 of the target's port.
	TGT_GID=$(gid_hex "$gid0")
	INI_GID=$(gid_hex "$gid1")
	TGT_NODE_GUID=$(tr -d ':\n' <"/sys/class/infiniband/$HCA0/node_guid")
	# ib_srp's initiator = HCA0 too (loopback, see above).
	SRP_HCA=${SRP_HCA:-$HCA0}
	# What ib_srp sends as initiator port ID: initiator_ext (0) || the
	# interface ID half of GID 0 of its port (on siw: 0, see above).
	INI_PORT_GUID=$(gid_hex "/sys/class/infiniband/$SRP_HCA/ports/1/gids/0")
	INI_PORT_GUID=${INI_PORT_GUID:16:16}
	INI_PORT_ID=0000000000000000$INI_PORT_GUID
	# What the target expects as target port ID = id_ext || ioc_guid: the
	# target's (node) GUID for both halves (the stock ib_srpt convention:
	# srpt_service_guid defaults to the node GUID of the first HCA).
	ID_EXT=${ID_EXT:-$TGT_NODE_GUID}
	IOC_GUID=${IOC_GUID:-$TGT_NODE_GUID}
	log "$TRANSPORT: $HCA0 GID $TGT_GID, $HCA1 GID $INI_GID, initiator srp-$SRP_HCA-1 port ID $INI_PORT_ID, id_ext=$ID_EXT ioc_guid=$IOC_GUID"
}
# The name the scenarios used when rxe was the only transport.
setup_rxe() { setup_transport; }

# The distribution's (in-kernel) ib_srpt module file.
stock_srpt_ko() {
	find "/lib/modules/$(uname -r)/kernel/drivers/infiniband/ulp/srpt" -name 'ib_srpt.ko*' | head -n1
}

targetcli_q() { targetcli "$@" >/tmp/targetcli.out 2>&1 || { cat /tmp/targetcli.out; return 1; }; }
# targetcli_batch: the targetcli commands on stdin, one a line, in one
# targetcli process (each start of targetcli costs about 3 s under TCG).
# targetcli goes on after a command that failed and exits 0: fail if any
# said "Error:", showing what it said.
targetcli_batch() {
	if ! targetcli >/tmp/targetcli.out 2>&1 || grep -q 'Error:' /tmp/targetcli.out; then
		cat /tmp/targetcli.out
		return 1
	fi
}

# targetcli_prefs: targetcli's preferences as the standard setup's
# "set global auto_save_on_exit=false color_mode=false" left them when it
# ran in targetcli: a scenario's later targetcli commands neither save the
# configuration on exit nor color their output. Written directly (the
# pickled dict configshell keeps in ~/.targetcli/prefs.bin, with what its
# first start puts there: without the log levels configshell takes its
# default loglevel_file 'debug9', which its own logger does not know), not
# by a start of targetcli.
targetcli_prefs() {
	local d=$HOME/.targetcli
	[ -e "$d/prefs.bin" ] && return 0
	mkdir -p "$d" &&
		python3 -c 'import pickle, sys
pickle.dump({"auto_save_on_exit": False, "color_mode": False,
	     "loglevel_console": "info", "loglevel_file": "debug",
	     "logfile": sys.argv[1] + "/log.txt"},
	    open(sys.argv[1] + "/prefs.bin", "wb"), 2)' "$d"
}

# configfs_batch: the targetcli commands of luns_cmds and load_target on
# stdin (/srpt create, backstores ramdisk|fileio|block create, a ramdisk's
# emulate_write_cache, luns create, acls create, "set global"), done as
# rtslib does them but in configfs directly: targetcli's start costs
# 10-16 s under TCG, every scenario's setup paid it. What targetcli (and
# the scenarios' own targetcli commands later) sees is the same: a storage
# object per HBA <plugin>_<N>, its T10 unit serial, the backstore's name as
# INQUIRY product (targetcli's export_backstore_name_as_model), fileio
# write-back, the TPG tpgt_1 enabled, a new LUN mapped into every ACL and a
# new ACL given every LUN. Any other command: the whole batch goes to
# targetcli (targetcli_batch). SETUP_TARGETCLI=1 sends every batch there.
CFS=/sys/kernel/config/target
configfs_batch() {
	local cmds line
	cmds=$(cat)
	if [ "${SETUP_TARGETCLI:-0}" = 1 ] || grep -qvE '^(set global .*|/srpt create [^ ]+|/backstores/(ramdisk|fileio|block) create [^ ]+ [^ ]+( [^ ]+)?|/backstores/ramdisk/[^ /]+ set attribute emulate_write_cache=1|/srpt/[^ /]+/(luns create /backstores/[a-z]+/[^ /]+|acls create [^ ]+))$' <<<"$cmds"; then
		targetcli_batch <<<"$cmds"
		return
	fi
	# rtslib's first step: LIO keeps APTPL and ALUA metadata in its
	# dbroot, which rtslib sets to its own directory and LIO takes only
	# while no device exists (later targetcli would warn "Cannot set
	# dbroot").
	if [ -e "$CFS/dbroot" ] && [ "$(cat "$CFS/dbroot")" != /etc/rtslib-fb-target ]; then
		mkdir -p /etc/rtslib-fb-target
		echo /etc/rtslib-fb-target >"$CFS/dbroot" 2>/dev/null
	fi
	while read -r line; do
		# shellcheck disable=SC2086  # the words of one command
		cfs_cmd $line || { echo "configfs: failed: $line"; return 1; }
	done <<<"$cmds"
}
# cfs_bytes SIZE: 64M, 1G, 512K or bytes, as targetcli reads them.
cfs_bytes() {
	case $1 in
	*K) echo $(( ${1%K} << 10 )) ;;
	*M) echo $(( ${1%M} << 20 )) ;;
	*G) echo $(( ${1%G} << 30 )) ;;
	*) echo "$1" ;;
	esac
}
# cfs_so PLUGIN NAME: a new storage object NAME on its own HBA, numbered
# as rtslib does (the lowest number no HBA of any plugin has); prints its
# directory.
cfs_so() {
	local n=0
	while compgen -G "$CFS/core/*_$n" >/dev/null; do n=$((n + 1)); done
	mkdir -p "$CFS/core/${1}_$n/$2" && echo "$CFS/core/${1}_$n/$2"
}
# cfs_so_done DIR: enable it and give it rtslib's unit serial and model
# alias.
cfs_so_done() {
	echo 1 >"$1/enable" &&
		cat /proc/sys/kernel/random/uuid >"$1/wwn/vpd_unit_serial" &&
		echo 1 >"$1/attrib/emulate_model_alias"
}
# cfs_free DIR PREFIX: the lowest N with no DIR/PREFIXN.
cfs_free() {
	local n=0
	while [ -e "$1/$2$n" ]; do n=$((n + 1)); done
	echo $n
}
# cfs_map ACL LUN-DIR [N]: map the TPG's LUN into the ACL as mapped LUN N
# (default: the lowest free).
cfs_map() {
	local m
	m=$1/lun_${3:-$(cfs_free "$1" lun_)}
	mkdir "$m" && ln -s "$2" "$m/$(cfs_alias)"
}
cfs_alias() { head -c5 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
# cfs_cmd WORD...: one command of configfs_batch.
cfs_cmd() {
	local tpg so l a
	case $1:$2 in
	set:*) return 0 ;;
	/srpt:create)
		tpg=$CFS/srpt/0x${3#ib.}/tpgt_1
		mkdir -p "$tpg" && echo 1 >"$tpg/enable" ;;
	/backstores/ramdisk:create)
		so=$(cfs_so rd_mcp "$3") &&
			echo "rd_pages=$(( ($(cfs_bytes "$4") + 2048) / 4096 ))" >"$so/control" &&
			cfs_so_done "$so" ;;
	/backstores/fileio:create)
		[ -e "$4" ] || truncate -s "$(cfs_bytes "$5")" "$4" || return 1
		so=$(cfs_so fileio "$3") &&
			echo "fd_dev_name=$4,fd_dev_size=$(cfs_bytes "$5")" >"$so/control" &&
			echo 1 >"$so/attrib/emulate_write_cache" &&
			echo "fd_buffered_io=1" >"$so/control" &&
			echo -n "$4" >"$so/udev_path" && cfs_so_done "$so" ;;
	/backstores/block:create)
		so=$(cfs_so iblock "$3") && echo -n "$4" >"$so/udev_path" &&
			echo "udev_path=$4" >"$so/control" && echo "readonly=0" >"$so/control" &&
			cfs_so_done "$so" ;;
	/backstores/ramdisk/*:set)
		echo 1 >"$(echo "$CFS"/core/rd_mcp_*/"${1##*/}")/attrib/emulate_write_cache" ;;
	/srpt/*/luns:create)
		tpg=$CFS/srpt/0x${1#/srpt/ib.}
		tpg=${tpg%/luns}/tpgt_1
		so=$(echo "$CFS"/core/"$(cfs_plugin "$3")"_*/"${3##*/}")
		[ -d "$so" ] || return 1
		l=$tpg/lun/lun_$(cfs_free "$tpg/lun" lun_)
		mkdir "$l" && ln -s "$so" "$l/$(cfs_alias)" || return 1
		for a in "$tpg"/acls/*/; do
			if [ -d "$a" ]; then cfs_map "${a%/}" "$l" || return 1; fi
		done ;;
	/srpt/*/acls:create)
		tpg=$CFS/srpt/0x${1#/srpt/ib.}
		tpg=${tpg%/acls}/tpgt_1
		a=$tpg/acls/$(cfs_acl_name "$3")
		mkdir "$a" || return 1
		# As targetcli: each LUN under its own number, in the order
		# configfs lists them (the newest first). LIO gives every LUN
		# mapped before another a UNIT ATTENTION (REPORTED LUNS DATA
		# HAS CHANGED), so LUN 0, mapped last, has none.
		# shellcheck disable=SC2045  # lun_N names; the directory's order
		for l in $(ls -U "$tpg/lun"); do
			[ -d "$tpg/lun/$l" ] || continue
			cfs_map "$a" "$tpg/lun/$l" "${l#lun_}" || return 1
		done ;;
	*) return 1 ;;
	esac
}
# The configfs plugin directory of a /backstores/<type>/<name> path.
cfs_plugin() {
	case $1 in
	/backstores/ramdisk/*) echo rd_mcp ;;
	/backstores/fileio/*) echo fileio ;;
	/backstores/block/*) echo iblock ;;
	esac
}
# rtslib's srpt ACL directory of a node WWN: ib.<hex> -> 0x<hex>, other
# names (GUIDs, addresses) as they are.
cfs_acl_name() {
	case $1 in
	ib.*) echo "0x${1#ib.}" ;;
	*) echo "$1" ;;
	esac
}

# load_target [NAME:SIZE[:TYPE[:wce]]]... [acl:ID32]...: load the module
# (ours, or the stock one), create the target port ib.<GID> (TGT_WWN) and
# in the same targetcli process (each start of it costs 3-8 s under TCG)
# these LUNs (lun_cmds) and ACLs, in this order.
load_target() {
	TGT_WWN=ib.$TGT_GID
	luns_cmds "$@" >/tmp/setup.cmds || exit 1
	modprobe target_core_mod || fail "modprobe target_core_mod"
	# Another ib_srpt.ko by its path: the distribution's (ours may be
	# installed too: tools/bench-guest.sh runs both), or another build of
	# ours (make bench BASE=<rev>).
	local other=${SRPT_INSMOD:-} what="ib_srpt ${SRPT_INSMOD:-}"
	if [ "$STOCK" = 1 ]; then
		other=$(stock_srpt_ko) what="the stock (Debian) ib_srpt"
		[ -n "$other" ] || fail "no in-kernel ib_srpt under /lib/modules/$(uname -r)/kernel"
	fi
	if [ -n "$other" ]; then
		log "using $what"
		modprobe -a ib_cm rdma_cm || fail "modprobe ib_cm rdma_cm"
		insmod "$other" || fail "insmod $other"
	else
		# vm.sh prepared our modules with their depmod index for this
		# kernel (tools/prep-modules.sh): copy them over /lib/modules.
		local ko=$PROJECT/${MODDIR:-build/modules/$(uname -r)}/updates/ib_srpt.ko
		[ -f "$ko" ] || fail "no $ko - build the module first (make, or make modules-6.1)"
		[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$(uname -r)" ] ||
			fail "$ko is built for another kernel than $(uname -r) (make modules-6.1?)"
		install_modules
		modprobe ib_srpt || fail "modprobe ib_srpt"
		local sv
		read -r sv </sys/module/ib_srpt/srcversion
		[ "$sv" = "${SRPT_SRCVERSION:-$sv}" ] ||
			fail "the loaded ib_srpt (srcversion $sv) is not the module under test ($SRPT_SRCVERSION)"
		log "using our ib_srpt: $(modinfo -F filename ib_srpt), srcversion $sv"
	fi
	pgrep -x dbus-daemon >/dev/null || dbus-daemon --system --fork ||
		fail "dbus-daemon"
	mkdir -p /etc/target
	targetcli_prefs
	{ echo "/srpt create $TGT_WWN" && cat /tmp/setup.cmds; } | configfs_batch ||
		fail "load_target $*: /srpt create $TGT_WWN and the LUNs and ACLs"
	log "target port $TGT_WWN configured"
	SRPT_DIR=/sys/kernel/config/target/srpt
	TPG_DIR=$(echo "$SRPT_DIR"/*"${TGT_GID}"/tpgt_1)
	[ -d "$TPG_DIR" ] || TPG_DIR=$(echo "$SRPT_DIR"/*"${TGT_GID}")
	if [ "${USE_SRQ:-0}" = 1 ]; then
		# tests/run.sh --srq: the channels share the device's SRQ.
		echo 1 >"$TPG_DIR/attrib/use_srq" || fail "cannot set use_srq=1"
		log "use_srq=1: channels receive through the shared receive queue"
	fi
	if [ "$TRANSPORT" = siw ] && [ "$STOCK" != 1 ]; then
		# The wildcard listener (rdma_cm_port) is IPv6 dual-stack; on
		# siw its TCP socket takes the IPv4 login as ::ffff:192.0.2.1,
		# for which the RDMA/CM finds no device and resets the login
		# before the target sees it (ib_srp: REJ reason 0xffffff98).
		# An IPv4 wildcard listener would work (rping -s -a 0.0.0.0
		# does, over lo too; see tests/README.md).  Listen on the
		# target's address instead (a network portal).
		mkdir "$TPG_DIR/np/$TGT_IP:$SRP_PORT" ||
			fail "cannot listen on $TGT_IP:$SRP_PORT (np)"
	else
		echo $SRP_PORT >"$SRPT_DIR/discovery_auth/rdma_cm_port" ||
			fail "cannot set rdma_cm_port"
	fi
}

# slow_blockdev NAME MS: a 16 MiB block device (its path printed) whose
# every I/O takes MS ms, for READs that must stay in flight: dm-delay on a
# fast null_blk, the delay loaded once the device exists (no partition scan
# at MS a READ). A kernel built without dm-delay (CONFIG_DM_DELAY) gets a
# null_blk completing after at most 4 s: null_blk's own 5 s request
# timeout fails a READ held longer.
slow_blockdev() {
	local name=$1 ms=$2 base sectors dev
	if modprobe dm-delay 2>/dev/null; then
		base=$(make_nullb 16M) || exit 1
		sectors=$(blockdev --getsz "$base")
		dev=/dev/mapper/$name
		{ dmsetup create --noudevsync "$name" --table "0 $sectors delay $base 0 0" &&
			dmsetup mknodes "$name" && [ -b "$dev" ] &&
			dmsetup suspend --noudevsync "$name" &&
			dmsetup reload "$name" --table "0 $sectors delay $base 0 $ms" &&
			dmsetup resume --noudevsync "$name"; } >&2 ||
			fail "dm-delay of $ms ms as $dev" >&2
		echo "$dev"
		return 0
	fi
	((ms > 4000)) && ms=4000
	make_nullb 16M 0 "delay=$ms"
}

# make_nullb SIZE [CACHE_MB [nomem|delay=MS]]: a memory-backed null_blk
# device of SIZE (e.g. 64M, 1G) with 512-byte blocks, created through
# null_blk's configfs; prints its /dev path (a failure goes to stderr: the
# callers take stdout).  It completes I/O asynchronously, like a real disk.
# With CACHE_MB it has a volatile write cache of that size (and FUA), like a
# real disk: flushes and FUA writes then mean something.  nomem: no memory
# behind it (reads return whatever; tools/bench-guest.sh).
# delay=MS: every I/O completes after MS ms (below null_blk's own 5 s request
# timeout, or it fails the I/O; slow_blockdev).  NULLB_MAX_SECTORS=N (in the
# environment): requests of up to N sectors; null_blk's default, 255, makes
# LIO tell initiators 124 KiB at most.
make_nullb() {
	local size=$1 cache=${2:-0} mem=1 ns=0 mb n d dev
	case ${3:-} in
	nomem) mem=0 ;;
	delay=*) ns=$(( ${3#delay=} * 1000000 )) ;;
	'') ;;
	*) fail "make_nullb: unknown option $3" >&2 ;;
	esac
	case $size in
	*G) mb=$(( ${size%G} * 1024 )) ;;
	*M) mb=${size%M} ;;
	*) fail "make_nullb: size $size not in M or G" >&2 ;;
	esac
	modprobe null_blk nr_devices=0 || fail "modprobe null_blk" >&2
	for ((n = 0; ; n++)); do
		d=/sys/kernel/config/nullb/nullb$n
		[ -e "$d" ] || break
	done
	mkdir "$d" || fail "mkdir $d" >&2
	{ echo $mem >"$d/memory_backed" && echo 512 >"$d/blocksize" &&
		echo "$mb" >"$d/size" && echo "$cache" >"$d/cache_size" &&
		{ [ -z "${NULLB_MAX_SECTORS:-}" ] || echo "$NULLB_MAX_SECTORS" >"$d/max_sectors"; } &&
		{ ((ns == 0)) || { echo 2 >"$d/irqmode" &&
			echo "$ns" >"$d/completion_nsec"; }; } &&
		echo 1 >"$d/power"; } || fail "cannot configure null_blk $d" >&2
	# 6.12 names the disk after the configfs directory, 6.1 after index.
	dev=/dev/nullb$(cat "$d/index")
	[ -b "/dev/${d##*/}" ] && dev=/dev/${d##*/}
	wait_for 10 test -b "$dev" || fail "no block device for $d" >&2
	echo "$dev"
}

# make_lun NAME SIZE [ramdisk|fileio|block] [wce]: backstore NAME of SIZE
# (e.g. 64M) mapped as the next LUN.  fileio = sparse file on the guest's
# /tmp (tmpfs); block = iblock on a memory-backed null_blk device
# (make_nullb): the only kind that consumes write buffers after the command
# was handed over, as a real disk does.  wce: the LUN reports a volatile
# write cache (SCSI WCE), so that the initiator sends FUA writes for O_SYNC
# and SYNCHRONIZE CACHE for fsync: ramdisk emulates it, block gets a null_blk
# with a 16 MiB cache; fileio (write-back) always has it.
make_lun() {
	lun_cmds "$@" >/tmp/lun.cmds || exit 1
	configfs_batch </tmp/lun.cmds || fail "make_lun $*"
}
# lun_cmds NAME SIZE [TYPE] [wce]: what make_lun does, as targetcli
# commands on stdout (a null_blk device is made at once).
lun_cmds() {
	local name=$1 size=$2 type=${3:-ramdisk} wce=${4:-} dev
	case $type in
	ramdisk) echo "/backstores/ramdisk create $name $size" ;;
	fileio) echo "/backstores/fileio create $name /tmp/$name.img $size" ;;
	block)
		dev=$(make_nullb "$size" "${wce:+16}") || exit 1
		echo "/backstores/block create $name $dev" ;;
	*) fail "make_lun: unknown backstore type $type" >&2 ;;
	esac
	case $type:$wce in
	ramdisk:wce) echo "/backstores/ramdisk/$name set attribute emulate_write_cache=1" ;;
	*:wce | *:) ;;
	*) fail "make_lun: unknown option $wce" >&2 ;;
	esac
	echo "/srpt/$TGT_WWN/luns create /backstores/$type/$name"
}

# make_dm_lun NAME SIZE: LUN on iblock over the dm-linear device
# /dev/mapper/NAME over a null_blk disk of SIZE (with a 16 MiB write
# cache), mapped as the next LUN: a volume an admin can grow, shrink or
# fail (dm_reload).  DM_TABLE: its table, DM_SECTORS: its size in
# 512-byte sectors.  No udev in the guest: dmsetup makes the node itself.
make_dm_lun() {
	local dev
	modprobe dm_mod || fail "modprobe dm_mod"
	dev=$(make_nullb "$2" 16) || exit 1
	DM_SECTORS=$(blockdev --getsz "$dev")
	DM_TABLE="0 $DM_SECTORS linear $dev 0"
	DM_DISABLE_UDEV=1 dmsetup create "$1" --table "$DM_TABLE" || fail "dmsetup create $1"
	targetcli_q /backstores/block create "$1" "/dev/mapper/$1" || fail "block create $1"
	targetcli_q "/srpt/$TGT_WWN/luns" create "/backstores/block/$1" || fail "lun create $1"
}
# dm_reload NAME TABLE: the dm device NAME gets TABLE (suspend, load,
# resume), as an admin resizes or replaces a volume in use.
dm_reload() {
	DM_DISABLE_UDEV=1 dmsetup suspend "$1" &&
		DM_DISABLE_UDEV=1 dmsetup load "$1" --table "$2" &&
		DM_DISABLE_UDEV=1 dmsetup resume "$1"
}

# shellcheck disable=SC2120  # scenarios pass an ID
# make_acl [ID32]: allow an initiator port ID (default ib_srp's) to log in.
make_acl() {
	local id=${1:-$INI_PORT_ID}
	targetcli_q "/srpt/$TGT_WWN/acls" create "ib.$id" || fail "acl create ib.$id"
}

SRP_HCA=${SRP_HCA:-${TRANSPORT}0}
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
# srp_hosts [BEFORE]: the ib_srp SCSI hosts (host3 ...), one a line; with
# BEFORE (an earlier output of srp_hosts) only those not in it.
srp_hosts() {
	local h p
	# Builtins only: under fio a fork costs a third of a second here.
	for h in /sys/class/scsi_host/host*; do
		p=
		read -r p 2>/dev/null <"$h/proc_name"
		[ "$p" = ib_srp ] || continue
		[[ $'\n'${1:-}$'\n' == *$'\n'${h##*/}$'\n'* ]] || echo "${h##*/}"
	done
	return 0
}
# scsi_host_gone HOST: the SCSI host (e.g. host3) has been removed.
scsi_host_gone() { [ ! -e "/sys/class/scsi_host/$1" ]; }

# srp_add_target OPTS: ib_srp's add_target, again while it says EEXIST.
# ib_srp removes a target port's SCSI host before it takes the port off
# its list (after the disconnect and after freeing the channels): right
# after a logout, a new login of the same port may find it still there
# for a while (seen 0.4 s after the target released the channels, under
# fio).  ADD_TARGET_ERR: the error of the last try.
srp_add_target() {
	local tries=0
	ADD_TARGET_ERR=
	until echo "$1" 2>/tmp/add_target.err >"$(srp_add_target_path)"; do
		ADD_TARGET_ERR=$(</tmp/add_target.err)
		[[ $ADD_TARGET_ERR == *'File exists'* ]] && ((++tries <= 40)) || return 1
		sleep 0.5
	done
}

# grown N CMD...: CMD prints a number above N.
grown() {
	local n=$1
	shift
	[ "$("$@")" -gt "$n" ]
}

# The SRP_LOGIN_REJ reasons by the names of the target's counters
# (rejected_<name> in fabric_statistics/srpt_login_stats of the target port).
declare -A REJ_CODE=([unable_establish_channel]=0x00010000
	[insufficient_resources]=0x00010001 [it_iu_length_too_large]=0x00010002
	[unable_associate_channel]=0x00010003 [unsupported_descriptor_fmt]=0x00010004
	[multi_channel_unsupported]=0x00010005 [channel_limit_reached]=0x00010006)
# ini_rejected CODE: ib_srp's kernel log lines of a login refused with CODE.
# On iWARP (siw) ib_srp cannot name the reason: the RDMA/CM reports the
# target's reject as status -ECONNRESET (an MPA reject) and ib_srp reads
# the SRP_LOGIN_REJ only for IB_CM_REJ_CONSUMER_DEFINED, logging "REJ reason
# 0xffffff98" instead; there the target's counters and log line (checked by
# expect_refused) say which reason it was.
ini_rejected() {
	if [ "$TRANSPORT" = siw ]; then
		dmesg | grep -c "REJ reason 0xffffff98\$"
	else
		dmesg | grep -c "ib_srp: SRP LOGIN REJECTED, reason $1\$"
	fi
}
# tgt_refused ID32 CODE: the target's kernel log lines of a login of ID32
# refused with CODE (printed as 0x1000N).
tgt_refused() { dmesg | grep -cE "login from 0x$1 .*refused: .* \($(printf '%#x' "$2")\)"; }

# expect_refused REASON ID32 WHY CMD...: CMD (an ib_srp login of initiator
# port ID32: srp_login ...) fails because the target refused it with the
# SRP_LOGIN_REJ reason REASON (a name of REJ_CODE): ib_srp logged "SRP
# LOGIN REJECTED, reason <code>" once more (on siw: the reject, see
# ini_rejected); and with our module the target
# port's counters rejected_REASON and rejected grew by one each,
# last_rejected_initiator is 0xID32, and the kernel log has one more line
# "login from 0xID32 at <addr> to <port> refused: <reason in words>
# (0x1000N): <what it found>", what it found matching the extended regex
# WHY ('' for anything).  The stock module has neither the counters nor that line: there
# only ib_srp's logged reason is checked.
expect_refused() {
	local reason=$1 id=$2 why=${3:-.*} code ls n0 c0 t0 l0 line
	shift 3
	code=${REJ_CODE[$reason]}
	[ -n "$code" ] || fail "expect_refused: no reason $reason"
	ls=$(dirname "$TPG_DIR")/fabric_statistics/srpt_login_stats
	n0=$(ini_rejected "$code")
	if [ "$STOCK" != 1 ]; then
		{ c0=$(cat "$ls/rejected_$reason") && t0=$(cat "$ls/rejected"); } ||
			fail "cannot read the counters in $ls"
		l0=$(tgt_refused "$id" "$code")
	fi
	if "$@" >/dev/null; then
		fail "$*: the login was accepted, expected it refused with $code ($reason)"
	fi
	wait_for 10 grown "$n0" ini_rejected "$code" ||
		fail "$*: ib_srp logged no 'SRP LOGIN REJECTED, reason $code'$([ "$TRANSPORT" = siw ] && echo " (on siw: 'REJ reason 0xffffff98')"), but: $(dmesg | grep 'ib_srp' | tail -n 2)"
	if [ "$STOCK" = 1 ]; then
		log "refused: ib_srp logged reason $code ($reason); the stock module has no counters or log line to check"
		return 0
	fi
	wait_for 10 grown "$l0" tgt_refused "$id" "$code" ||
		fail "$*: the target logged no refusal of 0x$id with $code: $(dmesg | grep ' refused: ' | tail -n 2)"
	line=$(dmesg | grep -E "login from 0x$id .*refused: " | tail -n1)
	[[ $line =~ \($(printf '%#x' "$code")\):\ ($why)$ ]] ||
		fail "$*: the target's log line does not say /$why/: $line"
	{ [ "$(cat "$ls/rejected_$reason")" = $((c0 + 1)) ] && [ "$(cat "$ls/rejected")" = $((t0 + 1)) ]; } ||
		fail "$*: counters rejected_$reason $(cat "$ls/rejected_$reason") (was $c0), rejected $(cat "$ls/rejected") (was $t0)"
	[ "$(cat "$ls/last_rejected_initiator")" = "0x$id" ] ||
		fail "$*: last_rejected_initiator $(cat "$ls/last_rejected_initiator"), not 0x$id"
	log "refused with $code ($reason): ${line#*] }"
}

# ib_srp_load NAME=VALUE: load ib_srp with a boolean module parameter and
# check that it took (a module loaded before keeps the value it had).
ib_srp_load() {
	local name=${1%%=*} want=N have
	case ${1#*=} in 1 | Y | y) want=Y ;; esac
	modprobe ib_srp "$1" || fail "modprobe ib_srp $1"
	have=$(cat "/sys/module/ib_srp/parameters/$name")
	[ "$have" = "$want" ] || fail "ib_srp was loaded before, with $name=$have"
}

# shellcheck disable=SC2120  # the options are optional
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
	srp_add_target "$opts" || { log "add_target failed: $ADD_TARGET_ERR" >&2; return 1; }
	wait_for 60 srp_ndisks_ge "$want" || { log "only $(srp_disks | wc -l) of $want disks" >&2; return 1; }
	srp_disks
}

# verify_io DEV [N]: write N (16) random 64 KiB blocks with O_DIRECT, then
# 16*N random 4 KiB blocks behind them (small enough to travel as ib_srp
# immediate data, inside the SRP_CMD), read it all back with O_DIRECT and
# compare.  On a mismatch it logs how many 4 KiB blocks came back wrong.
verify_io() {
	local dev=$1 n=${2:-16} bad
	dd if=/dev/urandom of=/tmp/vio-pat bs=64k count=$((2 * n)) status=none
	dd if=/tmp/vio-pat of="$dev" bs=64k count="$n" oflag=direct status=none || return 1
	dd if=/tmp/vio-pat of="$dev" bs=4k skip=$((16 * n)) seek=$((16 * n)) \
		count=$((16 * n)) oflag=direct status=none || return 1
	dd if="$dev" of=/tmp/vio-back bs=64k count=$((2 * n)) iflag=direct status=none || return 1
	cmp -s /tmp/vio-pat /tmp/vio-back && return 0
	bad=$(bad_blocks /tmp/vio-pat /tmp/vio-back)
	log "$dev: $bad of $((32 * n)) 4 KiB blocks read back wrong" >&2
	return 1
}

# bad_blocks FILE1 FILE2 [BS]: number of BS-byte (4096) blocks that differ.
bad_blocks() {
	cmp -l "$1" "$2" 2>/dev/null |
		awk -v bs="${3:-4096}" 'BEGIN { last = -1 }
			{ b = int(($1 - 1) / bs); if (b != last) n++; last = b }
			END { print n + 0 }'
}

# fio_verify LABEL FIO-ARGS...: run fio write-only jobs with verification
# (--rw=write/randwrite plus --verify=...) and judge them: fio exits 0,
# reports no verify failure, and every job read data back - fio counts its
# verify reads as reads, so a job that never verified cannot pass.  Output in
# /tmp/fio-LABEL.out; FIO_BAD = number of blocks that failed verification
# (fio stops a job at its first failures, so a lower bound).  Pass
# --randrepeat=0 when a run may overwrite what an earlier one wrote: with
# the same seeds fio writes the same data, and a lost write would go unseen.
fio_verify() {
	local label=$1 out=/tmp/fio-$1.out rc njobs idle
	shift
	fio --eta=never "$@" >"$out" 2>&1
	rc=$?
	FIO_BAD=$(grep -cE '(verify failed|verify: bad).* at file ' "$out")
	njobs=$(grep -c 'issued rwts:' "$out")
	idle=$(awk '/issued rwts:/ { split($3, t, /[=,]/); if (t[2] + 0 == 0) n++ }
		END { print n + 0 }' "$out")
	if [ "$rc" != 0 ] || [ "$FIO_BAD" != 0 ] || [ "$njobs" = 0 ] || [ "$idle" != 0 ]; then
		grep -E 'verify|err=|error' "$out" | head -n 8 | sed "s/^/  fio $label: /"
		log "fio $label: rc=$rc, $FIO_BAD blocks failed verification, $idle of $njobs jobs read nothing back"
		return 1
	fi
	log "fio $label: $njobs jobs verified, $(grep -E '^ *(READ|WRITE):' "$out" |
		sed -E 's/^ *(READ|WRITE):.* io=([^ ]+).*/\1 \2/' | xargs)"
	return 0
}

# fio_bad_on LABEL FILE...: "FILE: N bad blocks" for each FILE of the last
# fio_verify LABEL run that had verify failures.
fio_bad_on() {
	local label=$1 f n
	shift
	for f in "$@"; do
		n=$(grep -cE "(verify failed|verify: bad).* at file $f " "/tmp/fio-$label.out")
		[ "$n" = 0 ] || echo "$f: $n bad blocks"
	done
}

# srp_storm [ADD_TARGET OPTIONS]: ib_srp logs in to the target (with these
# extra comma-separated options) and deletes the SRP ports that login
# added, again and again until /tmp/stop exists; the tally goes to
# /tmp/srp-storm.out.  Refused or failed logins are only counted.
srp_storm() {
	local opts="id_ext=$ID_EXT,ioc_guid=$IOC_GUID,dest=$TGT_IP:$SRP_PORT${1:+,$1}"
	local ok=0 bad=0 before h
	while [ ! -e /tmp/stop ]; do
		before=$(srp_hosts)
		if { echo "$opts" >"$(srp_add_target_path)"; } 2>/dev/null; then
			ok=$((ok + 1))
		else
			bad=$((bad + 1))
		fi
		for h in $(srp_hosts "$before"); do
			{ echo 1 >"/sys/class/srp_remote_ports/port-${h#host}:1/delete"; } 2>/dev/null
		done
		sleep 0.3
	done
	echo "$ok logins, $bad refused or failed" >/tmp/srp-storm.out
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
	local np
	# rtslib does not know srpt network portals (load_target on siw):
	# an admin removes them before targetcli can delete the TPG.
	for np in "$SRPT_DIR"/*/tpgt_*/np/*; do
		[ -d "$np" ] || continue
		rmdir "$np" 2>/tmp/rmdir.err ||
			{ UNLOAD_ERR="rmdir $np: $(cat /tmp/rmdir.err)"; return 1; }
	done
	timed 120 targetcli clearconfig confirm=True >/tmp/clearconfig.out 2>&1 ||
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

# Common start of a scenario: RDMA devices + target with LUNs, the ACL of
# ib_srp and those of more initiator port IDs (acl:ID32).
# standard_setup NAME:SIZE[:TYPE[:wce]]... [acl:ID32]...
standard_setup() {
	setup_transport
	load_target "$@" "acl:$INI_PORT_ID"
}
# luns_cmds NAME:SIZE[:TYPE[:wce]]... [acl:ID32]...: lun_cmds of each
# LUN, an ACL line of each acl:ID32.
luns_cmds() {
	local l spec
	for l in "$@"; do
		IFS=: read -r -a spec <<<"$l"
		if [ "${spec[0]}" = acl ]; then
			echo "/srpt/$TGT_WWN/acls create ib.${spec[1]}"
		else
			lun_cmds "${spec[@]}" || exit 1
		fi
	done
}

# host_vcpu: "host_epoch vcpu_ticks clk_tck n pace_samples pace_us" - the
# vCPUs' CPU time as the host counts it, and the host's pace (the times of
# a fixed loop on it): tools/host-vcpu.py, with VM_HOST_CPU=1; 0s without.
host_vcpu() {
	cat "$RESULTS/host-vcpu.txt" 2>/dev/null || echo "0 0 0 0 0 0"
}
# host_share BEFORE: since BEFORE (an earlier host_vcpu), how much of the
# wall time the vCPUs ran on the host, and how long the host's fixed loop
# took on average; empty without VM_HOST_CPU=1.  A guest that slows down
# while the loop takes longer is slowed by its host, not by itself.
host_share() {
	local -a a b
	read -r -a a <<<"$1"
	read -r -a b < <(host_vcpu)
	[ "${#a[@]}" -ge 6 ] && [ "${#b[@]}" -ge 6 ] && [ "${a[3]}" -gt 0 ] || return 0
	awk -v e="$((${b[0]/./} - ${a[0]/./}))" -v v="$((b[1] - a[1]))" -v hz="${b[2]}" -v n="${b[3]}" \
		-v pn="$((b[4] - a[4]))" -v pus="$((b[5] - a[5]))" \
		'BEGIN { if (e <= 0) exit
			printf "host: vCPUs ran %.0f%% of the time", 100 * v / hz / (e / 1000 * n)
			if (pn > 0) printf ", its fixed loop %.1f ms (mean of %d)", pus / pn / 1000, pn }'
}

# Our module's resources file (debugfs, mounted by guest-init): "name
# value" lines; resource NAME prints one value.
RES=/sys/kernel/debug/ib_srpt/resources
resource() { awk -v k="$1" '$1 == k { print $2 }' "$RES"; }
# resources_free: within 30 s every figure of the resources file is 0, as
# it must be with nobody logged in; false if the file cannot be read.
resources_free() {
	[ -r "$RES" ] || { log "cannot read $RES" >&2; return 1; }
	wait_for 30 sh -c "! grep -qv ' 0\$' $RES"
}
# srpt_event NAME: how often the module took a rarer path since it was
# loaded (debugfs ib_srpt/events, e.g. tables_fetched).
srpt_event() { awk -v k="$1" '$1 == k { print $2 }' /sys/kernel/debug/ib_srpt/events; }

# stock_skip_reason: print the "# stock: skip" reason of a scenario file.
stock_skip_reason() { sed -n 's/^# stock: skip *//p' "$1" | head -n1; }

# Storms log more than the kernel's 128 KiB ring buffer holds, and
# tools/vm.sh only scans what is left of it at the end: klog_start keeps the
# whole kernel log in $KLOG, klog_count PATTERN counts lines of it,
# klog_splats prints its splats (what vm.sh fails on), klog_save copies it
# to the results dir (klog.txt; also when the scenario exits early).
KLOG=/tmp/klog
klog_start() {
	stdbuf -oL dmesg -w >"$KLOG" 2>&1 &
	KLOG_PID=$!
	trap klog_save EXIT
}
klog_count() { grep -c -- "$1" "$KLOG"; }
# shellcheck source=tools/kernel-reports.sh
. "$PROJECT/tools/kernel-reports.sh"
klog_splats() { kernel_reports "$KLOG"; }
klog_save() { cp "$KLOG" "$RESULTS/klog.txt" 2>/dev/null; }

# all_released: every channel our target accepted (a "logged in to" line
# in the kept kernel log) has been released.
# shellcheck disable=SC2317  # called through wait_for
all_released() { [ "$(klog_count 'logged in to')" = "$(klog_count 'channel released')" ]; }

# The raw SRP initiator (tools/srp-client.c, built on the host by `make
# tools`): raw_client_setup loads user-space verbs and RDMA/CM for it,
# raw_client ID32 ARGS... runs it against our target as initiator port ID32.
SRP_CLIENT=$PROJECT/build/srp-client
raw_client_setup() {
	[ -x "$SRP_CLIENT" ] || fail "$SRP_CLIENT missing: build it on the host first (make tools)"
	modprobe -a ib_uverbs rdma_ucm || fail "modprobe ib_uverbs rdma_ucm"
	wait_for 10 test -c /dev/infiniband/rdma_cm || fail "no /dev/infiniband/rdma_cm"
	wait_for 10 sh -c 'ls /dev/infiniband/uverbs* >/dev/null' || fail "no /dev/infiniband/uverbs*"
}
raw_client() {
	local id=$1
	shift
	"$SRP_CLIENT" --dest "$TGT_IP:$SRP_PORT" --id-ext "$ID_EXT" \
		--ioc-guid "$IOC_GUID" --initiator-id "$id" "$@"
}
