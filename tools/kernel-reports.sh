#!/bin/bash
# Sourced: the one list of kernel-log reports that fail a test run, used by
# tools/vm.sh on the guest's log and by tools/guest-lib.sh (klog_splats) in
# the guest.  tests/unit/kernel-reports-test.sh checks it against sample
# lines of every kind as Debian's 6.1 and 6.12 kernels print them, and
# against ordinary lines that must not match.
#
#   KERNEL_REPORTS    the extended regular expression (grep -E)
#   kernel_reports FILE...   print the lines of FILE that are reports
#
# One alternative a line below; keep each specific enough that ordinary
# driver lines do not match (the unit test has a list of them).
KERNEL_REPORTS=$(sed -e '/^#/d' -e '/^$/d' <<'PATTERNS' | paste -sd'|'
# WARN(), lockdep ("WARNING: possible circular locking dependency
# detected", "WARNING: suspicious RCU usage", ...), "WARNING: CPU: 1 PID: ..."
WARNING:
# BUG: KASAN / unable to handle page fault / sleeping function called from
# invalid context / soft lockup / workqueue lockup / scheduling while atomic
# (a word: not the end of "ODEBUG: selftest passed")
\bBUG:
kernel BUG at
# die(): 6.12 "Oops: general protection fault, ...: 0000 [#1] PREEMPT SMP",
# 6.1 "general protection fault, ...: 0000 [#1]", "invalid opcode: 0000 [#1]"
Oops
: [0-9a-f]{4} \[#[0-9]+\]
general protection fault
Kernel panic
KASAN
UBSAN
# lockdep outside WARNING: lines
INFO: trying to register non-static key
still held
still has locks held
# debugobjects (DEBUG_OBJECTS): every "ODEBUG: " line but the boot's
# "ODEBUG: selftest passed"
ODEBUG: ([^s]|selftest [^p])
# DEBUG_LIST
list_(add|del) corruption
refcount_t:
# hung task: "INFO: task kworker/0:1:42 blocked for more than 120 seconds."
blocked for more than
# watchdog
soft lockup
hard LOCKUP
# RCU stalls: "rcu: INFO: rcu_preempt self-detected stall on CPU",
# "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:", "... detected
# expedited stalls ...", "rcu_tasks detected stalls on tasks:"
rcu_[a-z_]+ (self-)?detected (expedited )?stalls?
RCU stall
# kmemleak: "kmemleak: 2 new suspected memory leaks (see ...)"
suspected memory leak
stack-protector
stack guard page
PATTERNS
)
kernel_reports() { grep -hE "$KERNEL_REPORTS" "$@"; }
