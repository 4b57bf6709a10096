#!/usr/bin/env python3
"""Make, from a little-endian trace.dat v6 recorded with the x86-tsc clock,
the file `trace-cmd record --tsc2nsec -C x86-tsc` writes (this VM cannot
record one: its perf page gives no TSC multiplier): a TSC2NSEC option (id
14: u32 mult, u32 shift, u64 offset 0, as trace-cmd 3.1 writes it) after the
other options, and the clock after the flyrecord CPU table "[tsc2nsec]"
(trace-cmd's save_clock).  The header grows by those bytes into the padding
before the first CPU page, whose offsets stay as they are.

Usage: add-tsc2nsec.py IN.dat OUT.dat MULT SHIFT
"""
import struct
import sys

MAGIC = b"\x17\x08\x44tracing"


def main(argv):
    if len(argv) != 5:
        sys.exit(__doc__)
    d = bytearray(open(argv[1], "rb").read())
    mult, shift = int(argv[3], 0), int(argv[4], 0)
    if not d.startswith(MAGIC) or d[10:12] != b"6\0" or d[12] != 0:
        sys.exit("add-tsc2nsec: not a little-endian trace.dat v6")
    opts = d.find(b"options  \0")
    fly = d.find(b"flyrecord\0")
    if opts < 0 or fly < opts:
        sys.exit("add-tsc2nsec: no options before the flyrecord table")
    # the options end with id 0 just before "flyrecord"
    p = opts + 10
    while True:
        oid, size = struct.unpack_from("<HI", d, p)
        if oid == 0:
            break
        if oid == 14:
            sys.exit("add-tsc2nsec: already has a TSC2NSEC option")
        p += 6 + size
    if p + 2 != fly:
        sys.exit("add-tsc2nsec: options do not end before flyrecord")
    ncpus = struct.unpack_from("<I", d, opts - 4)[0]
    table = fly + 10
    cpus = [struct.unpack_from("<QQ", d, table + 16 * c) for c in range(ncpus)]
    clk = table + 16 * ncpus
    csize = struct.unpack_from("<Q", d, clk)[0]
    head_end = clk + 8 + csize
    data = min((o for o, s in cpus if s), default=len(d))
    opt = struct.pack("<HIIIQ", 14, 16, mult, shift, 0)
    clock = b"[tsc2nsec]"
    new_head = (bytes(d[:p]) + opt + bytes(d[p:clk]) + struct.pack("<Q", len(clock)) + clock)
    if len(new_head) > data:
        sys.exit("add-tsc2nsec: no room before the first CPU page")
    out = new_head + bytes(data - len(new_head)) + bytes(d[data:])
    if len(out) != len(d):
        sys.exit("add-tsc2nsec: size changed")
    open(argv[2], "wb").write(out)
    print("TSC2NSEC mult %d shift %d" % (mult, shift))


if __name__ == "__main__":
    main(sys.argv)
