#!/usr/bin/env python3
"""Hand-made traces of seed 000's 2008 LTTng layout, byte by byte.

usage: mk-ltt2008.py OUTDIR little|big

Writes OUTDIR (cpu_0, cpu_1, control/facilities_0, control/facilities_1,
control/processes_0) and OUTDIR.expect: one line per event,
"STREAM OFFSET NAME CYCLES NS {json payload}", sorted, with the time worked
out here from the seed's formula (start_time + (tsc - start_tsc) * 1e9 *
freq_scale / start_freq, floored).  The layout follows docs/formats/ltt0x.md
("The 2008 layout") and is also what the writer produces from it: blocks
filled in order, a new block when an event does not fit or (32-bit TSC)
when the TSC moves back or by 2^32 or more, block begin/end = first/last
event TSC, marker descriptions in control/facilities_0 at start_tsc sorted
by id, then each facilities file's heartbeats.

little: little-endian, arch_size 4, alignment 4, 32-bit TSC (has_heartbeat),
        512-byte blocks, start_freq 3 GHz with freq_scale 3 (1 GHz).
big:    big-endian, arch_size 8, packed (alignment 0), 64-bit TSC,
        256-byte blocks, start_freq 2.5 GHz, freq_scale 1.
"""
import json
import os
import struct
import sys

out, order = sys.argv[1], sys.argv[2]
BE = order == "big"
E = ">" if BE else "<"
if BE:
    ARCH, ALIGN, HB, BS, FREQ, SCALE = 8, 0, 0, 256, 2500000000, 1
else:
    ARCH, ALIGN, HB, BS, FREQ, SCALE = 4, 4, 1, 512, 3000000000, 3
START_TSC, START_SEC, START_NSEC = 1000, 1200000000, 500000000
TSZ = 4 if HB else 8

CORE = [
    ("marker_id", "facility %s facility_id #1u%u name %s event_id #1u%u int #1u%u long #1u%u pointer #1u%u size_t #1u%u alignment #1u%u"),
    ("marker_format", "facility %s name %s format %s"),
    ("time_heartbeat", ""),
]
# (facility, fac id, name, event id, format, fields as (name, kind, size, net))
MARKERS = [
    ("kernel", 1, "irq_entry", 0, "irq_id #2u%u ip #p%lx", [("irq_id", "u", 2, False), ("ip", "u", ARCH, False)]),
    ("kernel", 1, "sched_schedule", 1, "prev_pid %d next_pid %d prev_state #1d%d",
     [("prev_pid", "d", 4, False), ("next_pid", "d", 4, False), ("prev_state", "d", 1, False)]),
    ("kernel", 1, "unused", 2, "x %llu", [("x", "u", 8, False)]),
    ("fs", 2, "open", 0, "fd %d filename %s flags #n4x%x",
     [("fd", "d", 4, False), ("filename", "s", 0, False), ("flags", "u", 4, True)]),
    ("fs", 2, "close", 1, "", []),
    ("proc", 3, "process", 0, "pid %u name %s big %lld", [("pid", "u", 4, False), ("name", "s", 0, False), ("big", "d", 8, False)]),
]
CORE_FIELDS = {
    0: [("facility", "s", 0, False), ("facility_id", "u", 1, False), ("name", "s", 0, False), ("event_id", "u", 1, False)]
    + [(n, "u", 1, False) for n in ("int", "long", "pointer", "size_t", "alignment")],
    1: [("facility", "s", 0, False), ("name", "s", 0, False), ("format", "s", 0, False)],
    2: [],
}


def pad(at, size, align):
    if not align or not size:
        return 0
    a = min(size, align)
    return (a - at) & (a - 1)


def ns_of(tsc):
    num = (tsc - START_TSC) * 1000000000 * SCALE
    return START_SEC * 1000000000 + START_NSEC + num // FREQ


class TF:
    def __init__(self, name):
        self.name, self.data, self.blk, self.pos = name, bytearray(), None, 0
        self.first = self.last = 0

    def close(self):
        b = self.blk
        struct.pack_into(E + "QQQQII", b, 0, self.first, FREQ, self.last, FREQ, BS - self.pos, BS)
        struct.pack_into(E + "IIII", b, 40, 0x00D6B7ED, 0, 0, 0)
        b[56:65] = bytes([ARCH, 1, 0, 0, HB, ALIGN, 0, 0, 0])
        struct.pack_into(E + "IQQQII", b, 68, SCALE, FREQ, START_TSC, 0, START_SEC, START_NSEC)
        self.data += b
        self.blk = None

    def encode(self, fac, ev, fields, vals):
        """bytes of the event at self.pos, or None when it does not fit"""
        b = bytearray(BS)
        pos = self.pos + pad(self.pos, TSZ, ALIGN)
        hdr = pos
        data = pos + TSZ + 4
        data += pad(data, ARCH, ALIGN)
        at = data
        for (_, k, size, net), v in zip(fields, vals):
            if k == "s":
                s = v.encode() + b"\0"
                if at + len(s) > BS:
                    return None
                b[at:at + len(s)] = s
                at += len(s)
                continue
            at += pad(at, size, ALIGN)
            if at + size > BS:
                return None
            code = {1: "B", 2: "H", 4: "I", 8: "Q"}[size]
            if k == "d":
                code = code.lower()
            b[at:at + size] = struct.pack((">" if net else E) + code, v)
            at += size
        return b, hdr, data, at

    def event(self, tsc, fac, ev, fields, vals):
        for _ in range(2):
            if self.blk is not None and HB and (tsc < self.last or tsc - self.last >= 1 << 32):
                self.close()
            if self.blk is None:
                self.blk = bytearray(BS)
                self.pos = 104
                self.first = self.last = tsc
            r = self.encode(fac, ev, fields, vals)
            if r:
                b, hdr, data, at = r
                self.blk[data:at] = b[data:at]
                struct.pack_into(E + ("I" if HB else "Q"), self.blk, hdr, tsc & ((1 << 32) - 1 if HB else (1 << 64) - 1))
                struct.pack_into(E + "BBH", self.blk, hdr + TSZ, fac, ev, at - data)
                off = len(self.data) + hdr
                self.pos = at
                self.last = tsc
                return off
            self.close()
        raise SystemExit("event too big")


os.makedirs(out + "/control", exist_ok=True)
files = {}
expect = []


def tf(name):
    if name not in files:
        files[name] = TF(name)
    return files[name]


def emit(name, tsc, fac, ev, vals, show=True):
    if fac == 0:
        ename, fields = CORE[ev][0], CORE_FIELDS[ev]
    else:
        m = next(m for m in MARKERS if m[1] == fac and m[3] == ev)
        ename, fields = m[2], m[5]
    fnames = [f[0] for f in fields]
    off = tf(name).event(tsc, fac, ev, fields, vals)
    pl = dict(zip(fnames, vals))
    expect.append("%s %d %s %d %d %s" % (name, off, ename, tsc, ns_of(tsc), json.dumps(pl, separators=(",", ":"))))


# the events of the tracefiles (time order within each)
W = 1 << 32
cpu0 = [
    (5000, 1, 0, [7, 0xc0100000]),
    (6000, 1, 1, [0, 42, -1]),
    (7000, 2, 0, [3, "/etc/passwd", 0x8001]),
    (8000, 2, 1, []),
]
cpu0 += [(9000 + 100 * i, 1, 1, [i, i + 1, i % 3 - 1]) for i in range(12)]   # fills a second block
if HB:
    cpu0 += [(W - 50, 1, 0, [9, 0xffffffff]), (W + 20, 1, 0, [10, 1])]   # 32-bit wrap inside a block
    cpu0 += [(3 * W + 5, 2, 1, [])]                                    # a gap of 2^32: a new block
else:
    cpu0 += [(W - 50, 1, 0, [9, 0xffffffffffffffff]), (1 << 40, 2, 1, [])]
cpu1 = [(5500, 2, 0, [-1, "", 0]), (5600, 1, 1, [5, -6, 1])]
procs = [(1500, 3, 0, [1, "init", -9223372036854775808]), (1600, 3, 0, [4242, "bash", 123456789012])]

# control/facilities_0: every marker but core's, at start_tsc, then heartbeats
for fac, fid, name, eid, fmt, _ in sorted(MARKERS, key=lambda m: (m[1], m[3])):
    emit("control/facilities_0", START_TSC, 0, 0, [fac, fid, name, eid, 4, ARCH, ARCH, ARCH, ALIGN])
    emit("control/facilities_0", START_TSC, 0, 1, [fac, name, fmt])
emit("control/facilities_0", 20000, 0, 2, [])
emit("control/facilities_1", 30000, 0, 2, [])
for t, f, e, v in cpu0:
    emit("cpu_0", t, f, e, v)
for t, f, e, v in cpu1:
    emit("cpu_1", t, f, e, v)
for t, f, e, v in procs:
    emit("control/processes_0", t, f, e, v)

for t in files.values():
    if t.blk is not None:
        t.close()
    with open(os.path.join(out, t.name), "wb") as f:
        f.write(t.data)
with open(out + ".expect", "w") as f:
    f.write("\n".join(sorted(expect)) + "\n")
