#!/bin/bash
# PID 1 of the test guest (after switch_root into the overlay of the host
# root).  Sets up the usual mounts, runs the job described in
# /mnt/results/job.env, stores its exit code and dmesg in /mnt/results and
# powers off.  Started by the initramfs built by tools/mkinitramfs.sh.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
RESULTS=/mnt/results
PROJECT=/mnt/project
export PROJECT RESULTS

mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=000 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/lock /run/dbus
modprobe configfs 2>/dev/null
mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
ln -sfn /proc/self/fd /dev/fd
ln -sfn /proc/self/fd/0 /dev/stdin
ln -sfn /proc/self/fd/1 /dev/stdout
ln -sfn /proc/self/fd/2 /dev/stderr
hostname srpt-vm
ip link set lo up
# No udev in the guest: let the kernel create device nodes (devtmpfs) and
# keep /etc/mtab sane for mount/mkfs tools.
ln -sfn /proc/self/mounts /etc/mtab
echo 1 >/proc/sys/kernel/printk_ratelimit 2>/dev/null

SCRIPT=
SRPT_SRCVERSION=none
SRPT_SRCVERSION_ALSO=
STOCK=0
TRANSPORT=rxe
USE_SRQ=0
SETUP_TARGETCLI=0
MODDIR=
KMODROOT=
GUEST_TIMEOUT=840
ARGS=()
# shellcheck disable=SC1091
. "$RESULTS/job.env"
export STOCK TRANSPORT USE_SRQ SETUP_TARGETCLI MODDIR SRPT_SRCVERSION
# A kernel that is not installed on the host (the debug kernel) brings its
# module tree along; the overlay makes the link writable for our modules.
if [ -n "$KMODROOT" ] && [ ! -e "/lib/modules/$(uname -r)" ]; then
	ln -s "$KMODROOT" "/lib/modules/$(uname -r)"
fi
# kmemleak: forget what boot left behind; scanned after the script.
KMEMLEAK=/sys/kernel/debug/kmemleak
[ -w $KMEMLEAK ] && echo clear >$KMEMLEAK

# tools/vm.sh takes this line for "the scenario started".
echo "guest: kernel $(uname -r), running $SCRIPT ${ARGS[*]} (stock=$STOCK, transport=$TRANSPORT, use_srq=$USE_SRQ)"
# In the kernel log too: tools/vm.sh tells reports of the boot from the
# scenario's by it.
echo "ib_srpt-test: scenario $SCRIPT starts" >/dev/kmsg
# Which ib_srpt builds the scenario loads, however it loads them (modprobe,
# insmod, targetctl restore, dkms): /sys/module/ib_srpt/srcversion, polled
# every 0.2 s with builtins only (under fio a fork costs ~0.3 s here), one
# line a load; Debian's module has no srcversion ("none").  A module loaded
# and unloaded again within 0.2 s goes unseen.
LOADED=/run/ib_srpt-loaded
srpt_watch() {
	local v last='' fd
	exec {fd}<> <(:)
	while :; do
		v=
		if [ -d /sys/module/ib_srpt ]; then
			read -r v </sys/module/ib_srpt/srcversion 2>/dev/null || v=none
		fi
		if [ "$v" != "$last" ]; then
			[ -n "$v" ] && echo "$v" >>$LOADED
			last=$v
		fi
		read -r -t 0.2 -u "$fd" _
	done
}
: >$LOADED
srpt_watch &
watch_pid=$!

cd /tmp || exit 1
start=$(date +%s)
bash "$PROJECT/$SCRIPT" "${ARGS[@]}" </dev/null &
pid=$!
# Watchdog: a scenario stuck in the kernel (D state) cannot be killed, so do
# not wait for it forever: dump the blocked tasks, what every CPU runs and
# every process with where it waits (a scenario stuck without a blocked
# task: a loop, or a wait in the kernel that is interruptible), and give up.
while kill -0 $pid 2>/dev/null; do
	if [ $(( $(date +%s) - start )) -ge "$GUEST_TIMEOUT" ]; then
		echo "guest: TIMEOUT - $SCRIPT still running after ${GUEST_TIMEOUT}s"
		echo w >/proc/sysrq-trigger
		echo l >/proc/sysrq-trigger
		ps -eo pid,ppid,stat,wchan:32,etimes,args | awk '$NF !~ /^\[.*\]$/' | cut -c1-200
		kill -9 $pid 2>/dev/null
		break
	fi
	sleep 1
done
if kill -0 $pid 2>/dev/null; then
	rc=124
else
	wait $pid
	rc=$?
fi
echo "guest: $SCRIPT finished rc=$rc after $(( $(date +%s) - start ))s"
kill $watch_pid 2>/dev/null

# Every ib_srpt the scenario loaded is the module under test (tools/vm.sh:
# SRPT_SRCVERSION; none = Debian's), or one it names in
# SRPT_SRCVERSION_ALSO (make bench BASE=); else the run fails.
while read -r n v; do
	case " $SRPT_SRCVERSION none $SRPT_SRCVERSION_ALSO " in
	*" $v "*) echo "guest: ib_srpt loaded ${n}x: srcversion $v$([ "$v" = "$SRPT_SRCVERSION" ] && echo " (the module under test)")" ;;
	*)
		echo "guest: ib_srpt loaded ${n}x: srcversion $v, NOT the module under test ($SRPT_SRCVERSION)"
		[ "$rc" = 0 ] && rc=3 ;;
	esac
done < <(sort $LOADED | uniq -c)
[ -s $LOADED ] || echo "guest: ib_srpt not loaded"

if [ -w $KMEMLEAK ]; then
	# Objects younger than 5 s are not reported; two scans settle it.
	sleep 6
	echo scan >$KMEMLEAK; echo scan >$KMEMLEAK
	cat $KMEMLEAK >"$RESULTS/kmemleak.txt"
	echo "guest: kmemleak: $(grep -c '^unreferenced object' "$RESULTS/kmemleak.txt") report(s)"
fi
sync
dmesg >"$RESULTS/dmesg.txt" 2>&1
echo "$rc" >"$RESULTS/rc"
sync
echo "VM-RESULT: rc=$rc"
poweroff -f
sleep 10
echo o >/proc/sysrq-trigger
