#!/bin/bash
# The guest half of `make bench` (tools/bench.sh boots it): the same fio
# workloads against three targets on one null_blk disk, over the same
# soft-RoCE loopback, in interleaved rounds:
#
#   ours    this tree's ib_srpt.ko          initiator: ib_srp (RDMA/CM)
#   srq     the same with use_srq=1         initiator: ib_srp (RDMA/CM)
#   base    this tree's ib_srpt.ko at BASE  initiator: ib_srp (RDMA/CM)
#   stock   Debian's ib_srpt.ko             initiator: ib_srp (RDMA/CM)
#   nvmet   nvmet-rdma (Debian)             initiator: nvme-rdma
#
# Each round sets up each target in turn, logs in with ch_count 1 to 4
# (nvme-rdma: nr_io_queues 1 to 4; only the counts some selected workload
# uses), runs the workloads (below) and takes the target down again.  Each
# target exports 16 LUNs (namespaces), one null_blk disk each - or only as
# many as the selected workloads use, since each LUN is two targetcli
# calls (half a minute each on one vCPU): the workloads use the first,
# the scale ones (-l4, -l16) the first 4 or all 16 through one fio job per
# CPU spread over their disks.  The guest has 2 vCPUs: with ch_count 3
# and 4 blk-mq still sends I/O on only 2 channels (one per CPU), so those
# rows show what idle channels cost.  One line per fio run goes to
# $RESULTS/bench.tsv:
#
#   round target ch jobs workload ios seconds iops kib_s lat_mean_us
#   lat_p50_us lat_p99_us cpu_us_io kcpu_us_io tcpu_us_io hcpu_us_io
#
# cpu_us_io: guest CPU time (user+system+irq+softirq, every CPU, from
# /proc/stat) over the run per I/O - initiator, target and rxe together,
# since they share the guest; kcpu_us_io the same without user time (fio
# itself).  The initiator side is the same ib_srp for ours and stock, so
# their difference is the target's.  tcpu_us_io: the target's own CPU time
# per I/O from perf samples in its modules (ib_srpt + target_core_mod +
# target_core_iblock; nvmet + nvmet_rdma), NaN without a working perf;
# with TRACE=1 instead the time the function_graph tracer measures in
# the calls that enter the target ($TGT_TRACE, below), which works under
# TCG.
# hcpu_us_io: the vCPU threads' CPU time on the host per I/O (VM_HOST_CPU,
# tools/host-vcpu.py): what the guest really ran, halted vCPUs not counted,
# whatever the guest's own accounting under TCG says; NaN without it.
#
# Arguments: ROUNDS=3 RUNTIME=8 (seconds per fio run) TARGETS=ours,srq,stock,nvmet
# WORKLOADS=all (or a comma list of the names below) CH_JOBS=all BASE_KO=
# (target base: that ib_srpt.ko, relative to the project; tools/bench.sh)
# TRACE=0 (1: tcpu_us_io from the function_graph tracer; the tracer slows
# every call into those modules, so the other columns of such a run are
# not comparable with a run without it).  GRAPH=FUNC[,FUNC] (with TRACE=1):
# after each timed run, a 2 s run that records what FUNC calls, to
# GRAPH_DEPTH (4) levels, into $RESULTS/graph-NAME.txt (graph_run).
. "$PROJECT/tools/guest-lib.sh"

ROUNDS=3 RUNTIME=8 TARGETS=ours,srq,stock,nvmet WORKLOADS=all CH_JOBS=all TRACE=0 BASE_KO=
GRAPH='' GRAPH_DEPTH=4
scenario_args "ROUNDS RUNTIME TARGETS WORKLOADS CH_JOBS BASE_KO TRACE GRAPH GRAPH_DEPTH" "$@"
[ -z "$GRAPH" ] || [ "$TRACE" = 1 ] || fail "GRAPH needs TRACE=1 (one vCPU)"

# name rw bs iodepth [ch:jobs ...] - the ch_count/jobs pairs it runs with.
# -atN: fio holds each job to N IOPS (rate_iops), below what any target
# reaches, so the CPUs are not saturated and the guest CPU per I/O tells
# the targets' costs apart (at QD32 the 2 vCPUs are busy throughout and
# CPU per I/O only mirrors the IOPS).  CH_JOBS=1:1,2:2 limits every
# workload to those pairs.
ALL_WORKLOADS=(
	"rr4k-qd1 randread 4k 1 1:1 2:1"
	"rr4k-qd8-at1500 randread 4k 8 1:1"
	"rw4k-qd8-at1500 randwrite 4k 8 1:1"
	"rw4k-qd1 randwrite 4k 1 1:1 2:1"
	"rr4k-qd32 randread 4k 32 1:1 1:2 2:1 2:2 3:2 4:2"
	"rw4k-qd32 randwrite 4k 32 1:1 1:2 2:1 2:2 3:2 4:2"
	"rr4k-qd32-l4 randread 4k 32 2:2"
	"rw4k-qd32-l4 randwrite 4k 32 2:2"
	"rr4k-qd32-l16 randread 4k 32 2:2"
	"rw4k-qd32-l16 randwrite 4k 32 2:2"
	"rr64k-qd8 randread 64k 8 1:1 2:2"
	"rw64k-qd8 randwrite 64k 8 1:1 2:2"
	"sr1m-qd8 read 1m 8 1:1 2:2"
	"sw1m-qd8 write 1m 8 1:1 2:2"
)
NQN=nqn.2014-08.org.example:bench
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-4000-8000-000000000001
NVMET=/sys/kernel/config/nvmet
TSV=$RESULTS/bench.tsv

# /proc/stat: busy and kernel-busy jiffies of all CPUs.
cpu_jiffies() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $4 + $7 + $8 + $9 }' /proc/stat
}

# perf samples (every CPU, 499 Hz, idle included) while fio runs: the
# share that falls into the target's own modules ($TGT_MODS) - its CPU
# time apart from the initiator's, rxe's and the kernel core's.
PERF_OK=0
perf_check() {
	# TRACE=1 times the target with the tracer instead (and perf's
	# sampling would add to what the tracer times).
	[ "$TRACE" = 1 ] && { log "perf: not used, target CPU from the function_graph tracer (TRACE=1)"; return 0; }
	perf record -a -F 499 -q -o /tmp/perf-check.data -- sleep 1 >/dev/null 2>&1 &&
		# (all of perf's output read: with pipefail, grep -q's early
		# exit would fail the pipeline on SIGPIPE)
		[ "$(perf script -i /tmp/perf-check.data -F ip 2>/dev/null | wc -l)" -gt 0 ] &&
		PERF_OK=1
	log "perf: $([ $PERF_OK = 1 ] && echo "target CPU from samples" || echo "not usable, no target CPU column")"
}
perf_start() {
	[ $PERF_OK = 1 ] || return 0
	perf record -a -F 499 -q -o /tmp/perf.data -- sleep "$RUNTIME" >/dev/null 2>&1 &
	PERF_PID=$!
}
# perf_stop: wait for perf record to finish its file (in this shell:
# perf_share runs in a command substitution, which cannot wait for it).
perf_stop() {
	[ $PERF_OK = 1 ] || return 0
	wait "$PERF_PID" || log "perf record failed"
}
# perf_share BUSY: percent of the samples in the modules $TGT_MODS (-1
# without perf or when unusable), by sample address and /proc/kallsyms while the target is
# still loaded; the last run's samples per module stay in perf-mods.txt.
# BUSY: the busy fraction of the CPUs /proc/stat counted over the run (the
# samples are not used when they contradict it: tools/perf-modshare.py).
perf_share() {
	[ $PERF_OK = 1 ] || { echo -1; return 0; }
	perf script -i /tmp/perf.data -F ip 2>/dev/null |
		/usr/bin/python3 "$PROJECT/tools/perf-modshare.py" "$TGT_MODS" \
			"$RESULTS/perf-mods.txt" "$1"
}

# TRACE=1: the target's own time per I/O from the function_graph tracer.
# Hooked ($TGT_TRACE): every function of the fabric module (ib_srpt,
# nvmet_rdma) and the work items and completion handlers through which
# the target core runs on its own (LIO: queued submission, completion,
# TMR and abort work, iblock's bio completion; nvmet: its bio
# completion); not the rest of the core, where hooks on every nested call
# would cost more than the work itself (all of target_core_mod hooked: 5x
# the vCPU time per I/O).  max_graph_depth 1 records only the calls that
# enter these from elsewhere, and their durations include what they call:
# the target core and the backend inline (6.12's direct submission), and
# the transmit path of rxe, which soft-RoCE runs inside ib_post_send - for
# two SRP targets on one rxe the same kind of work.  sleep-time off: time
# a call spent scheduled out is not counted.  Their sum over the run is
# the time the target ran.  Debian's kernels have no ftrace function
# profiler, and perf's samples are no use under TCG (above).
# The timed run hooks only the entry points: the functions that a short
# run of the same workload before it, with all of $TGT_TRACE hooked, saw
# entered from elsewhere (depth 1).  A hooked function costs its hook even
# when it is called from another one and not recorded, and that cost lands
# in its caller's time: with the whole module hooked, a target split into
# many small functions would pay for more hooks than one with a few large
# ones, and look slower than it is.  That first run's sums are kept too
# (trace-NAME-all.txt): their difference to the timed run's shows what
# the hooks cost.
TRACEFS=/sys/kernel/tracing
TRACE_DISCOVER_S=3
# ftrace_start FUNC...: the function_graph tracer on FUNC... (ftrace
# filter syntax), top-level calls only.
ftrace_start() {
	local t=$TRACEFS f
	[ "$TRACE" = 1 ] || return 0
	mountpoint -q $t || mount -t tracefs nodev $t || fail "cannot mount tracefs"
	echo 0 >$t/tracing_on
	echo nop >$t/current_tracer
	: >$t/set_ftrace_filter
	for f in "$@"; do
		echo "$f" >>$t/set_ftrace_filter || fail "set_ftrace_filter: no $f"
	done
	graph_on 1
}
# graph_on DEPTH: the function_graph tracer on, to DEPTH levels, what
# a call spent scheduled out not counted; graph_off: back to defaults.
graph_on() {
	local t=$TRACEFS
	echo "$1" >$t/max_graph_depth
	echo 0 >$t/options/sleep-time
	echo 1 >$t/options/funcgraph-tail
	echo 32768 >$t/buffer_size_kb
	echo function_graph >$t/current_tracer
	: >$t/trace
	echo 1 >$t/tracing_on
}
graph_off() {
	local t=$TRACEFS
	echo nop >$t/current_tracer
	: >$t/set_ftrace_filter
	: >$t/set_graph_function
	echo 0 >$t/max_graph_depth
	echo 1 >$t/options/sleep-time
	echo 1 >$t/options/funcgraph-irqs
	echo 0 >$t/options/funcgraph-tail
	echo 1408 >$t/buffer_size_kb
}
# ftrace_stop NAME: "US CALLS LOST" - the durations of the top-level
# calls summed, their number and the events the ring buffer lost (-1 0 0
# with TRACE=0); the sums per function go to $RESULTS/trace-NAME.txt (the
# last round's run of that name).
ftrace_stop() {
	local t=$TRACEFS lost
	[ "$TRACE" = 1 ] || { echo "-1 0 0"; return 0; }
	echo 0 >$t/tracing_on
	# " 1)   3.456 us    |  srpt_recv_done();", or the "} /* name */"
	# closing a call whose entry other events separated from its end (a
	# + ! # * @ $ mark may precede the figure; 7 digits have no
	# decimals): a line with a duration ends one top-level call.
	awk -v per="$RESULTS/trace-$1.txt" '/\|/ && match($0, /[0-9]+(\.[0-9]+)? us/) {
		d = substr($0, RSTART, RLENGTH - 3); n++; us += d
		f = $0; sub(/.*\| */, "", f); sub(/^} \/\* */, "", f); sub(/[ (;*\/].*/, "", f)
		fus[f] += d; fn[f]++ }
		END { for (f in fus)
			printf "%12.1f us %9d calls %8.2f us/call  %s\n", fus[f], fn[f], fus[f] / fn[f], f | "sort -rn >" per
			printf "%.1f %d ", us, n }' $t/trace
	lost=$(awk '/^overrun:/ { n += $2 } END { print n + 0 }' $t/per_cpu/cpu*/stats)
	# Reset before the line ends: a caller reading it from a process
	# substitution goes on at the newline, and graph_run may come next.
	graph_off
	echo "$lost"
}

# graph_run NAME: fio for 2 s with the function_graph tracer recording
# the calls of $GRAPH's functions (those this target has) to GRAPH_DEPTH
# levels (every kernel function hooked, interrupts left out), summed per
# call path into $RESULTS/graph-NAME.txt: "us calls path" per call of a
# $GRAPH function, a parent before its children.  Every hook slows its
# function, so only the shares within one path compare, and the same path
# of two targets.  Runs after ftrace_stop (graph_off: tracer off, filters
# empty).
graph_run() {
	local t=$TRACEFS f
	[ -n "$GRAPH" ] || return 0
	# A name only one target has (srpt_rsp_done, srpt_send_done) is left
	# out for the other.
	for f in ${GRAPH//,/ }; do
		echo "$f" 2>/dev/null >>$t/set_graph_function || true
	done
	# (Empty, it reads "#### all functions enabled ####".)
	grep -qv '^#' $t/set_graph_function || fail "set_graph_function: none of $GRAPH"
	echo 0 >$t/options/funcgraph-irqs
	graph_on "$GRAPH_DEPTH"
	fio_job 2
	echo 0 >$t/tracing_on
	# "|  name() {" opens a call at the depth its indentation gives,
	# "|    name();" (with a duration) is a call without traced children,
	# "|  } /* name */" (with a duration) closes one.
	awk '/\|/ {
		i = index($0, "|"); rest = substr($0, i + 1)
		match(rest, /^ */); d = int(RLENGTH / 2) - 1; body = substr(rest, RLENGTH + 1)
		dur = match($0, /[0-9]+(\.[0-9]+)? us/) ? substr($0, RSTART, RLENGTH - 3) : ""
		if (d < 0) next
		if (body ~ /^}/) { name = body; sub(/^} \/\* */, "", name) }
		else name = body
		sub(/[ (;*\/].*/, "", name)
		if (body ~ /\{ *$/) { stack[d] = name; next }
		if (dur == "") next
		path = ""
		for (k = 0; k < d; k++) path = path stack[k] ">"
		path = path name
		us[path] += dur; n[path]++
		if (d == 0) top++ }
		END { for (p in us) printf "%s\t%.2f\t%.2f\n", p, us[p] / top, n[p] / top }' $t/trace |
		sort -t "$(printf '\t')" -k1,1 |
		awk -F '\t' '{ d = gsub(/>/, ">", $1); name = $1; sub(/.*>/, "", name)
			printf "%9s us %6s calls  %*s%s\n", $2, $3, 2 * d, "", name }' >"$RESULTS/graph-$1.txt"
	graph_off
}

# fio_job SECS: run_fio's workload for SECS seconds (its locals).
fio_job() {
	fio --name="$name" --filename="$dev" --rw="$rw" --bs="$bs" \
		--iodepth="$qd" --numjobs="$jobs" --direct=1 --ioengine=libaio \
		--time_based --runtime="$1" --group_reporting \
		--randrepeat=0 --norandommap --size=1g "${rate[@]}" \
		--output-format=json --output="$json" >/dev/null 2>/tmp/fio.err ||
		fail "fio $name on $tgt: $(cat /tmp/fio.err)"
}
# run_fio ROUND TARGET CH JOBS NAME RW BS QD DEV: one timed fio run, one
# line of $TSV.
run_fio() {
	local round=$1 tgt=$2 ch=$3 jobs=$4 name=$5 rw=$6 bs=$7 qd=$8 dev=$9
	local c0 c1 h0 h1 t0 t1 json=/tmp/fio-$name.json line share rate=() tr entries=()
	[[ $name =~ -at([0-9]+)$ ]] && rate=(--rate_iops="${BASH_REMATCH[1]}")
	if [ "$TRACE" = 1 ]; then
		# shellcheck disable=SC2086  # TGT_TRACE: a list of filters
		ftrace_start $TGT_TRACE
		fio_job "$TRACE_DISCOVER_S"
		ftrace_stop "$tgt-$name-ch$ch-j$jobs-all" >/dev/null
		mapfile -t entries < <(awk '{ print $NF }' "$RESULTS/trace-$tgt-$name-ch$ch-j$jobs-all.txt")
		[ ${#entries[@]} -gt 0 ] || fail "$tgt $name: no call into the target in ${TRACE_DISCOVER_S}s"
	fi
	read -r -a h0 < <(host_vcpu)
	read -r -a c0 < <(cpu_jiffies)
	t0=$(date +%s.%N)
	perf_start
	ftrace_start "${entries[@]}"
	fio_job "$RUNTIME"
	t1=$(date +%s.%N)
	read -r -a c1 < <(cpu_jiffies)
	read -r -a h1 < <(host_vcpu)
	read -r -a tr < <(ftrace_stop "$tgt-$name-ch$ch-j$jobs")
	[ "${tr[2]:-1}" = 0 ] || fail "function_graph lost ${tr[2]:-its} events: a shorter RUNTIME"
	perf_stop
	graph_run "$tgt-$name-ch$ch-j$jobs"
	share=$(perf_share "$(awk -v b="$((c1[0] - c0[0]))" -v t0="$t0" -v t1="$t1" \
		-v hz="$(getconf CLK_TCK)" -v n="$(nproc)" 'BEGIN { printf "%.3f", b / ((t1 - t0) * hz * n) }')")
	line=$(/usr/bin/python3 - "$json" "$t0" "$t1" "$(getconf CLK_TCK)" \
		"$((c1[0] - c0[0]))" "$((c1[1] - c0[1]))" "$share" "$(nproc)" \
		"$((h1[1] - h0[1]))" "${h1[2]}" "${tr[0]}" <<-'EOP'
	import json, sys
	j = json.load(open(sys.argv[1]))["jobs"][0]
	t0, t1, hz = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
	busy, kbusy = int(sys.argv[5]), int(sys.argv[6])
	share, ncpu = float(sys.argv[7]), int(sys.argv[8])
	hticks, hhz = int(sys.argv[9]), int(sys.argv[10])
	trace_us = float(sys.argv[11])
	ios = j["read"]["total_ios"] + j["write"]["total_ios"]
	side = j["read"] if j["read"]["total_ios"] else j["write"]
	secs = (j["read"]["runtime"] or j["write"]["runtime"]) / 1000.0
	lat = side["clat_ns"]
	pct = lat.get("percentile", {})
	us = 1e6 / hz / max(ios, 1)
	# perf samples cover RUNTIME seconds on every CPU.
	tcpu = share / 100 * secs * ncpu * 1e6 / max(ios, 1) if share >= 0 else float("nan")
	if trace_us >= 0:	# TRACE=1: the tracer's figure instead
	    tcpu = trace_us / max(ios, 1)
	# The host's count (0.25 s samples, 10 ms ticks) from the whole run.
	hcpu = hticks * 1e6 / hhz / max(ios, 1) if hhz and hticks > 0 else float("nan")
	print("%d\t%.3f\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.2f\t%.1f" % (
	    ios, secs, ios / secs, side["bw"], side["lat_ns"]["mean"] / 1e3,
	    pct.get("50.000000", 0) / 1e3, pct.get("99.000000", 0) / 1e3,
	    busy * us, kbusy * us, tcpu, hcpu))
	EOP
	) || fail "cannot read $json"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$tgt" "$ch" "$jobs" "$name" "$line" >>"$TSV"
	log "$tgt ch=$ch jobs=$jobs $name: $(cut -f3,4,5,8,10,11 <<<"$line" | tr '\t' ' ') (iops kib/s mean-us cpu-us/io target-us/io host-vcpu-us/io)"
}

# selected_workloads: the lines of ALL_WORKLOADS that WORKLOADS selects,
# with only the ch:jobs pairs CH_JOBS selects (none left: left out).
selected_workloads() {
	local w f p pairs
	for w in "${ALL_WORKLOADS[@]}"; do
		[ "$WORKLOADS" = all ] || [[ ,$WORKLOADS, == *,${w%% *},* ]] || continue
		read -r -a f <<<"$w"
		pairs=()
		for p in "${f[@]:4}"; do
			[ "$CH_JOBS" = all ] || [[ ,$CH_JOBS, == *,$p,* ]] && pairs+=("$p")
		done
		[ ${#pairs[@]} -gt 0 ] && echo "${f[*]:0:4} ${pairs[*]}"
	done
	return 0
}
# channel_counts: the ch_counts the selected workloads need.
channel_counts() {
	selected_workloads | awk '{ for (i = 5; i <= NF; i++) { split($i, p, ":"); print p[1] } }' | sort -un
}

# run_workloads ROUND TARGET CH DEV...: every selected workload that runs
# at this ch; DEV... are the 16 LUNs' disks in LUN order.
run_workloads() {
	local round=$1 tgt=$2 ch=$3 w f pair n files
	shift 3
	[ $# -eq "$NLUNS" ] || fail "$tgt: $# disks, not $NLUNS"
	while read -r w; do
		read -r -a f <<<"$w"
		n=1
		[[ ${f[0]} =~ -l([0-9]+)$ ]] && n=${BASH_REMATCH[1]}
		files=$(IFS=:; echo "${*:1:n}")
		for pair in "${f[@]:4}"; do
			[ "${pair%:*}" = "$ch" ] || continue
			run_fio "$round" "$tgt" "$ch" "${pair#*:}" "${f[@]:0:4}" "$files"
		done
	done < <(selected_workloads)
}

# SRP targets (ours, ours with use_srq=1, stock): the block LUNs and the
# ACL, ib_srp with each ch_count.
srp_target_round() {
	local round=$1 tgt=$2 ch i devs
	STOCK=0 USE_SRQ=0 SRPT_INSMOD=
	[ "$tgt" = stock ] && STOCK=1
	[ "$tgt" = base ] && SRPT_INSMOD=$PROJECT/$BASE_KO
	[ "$tgt" = srq ] && USE_SRQ=1
	TGT_MODS="ib_srpt|target_core_mod|target_core_iblock"
	TGT_TRACE=":mod:ib_srpt target_queued_submit_work target_complete_ok_work
		target_complete_failure_work target_tmr_work target_abort_work iblock_bio_done"
	load_target
	for ((i = 0; i < NLUNS; i++)); do
		targetcli_q /backstores/block create "bench$i" "${DISKS[i]}" || fail "block create"
		targetcli_q "/srpt/$TGT_WWN/luns" create "/backstores/block/bench$i" || fail "lun create"
	done
	make_acl
	for ch in $(channel_counts); do
		devs=$(srp_login "ch_count=$ch,queue_size=128") || fail "$tgt: login ch_count=$ch"
		# shellcheck disable=SC2086  # one disk a word
		run_workloads "$round" "$tgt" "$ch" $devs
		srp_logout || fail "$tgt: logout"
	done
	unload_target || fail "$tgt: $UNLOAD_ERR"
}

nvmet_setup() {
	local s=$NVMET/subsystems/$NQN p=$NVMET/ports/1 i
	modprobe -a nvmet nvmet-rdma nvme-rdma || fail "modprobe nvmet-rdma nvme-rdma"
	mkdir -p "$s" "$p" || fail "nvmet configfs"
	echo 1 >"$s/attr_allow_any_host"
	for ((i = 1; i <= NLUNS; i++)); do
		mkdir "$s/namespaces/$i" || fail "nvmet namespace $i"
		echo "${DISKS[i - 1]}" >"$s/namespaces/$i/device_path"
		echo 1 >"$s/namespaces/$i/enable" || fail "nvmet namespace $i enable"
	done
	echo rdma >"$p/addr_trtype"
	echo ipv4 >"$p/addr_adrfam"
	echo "$TGT_IP" >"$p/addr_traddr"
	echo 4420 >"$p/addr_trsvcid"
	ln -s "$s" "$p/subsystems/$NQN" || fail "nvmet port link"
}
nvmet_teardown() {
	local i
	rm -f "$NVMET/ports/1/subsystems/$NQN"
	rmdir "$NVMET/ports/1"
	for ((i = 1; i <= NLUNS; i++)); do
		echo 0 >"$NVMET/subsystems/$NQN/namespaces/$i/enable"
		rmdir "$NVMET/subsystems/$NQN/namespaces/$i" || fail "nvmet namespace $i teardown"
	done
	rmdir "$NVMET/subsystems/$NQN" || fail "nvmet teardown"
}
# The namespaces' block devices in namespace order (the guest has no other
# NVMe): nvmeXnY, not multipath path devices nvmeXcZnY.
nvme_devs() {
	local b
	for b in /sys/block/nvme*n*; do
		[ -b "/dev/${b##*/}" ] || continue
		[[ ${b##*/} == nvme*c*n* ]] || echo "/dev/${b##*/}"
	done | sort -V
}
# shellcheck disable=SC2317  # run by wait_for
nvme_devs_present() { [ "$(nvme_devs | wc -l)" -eq "$NLUNS" ]; }
# shellcheck disable=SC2317
nvme_devs_gone() { [ -z "$(nvme_devs)" ]; }
nvmet_round() {
	local round=$1 ch
	TGT_MODS="nvmet|nvmet_rdma"
	TGT_TRACE=":mod:nvmet_rdma nvmet_bio_done"
	nvmet_setup
	for ch in $(channel_counts); do
		nvme connect -t rdma -a "$TGT_IP" -s 4420 -n "$NQN" -q "$HOSTNQN" \
			-i "$ch" >/tmp/nvme.out 2>&1 || fail "nvme connect: $(cat /tmp/nvme.out)"
		wait_for 30 nvme_devs_present || fail "$(nvme_devs | wc -l) of $NLUNS nvme namespaces"
		# shellcheck disable=SC2046  # one disk a word
		run_workloads "$round" nvmet "$ch" $(nvme_devs)
		nvme disconnect -n "$NQN" >/dev/null || fail "nvme disconnect"
		wait_for 30 nvme_devs_gone || fail "nvme namespaces still there"
	done
	nvmet_teardown
}

setup_transport
# The null_blk disks, without memory behind them: the backend costs next to
# nothing, so what is measured is the target and the transport.
NLUNS=$(selected_workloads | awk '{ n = 1 } $1 ~ /-l[0-9]+$/ { n = substr($1, match($1, /-l[0-9]+$/) + 2) + 0 }
	n > m { m = n } END { print m + 0 }')
[ "$NLUNS" -gt 0 ] || fail "WORKLOADS=$WORKLOADS CH_JOBS=$CH_JOBS select no workload"
DISKS=()
for ((i = 0; i < NLUNS; i++)); do
	DISKS+=("$(make_nullb 4G 0 nomem)") || exit 1
done
install_modules
perf_check
printf 'round\ttarget\tch\tjobs\tworkload\tios\tseconds\tiops\tkib_s\tlat_mean_us\tlat_p50_us\tlat_p99_us\tcpu_us_io\tkcpu_us_io\ttcpu_us_io\thcpu_us_io\n' >"$TSV"
{ echo "kernel $(uname -r), $(nproc) vCPUs, fio $(fio --version), RUNTIME=${RUNTIME}s"
  echo "ours: $(modinfo -F filename ib_srpt)"
  echo "stock: $(stock_srpt_ko)"
  [ -z "$BASE_KO" ] || echo "base: $BASE_KO, $(modinfo -F srcversion "$PROJECT/$BASE_KO")"; } >"$RESULTS/bench-env.txt"
IFS=, read -r -a tgts <<<"$TARGETS"
for ((r = 1; r <= ROUNDS; r++)); do
	for t in "${tgts[@]}"; do
		log "=== round $r: $t"
		case $t in
		ours | srq | base | stock) srp_target_round "$r" "$t" ;;
		nvmet) nvmet_round "$r" ;;
		*) fail "unknown target $t" ;;
		esac
	done
done
pass "$ROUNDS rounds of ${TARGETS}: $(($(wc -l <"$TSV") - 1)) fio runs in $TSV"
