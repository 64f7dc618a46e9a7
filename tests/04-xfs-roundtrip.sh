#!/bin/bash
# (d) mkfs.xfs on an SRP disk, mount, copy files, then umount, log out, log
# in again, mount and compare sha256 sums.
. "$PROJECT/tools/guest-lib.sh"

standard_setup xfsdisk:400M:fileio
dev=$(srp_login) || fail "login failed"
run mkfs.xfs -q -f "$dev"
mkdir -p /mnt/srp
run mount "$dev" /mnt/srp

mkdir -p /tmp/src/sub
dd if=/dev/urandom of=/tmp/src/big.bin bs=1M count=24 status=none
for i in $(seq 1 50); do head -c $((RANDOM * 3 + i)) /dev/urandom >"/tmp/src/sub/f$i"; done
cp -a /usr/share/doc/fio /tmp/src/ 2>/dev/null
(cd /tmp/src && find . -type f -print0 | sort -z | xargs -0 sha256sum) >/tmp/sums
log "$(wc -l </tmp/sums) files, $(du -sh /tmp/src | cut -f1)"
run cp -a /tmp/src/. /mnt/srp/
run umount /mnt/srp
srp_logout || fail "logout"

dev=$(srp_login) || fail "second login failed"
echo 3 >/proc/sys/vm/drop_caches
run mount "$dev" /mnt/srp
(cd /mnt/srp && sha256sum --quiet -c /tmp/sums) || fail "sha256 mismatch after remount"
run umount /mnt/srp
xfs_repair -n "$dev" >/tmp/repair.out 2>&1 || { cat /tmp/repair.out; fail "xfs_repair -n found problems"; }
srp_logout || fail "logout"
pass "xfs files survive umount + logout/login + remount (sha256 equal)"
