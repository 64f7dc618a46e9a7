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
"""
import bisect
import re
import sys


def text_symbols():
    """Sorted (address, module) of every text symbol ("vmlinux" for the core)."""
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
            syms.append((addr, mod))
    syms.sort()
    return syms


def main():
    want = re.compile("^(%s)$" % sys.argv[1])
    syms = text_symbols()
    addrs = [a for a, _ in syms]
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
    hits = sum(n for m, n in counts.items() if want.match(m))
    with open(sys.argv[2], "w") as rep:
        rep.write("%d samples; modules matching %s: %d\n" % (total, sys.argv[1], hits))
        for mod, n in sorted(counts.items(), key=lambda kv: -kv[1]):
            rep.write("%8d %6.2f%% %s\n" % (n, 100.0 * n / max(total, 1), mod))
    print("%.3f" % (100.0 * hits / total if total else -1))


if __name__ == "__main__":
    main()
