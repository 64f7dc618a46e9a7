#!/bin/bash
# The soak of `make soak HOURS=N` (not a scenario of make check): for N
# hours (fractions allowed) the fault rig of tests/20 - ib_srp with two
# channels on ramdisk, fileio, block and dm LUNs - goes through rounds of
#   1. the wire fuzzer (build/srp-fuzz, CHUNK cases from seed SEED + round)
#      on a LUN of its own while fio verifies on all four LUNs;
#   2. one fault (tests/20's, then on a kernel with fault injection
#      tests/21's, in turn) under fio, with all of run_fault's checks;
#   3. a kmemleak scan (debug kernel).
# Any failure ends it.  The last line is the summary:
#   soak: <hours> h, <rounds> rounds, <cases> fuzz cases, <faults> faults,
#   <I/Os> I/Os, <errors> errors, <reports> reports
# (errors: failed checks; reports: kmemleak objects and kernel splats).
# Arguments: HOURS=N (default 1), SEED=S (default 1), CHUNK=N (default
# 1000), FAULTS=a,b (default: all there are).
# stock: skip the fuzzer oopses the stock module (see 10-hostile-initiator)
. "$PROJECT/tools/guest-lib.sh"
. "$PROJECT/tools/fault-lib.sh"

HOURS=1 SEED=1 CHUNK=1000 FAULTS=
scenario_args "HOURS SEED CHUNK FAULTS" "$@"
if [ -z "$FAULTS" ]; then
	FAULTS=$ALL_FAULTS
	injection_available && FAULTS+=,$INJECTED_FAULTS
fi
FUZZ=$PROJECT/build/srp-fuzz
[ -x "$FUZZ" ] || fail "$FUZZ missing: build it on the host first (make tools)"
FUZZ_IU_ID=000000000000004f0002c903c11e0001
FUZZ_LOGIN_ID=000000000000005f0002c903c11e0001
EXTRA_ACL_IDS=("$FUZZ_IU_ID" "$FUZZ_LOGIN_ID")
KMEMLEAK=/sys/kernel/debug/kmemleak

ROUNDS=0 CASES=0 NFAULTS=0 ERRORS=0 LEAKS=0 T_START=$(date +%s)
summary() {
	local splats
	splats=$(klog_splats 2>/dev/null | wc -l)
	echo "soak: $(awk -v s=$(($(date +%s) - T_START)) 'BEGIN { printf "%.2f", s / 3600 }') h, $ROUNDS rounds, $CASES fuzz cases, $NFAULTS faults, $IOS I/Os, $ERRORS errors, $((LEAKS + splats)) reports"
}
# kmemleak_scan: objects kmemleak finds unreferenced now (0 without it).
kmemleak_scan() {
	[ -w $KMEMLEAK ] || { echo 0; return; }
	echo scan >$KMEMLEAK
	grep -c '^unreferenced object' $KMEMLEAK
}
# fuzz_round N: CHUNK fuzzer cases (seed SEED + N) under verified fio.
fuzz_round() {
	local out=/tmp/fuzz-$1.out sum
	FAULT="fuzz #$1"
	STRICT=(0 1 2 3) LOOSE=()
	io_start
	"$FUZZ" --dest "$TGT_IP:$SRP_PORT" --id-ext "$ID_EXT" --ioc-guid "$IOC_GUID" \
		--initiator-id $FUZZ_IU_ID --login-id $FUZZ_LOGIN_ID --forbid-id "$INI_PORT_ID" \
		--lun "$FUZZ_LUN" --max-req-size "$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)" \
		--timeout 15 --seed $((SEED + $1)) --cases "$CHUNK" >"$out" 2>&1
	local frc=$?
	io_stop
	sum=$(grep '^srp-fuzz: seed' "$out")
	if [ "$frc" != 0 ] || [ -z "$sum" ]; then
		grep -E '^(UNEXPECTED|  replay|srp-fuzz)' "$out" | head -n 20 | sed 's/^/  | /'
		cp "$out" "$RESULTS/"
		fail "$FAULT: srp-fuzz rc=$frc: ${sum:-no summary}"
	fi
	CASES=$((CASES + CHUNK))
	log "FUZZ $FAULT: $sum; fio: $IO_SUM"
}

RIG_FUZZ_LUN=1 fault_rig_setup
# A failed check ends the soak (fail exits 1): that is its one error.
trap '[ $? = 0 ] || ERRORS=1; klog_save; summary' EXIT
mapfile -t faults < <(tr , '\n' <<<"$FAULTS")
end=$(awk -v t="$T_START" -v h="$HOURS" 'BEGIN { printf "%d", t + h * 3600 }')
# At least one round: the rig's setup may take longer than a short HOURS.
while [ "$ROUNDS" = 0 ] || [ "$(date +%s)" -lt "$end" ]; do
	ROUNDS=$((ROUNDS + 1))
	fuzz_round $ROUNDS
	run_fault "${faults[(ROUNDS - 1) % ${#faults[@]}]}" $ROUNDS
	NFAULTS=$((NFAULTS + 1))
	LEAKS=$(kmemleak_scan)
	[ "$LEAKS" = 0 ] || { head -n 40 $KMEMLEAK; fail "round $ROUNDS: kmemleak reports $LEAKS object(s)"; }
	log "round $ROUNDS done: $(summary)"
done
fault_rig_teardown
pass "$(summary)"
