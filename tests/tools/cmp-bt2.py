#!/usr/bin/env python3
"""Compare babeltrace2 text with traceio text, line by line.

Exit 0 when they are identical, or when every differing line differs only
where babeltrace2 2.0.4 prints a stale value for an empty string (it reuses
event objects and does not clear a string field that decodes empty: the
previous event's text shows; babeltrace 1 and traceio print "").  Prints a
one-line summary; on failure, the first differing lines.
"""
import re
import sys

STR = re.compile(r'"(?:[^"\\]|\\.)*"')


def split(line):
    return STR.split(line), STR.findall(line)


def main():
    bt = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read().split("\n")
    tio = open(sys.argv[2], encoding="utf-8", errors="surrogateescape").read().split("\n")
    if len(bt) != len(tio):
        print(f"line counts differ: babeltrace2 {len(bt)}, traceio {len(tio)}")
        return 1
    stale = 0
    for n, (a, b) in enumerate(zip(bt, tio), 1):
        if a == b:
            continue
        (ra, sa), (rb, sb) = split(a), split(b)
        if ra == rb and len(sa) == len(sb) and all(x == y or y == '""' for x, y in zip(sa, sb)):
            stale += 1
            continue
        print(f"line {n} differs:\n< {a[:400]}\n> {b[:400]}")
        return 1
    if stale:
        print(f"identical but {stale} lines where babeltrace2 shows a stale value for an empty string")
    else:
        print("identical")
    return 0


sys.exit(main())
