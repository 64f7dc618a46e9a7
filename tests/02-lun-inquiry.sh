#!/bin/bash
# (b) Two LUNs of different sizes: the initiator sees both with the exact
# capacity, and INQUIRY reports vendor LIO-ORG and the backstore name as
# product.
. "$PROJECT/tools/guest-lib.sh"

standard_setup alpha:64M beta:24M:fileio
out=$(srp_login) || fail "login failed"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 2 ] || fail "expected 2 disks, got ${#disks[@]}: ${disks[*]}"
lsscsi

check() { # dev name bytes
	local dev=$1 name=$2 want=$3 size inq vendor product
	size=$(blockdev --getsize64 "$dev") || fail "blockdev $dev"
	[ "$size" = "$want" ] || fail "$dev ($name): size $size, expected $want"
	inq=$(sg_inq "$dev") || fail "sg_inq $dev"
	vendor=$(echo "$inq" | sed -n 's/^ *Vendor identification: *//p' | xargs)
	product=$(echo "$inq" | sed -n 's/^ *Product identification: *//p' | xargs)
	[ "$vendor" = LIO-ORG ] || fail "$dev: vendor '$vendor', expected LIO-ORG"
	[ "$product" = "$name" ] || fail "$dev: product '$product', expected '$name'"
	sg_inq -p 0x83 "$dev" >/tmp/vpd83 || fail "$dev: no device identification VPD page"
	grep -qi "naa" /tmp/vpd83 || fail "$dev: no NAA designator in VPD 0x83"
	log "$dev: $size bytes, '$vendor' '$product'"
}
check "${disks[0]}" alpha $((64 << 20))
check "${disks[1]}" beta $((24 << 20))
sg_readcap "${disks[0]}" | sed 's/^/  /'
srp_logout || fail "logout"
pass "2 LUNs with the right sizes and INQUIRY data"
