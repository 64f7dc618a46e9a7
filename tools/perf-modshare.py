#!/usr/bin/python3
"""Share of perf samples that fall into given kernel modules.

perf-modshare.py MODULE_RE REPORT < ips

Reads one sample address per line (hex, as `perf script -F ip` prints
them), maps each to the module whose text symbol precedes it in
/proc/kallsyms (read now: the modules must still be loaded, at the
addresses they had while perf recorded) and prints the percentage of all
samples that land in a module whose name matches MODULE_RE (anchored).
REPORT gets the samples per module, largest first.

perf's own --sort dso cannot be used for this in the guest: Debian 6.1's
perf on a 6.12 kernel files every kernel sample, modules included, under
[kernel.vmlinux].

perf-modshare.py MODULE_RE REPORT BUSY: BUSY is the fraction of CPU time
/proc/stat counted busy over the same run. Under TCG the samples can
disagree with it wholesale (a fio run at QD32 that /proc/stat saw ~100 %
busy gave 93 % of its samples in pv_native_safe_halt): when the share of
samples in the idle loop exceeds the idle time /proc/stat saw by more
than IDLE_SLACK, the samples do not show where the time went, and -1 is
printed (no figure) with the reason in REPORT.
"""
import bisect
import re
import sys

IDLE = re.compile(r"^(pv_native_safe_halt|native_safe_halt|default_idle|"
                  r"cpu_idle_poll|mwait_idle.*|acpi_idle.*|intel_idle.*)$")
IDLE_SLACK = 0.25


def text_symbols():
    """Sorted (address, module, name) of every text symbol ("vmlinux" for
    the core)."""
    syms = []
    with open("/proc/kallsyms") as f:
        for line in f:
            fields = line.split()
            if len(fields) < 3 or fields[1] not in ("t", "T", "w", "W"):
                continue
            addr = int(fields[0], 16)
            if addr == 0:
                sys.exit("perf-modshare: /proc/kallsyms hides addresses")
            mod = fields[3].strip("[]") if len(fields) > 3 else "vmlinux"
            syms.append((addr, mod, fields[2]))
    syms.sort()
    return syms


def main():
    want = re.compile("^(%s)$" % sys.argv[1])
    syms = text_symbols()
    addrs = [a for a, _, _ in syms]
    busy = float(sys.argv[3]) if len(sys.argv) > 3 else None
    idle = 0
    counts = {}
    total = 0
    for line in sys.stdin:
        word = line.strip()
        if not word:
            continue
        try:
            ip = int(word, 16)
        except ValueError:
            continue
        total += 1
        i = bisect.bisect_right(addrs, ip) - 1
        mod = syms[i][1] if i >= 0 else "user"
        counts[mod] = counts.get(mod, 0) + 1
        idle += i >= 0 and mod == "vmlinux" and bool(IDLE.match(syms[i][2]))
    hits = sum(n for m, n in counts.items() if want.match(m))
    idle_share = idle / total if total else 0.0
    usable = total > 0 and (busy is None or idle_share <= 1 - busy + IDLE_SLACK)
    with open(sys.argv[2], "w") as rep:
        rep.write("%d samples; modules matching %s: %d; idle loop %.1f%%%s\n" % (
            total, sys.argv[1], hits, 100 * idle_share,
            "" if busy is None else "; /proc/stat busy %.1f%%" % (100 * busy)))
        if not usable:
            rep.write("not used: the samples disagree with /proc/stat "
                      "(idle share beyond the idle time + %d%%)\n" % (100 * IDLE_SLACK))
        for mod, n in sorted(counts.items(), key=lambda kv: -kv[1]):
            rep.write("%8d %6.2f%% %s\n" % (n, 100.0 * n / max(total, 1), mod))
    print("%.3f" % (100.0 * hits / total if usable else -1))


if __name__ == "__main__":
    main()
