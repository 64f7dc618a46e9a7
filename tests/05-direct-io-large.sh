#!/bin/bash
# (e) Large direct I/O (4 MiB and 8 MiB requests) with ib_srp
# cmd_sg_entries=1 (everything through memory registration) and =255 (big
# indirect descriptor tables), data verified.
. "$PROJECT/tools/guest-lib.sh"

standard_setup big:96M
dd if=/dev/urandom of=/tmp/pat bs=1M count=32 status=none

# With cmd_sg_entries=1 every command must fit one memory registration (one
# direct descriptor): ib_srp on rxe registers at most 512 pages per MR and
# does not limit max_sectors itself ("Could not fit S/G list into SRP_CMD"),
# so the SCSI commands are capped at 1 MiB there.  With 255 entries the host
# allows 8 MiB commands (several MRs -> indirect descriptor tables).
for sg in 1 255; do
	if [ $sg = 1 ]; then sect=2048; else sect=16384; fi
	dev=$(srp_login "cmd_sg_entries=$sg,max_sect=$sect") ||
		fail "login with cmd_sg_entries=$sg failed"
	q=/sys/block/${dev#/dev/}/queue
	cat "$q/max_hw_sectors_kb" >"$q/max_sectors_kb" 2>/dev/null
	log "cmd_sg_entries=$sg: $dev max_sectors_kb=$(cat "$q/max_sectors_kb") max_segments=$(cat "$q/max_segments")"
	for bs in 4M 8M; do
		dd if=/dev/zero of="$dev" bs=1M count=64 oflag=direct status=none
		dd if=/tmp/pat of="$dev" bs=$bs oflag=direct status=none ||
			fail "write bs=$bs cmd_sg_entries=$sg"
		other=4M; [ $bs = 4M ] && other=8M
		dd if="$dev" of=/tmp/back bs=$other count=$((32 / ${other%M})) iflag=direct status=none ||
			fail "read bs=$other cmd_sg_entries=$sg"
		cmp /tmp/pat /tmp/back || fail "data mismatch: write bs=$bs read bs=$other cmd_sg_entries=$sg"
		log "write bs=$bs / read bs=$other: 32 MiB ok"
	done
	# Unaligned buffer offsets force multi-element SG lists.
	fio --name=sg --filename="$dev" --ioengine=libaio --direct=1 --rw=write \
		--bs=4M --iodepth=4 --size=32M --iomem_align=512 --verify=crc32c \
		--verify_fatal=1 --eta=never --output=/tmp/fio.out || { cat /tmp/fio.out; fail "fio 4M unaligned cmd_sg_entries=$sg"; }
	srp_logout || fail "logout"
done
pass "4 MiB / 8 MiB direct I/O verified with cmd_sg_entries=1 and 255"
