#!/usr/bin/python3
"""Recompute sched_slice from a peer's text and compare with traceio's table.

usage: sched-check.py tracecmd|babeltrace TEXT SQLCSV
  TEXT: `trace-cmd report -t` (trace.dat) or `babeltrace2 --clock-seconds`
        (LTTng kernel CTF) output;
  SQLCSV: `traceio sql --csv TRACE 'SELECT ts, dur, cpu, tid FROM sched_slice'`.

Independent of traceio: from the text alone, for each CPU, a slice starts at
each sched_switch with its next tid and ends at the CPU's next sched_switch;
the CPU's last slice ends at the last event recorded on that CPU.  Checks that
the table's slices are those (ts, cpu, tid, dur), and on the table alone that
each CPU's slices are contiguous, do not overlap, and add up to the CPU's span
from its first switch to its last event.  Prints ok/not ok lines.
"""
import collections
import csv
import re
import sys

TC = re.compile(r"\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\S+):\s*(.*)$")
TC_SW = re.compile(r"(.*):(-?\d+) \[(-?\d+)\] (\S+) ==> (.*):(-?\d+) \[(-?\d+)\]\s*$")
BT = re.compile(r"^\[(\d+)\.(\d{9})\] \S+ \S+ (\S+): \{ cpu_id = (\d+) \}, \{ (.*) \}$")


def parse(kind, path):
    """(ts, cpu, name, next_tid or None) per event line, in file order."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            if kind == "tracecmd":
                m = TC.search(line)
                if not m:
                    continue
                ts = int(m.group(2)) * 1000000000 + int(m.group(3))
                cpu, name, body = int(m.group(1)), m.group(4), m.group(5)
                nxt = None
                if name == "sched_switch":
                    s = TC_SW.match(body)
                    if not s:
                        continue
                    nxt = int(s.group(6))
            else:
                m = BT.match(line.rstrip("\n"))
                if not m:
                    continue
                ts = int(m.group(1)) * 1000000000 + int(m.group(2))
                name, cpu, body = m.group(3), int(m.group(4)), m.group(5)
                nxt = None
                if name == "sched_switch":
                    s = re.search(r"next_tid = (-?\d+)", body)
                    nxt = int(s.group(1))
            out.append((ts, cpu, name, nxt))
    return out


def expected(events):
    cur = {}
    last = {}
    slices = []
    for ts, cpu, name, nxt in events:
        last[cpu] = max(last.get(cpu, ts), ts)
        if name != "sched_switch":
            continue
        if cpu in cur:
            t0, tid = cur[cpu]
            slices.append((t0, ts - t0, cpu, tid))
        cur[cpu] = (ts, nxt)
    for cpu, (t0, tid) in cur.items():
        slices.append((t0, last[cpu] - t0, cpu, tid))
    return sorted(slices, key=lambda s: (s[2], s[0])), last


def main():
    kind, text, sqlcsv = sys.argv[1:4]
    exp, last = expected(parse(kind, text))
    with open(sqlcsv) as f:
        rows = [(int(r["ts"]), int(r["dur"]), int(r["cpu"]), int(r["tid"])) for r in csv.DictReader(f)]
    got = sorted(rows, key=lambda s: (s[2], s[0]))
    ok = True
    if not exp:
        print("not ok no sched_switch in the text")
        return 1
    if got == exp:
        print("ok sched_slice: %d slices on %d CPUs equal the recomputation from the %s text"
              % (len(got), len({s[2] for s in got}), kind))
    else:
        ok = False
        print("not ok sched_slice differs from the recomputation: %d vs %d slices" % (len(got), len(exp)))
        for a, b in zip(got, exp):
            if a != b:
                print("    first difference: table %s, text %s" % (a, b))
                break
    per = collections.defaultdict(list)
    for s in got:
        per[s[2]].append(s)
    bad = []
    for cpu, v in per.items():
        for a, b in zip(v, v[1:]):
            if a[0] + a[1] != b[0]:
                bad.append("cpu %d: slice at %d + %d does not end where the next begins (%d)"
                           % (cpu, a[0], a[1], b[0]))
                break
        if any(s[1] < 0 for s in v):
            bad.append("cpu %d: negative duration" % cpu)
        span = last[cpu] - v[0][0]
        if sum(s[1] for s in v) != span:
            bad.append("cpu %d: durations add up to %d, span %d" % (cpu, sum(s[1] for s in v), span))
    if bad:
        ok = False
        print("not ok sched_slice contiguous, non-overlapping, adding up to each CPU's span")
        for b in bad[:5]:
            print("    " + b)
    else:
        print("ok sched_slice contiguous, non-overlapping, adding up to each CPU's span (%d CPUs)" % len(per))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
