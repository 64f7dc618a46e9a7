#!/bin/bash
# make bench: our ib_srpt against Debian's and nvmet-rdma on the same
# soft-RoCE path, null_blk disk and fio workloads, in one guest boot of the
# Debian 6.12 kernel (tools/bench-guest.sh), then the report:
#
#   tools/bench.sh [ROUNDS=3] [RUNTIME=8] [TARGETS=ours,srq,stock,nvmet] [WORKLOADS=all]
#                  [CH_JOBS=all, or ch:jobs pairs like 1:1,2:2] [BASE=<git rev>]
#                  [TRACE=1 [GRAPH=func,func [GRAPH_DEPTH=4]]]
#
# Target "base" (with BASE=<rev>): this tree's module as it was at <rev>,
# built here into build/bench/base/ - a speed change measured before and
# after in one run (TARGETS=ours,base).
#
# TRACE=1: "target CPU" is the time the function_graph tracer measures in
# the target's modules (tools/bench-guest.sh); the tracer slows them, so
# the other figures of that run do not compare with a run without it.
# GRAPH (with TRACE=1): what those functions call, per call path, in
# build/logs/bench-guest/graph-*.txt (tools/bench-guest.sh graph_run).
# Such a guest has one vCPU (VM_SMP=1): switching the tracer on patches
# kernel text while it runs, and with two vCPUs under multi-threaded TCG
# the other vCPU once ran a stale int3 of that patching ("Oops: int3" in
# __schedule, the guest dead).  With one vCPU the traced time and the
# busy time are the same CPU's.
#
# Writes build/bench/bench.md (medians, ratios, the goals of issue 8),
# build/bench/bench.png and keeps the raw figures (bench.tsv, the guest's
# log) in build/logs/bench-guest/.  Not part of make check; about 75
# minutes with the defaults.
set -euo pipefail
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ROUNDS=3 RUNTIME=8 TARGETS=ours,srq,stock,nvmet WORKLOADS=all CH_JOBS=all TRACE=0 BASE='' GRAPH='' GRAPH_DEPTH=4
for a in "$@"; do
	case $a in
	ROUNDS=* | RUNTIME=* | TARGETS=* | WORKLOADS=* | CH_JOBS=* | BASE=* | TRACE=* | GRAPH=* | GRAPH_DEPTH=*) printf -v "${a%%=*}" %s "${a#*=}" ;;
	*) echo "usage: $0 [ROUNDS=N] [RUNTIME=S] [TARGETS=a,b] [WORKLOADS=a,b] [CH_JOBS=1:1,2:2] [BASE=rev] [TRACE=1] [GRAPH=f,g] [GRAPH_DEPTH=N]" >&2; exit 2 ;;
	esac
done
BASE_KO=
if [[ ,$TARGETS, == *,base,* ]]; then
	[ -n "$BASE" ] || { echo "bench: target base needs BASE=<git rev>" >&2; exit 2; }
	src=$TOP/build/bench/base
	rm -rf "$src" && mkdir -p "$src"
	git -C "$TOP" archive "$BASE" | tar -x -C "$src"
	echo "bench: base = $(git -C "$TOP" log -1 --format='%h %s' "$BASE" | cut -c1-72)" >&2
	# Its own Makefile's modules target (the newest 6.12 headers).
	make -s -C "$src" modules >/dev/null
	BASE_KO=build/bench/base/ib_srpt.ko
	# The guest loads it beside the module under test.
	SRPT_SRCVERSION_ALSO=$(modinfo -F srcversion "$TOP/$BASE_KO")
	export SRPT_SRCVERSION_ALSO
fi
ntgt=$(tr ',' '\n' <<<"$TARGETS" | wc -l)
# 30 fio runs per target and round, each RUNTIME plus ~8 s (perf report
# included); 120 s setup (four logins to 16 LUNs).
export VM_HOST_CPU=1	# tools/host-vcpu.py: the vCPUs' host CPU time
[ "$TRACE" = 1 ] && export VM_SMP=1
export VM_TIMEOUT=$(( 600 + ROUNDS * ntgt * (120 + 30 * (RUNTIME + 8)) ))
bash "$TOP/tools/vm.sh" tools/bench-guest.sh ROUNDS="$ROUNDS" RUNTIME="$RUNTIME" \
	TARGETS="$TARGETS" WORKLOADS="$WORKLOADS" CH_JOBS="$CH_JOBS" BASE_KO="$BASE_KO" TRACE="$TRACE" \
	GRAPH="$GRAPH" GRAPH_DEPTH="$GRAPH_DEPTH"
python3 "$TOP/tools/bench-report.py" "$TOP/build/logs/bench-guest/bench.tsv" "$TOP/build/bench"
echo "bench: $TOP/build/bench/bench.md, $TOP/build/bench/bench.png"
