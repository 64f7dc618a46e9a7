#!/bin/bash
# The SRP wire fuzzed while ib_srp does verified I/O: no reaction outside
# what the protocol allows, no error for the real initiator.
#
# ib_srp (two channels) runs fio with crc32c verification on a ramdisk, a
# fileio and a block LUN (iblock on null_blk) throughout, in rounds that
# each write 16 MiB a LUN (4 MiB on the debug kernel) and must verify it
# without an error.  Meanwhile
#   - build/srp-fuzz (tools/srp-fuzz.c, srp-fuzz-iu.c) sends CASES seeded
#     cases (SEED): RDMA/CM logins with random fields, truncated or zeroed,
#     login floods, and on a reused channel malformed SRP_CMDs (IU lengths,
#     buffer formats, descriptor counts, indirect tables that disagree,
#     data lengths past the MR, additional CDB lengths past the IU, bogus
#     addresses and rkeys), unknown IU types, task management, reused tags,
#     IUs after SRP_I_LOGOUT and beyond the credit limit; each case checks
#     the target's reaction against the set the rules allow (reject,
#     error response, disconnect); SCSI commands go to a LUN of its own,
#     with liveness probes (TUR + verified write/read on a fresh channel);
#   - then IBCM_CASES IB CM logins with random fields from the same seed
#     and rules (srp-fuzz --ibcm-plan), made by tools/ibcm-test: each
#     answered as planned (LOGIN_RSP + TUR + DREQ, SRP_LOGIN_REJ with an
#     allowed reason, or CM REJ for an unknown service ID).
# Afterwards a fresh raw login writes and reads back, ib_srp logs in again
# and verifies once more, and the kernel log has no splat.  Every fuzzer
# failure prints its case and a replay line (srp-fuzz --seed S --only K).
#
# Arguments: CASES=N (default 300: a short pass of every kind of case
# that fits CI's time on a slow machine) SEED=S (default 1) IBCM_CASES=N
# (default 10); `make fuzz-long CASES=N [SEED=S]` runs a longer pass.
# stock: skip Debian's ib_srpt oopses on malformed SRP_CMDs (see 10-hostile-initiator)
# siw: skip the IB CM part needs the IB CM (iWARP has none)
. "$PROJECT/tools/guest-lib.sh"
. "$PROJECT/tools/ibcm-test/ibcm-lib.sh"

CASES=300
SEED=1
IBCM_CASES=10
scenario_args "CASES SEED IBCM_CASES" "$@"

FUZZ=$PROJECT/build/srp-fuzz
# I_T nexuses of the fuzzer (not ib_srp's): the IU channel, the login
# cases and probes, the IB CM logins.
IU_ID=000000000000001f0002c903c11e0001
LOGIN_ID=000000000000002f0002c903c11e0001
IBCM_ID=000000000000003f0002c903c11e0001
[ -x "$FUZZ" ] || fail "$FUZZ missing: build it on the host first (make tools)"

klog_start
standard_setup ram:64M:ramdisk:wce file:64M:fileio:wce blk:64M:block:wce fuzz:64M:ramdisk \
	acl:$IU_ID acl:$LOGIN_ID acl:$IBCM_ID
FUZZ_LUN=3
raw_client_setup
MAX_REQ=$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)
# On the shared receive queue (tests/run.sh --srq) the target grants
# immediate data only at the offset the SRQ's buffers are laid out for.
IMM=()
[ "${USE_SRQ:-0}" = 1 ] && IMM=(--imm-offset 68)

out=$(SRP_EXPECT=4 srp_login "ch_count=2") || fail "ib_srp login"
mapfile -t disks <<<"$out"
[ ${#disks[@]} -eq 4 ] || fail "expected 4 disks, got ${#disks[*]}"
log "ib_srp: ${disks[*]} (the last is the fuzzer's LUN $FUZZ_LUN, not used by fio)"

# fio in rounds until /tmp/stop: every round must verify.  A round is
# bound by size, not time: when ib_srp's channels stall (a reconnect on a
# slow guest), the round waits for them and still verifies all it wrote,
# where a 20 s round had jobs that never reached verify_backlog.  The
# debug kernel (kmemleak) writes about 0.2 MB/s here: 4 MiB a LUN there.
ROUND_SIZE=16M
[ -e /sys/kernel/debug/kmemleak ] && ROUND_SIZE=4M
{
	cat <<-EOT
	[global]
	ioengine=libaio
	direct=1
	iodepth=16
	rw=randwrite
	bssplit=512/10:4k/50:64k/30:256k/10
	size=$ROUND_SIZE
	verify=crc32c
	verify_backlog=32
	do_verify=1
	randrepeat=0
	EOT
	for i in 0 1 2; do printf '[d%s]\nfilename=%s\n' "$i" "${disks[i]}"; done
} >/tmp/io.fio
fio_rounds() {
	local n=0 bad=0
	while [ ! -e /tmp/stop ]; do
		n=$((n + 1))
		fio_verify "round$n" /tmp/io.fio || bad=$((bad + 1))
	done
	echo "$n $bad" >/tmp/fio-rounds
}
rm -f /tmp/stop /tmp/fio-rounds
fio_rounds &
FIO_PID=$!

# --- the RDMA/CM fuzzer
# How busy the guest's CPUs are meanwhile (fuzzer, target, fio together):
# jiffies busy / all, from the "cpu" line of /proc/stat.
cpu_jiffies() { awk '$1 == "cpu" { b = $2 + $3 + $4 + $7 + $8 + $9; print b, b + $5 + $6 }' /proc/stat; }
read -r busy0 all0 < <(cpu_jiffies)
t0=$(date +%s)
"$FUZZ" --dest "$TGT_IP:$SRP_PORT" --id-ext "$ID_EXT" --ioc-guid "$IOC_GUID" \
	--initiator-id $IU_ID --login-id $LOGIN_ID --forbid-id "$INI_PORT_ID" \
	--lun $FUZZ_LUN --max-req-size "$MAX_REQ" "${IMM[@]}" --timeout 15 \
	--seed "$SEED" --cases "$CASES" >/tmp/fuzz.out 2>&1
frc=$?
t1=$(date +%s)
read -r busy1 all1 < <(cpu_jiffies)
grep -E '^(UNEXPECTED|  replay|srp-fuzz)' /tmp/fuzz.out | head -n 40 | sed 's/^/  | /'
summary=$(grep '^srp-fuzz: seed' /tmp/fuzz.out)
[ -n "$summary" ] || { tail -n 20 /tmp/fuzz.out; fail "srp-fuzz ended without a summary (rc=$frc)"; }
[ "$frc" = 0 ] || fail "srp-fuzz: unexpected reactions (rc=$frc): $summary"
log "$summary; $(awk -v n="$CASES" -v s=$((t1 - t0)) -v b=$((busy1 - busy0)) -v a=$((all1 - all0)) \
	'BEGIN { printf "%.1f cases/s, guest CPUs %.0f%% busy", n / (s ? s : 1), a ? 100 * b / a : 0 }')"

# --- IB CM logins from the same seed
ibcm_load
ibcm_fuzz() {
	local k opts re what r n=0
	while IFS=$'\t' read -r k opts re what; do
		# shellcheck disable=SC2086  # opts are words
		r=$(ibcm_login $opts)
		[[ $r =~ $re ]] || { log "IB CM case $k ($what): $opts"; fail "IB CM case $k: '$r', expected /$re/"; }
		if [[ $r == LOGIN_RSP* ]]; then
			r=$(ibcm tur lun=$FUZZ_LUN)
			[[ $r =~ ^RSP\ status=0x0[02] ]] || fail "IB CM case $k: TUR '$r'"
			r=$(ibcm dreq)
			[[ $r == DISCONNECTED* ]] || fail "IB CM case $k: dreq '$r'"
		fi
		ibcm close >/dev/null
		n=$((n + 1))
	done < <("$FUZZ" --ibcm-plan --seed "$SEED" --cases "$IBCM_CASES" \
		--login-id $IBCM_ID --initiator-id $IU_ID --forbid-id "$INI_PORT_ID" \
		--id-ext "$ID_EXT" --ioc-guid "$IOC_GUID" --max-req-size "$MAX_REQ" "${IMM[@]}")
	[ "$n" = "$IBCM_CASES" ] || fail "IB CM: $n of $IBCM_CASES cases ran"
	log "IB CM: $n logins answered as planned"
}
ibcm_fuzz
ibcm_unload

# --- fio stops; every round verified
touch /tmp/stop
wait_gone 600 $FIO_PID || fail "fio still running 600 s after the stop"
read -r rounds bad </tmp/fio-rounds
[ "$bad" = 0 ] || fail "ib_srp I/O: $bad of $rounds fio rounds failed verification"
[ "$rounds" -ge 1 ] || fail "no fio round ran"
log "ib_srp: $rounds fio rounds verified during the fuzzing"

# --- the target is still in shape
raw_client $LOGIN_ID --lun $FUZZ_LUN --timeout 30 login-ok write-read-direct >/tmp/raw.out 2>&1 ||
	{ cat /tmp/raw.out; fail "a fresh raw login after the fuzzing"; }
srp_logout || fail "ib_srp logout"
out=$(SRP_EXPECT=4 srp_login) || fail "ib_srp login after the fuzzing"
mapfile -t disks <<<"$out"
fio_verify final --name=final --filename="${disks[0]}:${disks[2]}" --verify=crc32c \
	--rw=randwrite --bs=4k --iodepth=16 --direct=1 --ioengine=libaio --size=8M \
	--randrepeat=0 || fail "fio verify after the fuzzing"
srp_logout || fail "ib_srp logout"
# Nobody is logged in now: the target holds nothing, and no figure went
# below 0 (the soak found table_bytes at -22976 after indirect tables).
[ -r "$RES" ] || fail "cannot read $RES: the resources left after logout go unchecked"
resources_free || fail "resources held with nobody logged in: $(tr '\n' ' ' <"$RES")"
log "logged out, $(srpt_event tables_fetched) indirect tables fetched: every resources figure 0"
splats=$(klog_splats)
[ -z "$splats" ] || { echo "$splats" | head -n 20; fail "kernel splats during the fuzzing"; }
pass "$summary; IB CM $IBCM_CASES logins; $rounds fio rounds verified"
