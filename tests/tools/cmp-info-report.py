#!/usr/bin/env python3
"""cmp-info-report.py INFO REPORT_T

Compare what `traceio info` says about one trace.dat file (INFO: its
output) with what `trace-cmd report -t` printed for it (REPORT_T): event
count, count per event name, count per CPU (per buffer instance and CPU),
first and last timestamps, and the events trace-cmd says were dropped.
Prints the differences; exit status 0 when there are none.
"""
import collections
import re
import sys

EV = re.compile(r"^(?:(\S+): )?\s*.*?-(?:\d+|<\.\.\.>)\s+\[(\d+)\]\s*(\d+(?:\.\d+)?): ([^:]+):")  # seconds, or the integer of a clock not in ns
DROP = re.compile(r'^(?:(\S+): )?\s*CPU:(\d+) \[(\d+) EVENTS DROPPED\]')


def report(path):
    names, cpus = collections.Counter(), collections.Counter()
    total = dropped = 0
    first = last = None
    with open(path, errors='replace') as f:
        for line in f:
            m = DROP.match(line)
            if m:
                dropped += int(m.group(3))
                continue
            m = EV.match(line)
            if not m:
                continue
            buf, cpu, ts, name = m.group(1) or '', int(m.group(2)), m.group(3), m.group(4).strip()
            total += 1
            names[(buf, name)] += 1
            cpus[(buf, cpu)] += 1
            if '.' in ts:
                s, ns = ts.split('.')
                t = int(s) * 10**9 + int(ns.ljust(9, '0'))
            else:  # a clock trace-cmd does not count in ns: the time stamp itself
                t = int(ts)
            first = t if first is None else min(first, t)
            last = t if last is None else max(last, t)
    return total, names, cpus, first, last, dropped


STREAM = re.compile(r'^    stream \d+ \(class (\d+)\): (\d+) events  (?:(.*)/)?cpu(\d+)$')
CLASS = re.compile(r'^  stream class (\d+) \(buffer "(.*)"\)')
COUNT = re.compile(r'^    +(\d+)  (\S+) \(id \d+\)$')


def ns(text):
    s, f = text.split('.')
    return int(s) * 10**9 + int(f)


def info(path):
    names, cpus = collections.Counter(), collections.Counter()
    total = dropped = 0
    first = last = None
    buf = ''
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('  events: '):
                total = int(line.split()[1])
            elif line.startswith('  time range: ['):
                a, b = line[len('  time range: ['):].split(']')[0].split(', ')
                first, last = ns(a), ns(b)
            elif line.startswith('  discarded events: '):
                dropped = int(line.split()[2])
            elif STREAM.match(line):
                m = STREAM.match(line)
                cpus[(m.group(3) or '', int(m.group(4)))] += int(m.group(2))
            elif CLASS.match(line):
                buf = CLASS.match(line).group(2)
            elif COUNT.match(line):
                m = COUNT.match(line)
                names[(buf, m.group(2))] += int(m.group(1))
    # trace-cmd prints only CPUs with events
    cpus = collections.Counter({k: v for k, v in cpus.items() if v})
    return total, names, cpus, first, last, dropped


def main():
    got, exp = info(sys.argv[1]), report(sys.argv[2])
    what = ['events', 'per event', 'per CPU', 'first timestamp', 'last timestamp', 'dropped events']
    bad = 0
    for w, g, e in zip(what, got, exp):
        # report -t prints ns; both are exact
        if g != e:
            bad += 1
            if isinstance(g, collections.Counter):
                keys = sorted(set(g) | set(e))
                diff = [f'{k}: info {g[k]} report {e[k]}' for k in keys if g[k] != e[k]]
                print(f'{w}: ' + '; '.join(diff[:5]))
            else:
                print(f'{w}: info {g} report {e}')
    sys.exit(1 if bad else 0)


main()
