#!/bin/bash
# (h) A READ beyond the last LBA ends with CHECK CONDITION, sense key
# ILLEGAL REQUEST, ASC/ASCQ 0x21/0x00 (LOGICAL BLOCK ADDRESS OUT OF RANGE);
# reading the last block itself works.
# shellcheck disable=SC2046  # $(hex32 N) is meant to split into CDB bytes
. "$PROJECT/tools/guest-lib.sh"

standard_setup edge:8M
dev=$(srp_login) || fail "login failed"
blocks=$(( $(blockdev --getsize64 "$dev") / 512 ))
last=$((blocks - 1))
log "$dev: $blocks blocks of 512 bytes"

hex32() { printf '%02x %02x %02x %02x' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255)); }

# sg_raw CDB...: returns the sense decode in $out
raw() { out=$(sg_raw -v -r 4096 "$dev" "$@" 2>&1); rc=$?; }

expect_lba_oor() { # description, cdb...
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

raw 28 00 $(hex32 $last) 00 00 01 00
[ $rc = 0 ] || { echo "$out"; fail "READ(10) of the last block failed"; }
log "READ(10) of LBA $last ok"

expect_lba_oor "READ(10) at LBA $blocks" 28 00 $(hex32 $blocks) 00 00 01 00
expect_lba_oor "READ(10) LBA $last len 2 (crosses end)" 28 00 $(hex32 $last) 00 00 02 00
expect_lba_oor "READ(16) at LBA $blocks" 88 00 00 00 00 00 $(hex32 $blocks) 00 00 00 01 00 00
expect_lba_oor "READ(10) at LBA 0xffffffff" 28 00 ff ff ff ff 00 00 01 00

# sg_dd the usual way too: the kernel reports the I/O error.
if dd if="$dev" of=/dev/null bs=512 skip=$blocks count=1 iflag=direct status=none 2>/dev/null; then
	log "dd past the end returns EOF (block layer clamps), fine"
fi
srp_logout || fail "logout"
pass "out-of-range READs get ILLEGAL REQUEST / LBA OUT OF RANGE"
