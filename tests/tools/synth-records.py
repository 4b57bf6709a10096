#!/usr/bin/python3
"""Rewrite the trace_marker records of a real v6 recording (made with `-e all`,
so that it carries every event format of its kernel, and 1400-byte
trace_marker writes) into records of every other event class, one after the
other in a shuffled order, their fields filled with values chosen by SEED:
integers from a list of edges (0, 1, 0xff, 0x80000000, 2^64-1, negative
ones for signed fields, kernel text addresses kallsyms names), lengths and
counts small, strings and dynamic arrays in the record's free space, char
arrays named after their field; with SEED 3, every common_flags byte and
many preempt counts too (report -l's columns).  trace-cmd report is then the reference for
the print fmt of every event class of the kernel, fired or not
(tests/ftrace/test-allformats.sh).  64-bit v6 files only.

usage: synth-records.py IN.dat OUT.dat SEED
"""
import os
import random
import re
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tdv6  # noqa: E402

FIELD = re.compile(r'\tfield:(.*?)\s+([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?;\toffset:(\d+);\tsize:(\d+);\tsigned:(\d+);')


def parse(text):
    name = re.search(r'^name: (\S+)', text, re.M).group(1)
    eid = int(re.search(r'^ID: (\d+)', text, re.M).group(1))
    fields = []
    for m in FIELD.finditer(text):
        fields.append((m.group(1), m.group(2), m.group(3) or '', int(m.group(4)), int(m.group(5)), int(m.group(6))))
    return eid, name, fields


def main(inp, out, seed):
    rng = random.Random(seed)
    b = bytearray(open(inp, 'rb').read())
    v = tdv6.V6(b)
    e = v.e
    texts = list(v.ftrace) + [t for _, ts in v.systems for t in ts]
    fmts = [parse(t) for t in texts]
    pid_print = next(f[0] for f in fmts if f[1] == 'print')
    fmts = [f for f in fmts if f[1] not in ('print', 'bprint', 'bputs')]
    rng.shuffle(fmts)
    # kernel text addresses that kallsyms knows
    syms = [int(l.split()[0], 16) for l in v.kallsyms.splitlines()[:200000:997] if l and l.split()[1] in 'tT']
    vals = [0, 1, 2, 3, 5, 7, 8, 0x10, 0x40, 0xff, 0x100, 0x1234, 0x8000, 0xffff, 0x10000, 0x7fffffff,
            0x80000000, 0xffffffff, 0x123456789, (1 << 63), (1 << 64) - 1, (1 << 64) - 2]
    recs = [(d, n) for ts, cpu, d, n in v.records() if v.u('H', d) == pid_print]
    k = 0
    done = set()
    for (d, n), f in zip(recs, fmts * 3):
        eid, name, fields = f
        if not fields:
            continue
        fixed = max(o + s for _, _, _, o, s, _ in fields)
        if fixed + 64 > n:
            continue
        rec = bytearray(n)
        rec[0:8] = b[d:d + 8]
        struct.pack_into(e + 'H', rec, 0, eid)
        if seed == 3:  # every common_flags byte and many preempt counts (the -l columns)
            rec[2], rec[3] = k & 0xff, (k * 7 + k // 256) & 0xff
        cur = (fixed + 3) & ~3
        for typ, fname, arr, off, size, sgn in fields:
            if fname.startswith('common_'):
                continue
            if typ.startswith('__data_loc') or typ.startswith('__rel_loc'):
                if 'char' in typ:
                    data = (('s_' + fname)[:rng.choice([0, 3, 40])] + '\0').encode()
                    if rng.random() < 0.2:
                        data = b'\0'
                else:
                    data = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 4, 8, 16, 24])))
                if cur + len(data) > n:
                    data = b''
                rec[cur:cur + len(data)] = data
                rel = cur - (off + size) if typ.startswith('__rel_loc') else cur
                if size == 4:
                    struct.pack_into(e + 'I', rec, off, (len(data) << 16) | rel)
                cur += (len(data) + 3) & ~3
            elif arr and 'char' in typ and '[' in arr:
                s = ('c_' + fname).encode()[:max(size - 1, 0)]
                rec[off:off + len(s)] = s
            elif size in (1, 2, 4, 8) and not arr:
                x = rng.choice(vals + syms[:20] if size == 8 else vals)
                if rng.random() < 0.15 and sgn:
                    x = -rng.choice([1, 2, 100, 1 << (8 * size - 1)])
                if re.search(r'len|size|count|num|nr|cnt', fname):  # lengths of buffers: small, not negative
                    x = rng.choice([0, 1, 2, 4, 8, 16])
                x %= 1 << (8 * size)
                rec[off:off + size] = x.to_bytes(size, 'little' if e == '<' else 'big')
            else:
                for i in range(size):
                    rec[off + i] = rng.randrange(256)
        b[d:d + n] = rec
        k += 1
        done.add(eid)
    open(out, 'wb').write(b)
    print('rewrote %d records, %d event classes' % (k, len(done)))


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
