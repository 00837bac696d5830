# bench/nightly-analyse.py TRACE: where a traced `fleet run --trace` (stderr) spent each board's wall time: the
# phases (connect, deploy, probe, sweep, close), and inside the sweep the verification of each path, the
# openssl children (their wall time, and the seconds openssl says it measured) and the agent between points
# (bench/README.md, "The nightly accounted for"). A series measured by one openssl (", one openssl for its series",
# or the public-key algorithms of a mode: ", one openssl for its public-key algorithms") is accounted apart: its
# first point's span is the whole process, and the spans inside it leave its start, its exit and the agent's work
# around it together, which the trace does not split.
import re, sys
from collections import defaultdict

line = re.compile(r'^trace (\S+)\s+\+([\d.]+)s\s+([\d.]+)ms\s+(.*)$')
# A public-key point pair (sign, then verify: one openssl child) is two lines with the same start and duration,
# each with its share of the child; the second has no "after the previous point".
point = re.compile(r'^point (\S+) .*: child ([\d.]+) s, openssl measured ([\d.]+) s(?:, ([\d.]+) ms after the previous point)?')
b = defaultdict(lambda: defaultdict(float))
span = {}
last = {}
for l in open(sys.argv[1]):
    m = line.match(l.strip())
    if not m:
        continue
    board, start, dur, what = m.group(1), float(m.group(2)), float(m.group(3)) / 1000, m.group(4)
    if board == 'run':
        continue
    lo, hi = span.get(board, (start, start + dur))
    span[board] = (min(lo, start), max(hi, start + dur))
    d = b[board]
    p = point.match(what)
    if p:
        d['points'] += 1
        pre = 'series ' if re.search(r', one openssl for its (series|public-key algorithms)', what) else ''
        if (board, start) != last.get(board):
            d[pre + 'pointdur'] += dur
            d[pre + 'processes'] += 1
        last[board] = (board, start)
        d[pre + 'child'] += float(p.group(2))
        d['child all'] += float(p.group(2))
        d[pre + 'measured'] += float(p.group(3))
        d['measured all'] += float(p.group(3))
        d['gap'] += float(p.group(4) or 0) / 1000
        d['mode child ' + p.group(1)] += float(p.group(2))
    elif what.startswith('verify '):
        d['verify'] += dur
        d['verifies'] += 1
    elif what.split()[0] in ('connect', 'deploy', 'probe', 'sweep', 'close'):
        d[what.split()[0]] += dur
for board in sorted(b):
    d = b[board]
    wall = span[board][1] - span[board][0]
    fixed = d['connect'] + d['deploy'] + d['probe'] + d['close']
    start = d['child'] - d['measured']
    series = d['series pointdur'] - d['series measured']
    agent = d['sweep'] - d['verify'] - d['child'] - d['series pointdur']
    rest = wall - fixed - d['sweep']
    print(f"{board}: wall {wall:.1f} s, {int(d['points'])} points, openssl measured {d['measured all']:.1f} s "
          f"({100 * d['measured all'] / wall:.1f} % of the wall)")
    print(f"  {int(d['processes'])} commands of their own (openssl per point, kcapi), "
          f"{int(d['series processes'])} openssl for a whole series")
    for name, v in [('connect, deploy, probe, close', fixed), ('verification (%d paths)' % d['verifies'], d['verify']),
                    ('openssl start and exit, own commands (child wall - measured)', start),
                    ('series: start, exit and agent around (span - measured)', series),
                    ('agent between points (sweep - verif. - child wall - series)', agent),
                    ('  of which around each own child (point line - child wall)', d['pointdur'] - d['child']),
                    ('  of which "after the previous point"', d['gap']),
                    ('  the rest (between the verifications and points)', agent - (d['pointdur'] - d['child']) - d['gap']),
                    ('outside the phases', rest)]:
        print(f"  {name:62s} {v:8.1f} s  {100 * v / wall:5.1f} %")
    for k in sorted(k for k in d if k.startswith('mode child ')):
        print(f"  child wall, mode {k[11:]:40s} {d[k]:8.1f} s")
