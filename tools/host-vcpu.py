#!/usr/bin/python3
"""Sample the CPU time the guest's vCPU threads take on the host.

    tools/host-vcpu.py PID OUTFILE

PID is qemu's (or the timeout(1) process that started it: its first child
is taken).  Every 0.25 s, until the process ends, OUTFILE is replaced by one
line:

    host_epoch_s vcpu_ticks clk_tck n_vcpus

vcpu_ticks: user + system time of qemu's "CPU n/TCG" threads, in clock
ticks.  A halted vCPU sleeps on the host, so this counts what the guest
really ran, whatever the guest's own accounting says (under TCG, perf in
the guest put 93 % of its samples in the idle loop while /proc/stat
counted the CPUs busy).  OUTFILE sits on the guest's results share, where
tools/bench-guest.sh reads it before and after each fio run.
"""
import os
import sys
import time


def qemu_pid(pid):
    """@pid if it is qemu, else its first child (timeout -> qemu)."""
    try:
        with open("/proc/%d/comm" % pid) as f:
            if f.read().startswith("qemu"):
                return pid
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            kids = f.read().split()
        return int(kids[0]) if kids else None
    except OSError:
        return None


def vcpu_ticks(pid):
    """Sum of utime + stime of @pid's vCPU threads, and their count."""
    total = n = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                comm = f.read().strip()
            if not (comm.startswith("CPU ") and comm.endswith("/TCG")):
                continue
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields[0] is field 3 (state): utime and stime are fields 14, 15.
        total += int(fields[11]) + int(fields[12])
        n += 1
    return total, n


def main():
    start, out = int(sys.argv[1]), sys.argv[2]
    hz = os.sysconf("SC_CLK_TCK")
    pid = None
    while os.path.exists("/proc/%d" % start):
        pid = pid or qemu_pid(start)
        if pid:
            try:
                ticks, n = vcpu_ticks(pid)
            except OSError:
                break
            with open(out + ".tmp", "w") as f:
                f.write("%.3f %d %d %d\n" % (time.time(), ticks, hz, n))
            os.replace(out + ".tmp", out)
        time.sleep(0.25)


if __name__ == "__main__":
    main()
