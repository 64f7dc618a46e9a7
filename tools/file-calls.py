#!/usr/bin/env python3
"""The calls between the module's files, from its headers' prototypes.

Each srpt_X.c offers what srpt_X.h declares (ib_srpt.c: ib_srpt.h).
For every .c this lists the files whose functions it calls (by name,
comments and strings left out) and checks that
  - it includes the header of each file it calls, and no other srpt_*.h
    (srpt_base.h, srpt_trace.h and srpt_compat.h aside),
  - no header but ib_srpt.c's own includes ib_srpt.h,
  - the calls form no cycle (a file never calls one that calls it back).
Calls through pointers (LIO's fabric ops, verbs' cqe.done, work items, the
CM ops of a channel) are not calls by name and are not listed.

  tools/file-calls.py [DIR]     prints the graph; exit 1 on a violation
"""
import glob, os, re, sys

top = sys.argv[1] if len(sys.argv) > 1 else '.'
os.chdir(top)
SHARED = {'srpt_base.h', 'srpt_trace.h', 'srpt_compat.h'}


def strip(t):
    t = re.sub(r'/\*.*?\*/', '', t, flags=re.S)
    t = re.sub(r'//.*', '', t)
    return re.sub(r'"(\\.|[^"\\])*"', '""', t)


def header_of(c):
    return 'ib_srpt.h' if c == 'ib_srpt.c' else c[:-2] + '.h'


owner = {}
for h in sorted(glob.glob('srpt_*.h')) + ['ib_srpt.h']:
    if h in SHARED:
        continue
    t = strip(open(h).read())
    # functions declared (not struct or enum names followed by '(')
    for m in re.finditer(r'^[a-z][^;(]*?\b(_{0,2}srpt_[a-z0-9_]+)\s*\(', t, re.M):
        owner.setdefault(m.group(1), h)
    for m in re.finditer(r'\b(SRPT_(?:RES|EV|FAULT)_[A-Z_]+|srpt_fault_key)\b', t):
        owner.setdefault(m.group(1), h)

calls, bad = {}, []
for c in sorted(glob.glob('*.c')):
    if c.endswith('.mod.c'):
        continue
    raw = open(c).read()
    code = strip(raw)
    own = header_of(c)
    used = {h for s, h in owner.items()
            if h != own and
            re.search(r'(?<!struct )(?<!enum )\b' + re.escape(s) + r'\b', code)}
    incs = set(re.findall(r'#include "([^"]+)"', raw))
    for h in sorted(used - incs):
        bad.append(f'{c}: calls into {h[:-2]}.c without including {h}')
    for h in sorted(incs - used - SHARED - {own}):
        bad.append(f'{c}: includes {h} but calls nothing of it')
    calls[c[:-2]] = sorted(h[:-2] for h in used)
for h in glob.glob('*.h'):
    if h != 'ib_srpt.h' and '"ib_srpt.h"' in open(h).read():
        bad.append(f'{h}: includes ib_srpt.h (the top of the house)')
for c in glob.glob('*.c'):
    if c != 'ib_srpt.c' and '"ib_srpt.h"' in open(c).read():
        bad.append(f'{c}: includes ib_srpt.h (the top of the house)')

# cycles: depth-first search over the call graph
state = {}


def visit(n, path):
    state[n] = 1
    for m in calls.get(n, []):
        if state.get(m) == 1:
            bad.append('cycle: ' + ' -> '.join(path[path.index(m):] + [m]))
        elif not state.get(m):
            visit(m, path + [m])
    state[n] = 2


for n in calls:
    if not state.get(n):
        visit(n, [n])

for n, cs in calls.items():
    print(f'{n + ".c":22} -> {" ".join(cs) if cs else "(nothing)"}')
for b in bad:
    print('file-calls:', b, file=sys.stderr)
sys.exit(1 if bad else 0)
