#!/usr/bin/env python3
"""A hand-made LTTng 0.x trace of LTT trace format 2.3, byte by byte.

usage: mk-lttng0.py OUTDIR [32|64]

Writes OUTDIR (metadata_0, kernel_0) as the LTTng 0.x kernel tracer did on a
32-bit machine (64: a 64-bit one, arch_size 8, the second list of events
below): little-endian, arch_size 4, alignment 0 (packed), one 4 KiB
sub-buffer per tracefile, start_freq 1.989 GHz, freq_scale 1; layout in
docs/formats/ltt0x.md.  kernel_0 holds events of kernel.irq_entry
("irq_id %u"), each with the TSC and header kind below:

  1  compact   T1 = 0x1451840580b
  2  compact   T1 - 31794 cycles (16 us earlier: a nested interrupt's event)
  3  id 29     T1 + 40000, full 64-bit TSC
  4  compact   T3 + 500
  5  id 29     (T1 | 0x7ffffff) + 1000: the bits above the 27 low ones change
  6  compact   T5 + 700

64 (the 64-bit tracer wrote a full TSC only when the TSC moved by 2^27 or
more, or back):

  1  compact   T1
  2  compact   (T1 | 0x7ffffff) + 1000: the bits above the 27 change, no full TSC
  3  id 29     T2 - 20000, full TSC (10 us earlier: out of order)
  4  compact   T3 + 500

and OUTDIR.expect-nocarry / OUTDIR.expect-lttv: one line per kernel event,
"irq_entry SEC.NSEC irq_id", with the time each rule gives (docs/formats/
ltt0x.md, "Compact timestamps"): "nocarry" keeps the high bits of the previous TSC (event 2
is 16 us before event 1, kept in file order), "lttv" adds 2^27 when the low
bits go down (event 2 is 67 ms in the future, event 3 goes back).  The time
is LTTV's conversion with the same double operations.  OUTDIR.note: the
offset of the event out of order (32: event 2, 64: event 3) and how far
before the event before it it is, in cycles and ns, under the default rule
("auto": nocarry for 32, lttv's carry for 64).
"""
import os
import struct
import sys

out = sys.argv[1]
BITS = int(sys.argv[2]) if len(sys.argv) > 2 else 32
ARCH = BITS // 8
FREQ, SCALE = 1989000000, 1
MASK = (1 << 27) - 1
SB = 4096
T1 = 0x1451840580B
T2 = T1 - 31794
T3 = T1 + 40000
T4 = T3 + 500
T5 = (T1 | MASK) + 1000
T6 = T5 + 700
START_TSC = T1 - 5000000  # metadata_0's block begins here
if BITS == 32:
    SEQ = [("c", T1), ("c", T2), ("x", T3), ("c", T4), ("x", T5), ("c", T6)]
    BACK, AFTER = 1, 0  # event 2 is before event 1
else:
    W = (T1 | MASK) + 1000
    SEQ = [("c", T1), ("c", W), ("x", W - 20000), ("c", W - 19500)]
    BACK, AFTER = 2, 1


def header(begin, end, data_end):
    """The 68-byte sub-buffer header of format 2.3 (lost_size = padding)."""
    return struct.pack("<QQIBBBBQQQIIIII", begin, end, 0x00D6B7ED, 2, 3, ARCH, 0,
                       1300000000, 250000, FREQ, SCALE, SB - data_end, SB, 0, 0)


def compact(mid, tsc):
    return struct.pack("<I", (mid << 27) | (tsc & MASK))


def extended(mid, tsc, size):
    return struct.pack("<IHHQ", (29 << 27) | (tsc & MASK), mid, size, tsc)


def block(begin, end, events):
    data = b"".join(events)
    body = header(begin, end, 68 + len(data)) + data
    assert len(body) <= SB
    return body + b"\0" * (SB - len(body))


def s(x):
    return x.encode() + b"\0"


os.makedirs(out, exist_ok=True)
# metadata: core_marker_format (id 1) then core_marker_id (id 0) of kernel.irq_entry
meta = [
    compact(1, START_TSC + 10) + s("kernel") + s("irq_entry") + s("irq_id %u"),
    compact(0, START_TSC + 20) + s("kernel") + s("irq_entry") + struct.pack("<HBBBBB", 0, 4, ARCH, ARCH, ARCH, 0),
]
with open(os.path.join(out, "metadata_0"), "wb") as f:
    f.write(block(START_TSC, START_TSC + 30, meta))

events, offsets, pos = [], [], 68
for k, (kind, tsc) in enumerate(SEQ):
    e = (compact(0, tsc) if kind == "c" else extended(0, tsc, 4)) + struct.pack("<I", 100 + k)
    events.append(e)
    offsets.append(pos)
    pos += len(e)
with open(os.path.join(out, "kernel_0"), "wb") as f:
    f.write(block(T1 - 100, max(t for _, t in SEQ) + 10, events))


def ns(tsc):
    """LTTV's ltt_interpolate_time_from_tsc(), as traceio reproduces it."""
    start_ns = int(float(START_TSC) * 1000000000.0 * SCALE / float(FREQ))
    if tsc > START_TSC:
        return start_ns + int(float(tsc - START_TSC) * 1000000000.0 * SCALE / float(FREQ))
    return start_ns - int(float(START_TSC - tsc) * 1000000000.0 * SCALE / float(FREQ))


def extend(rule):
    """TSCs as read: compact low bits on the previous TSC (block begin first)."""
    cur, got = T1 - 100, []
    for kind, tsc in SEQ:
        if kind == "x":
            cur = tsc
        else:
            low = tsc & MASK
            if rule == "lttv" and low < (cur & MASK):
                cur = ((cur & ~MASK) + (1 << 27)) | low
            else:
                cur = (cur & ~MASK) | low
        got.append(cur)
    return got


for rule in ("nocarry", "lttv"):
    with open(out + ".expect-" + rule, "w") as f:
        for k, t in enumerate(extend(rule)):
            n = ns(t)
            f.write("irq_entry %d.%09d %d\n" % (n // 1000000000, n % 1000000000, 100 + k))
got = extend("nocarry" if BITS == 32 else "lttv")
with open(out + ".note", "w") as f:
    f.write("0x%x %d %d\n" % (offsets[BACK], got[AFTER] - got[BACK], ns(got[AFTER]) - ns(got[BACK])))
