#!/bin/bash
# (h) Past the end of a LUN.  A READ beyond the last LBA (sg_raw: READ(10)
# and READ(16) at the first LBA past it, one crossing it, one at
# 0xffffffff) ends with CHECK CONDITION, sense key ILLEGAL REQUEST,
# ASC/ASCQ 0x21/0x00 (LOGICAL BLOCK ADDRESS OUT OF RANGE); reading the last
# block itself works.
#
# Then the LUN shrinks under the logged-in initiator, as when an admin
# shrinks the volume behind it: the LUN is iblock on a dm-linear device
# (over null_blk) whose table is reloaded at half the size.  LIO asks the
# block device for its size on every command; the initiator keeps the size
# it read at login (checked), so its disk now reaches past the LUN's end.
# dd through that disk with O_DIRECT past the new end - a READ of the first
# block past it, and a 2-block WRITE that straddles it - must fail (exit
# status not 0), sd must log sense key ILLEGAL REQUEST and ASC "Logical
# block address out of range" for each, and the refused WRITE must leave
# the last valid block as it was, read back through the initiator's disk
# and on the target's dm device.  (A dd past the end of the size the
# initiator knows would not reach the target at all: the block layer ends
# it at that size.)
# shellcheck disable=SC2046  # $(hex32 N) is meant to split into CDB bytes
. "$PROJECT/tools/guest-lib.sh"

setup_transport
load_target "acl:$INI_PORT_ID"
make_dm_lun edge 8M
dev=$(srp_login) || fail "login failed"
blocks=$(( $(blockdev --getsize64 "$dev") / 512 ))
last=$((blocks - 1))
log "$dev: $blocks blocks of 512 bytes"

hex32() { printf '%02x %02x %02x %02x' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255)); }

# raw BLOCKS CDB...: sg_raw of a READ of BLOCKS blocks (the data length the
# CDB asks for: LIO's iblock would transfer a larger buffer as it is, past
# the LUN's end); the output with the sense decode in $out.
raw() {
	local n=$1
	shift
	out=$(sg_raw -v -r $((512 * n)) "$dev" "$@" 2>&1)
	rc=$?
}

expect_lba_oor() { # description, blocks, cdb...
	local what=$1
	shift
	raw "$@"
	echo "$out" | sed 's/^/    /'
	echo "$out" | grep -qi "check condition" || fail "$what: no CHECK CONDITION (rc=$rc)"
	echo "$out" | grep -qi "illegal request" || fail "$what: sense key is not ILLEGAL REQUEST"
	echo "$out" | grep -qi "logical block address out of range" ||
		fail "$what: ASC is not 0x21 (LBA out of range)"
	log "$what: CHECK CONDITION / ILLEGAL REQUEST / LBA out of range - ok"
}

raw 1 28 00 $(hex32 $last) 00 00 01 00
[ $rc = 0 ] || { echo "$out"; fail "READ(10) of the last block failed"; }
log "READ(10) of LBA $last ok"

expect_lba_oor "READ(10) at LBA $blocks" 1 28 00 $(hex32 $blocks) 00 00 01 00
expect_lba_oor "READ(10) LBA $last len 2 (crosses end)" 2 28 00 $(hex32 $last) 00 00 02 00
expect_lba_oor "READ(16) at LBA $blocks" 1 88 00 00 00 00 00 $(hex32 $blocks) 00 00 00 01 00 00
expect_lba_oor "READ(10) at LBA 0xffffffff" 1 28 00 ff ff ff ff 00 00 01 00

# --- the LUN shrinks to half under the initiator
new=$((blocks / 2))
# The block that stays the last one gets known data first.
head -c 512 /dev/urandom >/tmp/last.blk
dd if=/tmp/last.blk of="$dev" bs=512 seek=$((new - 1)) count=1 oflag=direct status=none ||
	fail "write of LBA $((new - 1))"
dm_reload edge "${DM_TABLE/ $DM_SECTORS linear / $new linear }" ||
	fail "dm table of edge reloaded at $new sectors"
[ "$(blockdev --getsz /dev/mapper/edge)" = "$new" ] ||
	fail "/dev/mapper/edge has $(blockdev --getsz /dev/mapper/edge) sectors, not $new"
[ "$(blockdev --getsz "$dev")" = "$blocks" ] ||
	fail "the initiator's $dev changed its size to $(blockdev --getsz "$dev") blocks: nothing left past the end"
log "edge shrunk to $new blocks; $dev still has $blocks"

sd=${dev#/dev/}
# sd_logged TEXT: kernel log lines of sd for this disk with TEXT.
sd_logged() { dmesg | grep -c "\[$sd\] .*$1"; }
SK='Sense Key : Illegal Request'
ASC='Add. Sense: Logical block address out of range'
# shellcheck disable=SC2317  # called through wait_for
sense_logged() { [ "$(sd_logged "$SK")" -gt "$1" ] && [ "$(sd_logged "$ASC")" -gt "$2" ]; }
# past_end WHAT DD-ARGS...: dd through the disk past the new end fails and
# sd logs ILLEGAL REQUEST / LOGICAL BLOCK ADDRESS OUT OF RANGE once more.
past_end() {
	local what=$1 sk asc
	shift
	sk=$(sd_logged "$SK") asc=$(sd_logged "$ASC")
	dd "$@" status=none 2>/tmp/dd.err && fail "$what past the new end: dd succeeded"
	wait_for 10 sense_logged "$sk" "$asc" ||
		fail "$what past the new end: sd logged no '$SK' / '$ASC': $(dmesg | grep "\[$sd\]" | tail -n 4)"
	log "$what past the new end: dd failed ($(head -n1 /tmp/dd.err)); sd: $(dmesg | grep "\[$sd\] .*Add. Sense" | tail -n1 | sed 's/.*Add. Sense/Add. Sense/')"
}
past_end "READ of LBA $new" if="$dev" of=/dev/null bs=512 skip="$new" count=1 iflag=direct
head -c 1024 /dev/urandom >/tmp/two.blk
past_end "WRITE of LBA $((new - 1))..$new" if=/tmp/two.blk of="$dev" bs=1024 \
	seek=$(((new - 1) * 512)) count=1 oflag=direct,seek_bytes
dd if="$dev" of=/tmp/back.blk bs=512 skip=$((new - 1)) count=1 iflag=direct status=none ||
	fail "read of the last valid block LBA $((new - 1)) through $dev"
cmp -s /tmp/last.blk /tmp/back.blk ||
	fail "the refused WRITE changed the last valid block (LBA $((new - 1))), read through $dev"
dd if=/dev/mapper/edge of=/tmp/back.blk bs=512 skip=$((new - 1)) count=1 iflag=direct status=none ||
	fail "read of sector $((new - 1)) of /dev/mapper/edge"
cmp -s /tmp/last.blk /tmp/back.blk ||
	fail "the refused WRITE changed the last valid block (sector $((new - 1)) of /dev/mapper/edge)"
log "the last valid block LBA $((new - 1)) unchanged after the refused WRITE"
srp_logout || fail "logout"
pass "out-of-range READs get ILLEGAL REQUEST / LBA OUT OF RANGE; on a LUN shrunk under the initiator dd past its end fails with that sense and writes nothing"
