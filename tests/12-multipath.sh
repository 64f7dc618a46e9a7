#!/bin/bash
# dm-multipath over two SRP logins, as an admin makes an SRP LUN survive the
# loss of a path: the same initiator logs in twice, told apart by
# initiator_ext (ib_srp refuses a second login with the same id_ext,
# ioc_guid and initiator_ext; each port ID needs its own ACL).  Both paths
# must show the same LUNs (identical VPD 0x83 device identification and
# 0x80 serial).  A dm "multipath" table (round-robin over both paths, no
# multipathd) is built with dmsetup on two block LUNs (iblock on null_blk
# disks with a write cache): one carries ext4, the other is used raw.
#
# Each round writes with 4 MiB O_DIRECT and 4 MiB buffered writes (then
# fsync) and 4 KiB O_SYNC writes (FUA), raw and through files on ext4, and
# reads everything back with O_DIRECT - from the disk, not the page cache.
# One round with both paths up (both must carry writes); then rounds keep
# running while path B and then path A are logged out (SRP remote port
# deleted: in-flight and new I/O must fail over without an error reaching
# the application), logged in again and put back into the tables.  At the
# end e2fsck -n is clean and every byte still matches.
# long: two paths logged out and in under ext4 and raw I/O, 6 minutes on a slow machine
. "$PROJECT/tools/guest-lib.sh"

# No udev in the guest: libdevmapper makes the /dev/mapper nodes itself.
export DM_DISABLE_UDEV=1
EXT_A=0000000000000000 EXT_B=0000000000000001
MNT=/mnt/mp

setup_transport		# sets INI_PORT_ID = EXT_A || INI_PORT_GUID
load_target mp-fs:128M:block:wce mp-raw:64M:block:wce acl:"$INI_PORT_ID" acl:"$EXT_B$INI_PORT_GUID"
modprobe -a dm_multipath dm_round_robin || fail "modprobe dm_multipath dm_round_robin"

# host_disk HOST LUN: /dev/sdX of LUN behind ib_srp SCSI host HOST.
host_disk() {
	local d
	for d in /sys/class/scsi_device/"${1#host}":*:*:"$2"/device/block/*; do
		[ -e "$d" ] && echo "/dev/${d##*/}" && return 0
	done
	return 1
}
devno() { cat "/sys/class/block/${1#/dev/}/dev"; }
# writes_done DEV: writes completed by DEV so far.
writes_done() { awk '{ print $5 }' "/sys/class/block/${1#/dev/}/stat"; }

# login_path NAME EXT [OPTS]: log in with initiator_ext EXT; sets
# HOST_<NAME> and the path's disks DISK_<NAME>_0/1.
login_path() {
	local name=$1 ext=$2 opts=${3:+,$3} before h new=
	before=$(srp_hosts)
	SRP_EXPECT=$(( $(srp_disks | wc -l) + 2 )) srp_login "initiator_ext=$ext$opts" >/dev/null ||
		fail "login of path $name (initiator_ext=$ext) failed"
	for h in $(srp_hosts "$before"); do
		new=$h
	done
	[ -n "$new" ] || fail "no new SCSI host for path $name"
	printf -v "HOST_$name" %s "$new"
	printf -v "DISK_${name}_0" %s "$(host_disk "$new" 0)"
	printf -v "DISK_${name}_1" %s "$(host_disk "$new" 1)"
	local d0="DISK_${name}_0" d1="DISK_${name}_1"
	{ [ -b "${!d0}" ] && [ -b "${!d1}" ]; } || fail "path $name: no disks behind $new"
	log "path $name: $new (initiator_ext=$ext), LUN 0 ${!d0}, LUN 1 ${!d1}"
}

# logout_path NAME: delete the SRP remote port of a path, wait for its host
# to go away.
logout_path() {
	local host=HOST_$1
	echo 1 >"/sys/class/srp_remote_ports/port-${!host#host}:1/delete" ||
		fail "cannot delete the remote port of path $1"
	wait_for 60 sh -c "! test -e /sys/class/scsi_host/${!host}" ||
		fail "SCSI host ${!host} of path $1 still there"
	log "path $1 (${!host}) logged out"
}

# mp_load NAME LUN [create]: load the multipath table of LUN over paths A
# and B: round-robin, one request per path in turn.
mp_load() {
	local name=$1 lun=$2 a b table
	a=DISK_A_$lun b=DISK_B_$lun
	table="0 $(blockdev --getsz "${!a}") multipath 0 0 1 1 round-robin 0 2 1 $(devno "${!a}") 1 $(devno "${!b}") 1"
	if [ "${3:-}" = create ]; then
		dmsetup create "$name" --table "$table" || fail "dmsetup create $name: $table"
	else
		{ dmsetup reload "$name" --table "$table" && dmsetup resume "$name"; } ||
			fail "dmsetup reload $name: $table"
	fi
	log "$name: $table"
}
# mp_paths NAME STATE: number of paths of NAME in state A (active) or F.
mp_paths() { dmsetup status "$1" | grep -oE "[0-9]+:[0-9]+ $2" | wc -l; }

# The workloads.  Every function writes fresh random data and reads it back
# with O_DIRECT; a mismatch logs the number of bad 4 KiB blocks.
check_back() { # WHAT PATTERN FILE-OR-DEV SKIP(4 KiB blocks)
	local n
	n=$(( $(stat -c %s "$2") / 4096 ))
	dd if="$3" of="$2.back" bs=4k skip="$4" count="$n" iflag=direct status=none ||
		{ log "$1: read-back failed"; return 1; }
	cmp -s "$2" "$2.back" && return 0
	log "$1: $(bad_blocks "$2" "$2.back") of $n 4 KiB blocks read back wrong"
	return 1
}
pattern() { dd if=/dev/urandom of="$1" bs="$2" count="$3" status=none; }

# raw: [0,16M) 4 MiB O_DIRECT (fio), [16M,32M) 4 MiB buffered + fsync,
# [32M,36M) 4 KiB O_DIRECT|O_SYNC random (fio), [48M,49M) 4 KiB O_SYNC
# buffered.
raw_round() {
	local dev=/dev/mapper/mpraw r=$1
	fio_verify "raw-direct-$r" --name=direct --filename=$dev --rw=write --bs=4M \
		--direct=1 --ioengine=libaio --iodepth=4 --offset=0 --size=16M \
		--verify=crc32c --randrepeat=0 || return 1
	pattern /tmp/raw-buf.pat 4M 4
	dd if=/tmp/raw-buf.pat of=$dev bs=4M seek=4 conv=fsync,notrunc status=none ||
		{ log "raw 4 MiB buffered write failed"; return 1; }
	check_back "raw 4 MiB buffered" /tmp/raw-buf.pat $dev 4096 || return 1
	fio_verify "raw-sync-$r" --name=sync --filename=$dev --rw=randwrite --bs=4k \
		--direct=1 --sync=1 --ioengine=libaio --iodepth=16 --offset=32M --size=4M \
		--verify=crc32c --randrepeat=0 || return 1
	pattern /tmp/raw-sync.pat 4k 256
	dd if=/tmp/raw-sync.pat of=$dev bs=4k seek=$((48 * 256)) oflag=sync conv=notrunc status=none ||
		{ log "raw 4 KiB O_SYNC write failed"; return 1; }
	check_back "raw 4 KiB O_SYNC buffered" /tmp/raw-sync.pat $dev $((48 * 256))
}

# ext4: an 8 MiB file with 4 MiB O_DIRECT writes, one with 4 MiB buffered
# writes + fsync, one with 4 KiB O_SYNC writes.
fs_write() {
	pattern /tmp/fs-direct.pat 4M 2
	pattern /tmp/fs-buf.pat 4M 2
	pattern /tmp/fs-sync.pat 4k 128
	dd if=/tmp/fs-direct.pat of=$MNT/direct.bin bs=4M oflag=direct status=none ||
		{ log "ext4 4 MiB O_DIRECT write failed"; return 1; }
	dd if=/tmp/fs-buf.pat of=$MNT/buffered.bin bs=4M conv=fsync status=none ||
		{ log "ext4 4 MiB buffered write failed"; return 1; }
	dd if=/tmp/fs-sync.pat of=$MNT/sync.bin bs=4k oflag=sync status=none ||
		{ log "ext4 4 KiB O_SYNC write failed"; return 1; }
}
fs_check() {
	check_back "ext4 4 MiB O_DIRECT file" /tmp/fs-direct.pat $MNT/direct.bin 0 &&
		check_back "ext4 4 MiB buffered file" /tmp/fs-buf.pat $MNT/buffered.bin 0 &&
		check_back "ext4 4 KiB O_SYNC file" /tmp/fs-sync.pat $MNT/sync.bin 0
}
fs_round() { fs_write && fs_check; }

# loop_rounds FUNC: run rounds of FUNC until /tmp/stop exists; the verdict
# goes to /tmp/FUNC.status.
loop_rounds() {
	local n=0
	while [ ! -e /tmp/stop ]; do
		n=$((n + 1))
		"$1" "$n" || { echo "FAIL in round $n" >"/tmp/$1.status"; return 1; }
	done
	echo "OK, $n rounds" >"/tmp/$1.status"
}

# --- two paths to the same LUNs
login_path A $EXT_A
login_path B $EXT_B ch_count=2
for lun in 0 1; do
	a=DISK_A_$lun b=DISK_B_$lun
	for page in 0x83 0x80; do
		va=$(sg_vpd -p $page -r "${!a}" | od -An -tx1 | tr -d ' \n')
		vb=$(sg_vpd -p $page -r "${!b}" | od -An -tx1 | tr -d ' \n')
		[ -n "$va" ] || fail "LUN $lun: no VPD page $page on ${!a}"
		[ "$va" = "$vb" ] || fail "LUN $lun: VPD page $page differs between ${!a} ($va) and ${!b} ($vb)"
	done
	log "LUN $lun: ${!a} and ${!b} have the same VPD 0x83 and 0x80"
done
[ "$(sg_vpd -p 0x83 -r "$DISK_A_0" | md5sum)" != "$(sg_vpd -p 0x83 -r "$DISK_A_1" | md5sum)" ] ||
	fail "LUN 0 and LUN 1 have the same VPD 0x83: the check cannot tell LUNs apart"

mp_load mpfs 0 create
mp_load mpraw 1 create
for m in mpfs mpraw; do
	[ "$(mp_paths $m A)" = 2 ] || fail "$m: not 2 active paths: $(dmsetup status $m)"
done
# --- one round with both paths up; both must carry writes
wa=$(writes_done "$DISK_A_1") wb=$(writes_done "$DISK_B_1")
raw_round 0 || fail "raw I/O over both paths corrupted data"
wa=$(( $(writes_done "$DISK_A_1") - wa )) wb=$(( $(writes_done "$DISK_B_1") - wb ))
log "raw LUN writes: path A $wa, path B $wb"
{ [ "$wa" -gt 0 ] && [ "$wb" -gt 0 ]; } || fail "round-robin did not use both paths (A $wa, B $wb writes)"
run mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 /dev/mapper/mpfs
mkdir -p $MNT
run mount /dev/mapper/mpfs $MNT
fs_round 0 || fail "ext4 I/O over both paths corrupted data"

# --- rounds keep running while each path in turn goes away and comes back
rm -f /tmp/stop /tmp/raw_round.status /tmp/fs_round.status
loop_rounds raw_round &
raw_pid=$!
loop_rounds fs_round &
fs_pid=$!
for p in B A; do
	sleep 4
	logout_path $p
	sleep 4
	for m in mpfs mpraw; do
		log "$m with path $p gone: $(mp_paths $m A) active, $(mp_paths $m F) failed path(s)"
	done
	ext=EXT_$p opts=
	[ $p = B ] && opts=ch_count=2
	login_path $p "${!ext}" $opts
	mp_load mpfs 0
	mp_load mpraw 1
	for m in mpfs mpraw; do
		[ "$(mp_paths $m A)" = 2 ] || fail "$m: not 2 active paths after path $p came back: $(dmsetup status $m)"
	done
	d=DISK_${p}_1
	w0=$(writes_done "${!d}")
	wait_for 30 sh -c "[ \$(awk '{ print \$5 }' /sys/class/block/${!d#/dev/}/stat) -gt $w0 ]" ||
		fail "path $p (${!d}) gets no writes after it came back"
	log "path $p is back in the tables and carries writes"
done
# The rounds under way finish (and verify) before the loops stop.
touch /tmp/stop
wait $raw_pid
raw_rc=$?
wait $fs_pid
fs_rc=$?
log "raw rounds: $(cat /tmp/raw_round.status), ext4 rounds: $(cat /tmp/fs_round.status)"
[ $raw_rc = 0 ] || fail "raw I/O during the path changes: $(cat /tmp/raw_round.status)"
[ $fs_rc = 0 ] || fail "ext4 I/O during the path changes: $(cat /tmp/fs_round.status)"

# --- everything still there after umount, with e2fsck
run umount $MNT
e2fsck -fn /dev/mapper/mpfs >/tmp/fsck.out 2>&1 || { cat /tmp/fsck.out; fail "e2fsck -fn found problems"; }
run mount /dev/mapper/mpfs $MNT
echo 3 >/proc/sys/vm/drop_caches
fs_check || fail "ext4 files differ after umount/mount"
check_back "raw 4 MiB buffered" /tmp/raw-buf.pat /dev/mapper/mpraw 4096 ||
	fail "raw 4 MiB buffered data differs at the end"
check_back "raw 4 KiB O_SYNC buffered" /tmp/raw-sync.pat /dev/mapper/mpraw $((48 * 256)) ||
	fail "raw 4 KiB O_SYNC data differs at the end"
run umount $MNT
run dmsetup remove mpfs
run dmsetup remove mpraw
srp_logout || fail "logout"
pass "dm-multipath over 2 SRP logins (same VPD 0x83/0x80): 4 MiB direct/buffered and 4 KiB O_SYNC writes, raw and on ext4, intact across logout/login of each path"
