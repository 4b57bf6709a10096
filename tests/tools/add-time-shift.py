#!/usr/bin/env python3
"""Copy a trace.dat and add a TIME_SHIFT option (id 12): the host/guest time
sync that `trace-cmd record -A` (a guest's trace through `trace-cmd agent`)
writes into the guest's file, which needs a VM with a vsock agent to record.
The payload, in the file's byte order, as trace-cmd 3.1 reads it:

    u64 peer trace id, u32 flags (bit 0: INTERPOLATE), s32 CPU count C,
    C x (u32 n, s64 times[n], s64 offsets[n], s64 scalings[n]),
    C x s64 fractions[n]            (optional: left out by --no-fractions)

v6 (either byte order): the option goes before the options' end (id 0); the
header grows into the padding before the first CPU page, or else the CPU
data moves by whole pages and the flyrecord CPU offsets are rewritten.
v7: a new uncompressed options section holding it is appended to the file
and chained from the last section's DONE option (the sections must be
uncompressed: `trace-cmd convert --compression none` writes such files).

Usage: add-time-shift.py IN.dat OUT.dat [--flags N] [--trace-id N]
         [--no-fractions] [--cpu-count N] [--count-field N] [--truncate N]
         (--json JSON | --sample CPU:TIME:OFFSET[:SCALING[:FRACTION]] ...)
  JSON: {"cpus": [{"times": [...], "offsets": [...], "scalings": [...],
         "fractions": [...]}, ...]} (scalings default to 1, fractions to 0);
  samples are written in the order given.  --count-field N writes N as the
  CPU count whatever the samples; --truncate N drops the payload's last N
  bytes (both for damaged-file tests).
"""
import argparse
import json
import struct
import sys

MAGIC = b"\x17\x08\x44tracing"
OPT_DONE, OPT_TIME_SHIFT = 0, 12


def die(msg):
    sys.exit("add-time-shift: " + msg)


def payload(e, trace_id, flags, cpus, fractions, count_field):
    out = struct.pack(e + "QIi", trace_id & (2**64 - 1), flags & 0xFFFFFFFF,
                      len(cpus) if count_field is None else count_field)
    for c in cpus:
        out += struct.pack(e + "I", len(c["times"]))
        for key in ("times", "offsets", "scalings"):
            out += b"".join(struct.pack(e + "q", v) for v in c[key])
    if fractions:
        for c in cpus:
            out += b"".join(struct.pack(e + "q", v) for v in c["fractions"])
    return out


def norm_cpu(c):
    n = len(c.get("times", []))
    r = {"times": c.get("times", []), "offsets": c.get("offsets", [0] * n),
         "scalings": c.get("scalings", [1] * n), "fractions": c.get("fractions", [0] * n)}
    r = {k: [int(v) for v in r[k]] for k in r}
    if any(len(v) != n for v in r.values()):
        die("a CPU's arrays differ in length: %r" % c)
    return r


def add_v6(d, e, opt):
    opts, fly = d.find(b"options  \0"), d.find(b"flyrecord\0")
    if opts < 0 or fly < opts:
        die("no options before the flyrecord table")
    p = opts + 10
    while True:
        oid, size = struct.unpack_from(e + "HI", d, p)
        if oid == OPT_DONE:
            break
        p += 6 + size
    if p + 2 != fly:
        die("the options do not end before flyrecord")
    page = struct.unpack_from(e + "I", d, 14)[0]
    ncpus = struct.unpack_from(e + "I", d, opts - 4)[0]
    table = fly + 10
    cpus = [list(struct.unpack_from(e + "QQ", d, table + 16 * c)) for c in range(ncpus)]
    data = min((o for o, s in cpus if s), default=len(d))
    # after the CPU table: the trace clock (u64 size, text), then padding
    clk = head_end = table + 16 * ncpus
    if clk + 8 <= data:
        csize = struct.unpack_from(e + "Q", d, clk)[0]
        if clk + 8 + csize <= data:
            head_end = clk + 8 + csize
    shift = 0
    if head_end + len(opt) > data:
        shift = (head_end + len(opt) - data + page - 1) // page * page
        for c in cpus:
            if c[1] or c[0] >= data:
                c[0] += shift
    new = bytearray(d[:p]) + opt + d[p:table]
    for o, s in cpus:
        new += struct.pack(e + "QQ", o, s)
    new += d[clk:head_end]
    new += bytes(data + shift - len(new))
    return bytes(new + d[data:])


def add_v7(d, e, opt):
    # after the page size: the compression name and version, then the u64
    # offset of the first options section
    q = d.index(b"\0", d.index(b"\0", 18) + 1) + 1
    off = struct.unpack_from(e + "Q", d, q)[0]
    last_done, desc, seen = None, 0, set()
    while off and off not in seen:
        seen.add(off)
        sid, sfl, desc, _ = struct.unpack_from(e + "HHIQ", d, off)
        if sid != OPT_DONE:
            die("options section at %#x has id %d" % (off, sid))
        if sfl & 1:
            die("options section at %#x is compressed (trace-cmd convert --compression none)" % off)
        p, off = off + 16, 0
        while True:
            oid, size = struct.unpack_from(e + "HI", d, p)
            if oid == OPT_DONE:
                last_done = p + 6
                off = struct.unpack_from(e + "Q", d, p + 6)[0]
                break
            p += 6 + size
    if last_done is None:
        die("no options section")
    body = opt + struct.pack(e + "HIQ", OPT_DONE, 8, 0)
    start = (len(d) + 7) // 8 * 8
    new = bytearray(d) + bytes(start - len(d))
    new += struct.pack(e + "HHIQ", OPT_DONE, 0, desc, len(body)) + body
    struct.pack_into(e + "Q", new, last_done, start)
    return bytes(new)


def main():
    num = lambda s: int(s, 0)
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("--flags", type=num, default=0)
    ap.add_argument("--trace-id", type=num, default=0)
    ap.add_argument("--no-fractions", action="store_true")
    ap.add_argument("--cpu-count", type=int)
    ap.add_argument("--count-field", type=int)
    ap.add_argument("--truncate", type=int, default=0)
    ap.add_argument("--json")
    ap.add_argument("--sample", action="append", default=[])
    a = ap.parse_args()
    cpus = [norm_cpu(c) for c in json.loads(a.json)["cpus"]] if a.json else []
    if a.sample:
        per = {}
        for s in a.sample:
            f = [num(x) for x in s.split(":")]
            if not 3 <= len(f) <= 5:
                die("bad --sample %s" % s)
            f += [1, 0][len(f) - 3:]
            per.setdefault(f[0], []).append(f[1:])
        cpus = [norm_cpu({"times": [x[0] for x in ss], "offsets": [x[1] for x in ss],
                          "scalings": [x[2] for x in ss], "fractions": [x[3] for x in ss]})
                for ss in (per.get(c, []) for c in range(max(per) + 1))]
    if a.cpu_count is not None:
        cpus = (cpus + [norm_cpu({})] * a.cpu_count)[:a.cpu_count]
    d = open(a.inp, "rb").read()
    if not d.startswith(MAGIC):
        die("not a trace.dat")
    ver = d[10:d.index(b"\0", 10)]
    e = ">" if d[10 + len(ver) + 1] else "<"
    pl = payload(e, a.trace_id, a.flags, cpus, not a.no_fractions, a.count_field)
    if a.truncate:
        pl = pl[:-a.truncate]
    opt = struct.pack(e + "HI", OPT_TIME_SHIFT, len(pl)) + pl
    if ver == b"6":
        out = add_v6(d, e, opt)
    elif ver == b"7":
        out = add_v7(d, e, opt)
    else:
        die("version %r: 6 or 7" % ver)
    open(a.out, "wb").write(out)


if __name__ == "__main__":
    main()
