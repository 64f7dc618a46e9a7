#!/bin/bash
# (c) fio random read/write with crc32c verification on 2 LUNs, block sizes
# from 512 B to 1 MiB, queue depth 32.
. "$PROJECT/tools/guest-lib.sh"

standard_setup lun0:48M lun1:48M
out=$(srp_login "ch_count=2") || fail "login failed"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 2 ] || fail "expected 2 disks, got ${#disks[*]}"

cat >/tmp/verify.fio <<EOT
[global]
ioengine=libaio
direct=1
iodepth=32
rw=randrw
rwmixread=30
bssplit=512/10:4k/30:16k/20:64k/20:256k/15:1m/5
blockalign=512
size=40M
verify=crc32c
verify_fatal=1
do_verify=1
randrepeat=0
group_reporting=0

[lun0]
filename=${disks[0]}

[lun1]
filename=${disks[1]}
EOT
log "fio on ${disks[*]}"
fio --eta=never --output=/tmp/fio.out /tmp/verify.fio
rc=$?
cat /tmp/fio.out
[ $rc = 0 ] || fail "fio exited $rc"
grep -q "err= 0" /tmp/fio.out || fail "fio reported errors"
grep -qi "verify: bad\|crc32c: verify failed\|bad magic" /tmp/fio.out && fail "verification failure"
srp_logout || fail "logout"
pass "fio randrw 512B..1MiB qd32 with crc32c verify on 2 LUNs"
