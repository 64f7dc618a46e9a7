#!/bin/bash
# Run the SRP target scenarios, one test VM each (tools/vm.sh).
#
#   tests/run.sh [--stock] [--siw] [--srq] [--kver 6.12|6.1] [--debug] [--long]
#                [NAME...]
#
# NAME selects scenarios by substring (e.g. "03" or "xfs").  With --stock (or
# STOCK=1) Debian's own ib_srpt is tested instead of ./ib_srpt.ko; scenarios
# with a "# stock: skip <reason>" line are then reported as skipped (and
# "# ours: skip <reason>" the other way round).  With --siw (or
# TRANSPORT=siw) the guests use soft-iWARP instead of soft-RoCE (siw.ko from
# tools/build-siw.sh); "# siw: skip <reason>" skips a scenario there.
# With --debug the guests run the debug kernel (make modules-debug; KASAN,
# lockdep, kmemleak: any report fails the scenario) and get 7.5 times the
# time; "# release: skip <reason>" marks a scenario that runs there only
# (it needs fault injection), "# debug: skip <reason>" one that does not run
# there; "# default: skip <reason>" one that runs only when NAME selects
# it.  "# long: <reason>" marks a long stress scenario, left out of the
# default run (it would not fit CI's time on a slow machine): it runs when
# NAME selects it, and --long (make check-long) runs all of them.  With
# --srq (or USE_SRQ=1) the target port's TPG has use_srq=1: its channels
# receive through the device's shared receive queue.
# Logs: build/logs/<name>[-stock][-siw][-<kver>|-debug][-srq]/.
# Ends with "N passed, N failed[, N skipped]"; exit 1 if anything failed.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STOCK=${STOCK:-0}
TRANSPORT=${TRANSPORT:-rxe}
vmargs=()
filters=()
LONG=0
while [ $# -gt 0 ]; do
	case $1 in
	--stock) STOCK=1; shift ;;
	--siw) TRANSPORT=siw; shift ;;
	--srq) USE_SRQ=1; shift ;;
	--kver) vmargs+=(--kver "$2"); shift 2 ;;
	--debug) vmargs+=(--debug); DEBUG=1; shift ;;
	--long) LONG=1; shift ;;
	-h|--help) sed -n '2,25p' "$0"; exit 0 ;;
	*) filters+=("$1"); shift ;;
	esac
done
[ "$STOCK" = 1 ] && vmargs+=(--stock)
USE_SRQ=${USE_SRQ:-0}
export STOCK TRANSPORT USE_SRQ
# A scenario takes 0.5-2 min in the VM; a hung one is killed after this
# (480 s, or what its "# timeout: <seconds>" line says; 7.5 times that on
# the debug kernel).  VM_TIMEOUT set by the caller wins.
USER_TIMEOUT=${VM_TIMEOUT:-}
vm_timeout() {
	local t
	t=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$1" | head -n1)
	t=${t:-480}
	[ "${DEBUG:-0}" = 1 ] && t=$(( t * 15 / 2 ))
	echo "${USER_TIMEOUT:-$t}"
}

if [ "$STOCK" != 1 ] && [ ! -f "$TOP/ib_srpt.ko" ]; then
	echo "run.sh: $TOP/ib_srpt.ko not built (run make, or use --stock)" >&2
fi

passed=0 failed=0 skipped=0
results=()
t_all=$(date +%s)
for t in "$TOP"/tests/[0-9][0-9]-*.sh; do
	name=$(basename "$t" .sh)
	if [ ${#filters[@]} -gt 0 ]; then
		sel=
		for f in "${filters[@]}"; do [[ $name == *"$f"* ]] && sel=1; done
		[ -n "$sel" ] || continue
	fi
	long=$(sed -n 's/^# long: *//p' "$t" | head -n1)
	[ "$LONG" = 1 ] && [ -z "$long" ] && continue
	if [ "$STOCK" = 1 ]; then
		why=$(sed -n 's/^# stock: skip *//p' "$t" | head -n1)
	else
		why=$(sed -n 's/^# ours: skip *//p' "$t" | head -n1)
	fi
	if [ -z "$why" ] && [ "$TRANSPORT" = siw ]; then
		why=$(sed -n 's/^# siw: skip *//p' "$t" | head -n1)
	fi
	if [ -z "$why" ] && [ "${DEBUG:-0}" != 1 ]; then
		why=$(sed -n 's/^# release: skip *//p' "$t" | head -n1)
	elif [ -z "$why" ]; then
		why=$(sed -n 's/^# debug: skip *//p' "$t" | head -n1)
	fi
	# "# default: skip <reason>": only when named (a long one, with a
	# make target of its own).
	if [ -z "$why" ] && [ ${#filters[@]} -eq 0 ]; then
		why=$(sed -n 's/^# default: skip *//p' "$t" | head -n1)
	fi
	if [ -z "$why" ] && [ -n "$long" ] && [ ${#filters[@]} -eq 0 ] && [ "$LONG" != 1 ]; then
		why="long: $long; make check-long"
	fi
	if [ -n "$why" ]; then
		echo "SKIP $name ($why)"
		results+=("SKIP $name")
		skipped=$((skipped + 1))
		continue
	fi
	echo "=== $name"
	t0=$(date +%s)
	out=$(VM_TIMEOUT=$(vm_timeout "$t") "$TOP/tools/vm.sh" "${vmargs[@]}" "$t" 2>&1)
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	logdir=$(echo "$out" | sed -n 's/.* logs in \(.*\)$/\1/p' | head -n1)
	# The guest script's own verdict lines plus the harness' findings.
	grep -hE '^(PASS|FAIL):' "$logdir/console.log" 2>/dev/null | sed 's/^/  /'
	echo "$out" | grep -E 'splat|TIMEOUT|died|WARNING|BUG|Oops|blocked' | sed 's/^/  /'
	if [ $rc = 0 ]; then
		echo "PASS $name (${secs}s)"
		results+=("PASS $name ${secs}s")
		passed=$((passed + 1))
	else
		echo "FAIL $name (rc=$rc, ${secs}s) - logs: $logdir"
		grep -Ev '^\[ *[0-9]+\.[0-9]+\]' "$logdir/console.log" 2>/dev/null | tail -n 25 | sed 's/^/  | /'
		results+=("FAIL $name ${secs}s")
		failed=$((failed + 1))
	fi
done
echo "--- $( [ "$STOCK" = 1 ] && echo "stock ib_srpt" || echo "our ib_srpt") on $TRANSPORT$( [ "$USE_SRQ" = 1 ] && echo ", use_srq=1"), total $(( $(date +%s) - t_all ))s"
printf '%s\n' "${results[@]}"
line="$passed passed, $failed failed"
[ $skipped -gt 0 ] && line+=", $skipped skipped"
echo "$line"
[ $failed = 0 ]
