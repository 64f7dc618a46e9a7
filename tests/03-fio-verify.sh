#!/bin/bash
# (c) fio writes with verification on one LUN of each backstore kind:
# ramdisk, fileio and block (iblock on a null_blk disk).  The kinds differ in
# when they read the write buffer the target hands them: ramdisk and fileio
# copy it while the command runs, a block device reads it later (DMA) and
# wants it aligned - a target that frees, reuses or misaligns the buffer too
# early corrupts data on block LUNs only.  All LUNs report a volatile write
# cache, so --sync=1 (O_SYNC) writes arrive as FUA writes.
#
# 1. The workload that found such a bug: ib_srp with one channel and 32
#    credits, 4 fio jobs x iodepth 64 of 4 KiB random writes (immediate
#    data, and more commands than credits), md5 verify, 8 MiB a job (not
#    a time: a slow kernel would end the run before its verify phase read
#    anything); per kind, without and with --sync=1.
# 2. Block sizes 512 B..1 MiB (immediate data and RDMA), queue depth 32, two
#    channels, crc32c verify interleaved with the writes; all kinds at once,
#    page-aligned buffers without --sync=1, 512-byte-aligned buffers (several
#    pages per small write) with it.
# Every block read back must match, and every fio job must have verified.
# core:
. "$PROJECT/tools/guest-lib.sh"

KINDS=(ramdisk fileio block)
standard_setup ram:64M:ramdisk:wce file:64M:fileio:wce blk:64M:block:wce
failed=()

# --- 1. the bug workload
out=$(srp_login "ch_count=1,queue_size=32,max_cmd_per_lun=32,max_sect=131072") ||
	fail "login failed"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks, got ${#disks[*]}"
for i in 0 1 2; do
	wc=$(cat "/sys/block/${disks[i]#/dev/}/queue/write_cache")
	[ "$wc" = "write back" ] || fail "${KINDS[i]} LUN ${disks[i]}: write cache '$wc', wanted 'write back'"
done
for i in 0 1 2; do
	for sync in 0 1; do
		what="${KINDS[i]} ${disks[i]} 4k randwrite qd64x4 sync=$sync"
		if fio_verify "small-${KINDS[i]}-sync$sync" --name=small \
			--filename="${disks[i]}" --verify=md5 --rw=randwrite --bs=4k \
			--iodepth=64 --numjobs=4 --direct=1 --ioengine=libaio \
			--size=8M --offset_increment=16M \
			--sync="$sync" --randrepeat=0; then
			log "ok: $what"
		else
			failed+=("$what: $FIO_BAD bad blocks")
		fi
	done
done
srp_logout || fail "logout"

# --- 2. 512 B..1 MiB on all kinds at once, two channels
out=$(srp_login "ch_count=2") || fail "second login failed"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 3 ] || fail "expected 3 disks, got ${#disks[*]}"
{
	cat <<-EOT
	[global]
	ioengine=libaio
	direct=1
	iodepth=32
	rw=randwrite
	bssplit=512/10:4k/30:16k/20:64k/20:256k/15:1m/5
	blockalign=512
	size=24M
	verify=crc32c
	verify_backlog=64
	do_verify=1
	randrepeat=0
	EOT
	for i in 0 1 2; do
		cat <<-EOT
		[${KINDS[i]}]
		filename=${disks[i]}
		offset=0
		sync=0

		[${KINDS[i]}-sync]
		filename=${disks[i]}
		offset=32M
		sync=1
		iomem_align=512
		EOT
	done
} >/tmp/bssplit.fio
if fio_verify bssplit /tmp/bssplit.fio; then
	log "ok: 512B..1MiB randwrite qd32 on ${disks[*]}, sync=0 and 1"
else
	for i in 0 1 2; do
		bad=$(fio_bad_on bssplit "${disks[i]}")
		[ -z "$bad" ] || failed+=("${KINDS[i]} 512B..1MiB randwrite: $bad")
	done
	[ "$FIO_BAD" != 0 ] || failed+=("512B..1MiB randwrite: fio failed (see above)")
fi
srp_logout || fail "logout"

[ ${#failed[@]} -eq 0 ] || fail "data corrupted: $(printf '%s; ' "${failed[@]}")"
pass "fio verify on ramdisk, fileio and block LUNs: 4k qd64x4 over 32 credits and 512B..1MiB, with and without O_SYNC"
