#!/bin/bash
# (d) A file system round trip on one LUN of each backstore kind (ramdisk,
# fileio, block = iblock on a null_blk disk), all with a volatile write
# cache so that XFS's log flushes and FUA writes reach the backstore:
# mkfs.xfs, mount, copy files (buffered), add a file written with 1 MiB
# O_DIRECT writes and one with 4 KiB O_SYNC writes, umount, log out, log in
# again, mount and compare sha256 sums, then xfs_repair -n.
. "$PROJECT/tools/guest-lib.sh"

KINDS=(ramdisk fileio block)
# XFS needs >= 300 MB; fileio is a sparse file on the guest's tmpfs,
# null_blk only allocates what is written, ramdisk allocates it all.
standard_setup xfs-ram:320M:ramdisk:wce xfs-file:320M:fileio:wce xfs-blk:320M:block:wce
out=$(srp_login) || fail "login failed"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks, got ${#disks[*]}"

mkdir -p /tmp/src/sub
dd if=/dev/urandom of=/tmp/src/big.bin bs=1M count=24 status=none
for i in $(seq 1 50); do head -c $((RANDOM * 3 + i)) /dev/urandom >"/tmp/src/sub/f$i"; done
cp -a /usr/share/doc/fio /tmp/src/ 2>/dev/null
dd if=/dev/urandom of=/tmp/direct.bin bs=1M count=8 status=none
dd if=/dev/urandom of=/tmp/sync.bin bs=4k count=256 status=none
(cd /tmp/src && find . -type f -print0 | sort -z | xargs -0 sha256sum) >/tmp/sums
(cd /tmp && sha256sum direct.bin sync.bin) >>/tmp/sums
log "$(wc -l </tmp/sums) files, $(du -sh /tmp/src | cut -f1) + 8 MiB O_DIRECT + 1 MiB O_SYNC"

for i in 0 1 2; do
	dev=${disks[i]} mnt=/mnt/srp-${KINDS[i]}
	run mkfs.xfs -q -f "$dev"
	mkdir -p "$mnt"
	run mount "$dev" "$mnt"
	run cp -a /tmp/src/. "$mnt/"
	run dd if=/tmp/direct.bin of="$mnt/direct.bin" bs=1M oflag=direct status=none
	run dd if=/tmp/sync.bin of="$mnt/sync.bin" bs=4k oflag=sync status=none
	run umount "$mnt"
	log "${KINDS[i]} LUN $dev: files written"
done
srp_logout || fail "logout"

out=$(srp_login) || fail "second login failed"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks after the second login, got ${#disks[*]}"
echo 3 >/proc/sys/vm/drop_caches
failed=()
for i in 0 1 2; do
	dev=${disks[i]} mnt=/mnt/srp-${KINDS[i]}
	run mount "$dev" "$mnt"
	bad=$(cd "$mnt" && sha256sum --quiet -c /tmp/sums 2>&1 | tee /tmp/sha.out | grep -c ": FAILED")
	[ "$bad" = 0 ] || { sed 's/^/  /' /tmp/sha.out | head -n 10
		failed+=("${KINDS[i]} LUN $dev: $bad of $(wc -l </tmp/sums) files differ"); }
	run umount "$mnt"
	if ! xfs_repair -n "$dev" >/tmp/repair.out 2>&1; then
		head -n 20 /tmp/repair.out
		failed+=("${KINDS[i]} LUN $dev: xfs_repair -n found problems")
	fi
	log "${KINDS[i]} LUN $dev: checked"
done
srp_logout || fail "logout"
[ ${#failed[@]} -eq 0 ] || fail "$(printf '%s; ' "${failed[@]}")"
pass "xfs files (buffered, O_DIRECT, O_SYNC) survive umount + logout/login + remount on ramdisk, fileio and block LUNs"
