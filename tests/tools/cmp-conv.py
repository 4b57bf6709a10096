#!/usr/bin/env python3
"""Compare `traceio print --style babeltrace` of a trace with the same print
of its CTF conversion, line by line, modulo how CTF 1.8 has to spell three
things (docs/formats/ctf-writer.md, "What CTF 1.8 cannot say"):

  - a BLOB (trace.dat arrays of bytes) is an array of 8-bit integers in
    hex: `[ [0] = 0x74, [1] = 0x2D ]` stands for `[ 74, 2d ]`;
  - a dynamic BLOB is preceded by its length member `NAME__len = N, `;
  - the second member with a name already used in its structure is
    written `NAME__2` (trace.dat formats may declare a name twice);
  - a name with characters TSDL identifiers cannot hold (LTTng 0.x:
    `rw(FAILFAST_DEV,...)`) has '_' in their place.

Usage: cmp-conv.py INPUT.txt OUTPUT.txt.  Exit 0 when every line is equal
after that; prints a one-line summary (how many lines needed it), or the
first differing lines.
"""
import re
import sys

BYTES = re.compile(r"\[ ((?:\[\d+\] = 0x[0-9A-F]+(?:, )?)+) \]")
BYTE = re.compile(r"\[\d+\] = 0x([0-9A-F]+)")
LEN = re.compile(r"(\w+)__len = \d+, (\1 = )")
DUP = re.compile(r"\b(\w+?)__\d+ = ")


def norm(line):
    line = BYTES.sub(lambda m: "[ " + ", ".join("%02x" % int(b, 16) for b in BYTE.findall(m.group(1))) + " ]", line)
    line = LEN.sub(r"\2", line)
    return DUP.sub(r"\1 = ", line)


def sanitized(x, y):
    """y is x with some characters outside [A-Za-z0-9_] replaced by '_'."""
    if len(x) != len(y):
        return False
    return all(a == b or (b == "_" and not (a.isascii() and (a.isalnum() or a == "_"))) for a, b in zip(x, y))


def main():
    a = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read().split("\n")
    b = open(sys.argv[2], encoding="utf-8", errors="surrogateescape").read().split("\n")
    if len(a) != len(b):
        print(f"line counts differ: input {len(a)}, output {len(b)}")
        return 1
    normalized = 0
    for n, (x, y) in enumerate(zip(a, b), 1):
        if x == y:
            continue
        if norm(y) == x or sanitized(x, y) or sanitized(x, norm(y)):
            normalized += 1
            continue
        print(f"line {n} differs:\n< {x[:400]}\n> {y[:400]}\n~ {norm(y)[:400]}")
        return 1
    print(f"identical ({normalized} lines with BLOBs or names spelled the CTF 1.8 way)" if normalized
          else "identical")
    return 0


sys.exit(main())
