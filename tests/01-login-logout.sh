#!/bin/bash
# (a) Log in with ib_srp over RDMA/CM with ch_count=1 and ch_count=2, do a
# little I/O on the disk, log out, and check that the disk and the SCSI host
# go away again each time.
. "$PROJECT/tools/guest-lib.sh"

standard_setup disk0:32M

for ch in 1 2 1; do
	log "--- login with ch_count=$ch"
	disks=$(srp_login "ch_count=$ch") || fail "login with ch_count=$ch failed"
	dev=$(echo "$disks" | head -n1)
	log "disk: $dev"
	host=$(srp_hosts | head -n1)
	got=$(cat "/sys/class/scsi_host/$host/ch_count" 2>/dev/null)
	[ "$got" = "$ch" ] || fail "ib_srp reports ch_count=$got, wanted $ch"
	verify_io "$dev" || fail "1 MiB write/read-back failed (ch_count=$ch)"
	srp_logout || fail "logout (ch_count=$ch) did not remove the SCSI host"
	[ -z "$(srp_disks)" ] || fail "disk still present after logout"
	[ ! -e "$dev" ] || log "note: $dev node still exists (devtmpfs lag)"
	log "logged out"
done
pass "login/logout with ch_count=1,2,1 and 1 MiB read-back"
