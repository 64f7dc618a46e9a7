#!/usr/bin/python3
"""Sample the CPU time the guest's vCPU threads take on the host.

    tools/host-vcpu.py PID OUTFILE

PID is qemu's (or the timeout(1) process that started it: its first child
is taken).  Every 0.25 s, until the process ends, OUTFILE is replaced by one
line:

    host_epoch_s vcpu_ticks clk_tck n_vcpus pace_samples pace_us

vcpu_ticks: user + system time of qemu's "CPU n/TCG" threads, in clock
ticks.  A halted vCPU sleeps on the host, so this counts what the guest
really ran, whatever the guest's own accounting says (under TCG, perf in
the guest put 93 % of its samples in the idle loop while /proc/stat
counted the CPUs busy).  pace_samples, pace_us: how often a fixed loop
was timed on the host (every 10 s) and the sum of its times in
microseconds; a larger mean is a slower host (class Pace).  OUTFILE sits
on the guest's results share, where tools/bench-guest.sh reads it before
and after each fio run, and tools/fault-lib.sh before and after each
fault.
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


class Pace:
    """The host's pace: every 10 s, the wall time of a fixed loop.

    The loop competes with the guest's vCPUs and whatever else the host
    (and its hypervisor, whose steal this host does not report) runs, so
    it takes longer when the host has less to give.
    """

    def __init__(self):
        self.n = self.us = 0
        self.last = 0.0

    def sample(self):
        """Time the loop if 10 s have passed; the samples and their sum."""
        now = time.monotonic()
        if now - self.last >= 10:
            self.last = now
            t0 = time.perf_counter()
            x = 0
            for i in range(200000):
                x += i
            self.us += int((time.perf_counter() - t0) * 1e6)
            self.n += 1
        return self.n, self.us


def main():
    start, out = int(sys.argv[1]), sys.argv[2]
    hz = os.sysconf("SC_CLK_TCK")
    pid = None
    pace = Pace()
    while os.path.exists("/proc/%d" % start):
        pid = pid or qemu_pid(start)
        if pid:
            try:
                ticks, n = vcpu_ticks(pid)
            except OSError:
                break
            samples, loop_us = pace.sample()
            with open(out + ".tmp", "w") as f:
                f.write("%.3f %d %d %d %d %d\n"
                        % (time.time(), ticks, hz, n, samples, loop_us))
            os.replace(out + ".tmp", out)
        time.sleep(0.25)


if __name__ == "__main__":
    main()
