#!/bin/bash
# (a) Log in with ib_srp over RDMA/CM with ch_count=1 and ch_count=2, write
# and read back data on one LUN of each backstore kind (ramdisk, fileio and
# block = iblock on a null_blk disk), log out, and check that the disks and
# the SCSI host go away again each time.  The read-back (verify_io) uses
# 64 KiB writes (RDMA READ by the target) and 4 KiB writes (immediate data,
# carried inside the SRP_CMD): a block device still reads a write buffer
# after the command was handed to it, ramdisk and fileio copy it at once.
. "$PROJECT/tools/guest-lib.sh"

KINDS=(ramdisk fileio block)
standard_setup disk-ram:32M:ramdisk disk-file:32M:fileio disk-blk:32M:block

for ch in 1 2 1; do
	log "--- login with ch_count=$ch"
	out=$(srp_login "ch_count=$ch") || fail "login with ch_count=$ch failed"
	mapfile -t disks <<<"$out"
	[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks, got ${#disks[*]}"
	host=$(srp_hosts | head -n1)
	got=$(cat "/sys/class/scsi_host/$host/ch_count" 2>/dev/null)
	[ "$got" = "$ch" ] || fail "ib_srp reports ch_count=$got, wanted $ch"
	for i in 0 1 2; do
		verify_io "${disks[i]}" ||
			fail "${KINDS[i]} LUN ${disks[i]}: 2 MiB write/read-back failed (ch_count=$ch)"
		log "${KINDS[i]} LUN ${disks[i]}: 2 MiB read back intact"
	done
	srp_logout || fail "logout (ch_count=$ch) did not remove the SCSI host"
	[ -z "$(srp_disks)" ] || fail "disk still present after logout"
	for d in "${disks[@]}"; do
		[ ! -e "$d" ] || log "note: $d node still exists (devtmpfs lag)"
	done
	log "logged out"
done
pass "login/logout with ch_count=1,2,1; ramdisk, fileio and block LUNs read back intact"
