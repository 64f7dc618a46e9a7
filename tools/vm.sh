#!/bin/bash
# Boot a throw-away qemu (TCG) guest running a Debian kernel, run one guest
# script from this project inside it and return that script's exit code.
#
#   tools/vm.sh [--stock] [--siw] [--kver 6.12|6.1|debug] [--debug]
#               [--timeout SECS] [--logdir DIR] <guest-script> [args...]
#
# The guest sees the host's / read-only (virtio-9p) under a tmpfs overlay, the
# project read-only at /mnt/project and a writable results dir at
# /mnt/results.  Console log and guest dmesg are kept in the log dir
# (default build/logs/<script name>[-stock][-siw][-<kver>]/).  The run FAILS
# when the kernel log shows a WARNING/BUG/Oops/hung task/... splat, or when
# the guest times out (a guest that dies while it boots, or whose kernel
# reports something while it boots, before the scenario starts, is booted
# once more).  --siw: soft-iWARP (siw, built on the host by
# tools/build-siw.sh and shipped into the guest) instead of soft-RoCE.
# --debug (= --kver debug): the debug kernel of tools/build-debug-kernel.sh
# (KASAN, lockdep, kmemleak, ...; build ib_srpt.ko for it with `make
# modules-debug`, siw is part of it); the guest then scans for kmemleak
# reports after the script, and any report fails the run.
#
# Environment: STOCK=1 (same as --stock), TRANSPORT=rxe|siw (--siw), KVER,
# USE_SRQ=1 (guest-lib's load_target sets the TPG's use_srq=1),
# SETUP_TARGETCLI=1 (load_target configures through targetcli, not configfs),
# VM_TIMEOUT, VM_MEM (2G; 3G with --debug), VM_SMP (2), VM_VERBOSE=1 (echo the guest console
# live), SRPT_KO=<path> (test that build of ib_srpt.ko instead of the
# module under test, build/ko/<release>/ib_srpt.ko, e.g. one without a
# fix, to see a scenario fail), SRPT_SRCVERSION_ALSO="<srcversion>..."
# (other builds the scenario may load: make bench BASE=), VM_HOST_CPU=1
# (the vCPU threads' host CPU time in the results share's host-vcpu.txt:
# tools/host-vcpu.py).  The module under test's file and srcversion are
# printed; the guest fails the run when it loads another build.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STOCK=${STOCK:-0}
TRANSPORT=${TRANSPORT:-rxe}
KVER=${KVER:-6.12}
TIMEOUT=${VM_TIMEOUT:-900}
LOGDIR=
while [ $# -gt 0 ]; do
	case $1 in
	--stock) STOCK=1; shift ;;
	--siw) TRANSPORT=siw; shift ;;
	--kver) KVER=$2; shift 2 ;;
	--debug) KVER=debug; shift ;;
	--timeout) TIMEOUT=$2; shift 2 ;;
	--logdir) LOGDIR=$2; shift 2 ;;
	-h|--help) sed -n '2,25p' "$0"; exit 0 ;;
	--) shift; break ;;
	-*) echo "vm.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: $0 [--stock] [--siw] [--kver 6.12|6.1] <guest-script> [args]" >&2; exit 2; }
case $TRANSPORT in
rxe|siw) ;;
*) echo "vm.sh: TRANSPORT=$TRANSPORT: not rxe or siw" >&2; exit 2 ;;
esac
SCRIPT=$1; shift

# Resolve the guest script to a path relative to the project.
script_abs=$(realpath -e "$SCRIPT")
case $script_abs in
"$TOP"/*) SCRIPT_REL=${script_abs#"$TOP"/} ;;
*) echo "vm.sh: $SCRIPT must live inside $TOP (shared into the guest)" >&2; exit 2 ;;
esac

# Pick the kernel: the newest installed /boot/vmlinuz-<KVER>.*, or the
# debug kernel with its own module tree (MODSRC, also linked into the
# guest's /lib/modules).
KREL="" KIMAGE="" MODSRC=""
if [ "$KVER" = debug ]; then
	dbg=$("$TOP/tools/build-debug-kernel.sh" --print-only) ||
		{ echo "vm.sh: build the debug kernel first (make modules-debug)" >&2; exit 2; }
	KREL=$(cat "$dbg/release")
	KIMAGE=$dbg/linux/arch/x86/boot/bzImage
	MODSRC=$dbg/root/lib/modules/$KREL
else
	for f in /boot/vmlinuz-"$KVER".*; do
		[ -e "$f" ] && KREL=${f#/boot/vmlinuz-}
	done
	[ -n "$KREL" ] || { echo "vm.sh: no /boot/vmlinuz-$KVER.* (run tools/install-deps.sh)" >&2; exit 2; }
	KIMAGE=/boot/vmlinuz-$KREL
fi

name=$(basename "$SCRIPT_REL" .sh)
[ "$STOCK" = 1 ] && name="$name-stock"
[ "$TRANSPORT" = rxe ] || name="$name-$TRANSPORT"
[ "$KVER" = 6.12 ] || name="$name-$KVER"
[ "${USE_SRQ:-0}" = 1 ] && name="$name-srq"
LOGDIR=${LOGDIR:-$TOP/build/logs/$name}
rm -rf "$LOGDIR"
mkdir -p "$LOGDIR"
LOGDIR=$(realpath "$LOGDIR")

INITRD=$("$TOP/tools/mkinitramfs.sh" "$KREL")

# Our modules with their depmod index, for the guest to copy into
# /lib/modules (guest-lib.sh install_modules): ib_srpt.ko unless STOCK=1,
# and siw.ko for TRANSPORT=siw.  Each set has its own directory
# (build/modules/<release>[-stock][-siw]), so that a run preparing one set
# does not rewrite the index a guest of another run is reading.
#
# The module under test is build/ko/<release>/ib_srpt.ko (make
# modules-6.12, modules-6.1 or modules-debug; tests/run.sh builds it), and
# only if it is the tree's build: the copy of the sources it was built from
# is the tree's, and it is newer than that copy (a failed build leaves the
# old .ko behind).  SRPT_KO=<path> names another build on purpose.
# SRPT_SRCVERSION goes to the guest, which checks every ib_srpt loaded
# against it (tools/guest-init.sh).
mods=()
MODDIR=build/modules/$KREL
SRPT_FILE=none SRPT_SRCVERSION=none
# ko_stale KO: why KO is not the build of the tree's sources, or nothing.
ko_stale() {
	local ko=$1 dir f want got
	dir=$(dirname "$ko")
	[ -f "$ko" ] || { echo "$ko does not exist"; return; }
	# shellcheck source=tools/module-srcs.sh
	. "$TOP/tools/module-srcs.sh"
	for f in $(module_files "$TOP"); do
		cmp -s "$TOP/$f" "$dir/$f" || { echo "$dir/$f is not the tree's $f"; return; }
	done
	# kbuild rebuilds the module after any change of a C source or
	# header (not of the Makefile alone).
	for f in $(module_srcs "$TOP"); do
		[ "$dir/$f" -nt "$ko" ] && { echo "$ko is older than its source $f (a failed build?)"; return; }
	done
	# The file is what modpost made of those sources: the srcversion
	# (a digest of them) that it wrote into ib_srpt.mod.c, not another
	# ib_srpt.ko put in its place.
	want=$(sed -n 's/^MODULE_INFO(srcversion, "\(.*\)");$/\1/p' "$dir/ib_srpt.mod.c" 2>/dev/null)
	got=$(modinfo -F srcversion "$ko")
	[ -n "$want" ] && [ "$got" = "$want" ] ||
		echo "$ko has srcversion '$got', the build of the tree's sources '$want'"
	return 0
}
if [ "$STOCK" != 1 ]; then
	if [ -n "${SRPT_KO:-}" ]; then
		ko=$(realpath -e "$SRPT_KO") || { echo "vm.sh: SRPT_KO=$SRPT_KO does not exist" >&2; exit 2; }
	else
		ko=$TOP/build/ko/$KREL/ib_srpt.ko
		why=$(ko_stale "$ko")
		if [ -n "$why" ]; then
			echo "vm.sh: not the tree's module: $why" >&2
			if [ "$KVER" = debug ]; then
				echo "vm.sh: build it with make modules-debug (make check-debug does; tests/run.sh --debug does not)" >&2
			else
				echo "vm.sh: build it with make modules-$KVER (tests/run.sh does)" >&2
			fi
			exit 2
		fi
	fi
	[ "${ko##*/}" = ib_srpt.ko ] ||
		{ echo "vm.sh: $ko: the module file must be named ib_srpt.ko" >&2; exit 2; }
	[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$KREL" ] ||
		{ echo "vm.sh: $ko is not built for $KREL" >&2; exit 2; }
	mods+=("$ko")
	SRPT_FILE=${ko#"$TOP"/}
	SRPT_SRCVERSION=$(modinfo -F srcversion "$ko")
else
	MODDIR+=-stock
	SRPT_FILE=$(find "${MODSRC:-/lib/modules/$KREL}/kernel/drivers/infiniband/ulp/srpt" -name 'ib_srpt.ko*' | head -n1)
fi
if [ "$TRANSPORT" = siw ] && [ -z "$MODSRC" ]; then
	siw=$("$TOP/tools/build-siw.sh" "$KREL") ||
		{ echo "vm.sh: cannot build siw.ko for $KREL" >&2; exit 2; }
	mods+=("$siw")
	MODDIR+=-siw
fi
if [ ${#mods[@]} -gt 0 ]; then
	MODSRC=$MODSRC "$TOP/tools/prep-modules.sh" "$KREL" "$TOP/$MODDIR" "${mods[@]}" ||
		{ echo "vm.sh: cannot prepare the module index" >&2; exit 2; }
fi

# Job description for the guest (read by tools/guest-init.sh).
{
	printf 'SCRIPT=%q\n' "$SCRIPT_REL"
	printf 'STOCK=%q\n' "$STOCK"
	printf 'TRANSPORT=%q\n' "$TRANSPORT"
	printf 'USE_SRQ=%q\n' "${USE_SRQ:-0}"
	printf 'SETUP_TARGETCLI=%q\n' "${SETUP_TARGETCLI:-0}"
	printf 'MODDIR=%q\n' "$MODDIR"
	printf 'KMODROOT=%q\n' "$MODSRC"
	printf 'SRPT_SRCVERSION=%q\n' "$SRPT_SRCVERSION"
	printf 'SRPT_SRCVERSION_ALSO=%q\n' "${SRPT_SRCVERSION_ALSO:-}"
	# The guest gives up a bit before the host kills it, so that it can
	# still dump the blocked tasks and dmesg.
	printf 'GUEST_TIMEOUT=%q\n' "$(( TIMEOUT > 120 ? TIMEOUT - 60 : TIMEOUT * 3 / 4 ))"
	printf 'ARGS=('; printf '%q ' "$@"; printf ')\n'
} >"$LOGDIR/job.env"

CONSOLE=$LOGDIR/console.log
# No oops=panic: keep the guest alive after an oops so that dmesg can be
# collected; the splat scan below fails the run anyway.
cmdline="console=ttyS0,115200 panic=-1 loglevel=4 printk.time=1"
cmdline+=" sysctl.kernel.hung_task_timeout_secs=60 sysctl.kernel.hung_task_warnings=-1"
cmdline+=" softlockup_panic=0 rdinit=/init"
# Debug kernel: SLUB checks on every cache, caches not merged (so that
# /proc/slabinfo counts are per cache); PCI interrupts not routed by ACPI,
# whose _PRT loops run into their 30 s timeout three times under KASAN
# and lockdep in TCG (boot to /init: 111 s, with pci=noacpi 16 s).
[ "$KVER" = debug ] && cmdline+=" slub_debug=FZP slab_nomerge pci=noacpi"
# A scenario's own "# kernel-args: ..." line (e.g. slub_debug=P, so that a
# use-after-free reads poison and oopses on the release kernels too).
kargs=$(sed -n 's/^# kernel-args: *//p' "$script_abs" | head -n1)
[ -n "$kargs" ] && [ "$KVER" != debug ] && cmdline+=" $kargs"

# shellcheck disable=SC2054  # the commas are qemu option syntax
qemu=(qemu-system-x86_64 -accel tcg,thread=multi -cpu max
      -m "${VM_MEM:-$([ "$KVER" = debug ] && echo 3G || echo 2G)}" -smp "${VM_SMP:-2}" -nic none -nographic -no-reboot
      -kernel "$KIMAGE" -initrd "$INITRD" -append "$cmdline"
      -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap
      -virtfs "local,path=$TOP,mount_tag=project,security_model=none,readonly=on,multidevs=remap"
      -virtfs "local,path=$LOGDIR,mount_tag=results,security_model=none,multidevs=remap"
      -name ib_srpt-guest,debug-threads=on)	# vCPU threads "CPU n/TCG": tools/host-vcpu.py

echo "vm.sh: $SCRIPT_REL (kernel $KREL, stock=$STOCK, $TRANSPORT) logs in $LOGDIR" >&2
echo "vm.sh: module under test: $SRPT_FILE srcversion $SRPT_SRCVERSION" >&2
start=$(date +%s)
# run_guest: one boot of the guest; sets qrc to qemu's exit code.
run_guest() {
	set +e
	(
		# Only one guest at a time on this machine.
		exec 9>/tmp/ib_srpt-vm.lock
		if ! flock -n 9; then
			echo "vm.sh: waiting for another test VM (/tmp/ib_srpt-vm.lock)" >&2
			flock 9
			echo "vm.sh: got the VM lock after $(( $(date +%s) - start ))s" >&2
		fi
		timeout -k 10 "$TIMEOUT" "${qemu[@]}" </dev/null >"$CONSOLE" 2>&1 &
		qpid=$!
		if [ "${VM_VERBOSE:-0}" = 1 ]; then
			tail -n +1 -f --pid=$qpid "$CONSOLE" &
		fi
		# make bench: the vCPU threads' host CPU time, for the guest to read.
		if [ "${VM_HOST_CPU:-0}" = 1 ]; then
			python3 -B "$TOP/tools/host-vcpu.py" $qpid "$LOGDIR/host-vcpu.txt" &
		fi
		# A guest that has its result but does not power off (a hung device
		# shutdown: ib_srp waiting for a dead channel, say) is stopped.
		while kill -0 $qpid 2>/dev/null; do
			if [ -s "$LOGDIR/rc" ]; then
				for _ in $(seq 60); do
					kill -0 $qpid 2>/dev/null || break
					sleep 0.5
				done
				if kill -0 $qpid 2>/dev/null; then
					echo "vm.sh: the guest did not power off 30 s after its result; stopped" >&2
					kill $qpid
				fi
				break
			fi
			sleep 1
		done
		wait $qpid
	)
	qrc=$?
	set -e
}

# What a kernel log must not show (the one list, tools/kernel-reports.sh),
# and whether qemu ran into $TIMEOUT.
# shellcheck source=tools/kernel-reports.sh
. "$TOP/tools/kernel-reports.sh"
bad=$KERNEL_REPORTS
timed_out() { [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; }

# A guest that dies before tools/guest-init.sh starts the scenario (none
# of our code has run: TCG occasionally trips over the kernel's int3 text
# patching while it boots, "Oops: int3" at 1.8 s) is booted once more;
# its console stays in console.boot-failed.log.  Anything after the
# scenario started counts as it is.
run_guest
if [ ! -s "$LOGDIR/rc" ] && ! grep -q 'guest: kernel .*, running ' "$CONSOLE" && ! timed_out; then
	mv "$CONSOLE" "$LOGDIR/console.boot-failed.log"
	echo "vm.sh: the guest died while booting, before the scenario started (qemu rc=$qrc):" >&2
	grep -m 3 -E "$bad" "$LOGDIR/console.boot-failed.log" >&2 ||
		tail -n 3 "$LOGDIR/console.boot-failed.log" >&2
	echo "vm.sh: booting it once more (first console: $LOGDIR/console.boot-failed.log)" >&2
	run_guest
fi
# Kernel reports logged while the guest booted, before the scenario
# started (the kmsg line guest-init writes), and none after: none of our
# code had run (TCG: KASAN "wild-memory-access in do_raw_spin_lock" from
# handle_edge_irq during identify_cpu at 0-6 s, debug kernel, 4 of the 28
# boots of one whole check-debug). Like a boot that died, the guest boots
# once more; the first console and kernel log stay in *.boot-report.log
# and are named here.
started='ib_srpt-test: scenario .* starts'
boot_reports_only() {
	local k=$LOGDIR/dmesg.txt
	[ -s "$k" ] && grep -q "$started" "$k" &&
		sed "/$started/q" "$k" | grep -qE "$bad" &&
		! sed "1,/$started/d" "$k" | grep -qE "$bad"
}
if boot_reports_only; then
	mv "$CONSOLE" "$LOGDIR/console.boot-report.log"
	mv "$LOGDIR/dmesg.txt" "$LOGDIR/dmesg.boot-report.log"
	rm -f "$LOGDIR/rc" "$LOGDIR/kmemleak.txt"
	echo "vm.sh: the kernel reported while booting, before the scenario started:" >&2
	grep -m 3 -E "$bad" "$LOGDIR/dmesg.boot-report.log" >&2
	echo "vm.sh: booting it once more (first console: $LOGDIR/console.boot-report.log)" >&2
	run_guest
fi
secs=$(( $(date +%s) - start ))

rc=
if [ -s "$LOGDIR/rc" ]; then
	rc=$(cat "$LOGDIR/rc")
else
	# Fall back to the marker line on the console.
	rc=$(sed -n 's/.*VM-RESULT: rc=\([0-9]*\).*/\1/p' "$CONSOLE" | tail -n1)
fi
if [ -z "$rc" ]; then
	if timed_out; then
		echo "vm.sh: TIMEOUT after ${TIMEOUT}s (guest hung?) - see $CONSOLE" >&2
	else
		echo "vm.sh: guest died without a result (qemu rc=$qrc) - see $CONSOLE" >&2
	fi
	tail -n 40 "$CONSOLE" >&2
	rc=125
fi

# Kernel log: the guest's dmesg dump, or the console when it has none (the
# console also carries the scenario's own output, so prefer dmesg).
klog=$LOGDIR/dmesg.txt
[ -s "$klog" ] || klog=$CONSOLE
if grep -E "$bad" "$klog" >"$LOGDIR/splats.txt" 2>/dev/null; then
	echo "vm.sh: kernel splat in the guest log:" >&2
	head -n 20 "$LOGDIR/splats.txt" >&2
	[ "$rc" = 0 ] && rc=126
else
	rm -f "$LOGDIR/splats.txt"
fi
# kmemleak (debug kernel): the guest scanned after the script.
if [ -s "$LOGDIR/kmemleak.txt" ]; then
	echo "vm.sh: kmemleak reports $(grep -c '^unreferenced object' "$LOGDIR/kmemleak.txt") leak(s):" >&2
	head -n 30 "$LOGDIR/kmemleak.txt" >&2
	[ "$rc" = 0 ] && rc=127
fi
echo "vm.sh: $SCRIPT_REL rc=$rc (${secs}s)" >&2
exit "$rc"
