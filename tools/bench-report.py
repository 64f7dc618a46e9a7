#!/usr/bin/python3
"""Turn the bench.tsv of tools/bench-guest.sh into the report of make bench.

    tools/bench-report.py BENCH.TSV OUTDIR

OUTDIR gets bench.md (markdown: medians over the rounds, absolute figures
and the ratios ours/stock, ours/nvmet and ours/base, then the issue's goals checked
against them), ratios.dat and, when gnuplot is there, bench.png (one bar
pair per row: how much better ours is, >1 = ours better, latency and CPU
inverted).  "target CPU" is the time in the target's own modules: perf's
share of samples in them, or with make bench TRACE=1 the function_graph
tracer's time in their top-level calls (tools/bench-guest.sh); "guest CPU" includes the initiator;
"vCPU host" is the CPU time the host gave the guest's vCPU threads
(tools/host-vcpu.py), the one CPU figure the guest's accounting under TCG
cannot skew.  "target CPU / rest": the target CPU of a run over the guest
CPU of the same run less it - the target's cost in units of the rest of
the path (ib_srp, rxe, the block layer, fio), the same work whichever
target runs: how fast the host ran the guest during that run cancels
out, which it does not in a ratio of absolute figures from different
runs (the host's pace moves them by +-30 % round to round, this by a
few %).
Only ratios from one run mean something: the absolute figures under TCG
are small and move from run to run.
"""
import csv
import math
import os
import re
import statistics
import subprocess
import sys

TARGETS = ("ours", "srq", "base", "stock", "nvmet")
# The comparisons the table shows (when both ran): (a, b) is a vs b.
PAIRS = (("ours", "stock"), ("srq", "stock"), ("ours", "nvmet"),
         ("ours", "base"))
# Which figure counts for a workload: (column, label, higher is better).
PRIMARY = {
    "qd1": [("lat_mean_us", "mean lat us", False),
            ("lat_p50_us", "p50 lat us", False),
            ("lat_p99_us", "p99 lat us", False),
            ("iops", "IOPS", True)],
    "qd32": [("iops", "IOPS", True)],
    "qd8": [("iops", "IOPS", True), ("kib_s", "KiB/s", True)],
}
# 1 MiB runs: bandwidth only.
SEQ = [("kib_s", "KiB/s", True)]
# Held to a fixed rate (-atN): what each I/O costs, then its latency.
RATED = [("hcpu_us_io", "vCPU host us/IO", False),
         ("cpu_us_io", "guest CPU us/IO", False),
         ("kcpu_us_io", "guest kernel CPU us/IO", False),
         ("lat_mean_us", "mean lat us", False),
         ("iops", "IOPS", True)]
CPU_COLS = [("hcpu_us_io", "vCPU host us/IO", False),
            ("cpu_us_io", "guest CPU us/IO", False),
            ("kcpu_us_io", "guest kernel CPU us/IO", False),
            ("tcpu_us_io", "target CPU us/IO", False),
            ("trel", "target CPU / rest", False)]


def load(path):
    runs = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            key = (r["workload"], int(r["ch"]), int(r["jobs"]), r["target"])
            t, c = float(r["tcpu_us_io"]), float(r["cpu_us_io"])
            r["trel"] = "%.5f" % (t / (c - t)) if 0 <= t < c else "nan"
            runs.setdefault(key, []).append(r)
    return runs


def median(rows, col):
    vals = [float(r[col]) for r in rows if not math.isnan(float(r[col]))]
    return statistics.median(vals) if vals else float("nan")


def base(workload):
    """The workload without its LUN count: rr4k-qd32-l16 -> rr4k-qd32."""
    return re.sub(r"-l[0-9]+$", "", workload)


def luns(workload):
    m = re.search(r"-l([0-9]+)$", workload)
    return int(m.group(1)) if m else 1


def metrics(workload):
    """The figures of @workload's table rows, the one that counts first."""
    if workload.startswith(("sr1m", "sw1m")):
        return SEQ + CPU_COLS
    if re.search(r"-at[0-9]+$", workload):
        return RATED + CPU_COLS[3:]
    return PRIMARY[base(workload).rsplit("-", 1)[1]] + CPU_COLS


def round_ratios(runs, key, col, higher, a="ours", b="stock"):
    """@a/@b round by round for the config @key (workload, ch, jobs)."""
    by = {}
    for t in (a, b):
        for r in runs.get(key + (t,), []):
            v = float(r.get(col) or "nan")
            if not math.isnan(v):
                by.setdefault(r["round"], {})[t] = v
    return [x for x in (ratio(v.get(a), v.get(b), higher)
                        for v in by.values()) if x is not None]


def spread(rs):
    """Median and range of per-round ratios: '1.02 (0.80-1.30)'."""
    if not rs:
        return "-"
    return "%.2f (%.2f-%.2f)" % (statistics.median(rs), min(rs), max(rs))


def ratio(a, b, higher):
    if a is None or b is None or a == 0 or b == 0:
        return None
    return a / b if higher else b / a


def fmt(v, digits=1):
    if v is None:
        return "-"
    return ("%%.%df" % digits) % v


def main():
    tsv, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    runs = load(tsv)
    rounds = {r["round"] for rows in runs.values() for r in rows}
    configs = []
    for (w, ch, jobs, _t) in runs:
        if (w, ch, jobs) not in configs:
            configs.append((w, ch, jobs))
    order = ("rr4k-qd1", "rw4k-qd1", "rr4k-qd8-at1500", "rw4k-qd8-at1500",
             "rr4k-qd32", "rw4k-qd32",
             "rr64k-qd8", "rw64k-qd8", "sr1m-qd8", "sw1m-qd8")
    configs.sort(key=lambda c: (order.index(base(c[0])) if base(c[0]) in order
                                else 99, luns(c[0]), c[1], c[2]))
    med = {}
    for key, rows in runs.items():
        med[key] = {c: median(rows, c) for c in rows[0] if c not in (
            "round", "target", "ch", "jobs", "workload") and rows[0][c]}

    def get(w, ch, jobs, t, col):
        m = med.get((w, ch, jobs, t))
        v = m.get(col) if m else None
        return None if v is None or math.isnan(v) else v

    present = [t for t in TARGETS if any(k[3] == t for k in runs)]
    pairs = [p for p in PAIRS if p[0] in present and p[1] in present]
    lines = ["# make bench", "",
             "Medians of %d round(s); ratios are a/b with >1 = a "
             "better (latency and CPU: b/a)." % len(rounds), "",
             "srq is ours with use_srq=1 (the shared receive queue); base is "
             "ours as of make bench BASE=<rev>. \"by round\": the ratio "
             "within each round, median (range): how far one run's noise "
             "moves it.", "",
             "| workload | ch | jobs | figure | " + " | ".join(present) + " | " +
             " | ".join("%s vs %s | by round" % p for p in pairs) + " |",
             "|---" * (4 + len(present) + 2 * len(pairs)) + "|"]
    dat = []
    for (w, ch, jobs) in configs:
        for col, label, higher in metrics(w):
            v = {t: get(w, ch, jobs, t, col) for t in TARGETS}
            rs = [ratio(v[a], v[b], higher) for a, b in pairs]
            cells = [fmt(v[t], 4 if col == "trel" else 1) for t in present]
            for (a, b), r in zip(pairs, rs):
                cells += [fmt(r, 2), spread(round_ratios(
                    runs, (w, ch, jobs), col, higher, a, b))]
            lines.append("| %s | %d | %d | %s | %s |" % (
                w, ch, jobs, label, " | ".join(cells)))
            if col in (metrics(w)[0][0], "tcpu_us_io") and any(rs):
                what = "cpu" if col == "tcpu_us_io" else label.split()[0]
                dat.append(('"%s ch%d j%d %s"' % (w, ch, jobs, what), rs))
    lines += scale(get)
    lines += share(configs, get)
    lines += entries(os.path.dirname(os.path.abspath(tsv)), configs)
    lines += ["", "## Goals (issue 8)", ""]
    lines += goals(get)
    with open(os.path.join(out, "bench.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    # One series per comparison that has a figure at all (gnuplot stops on
    # a series without one valid point).
    keep = [i for i in range(len(pairs)) if any(d[1][i] for d in dat)]
    with open(os.path.join(out, "ratios.dat"), "w") as f:
        for name, rs in dat:
            f.write("%s %s\n" % (name, " ".join(
                fmt(rs[i], 3).replace("-", "NaN") for i in keep)))
    plot(out, len(dat), ["%s vs %s" % pairs[i] for i in keep])
    print("\n".join(lines))


def scale(get):
    """How IOPS and CPU per I/O move with LUNs (ch 2, 2 jobs) and channels
    (1 LUN, 2 jobs), relative to 1 LUN / 1 channel of the same target."""
    out = ["", "## Scale (4k QD32, 2 jobs; each target relative to its own "
           "first column)", ""]
    for w in ("rr4k-qd32", "rw4k-qd32"):
        for axis, pts in (("LUNs (ch 2)", [(w, 2, 1), (w + "-l4", 2, 4),
                                           (w + "-l16", 2, 16)]),
                          ("channels (1 LUN)", [(w, c, c) for c in (1, 2, 3, 4)])):
            if not any(get(p[0], p[1], 2, t, "iops") for p in pts for t in TARGETS):
                continue
            out += ["| %s, %s | %s |" % (w, axis, " | ".join(str(p[2]) for p in pts)),
                    "|---|" + "---|" * len(pts)]
            for t in TARGETS:
                for col, label in (("iops", "IOPS"), ("tcpu_us_io", "target CPU us/IO"),
                                   ("cpu_us_io", "guest CPU us/IO")):
                    v = [get(p[0], p[1], 2, t, col) for p in pts]
                    if not any(v):
                        continue
                    cells = ["%s (%s)" % (fmt(x), fmt(x / v[0] if x and v[0] else None, 2))
                             for x in v]
                    out.append("| %s %s | %s |" % (t, label, " | ".join(cells)))
            out.append("")
    return out


def share(configs, get):
    """The target's part of all the CPU an I/O costs (target CPU over
    guest CPU and over vCPU host time) and what it bounds: a workload
    that keeps the CPUs busy cannot run more than 1 / (1 - share) times
    faster by changing the target alone, not even with a target that
    cost nothing.  Only with target CPU figures (make bench TRACE=1)."""
    out = []
    for (w, ch, jobs) in configs:
        for t in TARGETS:
            tc = get(w, ch, jobs, t, "tcpu_us_io")
            if not tc:
                continue
            cells = []
            for col in ("cpu_us_io", "hcpu_us_io"):
                c = get(w, ch, jobs, t, col)
                s = tc / c if c else None
                cells += [fmt(c), fmt(100 * s) + " %" if s else "-",
                          fmt(1 / (1 - s), 2) if s and s < 1 else "-"]
            out.append("| %s | %d | %d | %s | %s | %s |" % (
                w, ch, jobs, t, fmt(tc), " | ".join(cells)))
    if not out:
        return []
    return ["", "## The target's share of the CPU per I/O", "",
            "ceiling: how much faster a CPU-bound run could get if this "
            "target cost nothing, 1 / (1 - share).", "",
            "| workload | ch | jobs | target | target CPU us/IO | guest CPU us/IO | "
            "share | ceiling | vCPU host us/IO | share | ceiling |",
            "|---" * 11 + "|"] + out


def read_trace(path):
    """{function: (calls, us per call)} of a trace-*.txt of bench-guest."""
    got = {}
    try:
        with open(path) as f:
            for line in f:
                m = re.match(r"\s*([0-9.]+) us\s+(\d+) calls\s+([0-9.]+) us/call\s+(\S+)", line)
                if m:
                    got[m.group(4)] = (int(m.group(2)), float(m.group(3)))
    except OSError:
        pass
    return got


def entries(results, configs):
    """TRACE=1: the calls through which each target ran (last round), their
    time per call with only them hooked (what the report counts) and in
    the short run before, with every function of the module hooked: the
    difference is what hooks on the functions they call cost."""
    out = []
    for (w, ch, jobs) in configs:
        for t in TARGETS:
            name = "%s-%s-ch%d-j%d" % (t, w, ch, jobs)
            timed = read_trace(os.path.join(results, "trace-%s.txt" % name))
            every = read_trace(os.path.join(results, "trace-%s-all.txt" % name))
            for fn, (calls, us) in sorted(timed.items(), key=lambda x: -x[1][0] * x[1][1]):
                out.append("| %s | %d | %d | %s | %s | %d | %.1f | %s |" % (
                    w, ch, jobs, t, fn, calls, us,
                    "%.1f" % every[fn][1] if fn in every else "-"))
    if not out:
        return []
    return ["", "## Where the target's time goes (TRACE=1, last round)", "",
            "Its entry points: us/call with only them hooked (the figure above), "
            "and with every function of the module hooked (the short run "
            "before): the difference is what the hooks on the functions "
            "they call cost.", "",
            "| workload | ch | jobs | target | function | calls | us/call | "
            "us/call, all hooked |", "|---" * 8 + "|"] + out


def goals(get):
    """The goals of issue 8 that this run can check, each with its ratio."""
    out = []

    def check(what, r, want):
        op, limit = want.split()
        if r is None:
            out.append("- %s: not measured" % what)
            return
        ok = r >= float(limit) if op == ">=" else r <= float(limit)
        out.append("- %s: %.2f (goal %s) %s" % (
            what, r, want, "met" if ok else "NOT met"))

    for w, name in (("rr4k-qd32", "4k QD32 read"), ("rw4k-qd32", "4k QD32 write")):
        check("ours/stock IOPS, %s, ch1 j1" % name,
              ratio(get(w, 1, 1, "ours", "iops"), get(w, 1, 1, "stock", "iops"), True), ">= 1.3")
        check("ours with use_srq=1 / stock IOPS, %s, ch1 j1" % name,
              ratio(get(w, 1, 1, "srq", "iops"), get(w, 1, 1, "stock", "iops"), True), ">= 1.3")
        check("ours/nvmet IOPS, %s, ch1 j1" % name,
              ratio(get(w, 1, 1, "ours", "iops"), get(w, 1, 1, "nvmet", "iops"), True), ">= 1.0")
    for w, name in (("rr4k-qd1", "4k QD1 read"), ("rw4k-qd1", "4k QD1 write")):
        o, s = get(w, 1, 1, "ours", "lat_mean_us"), get(w, 1, 1, "stock", "lat_mean_us")
        check("ours/stock mean latency, %s" % name, o / s if o and s else None, "<= 0.9")
    for w, name in (("sr1m-qd8", "1 MiB read"), ("sw1m-qd8", "1 MiB write")):
        check("ours/stock bandwidth, %s, ch1 j1" % name,
              ratio(get(w, 1, 1, "ours", "kib_s"), get(w, 1, 1, "stock", "kib_s"), True), ">= 1.0")
    for w, name in (("rr4k-qd32", "4k QD32 read"), ("rw4k-qd32", "4k QD32 write")):
        o, s = get(w, 1, 1, "ours", "tcpu_us_io"), get(w, 1, 1, "stock", "tcpu_us_io")
        check("ours/stock target CPU per I/O (its modules: perf or TRACE=1), %s" % name,
              o / s if o and s else None, "<= 0.8")
        o, s = get(w, 1, 1, "ours", "trel"), get(w, 1, 1, "stock", "trel")
        check("ours/stock target CPU per I/O in units of the rest of the path "
              "(the host's pace cancelled), %s" % name,
              o / s if o and s else None, "<= 0.8")
        o, s = get(w, 1, 1, "ours", "cpu_us_io"), get(w, 1, 1, "stock", "cpu_us_io")
        check("ours/stock guest CPU per I/O (initiator included), %s" % name,
              o / s if o and s else None, "<= 0.8")
    for w, name in (("rr4k-qd8-at1500", "4k read"), ("rw4k-qd8-at1500", "4k write")):
        o, s = get(w, 1, 1, "ours", "hcpu_us_io"), get(w, 1, 1, "stock", "hcpu_us_io")
        check("ours/stock vCPU host time per I/O at 1500 IOPS (initiator and "
              "rxe included: the target's difference diluted), %s" % name,
              o / s if o and s else None, "<= 0.8")
    return out


def plot(out, n, series):
    """bench.png from ratios.dat: one bar per row and comparison (@series,
    the titles of its columns 2...)."""
    if not series:
        return
    script = """
set terminal pngcairo size %d,600 font ',9' noenhanced
set output '%s/bench.png'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set yrange [0:*]
set grid y
set xtics rotate by -60 scale 0
set ylabel 'a vs b (>1 = a better)'
set title 'make bench: ours vs the others (medians, one run)'
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2
plot %s
""" % (400 + 30 * n, out, ", ".join(
        "'%s/ratios.dat' using %d%s title '%s'" % (
            out, i + 2, ":xtic(1)" if i == 0 else "", t)
        for i, t in enumerate(series)))
    try:
        subprocess.run(["gnuplot"], input=script.encode(), check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print("bench-report: no chart (%s)" % e, file=sys.stderr)


if __name__ == "__main__":
    main()
