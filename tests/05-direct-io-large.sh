#!/bin/bash
# (e) Large direct I/O (4 MiB and 8 MiB requests) with ib_srp
# cmd_sg_entries=1 (everything through memory registration) and =255 (big
# indirect descriptor tables), on one LUN of each backstore kind (ramdisk,
# fileio, block = iblock on a null_blk disk, which splits big commands into
# several bios), data verified: dd with page-aligned buffers, fio with
# 512-byte-aligned buffers (multi-page SG lists), without and with O_SYNC
# (the LUNs report a write cache, so O_SYNC means FUA writes).
. "$PROJECT/tools/guest-lib.sh"

KINDS=(ramdisk fileio block)
standard_setup big-ram:64M:ramdisk:wce big-file:64M:fileio:wce big-blk:64M:block:wce
# Two patterns, so that every write changes what is on the disk.
dd if=/dev/urandom of=/tmp/pat-4M bs=1M count=32 status=none
dd if=/dev/urandom of=/tmp/pat-8M bs=1M count=32 status=none

# With cmd_sg_entries=1 every command must fit one memory registration (one
# direct descriptor): ib_srp on rxe registers at most 512 pages per MR and
# does not limit max_sectors itself ("Could not fit S/G list into SRP_CMD"),
# so the SCSI commands are capped at 1 MiB there.  With 255 entries the host
# allows 8 MiB commands (several MRs -> indirect descriptor tables).
for sg in 1 255; do
	if [ $sg = 1 ]; then sect=2048; else sect=16384; fi
	out=$(srp_login "cmd_sg_entries=$sg,max_sect=$sect") ||
		fail "login with cmd_sg_entries=$sg failed"
	mapfile -t disks <<<"$out"
	[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks, got ${#disks[*]}"
	for dev in "${disks[@]}"; do
		q=/sys/block/${dev#/dev/}/queue
		cat "$q/max_hw_sectors_kb" >"$q/max_sectors_kb" 2>/dev/null
	done
	log "cmd_sg_entries=$sg: max_sectors_kb=$(cat "$q/max_sectors_kb") max_segments=$(cat "$q/max_segments")"
	for i in 0 1 2; do
		dev=${disks[i]}
		for bs in 4M 8M; do
			dd if="/tmp/pat-$bs" of="$dev" bs=$bs oflag=direct status=none ||
				fail "${KINDS[i]} $dev: write bs=$bs cmd_sg_entries=$sg"
			other=4M; [ $bs = 4M ] && other=8M
			dd if="$dev" of=/tmp/back bs=$other count=$((32 / ${other%M})) iflag=direct status=none ||
				fail "${KINDS[i]} $dev: read bs=$other cmd_sg_entries=$sg"
			cmp -s "/tmp/pat-$bs" /tmp/back ||
				fail "${KINDS[i]} $dev: $(bad_blocks "/tmp/pat-$bs" /tmp/back) bad 4 KiB blocks: write bs=$bs read bs=$other cmd_sg_entries=$sg"
		done
		log "${KINDS[i]} $dev: write bs=4M / read bs=8M and the reverse: 32 MiB ok"
	done
	# Unaligned buffer offsets force multi-element SG lists; per LUN one job
	# without and one with O_SYNC (FUA) on separate halves.
	args=(--ioengine=libaio --direct=1 --rw=write --bs=4M --iodepth=4
	      --size=16M --iomem_align=512 --verify=crc32c --randrepeat=0)
	for i in 0 1 2; do
		args+=(--name="${KINDS[i]}" --filename="${disks[i]}" --offset=32M --sync=0
		       --name="${KINDS[i]}-sync" --filename="${disks[i]}" --offset=48M --sync=1)
	done
	fio_verify "sg$sg" "${args[@]}" ||
		fail "fio 4M unaligned buffers cmd_sg_entries=$sg on ${KINDS[*]} LUNs ${disks[*]}: $FIO_BAD bad blocks ($(fio_bad_on "sg$sg" "${disks[@]}" | xargs))"
	srp_logout || fail "logout"
done
pass "4 MiB / 8 MiB direct I/O verified with cmd_sg_entries=1 and 255 on ramdisk, fileio and block LUNs"
