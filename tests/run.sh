#!/bin/bash
# Run the SRP target scenarios, one test VM each (tools/vm.sh).
#
#   tests/run.sh [--stock] [--siw] [--srq] [--kver 6.12|6.1] [--debug]
#                [--long | --core | --check] [NAME...]
#
# NAME selects scenarios by substring (e.g. "03" or "xfs").  The module under
# test is build/ko/<release>/ib_srpt.ko, which run.sh builds first (make
# modules-6.12 or modules-6.1, and make tools); each scenario prints its
# file and srcversion and the srcversion of every ib_srpt the guest loaded.
# With --stock (or
# STOCK=1) Debian's own ib_srpt is tested instead of ours; scenarios
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
# receive through the device's shared receive queue.  "# core: [NAME=VALUE
# ...]" marks the core set that --core runs (long or not, with those
# arguments): make check runs it on Debian 12's 6.1 kernel after the
# default set on 6.12 (--check); make check-6.1 runs every scenario on 6.1.
# Logs: build/logs/<name>[-stock][-siw][-<kver>|-debug][-srq]/.
# Ends with "N passed, N failed[, N skipped]"; exit 1 if anything failed.
set -uo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
STOCK=${STOCK:-0}
TRANSPORT=${TRANSPORT:-rxe}
KVER=6.12
vmargs=()
filters=()
LONG=0 CORE=0 CHECK=0
while [ $# -gt 0 ]; do
	case $1 in
	--stock) STOCK=1; shift ;;
	--siw) TRANSPORT=siw; shift ;;
	--srq) USE_SRQ=1; shift ;;
	--kver) KVER=$2; shift 2 ;;
	--debug) KVER=debug; DEBUG=1; shift ;;
	--long) LONG=1; shift ;;
	--core) CORE=1; shift ;;
	--check) CHECK=1; shift ;;
	-h|--help) sed -n '2,32p' "$0"; exit 0 ;;
	*) filters+=("$1"); shift ;;
	esac
done
[ "$STOCK" = 1 ] && vmargs+=(--stock)
[ "$KVER" = debug ] && [ "${DEBUG:-0}" != 1 ] && DEBUG=1
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

# build KVER: what the guests of that kernel run: the raw initiators and
# the IB CM test module (make tools), and unless --stock the module under
# test, build/ko/<release>/ib_srpt.ko (make modules-6.12 / modules-6.1; the
# debug kernel's by make modules-debug, which make check-debug runs).
# tools/vm.sh refuses a module that is not the tree's build.
build() {
	local targets=(tools)
	[ "$STOCK" != 1 ] && [ "${DEBUG:-0}" != 1 ] && targets+=("modules-$1")
	echo "run.sh: make ${targets[*]}"
	make -s -C "$TOP" "${targets[@]}" >/dev/null ||
		{ echo "run.sh: make ${targets[*]} failed" >&2; exit 1; }
}

# skip_reason SCENARIO: why it does not run in this set, or nothing.
skip_reason() {
	local t=$1 why long
	long=$(sed -n 's/^# long: *//p' "$t" | head -n1)
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
	# The core set runs what "# core:" marks, long or not.
	[ "$CORE" = 1 ] && { echo "$why"; return; }
	# "# default: skip <reason>": only when named (a long one, with a
	# make target of its own).
	if [ -z "$why" ] && [ ${#filters[@]} -eq 0 ]; then
		why=$(sed -n 's/^# default: skip *//p' "$t" | head -n1)
	fi
	if [ -z "$why" ] && [ -n "$long" ] && [ ${#filters[@]} -eq 0 ] && [ "$LONG" != 1 ]; then
		why="long: $long; make check-long"
	fi
	echo "$why"
}

# selected SCENARIO: whether it is in this set at all.
selected() {
	local name f
	name=$(basename "$1" .sh)
	if [ ${#filters[@]} -gt 0 ]; then
		for f in "${filters[@]}"; do [[ $name == *"$f"* ]] && return 0; done
		return 1
	fi
	[ "$CORE" = 1 ] && { grep -q '^# core:' "$1"; return; }
	[ "$LONG" = 1 ] && { grep -q '^# long:' "$1"; return; }
	return 0
}

# run_one SCENARIO: boot a guest for it, print and count the verdict.
run_one() {
	local t=$1 name tag out rc secs logdir why waited
	local -a args=()
	name=$(basename "$t" .sh)
	tag=$name
	[ "$KVER" = 6.12 ] || tag+=" ($KVER)"
	why=$(skip_reason "$t")
	if [ -n "$why" ]; then
		echo "SKIP $tag ($why)"
		results+=("SKIP $tag")
		skipped=$((skipped + 1))
		return
	fi
	# The core set passes the marker's NAME=VALUE words to the scenario.
	[ "$CORE" = 1 ] && read -r -a args <<<"$(sed -n 's/^# core: *//p' "$t" | head -n1)"
	echo "=== $tag${args[*]:+ ${args[*]}}"
	local t0
	t0=$(date +%s)
	out=$(VM_TIMEOUT=$(vm_timeout "$t") "$TOP/tools/vm.sh" "${vmargs[@]}" --kver "$KVER" "$t" "${args[@]}" 2>&1)
	rc=$?
	# Time spent waiting for another guest (vm.sh's VM lock: another
	# engineer's run on this machine) does not count as the scenario's.
	waited=$(echo "$out" | sed -n 's/^vm.sh: got the VM lock after \([0-9]*\)s$/\1/p' | tail -n1)
	waited=${waited:-0}
	waited_all=$((waited_all + waited))
	secs=$(( $(date +%s) - t0 - waited ))
	logdir=$(echo "$out" | sed -n 's/.* logs in \(.*\)$/\1/p' | head -n1)
	# The guest script's own verdict lines plus the harness' findings:
	# which module was under test and which the guest loaded.
	grep -hE '^(PASS|FAIL):|^guest: ib_srpt ' "$logdir/console.log" 2>/dev/null | sed 's/^/  /'
	echo "$out" | grep -E '^vm.sh: (module under test|not the tree)' | sed 's/^vm.sh: /  /'
	echo "$out" | grep -E 'splat|TIMEOUT|died|WARNING|BUG|Oops|blocked' | sed 's/^/  /'
	if [ $rc = 0 ]; then
		echo "PASS $tag (${secs}s)"
		results+=("PASS $tag ${secs}s")
		passed=$((passed + 1))
	else
		echo "FAIL $tag (rc=$rc, ${secs}s) - logs: $logdir"
		[ -n "$logdir" ] || echo "$out" | tail -n 5 | sed "s/^/  | /"
		grep -Ev '^\[ *[0-9]+\.[0-9]+\]' "$logdir/console.log" 2>/dev/null | tail -n 25 | sed 's/^/  | /'
		results+=("FAIL $tag ${secs}s")
		failed=$((failed + 1))
	fi
}

# run_set KVER CORE: the selected scenarios on that kernel.
run_set() {
	local t
	KVER=$1 CORE=$2
	build "$KVER"
	for t in "$TOP"/tests/[0-9][0-9]-*.sh; do
		selected "$t" && run_one "$t"
	done
}

passed=0 failed=0 skipped=0 waited_all=0
results=()
t_all=$(date +%s)
if [ "$CHECK" = 1 ]; then
	# make check: the default set on 6.12, then the core set on 6.1
	# (Debian 12's kernel).
	run_set 6.12 0
	run_set 6.1 1
else
	run_set "$KVER" "$CORE"
fi
echo "--- $( [ "$STOCK" = 1 ] && echo "stock ib_srpt" || echo "our ib_srpt") on $TRANSPORT$( [ "$USE_SRQ" = 1 ] && echo ", use_srq=1"), total $(( $(date +%s) - t_all ))s$( ((waited_all)) && echo " (of which ${waited_all}s waiting for other guests on this machine)")"
printf '%s\n' "${results[@]}"
line="$passed passed, $failed failed"
[ $skipped -gt 0 ] && line+=", $skipped skipped"
echo "$line"
[ $failed = 0 ]
