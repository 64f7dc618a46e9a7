#!/bin/bash
# (e) Large direct I/O (4 MiB and 8 MiB requests) with ib_srp
# cmd_sg_entries=1 (everything through memory registration) and =255 (big
# indirect descriptor tables), on one LUN of each backstore kind (ramdisk,
# fileio, block = iblock on a null_blk disk, which splits big commands into
# several bios), data verified: dd with page-aligned buffers, fio with
# 512-byte-aligned buffers (multi-page SG lists), without and with O_SYNC
# (the LUNs report a write cache, so O_SYNC means FUA writes).  Then fio
# through indirect tables the target has to fetch (ib_srp allow_ext_sg=1).
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

# Indirect tables in initiator memory: ib_srp with never_register=1 sends
# one descriptor per S/G element (global rkey); with cmd_sg_entries=4 and
# allow_ext_sg=1 it keeps the first 4 in the IU and the whole table in its
# memory, which the target reads before the data.  Without transparent
# huge pages, fio's buffers are scattered pages: up to 128 elements.  (The
# stock module refuses such commands: not run with STOCK=1.)
[ "$STOCK" = 1 ] &&
	pass "4 MiB / 8 MiB direct I/O verified with cmd_sg_entries=1 and 255 on ramdisk, fileio and block LUNs (stock: no external tables)"
rmmod ib_srp || fail "rmmod ib_srp"
ib_srp_load never_register=1
echo never >/sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
fetched0=$(srpt_event tables_fetched)
out=$(srp_login "cmd_sg_entries=4,allow_ext_sg=1,sg_tablesize=128,max_sect=1024") ||
	fail "login with allow_ext_sg=1 failed"
mapfile -t disks <<<"$out"
q=/sys/block/${disks[0]#/dev/}/queue
log "allow_ext_sg=1 cmd_sg_entries=4: max_sectors_kb=$(cat "$q/max_sectors_kb") max_segments=$(cat "$q/max_segments")"
args=(--ioengine=libaio --direct=1 --rw=randwrite --bsrange=4k-512k --iodepth=8
      --size=16M --iomem_align=512 --verify=crc32c --randrepeat=0)
for i in 0 1 2; do
	args+=(--name="${KINDS[i]}" --filename="${disks[i]}" --offset=32M)
done
fio_verify ext "${args[@]}" ||
	fail "fio through external indirect tables on ${KINDS[*]} LUNs ${disks[*]}: $FIO_BAD bad blocks ($(fio_bad_on ext "${disks[@]}" | xargs))"
fetched=$(( $(srpt_event tables_fetched) - fetched0 ))
[ "$fetched" -gt 0 ] || fail "fio ran, but the target fetched no indirect table (ib_srp kept every list inline)"
log "allow_ext_sg=1: fio verified on ${KINDS[*]}; the target fetched $fetched indirect tables"
srp_logout || fail "logout"
# Each table's bytes are counted while the command holds it: with nobody
# logged in the figure is 0 again (it went negative when a table's free
# took the length of the data transfer after it).
resources_free || fail "resources held with nobody logged in after $fetched tables: $(tr '\n' ' ' <"$RES")"
pass "4 MiB / 8 MiB direct I/O verified with cmd_sg_entries=1 and 255, and through $fetched external indirect tables (allow_ext_sg=1), on ramdisk, fileio and block LUNs"
